#include "executor/plan.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "device/device.h"
#include "executor/control_flow.h"
#include "executor/device_graph.h"
#include "graph/import.h"
#include "kernels/op_kernel.h"

namespace weft {

Plan::Plan() = default;
Plan::~Plan() = default;

namespace {

struct EndpointKey {
  int node;
  int index;
  bool operator==(const EndpointKey& o) const {
    return node == o.node && index == o.index;
  }
  template <typename H>
  friend H AbslHashValue(H h, const EndpointKey& k) {
    return H::combine(std::move(h), k.node, k.index);
  }
};

bool IsPlaceholder(const Node* n) { return n->op() == "Placeholder"; }

StatusOr<EndpointKey> ResolveTensorName(const Graph& graph,
                                        const std::string& name,
                                        absl::string_view role) {
  auto parsed = ParseNodeInput(name);
  if (!parsed.ok() || parsed->is_control) {
    return errors::InvalidArgument(role, " '", name,
                                   "' is not a tensor name ('node' or "
                                   "'node:index')");
  }
  const Node* n = graph.FindNode(parsed->node);
  if (n == nullptr) {
    return errors::NotFound(role, " '", name, "': no node named '",
                            parsed->node, "'");
  }
  if (parsed->index >= n->num_outputs()) {
    return errors::InvalidArgument(role, " '", name, "': node ", n->DebugName(),
                                   " has ", n->num_outputs(), " output",
                                   n->num_outputs() == 1 ? "" : "s");
  }
  return EndpointKey{n->id(), parsed->index};
}

// Where a tensor is, for deciding copies: null for host memory, else the
// device whose memory holds it.
Device* Location(Device* device, MemorySpace space) {
  if (space == MemorySpace::kHost ||
      device->allocator()->memory_space() == MemorySpace::kHost) {
    return nullptr;
  }
  return device;
}

// Copies `value` into `device`'s memory and waits for the copy.
StatusOr<std::unique_ptr<Tensor>> Upload(const Tensor& value, Device* device) {
  WEFT_ASSIGN_OR_RETURN(
      Tensor dst,
      Tensor::Allocate(device->allocator(), value.dtype(), value.shape()));
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  device->device_context()->CopyHostToDevice(value, &dst, [&](Status s) {
    std::lock_guard<std::mutex> lock(mu);
    status = std::move(s);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  WEFT_RETURN_IF_ERROR(status);
  return std::make_unique<Tensor>(std::move(dst));
}

}  // namespace

StatusOr<std::unique_ptr<Plan>> BuildPlan(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const BuildPlanOptions& options) {
  const std::string& src = options.source_name;
  auto plan = std::make_unique<Plan>();
  plan->host_allocator = options.host_allocator != nullptr
                             ? options.host_allocator
                             : DefaultCpuAllocator();

  absl::flat_hash_map<EndpointKey, int> feed_index;
  std::vector<EndpointKey> feed_keys;
  for (size_t i = 0; i < feeds.size(); ++i) {
    auto key = ResolveTensorName(graph, feeds[i], "feed");
    if (!key.ok()) return AddContext(key.status(), src);
    if (!feed_index.emplace(*key, static_cast<int>(i)).second) {
      return errors::InvalidArgument(src, ": feed '", feeds[i],
                                     "' is given twice");
    }
    feed_keys.push_back(*key);
    const Node* n = graph.node(key->node);
    plan->feed_dtypes.push_back(n->output_type(key->index));
    plan->feed_shapes.push_back(graph.output_shape(n, key->index));
  }
  std::vector<EndpointKey> fetch_keys;
  for (const std::string& name : fetches) {
    auto key = ResolveTensorName(graph, name, "fetch");
    if (!key.ok()) return AddContext(key.status(), src);
    fetch_keys.push_back(*key);
    const Node* n = graph.node(key->node);
    plan->fetch_dtypes.push_back(n->output_type(key->index));
    plan->fetch_shapes.push_back(graph.output_shape(n, key->index));
  }
  plan->num_fetches = static_cast<int>(fetch_keys.size());

  // Walk back from what is fetched or targeted. A node runs when some needed
  // tensor comes from it that is neither fed nor a session constant.
  const int n_graph = graph.num_nodes();
  std::vector<const Node*> needed_by(n_graph, nullptr);
  std::vector<bool> needed(n_graph, false);
  std::vector<int> stack;
  auto is_preset = [&](const Node* n, int index) {
    return feed_index.contains(EndpointKey{n->id(), index}) ||
           resources->ConstValue(n) != nullptr;
  };
  auto need = [&](const Node* n, const Node* by) {
    if (needed[n->id()]) return;
    needed[n->id()] = true;
    needed_by[n->id()] = by;
    stack.push_back(n->id());
  };
  for (const EndpointKey& k : fetch_keys) {
    const Node* n = graph.node(k.node);
    if (!is_preset(n, k.index)) need(n, nullptr);
  }
  for (const std::string& t : targets) {
    const Node* n = graph.FindNode(t);
    if (n == nullptr) {
      return errors::NotFound(src, ": target '", t, "': no node named '", t,
                              "'");
    }
    if (resources->ConstValue(n) == nullptr) need(n, nullptr);
  }
  while (!stack.empty()) {
    const Node* n = graph.node(stack.back());
    stack.pop_back();
    if (IsPlaceholder(n)) {
      const Node* by = needed_by[n->id()];
      return errors::InvalidArgument(
          src, ": node ", n->DebugName(), " must be fed",
          by ? absl::StrCat(": node ", by->DebugName(), " needs it")
             : std::string(": it is fetched"));
    }
    for (const Endpoint& e : n->inputs()) {
      if (!is_preset(e.node, e.index)) need(e.node, n);
    }
    for (const Node* c : n->control_inputs()) {
      if (resources->ConstValue(c) == nullptr) need(c, n);
    }
  }

  // Plan nodes in topological order, so that a run over the initial ready
  // set tends to touch memory in order.
  WEFT_ASSIGN_OR_RETURN(std::vector<int> order, graph.TopologicalOrder());
  std::vector<int> plan_index(n_graph, -1);
  for (int id : order) {
    if (!needed[id]) continue;
    plan_index[id] = static_cast<int>(plan->nodes.size());
    PlanNode pn;
    pn.node = graph.node(id);
    const OpKernel* kernel = nullptr;
    Device* device = nullptr;
    WEFT_RETURN_IF_ERROR_CTX(resources->GetKernel(pn.node, &kernel, &device),
                             src);
    pn.kernel = kernel;
    pn.device = device;
    if (dynamic_cast<const ControlFlowKernel*>(kernel) != nullptr) {
      pn.step = PlanStep::kControlFlow;
    }
    pn.expensive = kernel->IsExpensive();
    pn.is_async = kernel->AsAsync() != nullptr;
    pn.num_inputs = pn.node->num_inputs();
    pn.num_outputs = pn.node->num_outputs();
    pn.input_base = plan->num_input_slots;
    plan->num_input_slots += pn.num_inputs;
    plan->max_node_outputs = std::max(plan->max_node_outputs, pn.num_outputs);
    plan->nodes.push_back(pn);
  }

  // Fetch indices per endpoint, for the edges below.
  absl::flat_hash_map<EndpointKey, std::vector<int>> fetch_index;
  for (size_t i = 0; i < fetch_keys.size(); ++i) {
    fetch_index[fetch_keys[i]].push_back(static_cast<int>(i));
  }

  // Edges per plan node and output, flattened into Plan::edges at the end,
  // since copy steps are added as nodes while the edges are routed.
  std::vector<std::vector<std::vector<PlanEdge>>> out_edges;
  for (const PlanNode& pn : plan->nodes) out_edges.emplace_back(pn.num_outputs);
  // Adds an edge from a producer: a plan node's output, or a preset tensor
  // (whose consumers are not waited for: it is there when the run starts).
  using Emit = std::function<void(const PlanEdge&)>;
  auto node_emit = [&](int producer, int output) -> Emit {
    return [&plan, &out_edges, producer, output](const PlanEdge& e) {
      out_edges[producer][output].push_back(e);
      if (e.dst_node >= 0) plan->nodes[e.dst_node].initial_pending++;
    };
  };
  auto preset_emit = [&plan](int preset) -> Emit {
    return [&plan, preset](const PlanEdge& e) {
      PresetTensor& p = plan->presets[preset];
      if (e.dst_node >= 0) {
        p.slots.push_back(e.dst_slot);
      } else {
        p.fetches.push_back(e.dst_slot);
      }
    };
  };
  auto add_copy = [&](const Node* n, int o, Device* device, PlanStep step) {
    PlanNode pn;
    pn.node = n;
    pn.device = device;
    pn.step = step;
    pn.copy_output = o;
    pn.num_inputs = 1;
    pn.num_outputs = 1;
    pn.input_base = plan->num_input_slots++;
    pn.expensive = false;
    plan->nodes.push_back(pn);
    out_edges.emplace_back(1);
    plan->max_node_outputs = std::max(plan->max_node_outputs, 1);
    plan->num_copies++;
    return static_cast<int>(plan->nodes.size()) - 1;
  };

  // Sends output `o` of `n`, which is at `from` and leaves through `emit`,
  // to consumer input slots of the plan and to fetches (`fetch_ids`),
  // inserting copies where a destination reads it in another memory space.
  // `value` is the constant's value when `n` is a session constant.
  auto route = [&](const Node* n, int o, Device* from, Emit emit,
                   const std::vector<int>& fetch_ids,
                   const Tensor* value) -> Status {
    // Producers of the tensor per location, the source's own first.
    std::vector<std::pair<Device*, Emit>> at = {{from, std::move(emit)}};
    std::function<StatusOr<Emit>(Device*)> emit_at =
        [&](Device* loc) -> StatusOr<Emit> {
      for (const auto& [l, e] : at) {
        if (l == loc) return e;
      }
      Emit made;
      if (loc == nullptr) {
        // To the host from the device that holds it.
        int c = add_copy(n, o, from, PlanStep::kCopyToHost);
        WEFT_ASSIGN_OR_RETURN(Emit src_emit, emit_at(from));
        src_emit(PlanEdge{c, plan->nodes[c].input_base});
        made = node_emit(c, 0);
      } else if (value != nullptr && from == nullptr &&
                 options.upload_constants) {
        auto uploaded = Upload(*value, loc);
        if (!uploaded.ok()) {
          return AddContext(uploaded.status(),
                            absl::StrCat(src, ": copying constant ",
                                         n->DebugName(), " to ", loc->name()));
        }
        plan->device_constants.push_back(std::move(*uploaded));
        PresetTensor p;
        p.value = plan->device_constants.back().get();
        plan->presets.push_back(std::move(p));
        made = preset_emit(static_cast<int>(plan->presets.size()) - 1);
      } else {
        // To a device from the host (through it, from another device).
        WEFT_ASSIGN_OR_RETURN(Emit host_emit, emit_at(nullptr));
        int c = add_copy(n, o, loc, PlanStep::kCopyToDevice);
        host_emit(PlanEdge{c, plan->nodes[c].input_base});
        made = node_emit(c, 0);
      }
      at.emplace_back(loc, made);
      return made;
    };
    for (const Endpoint& c : n->consumers(o)) {
      int dst = plan_index[c.node->id()];
      if (dst < 0) continue;
      // By value: emit_at may add copy steps, moving plan->nodes.
      const int slot = plan->nodes[dst].input_base + c.index;
      Device* loc =
          Location(plan->nodes[dst].device,
                   plan->nodes[dst].kernel->input_memory_space(c.index));
      WEFT_ASSIGN_OR_RETURN(Emit e, emit_at(loc));
      e(PlanEdge{dst, slot});
    }
    for (int f : fetch_ids) {
      WEFT_ASSIGN_OR_RETURN(Emit e, emit_at(nullptr));
      e(PlanEdge{-1, f});
    }
    return Status();
  };
  auto fetches_of = [&](const Node* n, int o) {
    auto it = fetch_index.find(EndpointKey{n->id(), o});
    return it == fetch_index.end() ? std::vector<int>() : it->second;
  };

  const int num_kernel_nodes = static_cast<int>(plan->nodes.size());
  std::vector<std::vector<int>> ctrl_edges(num_kernel_nodes);
  for (int i = 0; i < num_kernel_nodes; ++i) {
    const PlanNode pn = plan->nodes[i];  // routing appends to plan->nodes
    const Node* n = pn.node;
    for (int o = 0; o < pn.num_outputs; ++o) {
      if (feed_index.contains(EndpointKey{n->id(), o})) continue;  // fed
      Device* from = Location(pn.device, pn.kernel->output_memory_space(o));
      WEFT_RETURN_IF_ERROR(
          route(n, o, from, node_emit(i, o), fetches_of(n, o), nullptr));
    }
    for (const Node* c : n->control_outputs()) {
      int dst = plan_index[c->id()];
      if (dst < 0) continue;
      ctrl_edges[i].push_back(dst);
      plan->nodes[dst].initial_pending++;
    }
  }

  // Tensors known before the run: feeds, then session constants, all in
  // host memory.
  for (size_t i = 0; i < feed_keys.size(); ++i) {
    PresetTensor p;
    p.feed_index = static_cast<int>(i);
    plan->presets.push_back(std::move(p));
    const Node* n = graph.node(feed_keys[i].node);
    WEFT_RETURN_IF_ERROR(
        route(n, feed_keys[i].index, nullptr,
              preset_emit(static_cast<int>(plan->presets.size()) - 1),
              fetches_of(n, feed_keys[i].index), nullptr));
  }
  for (int id = 0; id < n_graph; ++id) {
    const Node* n = graph.node(id);
    const Tensor* value = resources->ConstValue(n);
    if (value == nullptr || feed_index.contains(EndpointKey{id, 0})) continue;
    PresetTensor p;
    p.value = value;
    plan->presets.push_back(std::move(p));
    WEFT_RETURN_IF_ERROR(route(
        n, 0, nullptr, preset_emit(static_cast<int>(plan->presets.size()) - 1),
        fetches_of(n, 0), value));
  }
  // Constants nobody reads here (pruned away, or all read on a device).
  plan->presets.erase(std::remove_if(plan->presets.begin(), plan->presets.end(),
                                     [](const PresetTensor& p) {
                                       return p.feed_index < 0 &&
                                              p.slots.empty() &&
                                              p.fetches.empty();
                                     }),
                      plan->presets.end());

  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    PlanNode& pn = plan->nodes[i];
    pn.out_base = static_cast<int>(plan->out_begin.size());
    for (int o = 0; o < pn.num_outputs; ++o) {
      plan->out_begin.push_back(static_cast<int>(plan->edges.size()));
      plan->edges.insert(plan->edges.end(), out_edges[i][o].begin(),
                         out_edges[i][o].end());
    }
    plan->out_begin.push_back(static_cast<int>(plan->edges.size()));
    pn.ctrl_begin = static_cast<int>(plan->control_edges.size());
    if (static_cast<int>(i) < num_kernel_nodes) {
      plan->control_edges.insert(plan->control_edges.end(),
                                 ctrl_edges[i].begin(), ctrl_edges[i].end());
    }
    pn.ctrl_end = static_cast<int>(plan->control_edges.size());
    if (pn.initial_pending == 0) {
      plan->initial_ready.push_back(static_cast<int>(i));
    }
    Device* d = pn.device;
    if (d->is_async() &&
        std::find(plan->async_devices.begin(), plan->async_devices.end(), d) ==
            plan->async_devices.end()) {
      plan->async_devices.push_back(d);
    }
  }
  return plan;
}

}  // namespace weft
