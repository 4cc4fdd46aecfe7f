// The GELU rewrite: the nodes tf.nn.gelu (and Keras, which calls it) writes
// for x * Phi(x) become one _Gelu node (ops/nn_fused_ops.cc), one pass over
// x instead of five to eight and no tensors in between. Two forms:
//
//   exact        (0.5 * x) * Erfc(Neg(x) * 0.70710677)
//   approximate  (0.5 * x) * (1 + Tanh(0.7978846 * (x + 0.044715 * x^3)))
//
// with x^3 as Pow(x, 3) (what TensorFlow writes) or x * (x * x). Also
// matched: each Mul and AddV2/Add with its operands in either order, a
// Mul by -0.70710677 or Neg(x * 0.70710677) for the Erfc's argument, 1 +
// Erf(x * 0.70710677) (or Erf(x / 1.4142135)) for the Erfc, and x * (0.5 *
// g) for (0.5 * x) * g. The constants are float scalars equal to the float
// rounding of the exact ones. Float on the CPU only; every absorbed node's
// value goes to the next node of the pattern alone.
//
// Unlike the swish rewrite this one rounds differently from the nodes: the
// kernel evaluates the function itself (kernels/cpu/gelu_float.h, within a
// few float ulps of the exact function; the nodes' Erfc and Tanh chains
// lose more, 1 + tanh(y) cancelling for x < -3). The _Gelu node is named
// after the nodes it replaces ("<first>+...+<final Mul>"), lists them in
// its kFusedNodesAttr and stands in for the final Mul. It runs after
// fusion: x is often a fused MatMul's output.
#ifndef WEFT_EXECUTOR_OPTIMIZER_GELU_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_GELU_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class GeluRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "gelu"; }
  // Visits the final Mul: the pattern is matched upstream from it.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_GELU_RULE_H_
