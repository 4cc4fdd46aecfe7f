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

void Plan::set_optimized(std::shared_ptr<const OptimizedGraph> optimized) {
  optimized_ = std::move(optimized);
}

void Plan::set_accelerator(std::shared_ptr<Device> accelerator) {
  accelerator_ = std::move(accelerator);
}

void Plan::set_device_graph(std::unique_ptr<DeviceGraph> graph) {
  device_graph_ = std::move(graph);
}

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

bool IsPlaceholder(const Node* n) {
  return n->op() == "Placeholder" || n->op() == "PlaceholderV2";
}

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

// BuildPlan's steps, in order (Build). Plan node indices are kernel nodes
// in topological order first, then the copy steps routing adds. Outside the
// anonymous namespace: Plan names it as the one writer of its fields.
class PlanBuilder {
 public:
  PlanBuilder(const Graph& graph, PlanResources* resources,
              const BuildPlanOptions& options)
      : graph_(graph),
        resources_(resources),
        options_(options),
        src_(options.source_name),
        plan_(std::make_unique<Plan>()) {
    plan_->host_allocator_ = options.host_allocator != nullptr
                                 ? options.host_allocator
                                 : DefaultCpuAllocator();
  }

  StatusOr<std::unique_ptr<Plan>> Build(
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets) {
    WEFT_RETURN_IF_ERROR(MarkSignature(feeds, fetches, targets));
    WEFT_RETURN_IF_ERROR(AddKernelNodes());
    WEFT_RETURN_IF_ERROR(RouteKernelOutputs());
    WEFT_RETURN_IF_ERROR(RoutePresets());
    Flatten();
    return std::move(plan_);
  }

  // Steps 1 to 3, then the needed nodes in step 4's order (PlanNodes).
  StatusOr<std::vector<const Node*>> NeededNodes(
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets) {
    WEFT_RETURN_IF_ERROR(MarkSignature(feeds, fetches, targets));
    WEFT_ASSIGN_OR_RETURN(std::vector<int> order, graph_.TopologicalOrder());
    std::vector<const Node*> nodes;
    for (int id : order) {
      if (needed_[id]) nodes.push_back(graph_.node(id));
    }
    return nodes;
  }

 private:
  // Steps 1 to 3.
  Status MarkSignature(const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets) {
    WEFT_RETURN_IF_ERROR(ResolveFeeds(feeds));
    WEFT_RETURN_IF_ERROR(ResolveFetches(fetches));
    return MarkNeeded(targets);
  }

  // Adds an edge from a producer: a plan node's output, or a preset tensor
  // (whose consumers are not waited for: it is there when the run starts).
  using Emit = std::function<void(const PlanEdge&)>;

  // One tensor being routed (Route): where it is made and where it already
  // is, the source's own place first.
  struct Routing {
    const Node* node;
    int output;
    Device* from;
    const Tensor* value;  // the constant's value, for a session constant
    std::vector<std::pair<Device*, Emit>> at;
  };

  // Step 1: the feeds, their dtypes and shapes; a feed given twice fails.
  Status ResolveFeeds(const std::vector<std::string>& feeds) {
    for (size_t i = 0; i < feeds.size(); ++i) {
      auto key = ResolveTensorName(graph_, feeds[i], "feed");
      if (!key.ok()) return AddContext(key.status(), src_);
      if (!feed_index_.emplace(*key, static_cast<int>(i)).second) {
        return errors::InvalidArgument(src_, ": feed '", feeds[i],
                                       "' is given twice");
      }
      feed_keys_.push_back(*key);
      const Node* n = graph_.node(key->node);
      plan_->feed_dtypes_.push_back(n->output_type(key->index));
      plan_->feed_shapes_.push_back(graph_.output_shape(n, key->index));
    }
    return Status();
  }

