// Atrous convolutions: SpaceToBatchND -> convolution -> BatchToSpaceND, the
// way TensorFlow writes a dilated convolution (tf.nn.convolution, so Keras'
// Conv2D and DepthwiseConv2D with dilation_rate > 1, DeepLab's atrous
// pyramid), becomes the one convolution it computes: dilated by the block
// shape, with explicit paddings in place of the SpaceToBatchND's paddings
// less the BatchToSpaceND's crops. The two reshuffles of the whole tensor
// go, and the convolution's kernel sees the real geometry: it can skip the
// taps that fall in the padding (kernels/cpu/conv2d_taps.h) and fuse the
// batch normalization and activation after it, which the BatchToSpaceND
// kept apart.
//
// Applies to a CPU Conv2D or DepthwiseConv2dNative in NHWC with unit
// strides and dilations and VALID padding, whose input is output 0 of a
// SpaceToBatchND read by nothing else, and whose value goes only to a
// BatchToSpaceND (input 0), both with the same constant block shape of two
// dimensions, constant paddings and crops with crops no larger than the
// paddings, and an input whose H and W are known and, padded, multiples of
// the block (where SpaceToBatchND would fail, the graph stays as it is, so
// the run fails as before). Neither reshuffle may be fed or fetched.
//
// Why it is the same convolution: SpaceToBatchND puts the padded rows i, i
// + b, i + 2b, ... in the batch of offset i; a VALID window of k rows
// there reads padded rows q, q + b, ..., q + (k - 1) b, which is the window
// dilated by b at padded row q; BatchToSpaceND puts its output back at row
// q and crops. Each output sums the same products; the kernels' orders of
// summation may differ, so the last bits may.
//
// It runs after constant folding (the block shape, paddings and crops may
// be computed) and before pad folding and fusion, which then see an
// ordinary convolution.
#ifndef WEFT_EXECUTOR_OPTIMIZER_ATROUS_CONV_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_ATROUS_CONV_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class AtrousConvRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "atrous_conv"; }
  // Visits convolutions: the rule starts from the one node of the pattern
  // whose attrs decide it.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_ATROUS_CONV_RULE_H_
