// The shape contract of Softmax and LogSoftmax, shared by their kernels on
// every device (kernels/cpu/softmax_op.cc, kernels/cuda/softmax_op.cc) so
// that they accept the same logits and report the same error.
#ifndef WEFT_KERNELS_COMMON_SOFTMAX_SHAPE_H_
#define WEFT_KERNELS_COMMON_SOFTMAX_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"

namespace weft {

// The logits as rows of `depth` values (the last dimension), each row
// normalized on its own. rows is 0 when the logits are empty.
struct SoftmaxDims {
  int64_t rows = 0;
  int64_t depth = 0;
};

// InvalidArgument unless the logits have rank >= 1.
StatusOr<SoftmaxDims> GetSoftmaxDims(const TensorShape& logits);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_SOFTMAX_SHAPE_H_
