// The bias of a dense layer over more than two dimensions, moved into its
// product. Keras writes a Dense or EinsumDense layer on a [batch, tokens,
// features] input as a product of the input, flattened or not, and a
// constant [K, N] kernel, then a Reshape to the output's dimensions, then
// the bias:
//
//   MatMul(x2d, W)         -> Reshape(S) -> BiasAdd / Add / AddV2 (b)
//   BatchMatMulV2(x, W)    [-> Reshape(S)] -> BiasAdd / Add / AddV2 (b)
//
// (Tensordot; EinsumDense's query, key and value projections, where S
// splits the N features into heads and b is [heads, head size]; its output
// projection, without the Reshape). The fusion rule cannot absorb that bias
// across the Reshape, and a BatchMatMulV2 has no fused form, so the bias
// would be one more pass over the output and the kernel packed on every
// run. This rule writes instead
//
//   [Reshape(x, [-1, K]) ->] _FusedMatMul(., W, b') -> Reshape(S)
//
// with b' the N values b takes along the product's last dimension: the
// trailing dimensions of S whose product is N, over which b may broadcast
// (a [64] bias over [4, 64] heads), and along none of the leading ones.
// _FusedMatMul packs the constant kernel once (MatMul's path) and adds b'
// in its epilogue: the same float additions after the same products, so
// the result is the separate nodes' bit for bit.
//
// Conditions: float32 on the CPU; W a constant of rank 2; for a
// BatchMatMul, x not adjoint (adj_y becomes transpose_b); the bias node's
// output has the Reshape's (or the product's) shape, known in the trailing
// dimensions above, and a BiasAdd is NHWC; the product and the Reshape
// send their value only to the next node, are not fetched and have no
// control edges. Without a Reshape after a BatchMatMul, the product's shape
// must be known but for one dimension, which the final Reshape's constant
// shape leaves as -1. A MatMul followed directly by its bias is the fusion
// rule's.
//
// The _FusedMatMul is named after the product with "+" and the bias node's
// op and lists the replaced nodes in its kFusedNodesAttr; the final Reshape
// stands in for the bias node.
#ifndef WEFT_EXECUTOR_OPTIMIZER_DENSE_BIAS_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_DENSE_BIAS_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class DenseBiasRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "dense_bias"; }
  // Visits the products: the pattern is followed downstream from them.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_DENSE_BIAS_RULE_H_
