// The element-wise fusion rewrite: a group of float32 element-wise nodes
// (ops/fused_elementwise_ops.h's vocabulary: Add, AddV2, Sub, Mul, RealDiv,
// Neg, Square, Sigmoid, Tanh, Exp) left after the other rules becomes one
// _FusedElementwise node with an output for each value read outside the
// group. Made for recurrent cells, whose gates are ten or so such nodes on a
// few hundred floats in every loop iteration (a Keras LSTM's Sigmoid, Tanh,
// Mul and AddV2 after the gate Split; a GRU's), where dispatching,
// allocating and scheduling each node cost more than its arithmetic; any
// graph with such chains gains the same way.
//
// The group grows from a seed, the first open node of the vocabulary in
// topological order, by the later nodes (within 64 places of the seed, up
// to 32 nodes) that read only group nodes and values computed before the
// seed, so that the fused node cannot close a cycle; then it keeps the
// nodes connected to the seed (optimizer/node_group.h, which also reads
// through Identity nodes between them). Every node's inferred shape must equal
// the seed's (unknown dimensions in the same places), and each value read from
// outside must have that shape too or be a single element of no higher rank
// (a scalar constant); at run time the kernel checks the shapes again and
// broadcasts step by step when unknown dimensions differ. Nodes must be
// float, open (no other rule rewrote them), placed on one CPU with no
// control edges, and neither fetched nor fed: the fused node's outputs stand
// in for the group's values ("<name>:<k>"), and a fetched or targeted name
// must stay a node. The values are the nodes' own bits (the kernel runs each
// op's own float loop).
//
// Values the group reads that a Split, SplitV or StridedSlice took from the
// last axis of another tensor (optimizer/column_range.h) are read in place,
// as column ranges of that tensor (_FusedElementwise's `slices`), when all
// that node computes goes to the group; it is then absorbed. When the
// tensor so split is itself a BiasAdd (NHWC), Add or AddV2 whose value goes
// only to such nodes, of a tensor of its shape and a bias along the last
// axis (or a tensor of its shape, or a single element), the fused node adds
// the two part by part in steps of its own before the group's, each element
// the same one addition, and the add is absorbed too. A Keras LSTM cell's
// BiasAdd and gate Split, and a GRU cell's Split and three StridedSlice
// nodes, so stop copying the gates out in every loop iteration.
//
// The fused node is named "<last node>+<n>_fused" (n the nodes absorbed)
// and lists the group in its kFusedNodesAttr; output 0 stands in for the
// last node. WEFT_ELEMENTWISE_FUSION=0 in the environment turns the rule off
// (to measure what it saves).
#ifndef WEFT_EXECUTOR_OPTIMIZER_ELEMENTWISE_FUSION_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_ELEMENTWISE_FUSION_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class ElementwiseFusionRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "elementwise_fusion"; }
  // Visits seeds: the group grows downstream in topological order.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_ELEMENTWISE_FUSION_RULE_H_
