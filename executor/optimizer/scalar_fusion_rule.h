// The scalar fusion rewrite: a group of integer and boolean scalar nodes
// (ops/fused_scalar_ops.h's vocabulary: Add, AddV2, Sub, Mul, Maximum,
// Minimum, the comparisons, LogicalAnd, LogicalOr, LogicalNot on int32,
// int64 or bool) becomes one _FusedScalars node with an output for each
// value read outside the group. Made for loops: a TensorFlow 2 while loop's
// body adds 1 to its two counters and its cond compares them with their
// limits and ands the results, five one-element nodes in every iteration
// that, once a loop runs the body and cond as one step
// (graph/function_library.h: LoopStepGraph), become one.
//
// The group grows as the element-wise fusion's does (node_group.h): from
// the first open node of the vocabulary in topological order, by the later
// nodes (within 64 places of the seed, up to 32 nodes) that read only group
// nodes and values computed before the seed. Every node's inferred shape
// and every input's must be a scalar (rank 0). Nodes must be open (no other
// rule rewrote them), placed alike on a CPU, with no control edges that
// stay, and neither fetched nor fed: the fused node's outputs stand in for
// the group's values ("<name>:<k>"). The values are the nodes' own.
//
// The fused node is named "<last node>+<n>_fused" (n the nodes absorbed)
// and lists the group in its kFusedNodesAttr; output 0 stands in for the
// last node. WEFT_SCALAR_FUSION=0 in the environment turns the rule off (to
// measure what it saves).
#ifndef WEFT_EXECUTOR_OPTIMIZER_SCALAR_FUSION_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_SCALAR_FUSION_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class ScalarFusionRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "scalar_fusion"; }
  // Visits seeds: the group grows downstream in topological order.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_SCALAR_FUSION_RULE_H_