  // Step 2: the fetches, their dtypes and shapes, and the fetch indices
  // per endpoint for routing.
  Status ResolveFetches(const std::vector<std::string>& fetches) {
    for (const std::string& name : fetches) {
      auto key = ResolveTensorName(graph_, name, "fetch");
      if (!key.ok()) return AddContext(key.status(), src_);
      fetch_keys_.push_back(*key);
      const Node* n = graph_.node(key->node);
      plan_->fetch_dtypes_.push_back(n->output_type(key->index));
      plan_->fetch_shapes_.push_back(graph_.output_shape(n, key->index));
    }
    plan_->num_fetches_ = static_cast<int>(fetch_keys_.size());
    for (size_t i = 0; i < fetch_keys_.size(); ++i) {
      fetch_index_[fetch_keys_[i]].push_back(static_cast<int>(i));
    }
    return Status();
  }

  bool IsPreset(const Node* n, int index) const {
    return feed_index_.contains(EndpointKey{n->id(), index}) ||
           resources_->ConstValue(n) != nullptr;
  }

  // Step 3: walks back from what is fetched or targeted. A node runs when
  // some needed tensor comes from it that is neither fed nor a session
  // constant; an unfed Placeholder that is needed fails.
  Status MarkNeeded(const std::vector<std::string>& targets) {
    const int n_graph = graph_.num_nodes();
    std::vector<const Node*> needed_by(n_graph, nullptr);
    needed_.assign(n_graph, false);
    std::vector<int> stack;
    auto need = [&](const Node* n, const Node* by) {
      if (needed_[n->id()]) return;
      needed_[n->id()] = true;
      needed_by[n->id()] = by;
      stack.push_back(n->id());
    };
    for (const EndpointKey& k : fetch_keys_) {
      const Node* n = graph_.node(k.node);
      if (!IsPreset(n, k.index)) need(n, nullptr);
    }
    for (const std::string& t : targets) {
      const Node* n = graph_.FindNode(t);
      if (n == nullptr) {
        return errors::NotFound(src_, ": target '", t, "': no node named '", t,
                                "'");
      }
      if (resources_->ConstValue(n) == nullptr) need(n, nullptr);
    }
    while (!stack.empty()) {
      const Node* n = graph_.node(stack.back());
      stack.pop_back();
      if (IsPlaceholder(n)) {
        const Node* by = needed_by[n->id()];
        return errors::InvalidArgument(
            src_, ": node ", n->DebugName(), " must be fed",
            by ? absl::StrCat(": node ", by->DebugName(), " needs it")
               : std::string(": it is fetched"));
      }
      for (const Endpoint& e : n->inputs()) {
        if (!IsPreset(e.node, e.index)) need(e.node, n);
      }
      for (const Node* c : n->control_inputs()) {
        if (resources_->ConstValue(c) == nullptr) need(c, n);
      }
    }
    return Status();
  }

  // Step 4: one plan node per needed node, in topological order (so that a
  // run over the initial ready set tends to touch memory in order), with
  // its kernel and device.
  Status AddKernelNodes() {
    WEFT_ASSIGN_OR_RETURN(std::vector<int> order, graph_.TopologicalOrder());
    plan_index_.assign(graph_.num_nodes(), -1);
    for (int id : order) {
      if (!needed_[id]) continue;
      plan_index_[id] = static_cast<int>(plan_->nodes_.size());
      PlanNode pn;
      pn.node = graph_.node(id);
      const OpKernel* kernel = nullptr;
      Device* device = nullptr;
      {
        // The session constants its inputs read, for kernels that prepare
        // them once (OpKernelConstruction::constant_input); none for a plan
        // only inspected (BuildPlanOptions::upload_constants). Whether a
        // signature feeds one is left to the kernel's check in Compute: the
        // session's kernels serve every signature.
        std::vector<const Tensor*> constants;
        for (const Endpoint& e : pn.node->inputs()) {
          constants.push_back(e.index == 0 && options_.upload_constants
                                  ? resources_->ConstValue(e.node)
                                  : nullptr);
        }
        ConstantInputScope scope(&pn.node->def(), constants);
        WEFT_RETURN_IF_ERROR_CTX(
            resources_->GetKernel(pn.node, &kernel, &device), src_);
      }
      pn.kernel = kernel;
      pn.device = device;
      if (dynamic_cast<const ControlFlowKernel*>(kernel) != nullptr) {
        pn.step = PlanStep::kControlFlow;
      }
      pn.expensive = kernel->IsExpensive();
      pn.is_async = kernel->AsAsync() != nullptr;
      pn.num_inputs = pn.node->num_inputs();
      pn.num_outputs = pn.node->num_outputs();
      pn.input_base = plan_->num_input_slots_;
      plan_->num_input_slots_ += pn.num_inputs;
      plan_->max_node_outputs_ =
          std::max(plan_->max_node_outputs_, pn.num_outputs);
      plan_->nodes_.push_back(pn);
    }
    num_kernel_nodes_ = static_cast<int>(plan_->nodes_.size());
    // Edges per plan node and output, flattened into Plan::edges at the
    // end, since copy steps are added as nodes while the edges are routed.
    for (const PlanNode& pn : plan_->nodes_) {
      out_edges_.emplace_back(pn.num_outputs);
    }
    ctrl_edges_.resize(num_kernel_nodes_);
    return Status();
  }

