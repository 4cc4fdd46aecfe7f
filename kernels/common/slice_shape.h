// The input contract of Slice and StridedSlice, shared by their kernels on
// every device so that they accept the same graphs, take the same view of
// the input and report the same errors. Each op resolves its index inputs
// (read on the host) to a strided view of the input: per input dimension a
// first index, a step and a count.
#ifndef WEFT_KERNELS_COMMON_SLICE_SHAPE_H_
#define WEFT_KERNELS_COMMON_SLICE_SHAPE_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {

// The output is input[begin[d] + i * steps[d]] for i in [0, dims[d]) per
// input dimension d (steps in index units), reshaped to `shape` (the same
// number of elements as dims; StridedSlice adds and drops axes).
struct SliceView {
  std::vector<int64_t> begin;
  std::vector<int64_t> steps;
  std::vector<int64_t> dims;
  TensorShape shape;
  // The view is all of the input in order: the output can be the input
  // reshaped, sharing its buffer.
  bool whole = false;
};

// Slice(input, begin, size): begin and size vectors of one value per
// dimension of input, 0 <= begin[d] <= input.dim_size(d), and size[d] in
// [0, dim_size(d) - begin[d]] or -1 for the rest of the dimension.
// InvalidArgument naming the offending input otherwise, and the errors of
// ReadIndexTensor and TensorShape::Build.
StatusOr<SliceView> ResolveSlice(const Tensor& input, const Tensor& begin,
                                 const Tensor& size);

// StridedSlice(input, begin, end, strides): begin, end and strides must be
// vectors (InvalidArgument otherwise); they are resolved by
// PlanStridedSlice (ops/common_shape_fns.h), the very function the op's
// shape inference uses, so kernels and shape function agree on every mask,
// clamp and negative stride, and return its errors.
StatusOr<SliceView> ResolveStridedSlice(const Tensor& input,
                                        const Tensor& begin, const Tensor& end,
                                        const Tensor& strides,
                                        const StridedSliceMasks& masks);

// Reads StridedSlice's begin_mask, end_mask, ellipsis_mask, new_axis_mask
// and shrink_axis_mask attrs into `masks`; the error of a missing attr.
Status ReadStridedSliceMasks(OpKernelConstruction* ctx,
                             StridedSliceMasks* masks);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_SLICE_SHAPE_H_
