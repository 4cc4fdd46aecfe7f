// The attribute and shape contract of FusedBatchNormV3, shared by its
// kernels on every device (kernels/cpu/fused_batch_norm_op.cc,
// kernels/cuda/batch_norm_op.cc) so that they accept the same graphs and
// report the same errors.
#ifndef WEFT_KERNELS_COMMON_BATCH_NORM_SHAPE_H_
#define WEFT_KERNELS_COMMON_BATCH_NORM_SHAPE_H_

#include <cstdint>
#include <string>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

struct BatchNormAttrs {
  float epsilon = 1e-4f;
  float exponential_avg_factor = 1.0f;
  bool is_training = true;
  // NHWC, NCHW, NDHWC or NCDHW; x's rank is its length.
  std::string format;
};

// Reads attrs 'epsilon', 'exponential_avg_factor', 'is_training' and
// 'data_format'; InvalidArgument for a data_format other than the four
// above.
Status ReadBatchNormAttrs(OpKernelConstruction* ctx, BatchNormAttrs* attrs);

// x viewed as [outer, channels, inner]: channels last has inner = 1 (outer
// = every position), channels first has outer = batch and inner = the
// spatial size (0 when the spatial size is).
struct BatchNormLayout {
  bool channels_last = true;
  int64_t outer = 0;
  int64_t channels = 0;
  int64_t inner = 0;
};

// Whether the mode reads the mean and variance inputs: inference does, and
// training does unless exponential_avg_factor is 1 (the batch's statistics
// alone).
bool BatchNormUsesEstimates(const BatchNormAttrs& attrs);

// Checks x (rank = the format's length) and `stats`, the shapes of scale,
// offset, mean and variance (inputs 1 to 4): scale and offset must be
// [channels], and so must mean and variance when the mode uses them;
// otherwise they must still be vectors. InvalidArgument naming the input
// and both shapes.
StatusOr<BatchNormLayout> GetBatchNormLayout(const BatchNormAttrs& attrs,
                                             const TensorShape& x,
                                             const TensorShape* const stats[4]);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_BATCH_NORM_SHAPE_H_