  // Step 5: every output of every kernel node (but fed ones) to its
  // consumers and fetches; control edges.
  Status RouteKernelOutputs() {
    for (int i = 0; i < num_kernel_nodes_; ++i) {
      const PlanNode pn = plan_->nodes_[i];  // routing appends to nodes
      const Node* n = pn.node;
      for (int o = 0; o < pn.num_outputs; ++o) {
        if (feed_index_.contains(EndpointKey{n->id(), o})) continue;  // fed
        Device* from = Location(pn.device, pn.kernel->output_memory_space(o));
        WEFT_RETURN_IF_ERROR(Route(n, o, from, NodeEmit(i, o), nullptr));
      }
      for (const Node* c : n->control_outputs()) {
        int dst = plan_index_[c->id()];
        if (dst < 0) continue;
        ctrl_edges_[i].push_back(dst);
        plan_->nodes_[dst].initial_pending++;
      }
    }
    return Status();
  }

  // Step 6: the tensors known before the run, feeds and then session
  // constants, all in host memory, to their consumers and fetches; then
  // drops the constants nobody here reads (pruned away, or all read on a
  // device from an uploaded copy).
  Status RoutePresets() {
    for (size_t i = 0; i < feed_keys_.size(); ++i) {
      PresetTensor p;
      p.feed_index = static_cast<int>(i);
      plan_->presets_.push_back(std::move(p));
      const Node* n = graph_.node(feed_keys_[i].node);
      WEFT_RETURN_IF_ERROR(Route(n, feed_keys_[i].index, nullptr,
                                 PresetEmit(LastPreset()), nullptr));
    }
    for (int id = 0; id < graph_.num_nodes(); ++id) {
      const Node* n = graph_.node(id);
      const Tensor* value = resources_->ConstValue(n);
      if (value == nullptr || feed_index_.contains(EndpointKey{id, 0})) {
        continue;
      }
      PresetTensor p;
      p.value = value;
      plan_->presets_.push_back(std::move(p));
      WEFT_RETURN_IF_ERROR(
          Route(n, 0, nullptr, PresetEmit(LastPreset()), value));
    }
    std::vector<PresetTensor>& presets = plan_->presets_;
    presets.erase(std::remove_if(presets.begin(), presets.end(),
                                 [](const PresetTensor& p) {
                                   return p.feed_index < 0 && p.slots.empty() &&
                                          p.fetches.empty();
                                 }),
                  presets.end());
    return Status();
  }

