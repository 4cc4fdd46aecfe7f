// The shape contracts of Reshape, ExpandDims and Squeeze, shared by their
// kernels on every device so that they accept the same graphs and report
// the same errors. None of them moves data: the output is the input's
// buffer under the shape computed here (see ForwardInputWithShape in
// kernels/common/alias_output.h).
#ifndef WEFT_KERNELS_COMMON_RESHAPE_SHAPE_H_
#define WEFT_KERNELS_COMMON_RESHAPE_SHAPE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"

namespace weft {

// Reshape's output shape for input 0 of shape `input` and its `shape` input
// `sizes`, TensorFlow's rules: one size may be -1 and is inferred; sizes of
// 0 are left out of the product it is inferred from, so [0, 3] can become
// [0, -1] = [0, 3]. A scalar `sizes` is the legacy spelling of a
// one-element vector.
// Errors (InvalidArgument): `sizes` of rank > 1 or not int32/int64, two
// -1s, a size below -1, a product that overflows, or a shape whose element
// count is not the input's.
StatusOr<TensorShape> GetReshapeShape(const TensorShape& input,
                                      const Tensor& sizes);

// ExpandDims' output shape: a size-1 dimension inserted into `input` at the
// value of `dim` (negative counts from the end of the output, so -1
// appends).
// Errors (InvalidArgument): `dim` does not hold exactly one int32/int64, is
// outside [-rank - 1, rank], or the input already has kMaxRank dimensions.
StatusOr<TensorShape> GetExpandDimsShape(const TensorShape& input,
                                         const Tensor& dim);

// Squeeze's output shape: the size-1 dimensions of `input` named by the
// squeeze_dims attr (negative counting from the end) removed, or all of
// them when it is empty.
// Errors (InvalidArgument): a named dimension outside [-rank, rank), or one
// whose size is not 1.
StatusOr<TensorShape> GetSqueezeShape(const TensorShape& input,
                                      absl::Span<const int64_t> squeeze_dims);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_RESHAPE_SHAPE_H_
