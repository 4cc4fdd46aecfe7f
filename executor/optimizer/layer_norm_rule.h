// The layer normalization rewrite: the nodes Keras' LayerNormalization
// writes over the last axis,
//
//   mean = Mean(x, -1, keep_dims)
//   var  = Mean(SquaredDifference(x, StopGradient(mean)), -1, keep_dims)
//   s    = Rsqrt(var + epsilon) * gamma
//   y    = x * s + (Neg(mean) * s + beta)
//
// (also beta - mean * s for the bracket, as tf.nn.batch_normalization
// writes it, each Mul and Add with its operands in either order, with or
// without the StopGradient or an Identity there, the axis given as -1 or
// rank - 1) become one _LayerNorm node (ops/nn_fused_ops.cc): two passes
// over each row instead of ten nodes and their tensors. gamma and beta are
// constants of [D] elements (any leading 1s), epsilon a constant scalar,
// D = x's last dimension, known. Float on the CPU only; every absorbed
// node's value goes only to nodes of the pattern, and none is fetched.
//
// The kernel computes the same formula row by row
// (kernels/cpu/layer_norm_float.h), its sums in another order than the
// Mean kernel's, so the results agree with the nodes' within their rounding,
// not bit for bit. The _LayerNorm node is named after the final AddV2 with
// "+LayerNorm", lists the replaced nodes in its kFusedNodesAttr and stands
// in for that AddV2.
#ifndef WEFT_EXECUTOR_OPTIMIZER_LAYER_NORM_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_LAYER_NORM_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class LayerNormRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "layer_norm"; }
  // Visits the final AddV2: the pattern is matched upstream from it.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_LAYER_NORM_RULE_H_