  // Step 7: the per-node edge lists into Plan's flat arrays; the initial
  // ready set; the asynchronous devices; which preset fills each slot.
  void Flatten() {
    Plan& plan = *plan_;
    plan.slot_preset_.assign(plan.num_input_slots_, -1);
    plan.slot_forwardable_ = std::make_unique<bool[]>(plan.num_input_slots_);
    for (int slot = 0; slot < plan.num_input_slots_; ++slot) {
      plan.slot_forwardable_[slot] = true;
    }
    for (size_t i = 0; i < plan.presets_.size(); ++i) {
      for (int slot : plan.presets_[i].slots) {
        plan.slot_preset_[slot] = static_cast<int>(i);
        plan.slot_forwardable_[slot] = false;
      }
    }
    plan.feed_sole_slot_.assign(plan.feed_dtypes_.size(), -1);
    plan.slot_forwardable_taking_feeds_ =
        std::make_unique<bool[]>(plan.num_input_slots_);
    std::copy_n(plan.slot_forwardable_.get(), plan.num_input_slots_,
                plan.slot_forwardable_taking_feeds_.get());
    for (const PresetTensor& p : plan.presets_) {
      if (p.feed_index < 0 || p.slots.size() != 1 || !p.fetches.empty()) {
        continue;
      }
      plan.feed_sole_slot_[p.feed_index] = p.slots[0];
      plan.slot_forwardable_taking_feeds_[p.slots[0]] = true;
    }
    for (size_t i = 0; i < plan.nodes_.size(); ++i) {
      PlanNode& pn = plan.nodes_[i];
      pn.out_base = static_cast<int>(plan.out_begin_.size());
      for (int o = 0; o < pn.num_outputs; ++o) {
        plan.out_begin_.push_back(static_cast<int>(plan.edges_.size()));
        plan.edges_.insert(plan.edges_.end(), out_edges_[i][o].begin(),
                           out_edges_[i][o].end());
      }
      plan.out_begin_.push_back(static_cast<int>(plan.edges_.size()));
      pn.ctrl_begin = static_cast<int>(plan.control_edges_.size());
      if (static_cast<int>(i) < num_kernel_nodes_) {
        plan.control_edges_.insert(plan.control_edges_.end(),
                                   ctrl_edges_[i].begin(),
                                   ctrl_edges_[i].end());
      }
      pn.ctrl_end = static_cast<int>(plan.control_edges_.size());
      if (pn.initial_pending == 0) {
        plan.initial_ready_.push_back(static_cast<int>(i));
      }
      Device* d = pn.device;
      if (d->is_async() &&
          std::find(plan.async_devices_.begin(), plan.async_devices_.end(),
                    d) == plan.async_devices_.end()) {
        plan.async_devices_.push_back(d);
      }
    }
  }

  int LastPreset() const {
    return static_cast<int>(plan_->presets_.size()) - 1;
  }

  Emit NodeEmit(int producer, int output) {
    return [this, producer, output](const PlanEdge& e) {
      out_edges_[producer][output].push_back(e);
      if (e.dst_node >= 0) plan_->nodes_[e.dst_node].initial_pending++;
    };
  }

  Emit PresetEmit(int preset) {
    return [this, preset](const PlanEdge& e) {
      PresetTensor& p = plan_->presets_[preset];
      if (e.dst_node >= 0) {
        p.slots.push_back(e.dst_slot);
      } else {
        p.fetches.push_back(e.dst_slot);
      }
    };
  }

  // A copy step moving output `o` of `n` with `device`'s context.
  int AddCopy(const Node* n, int o, Device* device, PlanStep step) {
    PlanNode pn;
    pn.node = n;
    pn.device = device;
    pn.step = step;
    pn.copy_output = o;
    pn.num_inputs = 1;
    pn.num_outputs = 1;
    pn.input_base = plan_->num_input_slots_++;
    pn.expensive = false;
    plan_->nodes_.push_back(pn);
    out_edges_.emplace_back(1);
    plan_->max_node_outputs_ = std::max(plan_->max_node_outputs_, 1);
    plan_->num_copies_++;
    return static_cast<int>(plan_->nodes_.size()) - 1;
  }

