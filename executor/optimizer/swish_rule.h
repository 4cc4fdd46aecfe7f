// The swish rewrite: x * Sigmoid(beta * x) (Keras' swish, SiLU;
// TensorFlow's tf.nn.silu writes beta * x even for beta = 1), or
// x * Sigmoid(x), becomes one _Swish node: one pass over x instead of two or
// three, and no tensor in between. Float on the CPU only; beta is a
// constant scalar, and each absorbed node's value goes to the next alone.
// The node computes the same operations per element (beta * x rounded, its
// sigmoid rounded, the product), so its results are bit-identical to the
// nodes'.
//
// The _Swish node is named after the nodes it replaces, "<Mul beta*x>+
// <Sigmoid>+<Mul>", lists them in its kFusedNodesAttr and stands in for the
// final Mul. It runs last, after fusion: x is often a fused convolution's
// output, and a Mul the fusion rule absorbed as a scale is not a swish.
#ifndef WEFT_EXECUTOR_OPTIMIZER_SWISH_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_SWISH_RULE_H_

#include <vector>

#include "executor/optimizer/rewrite_context.h"
#include "executor/optimizer/rewrite_rule.h"

namespace weft {

// x * Sigmoid(beta * x) or x * Sigmoid(x) ending at the Mul `mul`, as this
// rule and the fusion rule (a swish activation after a convolution's chain)
// match it.
struct SwishPattern {
  NodeOutput x;
  float beta = 1.0f;
  // The pattern's nodes in order: [beta * x,] Sigmoid, `mul`.
  std::vector<const Node*> nodes;
};

// Whether `mul` ends a swish whose nodes before it are float, open, on one
// CPU with `mul`, and pass their value only to the next node of the
// pattern (x may go elsewhere: the caller asks what it needs of x).
bool MatchSwish(const Node* mul, const RewriteContext& ctx,
                SwishPattern* pattern);

class SwishRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "swish"; }
  // Visits the final Mul: the pattern is matched upstream from it.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_SWISH_RULE_H_
