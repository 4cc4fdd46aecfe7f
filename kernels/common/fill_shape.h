// The input contract of Fill and the element OnesLike writes, shared by
// their kernels on every device so that they accept the same graphs and
// report the same errors.
#ifndef WEFT_KERNELS_COMMON_FILL_SHAPE_H_
#define WEFT_KERNELS_COMMON_FILL_SHAPE_H_

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace weft {

// Fill(dims, value): the output shape. dims (input 0) must be a vector of
// valid dimension sizes and value (input 1) a scalar or, TensorFlow's legacy
// spelling of one, a one-element vector; InvalidArgument otherwise, and the
// errors of ReadIndexTensor.
StatusOr<TensorShape> ResolveFillShape(const Tensor& dims, const Tensor& value);

// The bytes of one in `dtype`, in the low bytes of `one` (the widest
// numeric dtype takes 16). InvalidArgument "OnesLike has no one for ..."
// for a dtype without a one.
Status OneElement(DataType dtype, unsigned char one[16]);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_FILL_SHAPE_H_