  // Sends output `o` of `n`, which is at `from` and leaves through `emit`,
  // to consumer input slots of the plan and to its fetches, inserting
  // copies where a destination reads it in another memory space. `value`
  // is the constant's value when `n` is a session constant.
  Status Route(const Node* n, int o, Device* from, Emit emit,
               const Tensor* value) {
    Routing r{n, o, from, value, {}};
    r.at.emplace_back(from, std::move(emit));
    for (const Endpoint& c : n->consumers(o)) {
      int dst = plan_index_[c.node->id()];
      if (dst < 0) continue;
      // By value: EmitAt may add copy steps, moving plan_->nodes_.
      const int slot = plan_->nodes_[dst].input_base + c.index;
      Device* loc =
          Location(plan_->nodes_[dst].device,
                   plan_->nodes_[dst].kernel->input_memory_space(c.index));
      WEFT_ASSIGN_OR_RETURN(Emit e, EmitAt(&r, loc));
      e(PlanEdge{dst, slot});
    }
    auto fetched = fetch_index_.find(EndpointKey{n->id(), o});
    if (fetched != fetch_index_.end()) {
      for (int f : fetched->second) {
        WEFT_ASSIGN_OR_RETURN(Emit e, EmitAt(&r, nullptr));
        e(PlanEdge{-1, f});
      }
    }
    return Status();
  }

  // Where the routed tensor leaves from at `loc` (null: host memory): its
  // source, or a copy step (one per destination space, shared), or for a
  // constant read on a device an uploaded copy made now.
  StatusOr<Emit> EmitAt(Routing* r, Device* loc) {
    for (const auto& [l, e] : r->at) {
      if (l == loc) return e;
    }
    Emit made;
    if (loc == nullptr) {
      // To the host from the device that holds it.
      int c = AddCopy(r->node, r->output, r->from, PlanStep::kCopyToHost);
      WEFT_ASSIGN_OR_RETURN(Emit src_emit, EmitAt(r, r->from));
      src_emit(PlanEdge{c, plan_->nodes_[c].input_base});
      made = NodeEmit(c, 0);
    } else if (r->value != nullptr && r->from == nullptr &&
               options_.upload_constants) {
      auto uploaded = Upload(*r->value, loc);
      if (!uploaded.ok()) {
        return AddContext(
            uploaded.status(),
            absl::StrCat(src_, ": copying constant ", r->node->DebugName(),
                         " to ", loc->name()));
      }
      plan_->device_constants_.push_back(std::move(*uploaded));
      PresetTensor p;
      p.value = plan_->device_constants_.back().get();
      plan_->presets_.push_back(std::move(p));
      made = PresetEmit(LastPreset());
    } else {
      // To a device from the host (through it, from another device).
      WEFT_ASSIGN_OR_RETURN(Emit host_emit, EmitAt(r, nullptr));
      int c = AddCopy(r->node, r->output, loc, PlanStep::kCopyToDevice);
      host_emit(PlanEdge{c, plan_->nodes_[c].input_base});
      made = NodeEmit(c, 0);
    }
    r->at.emplace_back(loc, made);
    return made;
  }

  const Graph& graph_;
  PlanResources* const resources_;
  const BuildPlanOptions& options_;
  const std::string& src_;
  std::unique_ptr<Plan> plan_;

  absl::flat_hash_map<EndpointKey, int> feed_index_;
  std::vector<EndpointKey> feed_keys_;
  std::vector<EndpointKey> fetch_keys_;
  absl::flat_hash_map<EndpointKey, std::vector<int>> fetch_index_;
  std::vector<bool> needed_;     // by graph id
  std::vector<int> plan_index_;  // by graph id; -1 when not planned
  int num_kernel_nodes_ = 0;
  std::vector<std::vector<std::vector<PlanEdge>>> out_edges_;  // node, output
  std::vector<std::vector<int>> ctrl_edges_;                   // by kernel node
};

StatusOr<std::unique_ptr<Plan>> BuildPlan(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const BuildPlanOptions& options) {
  return PlanBuilder(graph, resources, options).Build(feeds, fetches, targets);
}

StatusOr<std::vector<const Node*>> PlanNodes(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const BuildPlanOptions& options) {
  return PlanBuilder(graph, resources, options)
      .NeededNodes(feeds, fetches, targets);
}

}  // namespace weft
