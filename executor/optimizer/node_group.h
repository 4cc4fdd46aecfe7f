// Growing a group of nodes to fuse into one, as the element-wise and scalar
// fusion rules do (elementwise_fusion_rule.h, scalar_fusion_rule.h): from
// a seed, downstream in topological order, the nodes that read only group
// nodes and values computed before the seed, so that the fused node, which
// reads those values and stands where the group's last node stood, cannot
// close a cycle.
#ifndef WEFT_EXECUTOR_OPTIMIZER_NODE_GROUP_H_
#define WEFT_EXECUTOR_OPTIMIZER_NODE_GROUP_H_

#include <functional>
#include <vector>

#include "executor/optimizer/rewrite_context.h"
#include "graph/graph.h"

namespace weft {

struct NodeGroupSpec {
  // How far past the seed, in topological order, the group looks, and how
  // many nodes it takes at most.
  int window = 64;
  int max_nodes = 32;
  // Whether a node may join, its inputs aside.
  std::function<bool(const Node*)> member;
  // Whether input `i` of a member, read from outside the group (a value
  // from before the seed), may be an input of the fused node.
  std::function<bool(const Node* n, int i)> outside_input;
};

// What a fused node would read for `v`: its canonical node's output, or
// for an Identity-like node (IsPassThroughOp) that is not fed, has no
// control inputs that stay and is placed with its input, what that node
// reads (repeatedly). A group thus takes in a node that reads another of
// it through an Identity: a loop step's cond reads the body's counters
// through the Identity nodes that return them.
NodeOutput ReadThroughIdentities(NodeOutput v, const RewriteContext& ctx);

// The group `seed` starts, in topological order: the seed first, then the
// members within the window whose every input (ReadThroughIdentities) is a
// group node or a value from before the seed that outside_input accepts, and of
// those only the ones connected to the seed through the group's own edges.
// Empty when the seed itself does not join or no other node does.
std::vector<const Node*> GrowNodeGroup(const Node* seed,
                                       const RewriteContext& ctx,
                                       const NodeGroupSpec& spec);

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_NODE_GROUP_H_
