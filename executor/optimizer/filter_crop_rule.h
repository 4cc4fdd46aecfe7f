// Filter cropping: a CPU Conv2D whose constant filter has taps, along H or
// W, that no output position ever reads inside the input (the window
// overhangs a small input: InceptionV3's 1x3, 3x1 and 3x3 convolutions on
// the 1x1 maps of a 96x96 image) gets its filter cut down to the taps that
// do read it, and explicit paddings that keep every output's window where it
// was. At batch 1 such a layer streams its whole filter for one pixel, so
// the taps that only ever meet padding cost two thirds of its time.
//
// Applies when the input's H and W are known, the filter is a float
// constant that only this convolution reads (it is replaced by the cropped
// copy), and the convolution is not rewritten yet. The dropped taps only
// multiplied padded zeros, so every output sums the same nonzero products
// in the same order; but the product's k blocks now fall elsewhere among
// them (and a 1x1 result multiplies the input in place), so the last bits
// may differ (InceptionV3 at 96x96: 7e-7 at most in its probabilities),
// and a padded zero times an infinite or NaN dropped tap no longer makes a
// NaN.
//
// It runs after pad folding (whose explicit paddings it leaves alone: a
// patched convolution is skipped) and before fusion, which keeps the
// convolution's new padding and filter when it fuses it.
#ifndef WEFT_EXECUTOR_OPTIMIZER_FILTER_CROP_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_FILTER_CROP_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class FilterCropRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "filter_crop"; }
  // Visits Conv2D nodes.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_FILTER_CROP_RULE_H_
