#include "executor/optimizer/node_group.h"

#include "absl/container/flat_hash_map.h"
#include "executor/optimizer/pass_through_rule.h"

namespace weft {

NodeOutput ReadThroughIdentities(NodeOutput v, const RewriteContext& ctx) {
  v.node = ctx.Canonical(v.node);
  while (v.index == 0 && IsPassThroughOp(v.node->op()) &&
         v.node->num_inputs() == 1 && ctx.IsLive(v.node) &&
         !ctx.IsFed(v.node) && !ctx.HasKeptControlInputs(v.node) &&
         ctx.PlacedAlike(v.node, v.node->input(0).node)) {
    v = InputOf(v.node, 0);
    v.node = ctx.Canonical(v.node);
  }
  return v;
}

std::vector<const Node*> GrowNodeGroup(const Node* seed,
                                       const RewriteContext& ctx,
                                       const NodeGroupSpec& spec) {
  const Graph& graph = ctx.graph();
  const int seed_pos = ctx.Position(seed);
  std::vector<const Node*> grown;               // in topological order
  absl::flat_hash_map<const Node*, int> index;  // node -> place in `grown`
  auto joins = [&](const Node* n) {
    if (!spec.member(n)) return false;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* src = ReadThroughIdentities(InputOf(n, i), ctx).node;
      if (index.contains(src)) continue;
      if (ctx.Position(src) >= seed_pos || !spec.outside_input(n, i)) {
        return false;
      }
    }
    return true;
  };
  const std::vector<int>& order = ctx.order();
  for (int pos = seed_pos;
       pos < static_cast<int>(order.size()) && pos <= seed_pos + spec.window &&
       static_cast<int>(grown.size()) < spec.max_nodes;
       ++pos) {
    const Node* n = graph.node(order[pos]);
    if (!joins(n)) {
      if (n == seed) return {};
      continue;
    }
    index[n] = static_cast<int>(grown.size());
    grown.push_back(n);
  }

  // Keep the nodes connected to the seed through the group's own edges.
  const int size = static_cast<int>(grown.size());
  std::vector<std::vector<int>> adjacent(size);
  for (int s = 0; s < size; ++s) {
    const Node* n = grown[s];
    for (int i = 0; i < n->num_inputs(); ++i) {
      auto it = index.find(ReadThroughIdentities(InputOf(n, i), ctx).node);
      if (it == index.end()) continue;
      adjacent[s].push_back(it->second);
      adjacent[it->second].push_back(s);
    }
  }
  std::vector<char> reached(size, 0);
  std::vector<int> stack = {0};
  reached[0] = 1;
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    for (int t : adjacent[s]) {
      if (!reached[t]) {
        reached[t] = 1;
        stack.push_back(t);
      }
    }
  }
  std::vector<const Node*> nodes;
  for (int s = 0; s < size; ++s) {
    if (reached[s]) nodes.push_back(grown[s]);
  }
  if (nodes.size() < 2) return {};
  return nodes;
}

}  // namespace weft
