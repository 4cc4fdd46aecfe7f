#include "executor/plan.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/import.h"
#include "kernels/op_kernel.h"

namespace weft {
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

}  // namespace

StatusOr<std::unique_ptr<Plan>> BuildPlan(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const std::string& source_name) {
  const std::string& src = source_name;
  auto plan = std::make_unique<Plan>();

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

  for (PlanNode& pn : plan->nodes) {
    const Node* n = pn.node;
    pn.out_base = static_cast<int>(plan->out_begin.size());
    for (int o = 0; o < pn.num_outputs; ++o) {
      plan->out_begin.push_back(static_cast<int>(plan->edges.size()));
      EndpointKey key{n->id(), o};
      if (feed_index.contains(key)) continue;  // the feed fills these
      for (const Endpoint& c : n->consumers(o)) {
        int dst = plan_index[c.node->id()];
        if (dst < 0) continue;
        plan->edges.push_back(
            PlanEdge{dst, plan->nodes[dst].input_base + c.index});
        plan->nodes[dst].initial_pending++;
      }
      if (auto it = fetch_index.find(key); it != fetch_index.end()) {
        for (int f : it->second) plan->edges.push_back(PlanEdge{-1, f});
      }
    }
    plan->out_begin.push_back(static_cast<int>(plan->edges.size()));
    pn.ctrl_begin = static_cast<int>(plan->control_edges.size());
    for (const Node* c : n->control_outputs()) {
      int dst = plan_index[c->id()];
      if (dst < 0) continue;
      plan->control_edges.push_back(dst);
      plan->nodes[dst].initial_pending++;
    }
    pn.ctrl_end = static_cast<int>(plan->control_edges.size());
  }
  for (size_t i = 0; i < plan->nodes.size(); ++i) {
    if (plan->nodes[i].initial_pending == 0) {
      plan->initial_ready.push_back(static_cast<int>(i));
    }
  }

  // Tensors known before the run: feeds, then session constants.
  auto fill_preset = [&](PresetTensor* p, const Node* n, int o) {
    for (const Endpoint& c : n->consumers(o)) {
      int dst = plan_index[c.node->id()];
      if (dst >= 0) p->slots.push_back(plan->nodes[dst].input_base + c.index);
    }
    if (auto it = fetch_index.find(EndpointKey{n->id(), o});
        it != fetch_index.end()) {
      p->fetches = it->second;
    }
  };
  for (size_t i = 0; i < feed_keys.size(); ++i) {
    PresetTensor p;
    p.feed_index = static_cast<int>(i);
    fill_preset(&p, graph.node(feed_keys[i].node), feed_keys[i].index);
    plan->presets.push_back(std::move(p));
  }
  for (int id = 0; id < n_graph; ++id) {
    const Node* n = graph.node(id);
    const Tensor* value = resources->ConstValue(n);
    if (value == nullptr || feed_index.contains(EndpointKey{id, 0})) continue;
    PresetTensor p;
    p.value = value;
    fill_preset(&p, n, 0);
    if (!p.slots.empty() || !p.fetches.empty()) {
      plan->presets.push_back(std::move(p));
    }
  }
  return plan;
}

}  // namespace weft
