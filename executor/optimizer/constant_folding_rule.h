// Constant folding: a node whose data inputs are all constants (Consts, or
// nodes folded before it), that is not stateful, not a placeholder and not
// fed, is evaluated once with its CPU kernel and becomes a Const of the
// same name (output i > 0 becomes a Const of its own). Results larger than
// GraphOptimizerOptions::max_folded_bytes stay computed at run time. A node
// whose kernel is missing or fails is left as it is, so the run reports
// exactly what it would have without the optimizer. Does nothing when the
// options give no CPU device.
//
// It runs first, so that the later rules see folded weights (an Identity,
// Cast or Reshape of a Const, Keras' Rsqrt(var + eps) * gamma) as the
// constants they are.
#ifndef WEFT_EXECUTOR_OPTIMIZER_CONSTANT_FOLDING_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_CONSTANT_FOLDING_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class ConstantFoldingRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "constant_folding"; }
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_CONSTANT_FOLDING_RULE_H_
