// Pad folding: a Pad (or a PadV2 of float zeros) of constant, non-negative
// amounts on H and W only, whose output only feeds input 0 of a CPU Conv2D
// or DepthwiseConv2dNative with padding VALID or EXPLICIT and is neither
// fed nor fetched, is removed: the convolution reads the Pad's input with
// padding EXPLICIT and the amounts (added to its own) as
// explicit_paddings. Keras emits such Pads before its stride-2
// convolutions.
//
// The windows sum the same nonzero products in the same order; the zeros
// the Pad contributed only added +-0 to sums that are never -0, so results
// are unchanged, except that a padded zero times an infinite or NaN filter
// tap no longer makes a NaN at the border.
//
// It runs after constant folding (the amounts may be computed) and before
// fusion, which keeps the convolution's new padding when it fuses it and
// lists the Pad among the nodes the fused node replaces.
#ifndef WEFT_EXECUTOR_OPTIMIZER_PAD_FOLDING_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_PAD_FOLDING_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class PadFoldingRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "pad_folding"; }
  // Visits convolutions: the rule starts from the consumer, whose padding
  // decides whether the Pad can fold.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_PAD_FOLDING_RULE_H_
