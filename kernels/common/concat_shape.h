// The shape contracts of ConcatV2 and Pack, shared by their kernels on
// every device so that they accept the same inputs and report the same
// errors. Both copy as 2-D: every input viewed as [rows, widths[i]] (rows
// the product of the dimensions before the axis) and the output as
// [rows, sum of widths], each output row the inputs' rows one after
// another.
#ifndef WEFT_KERNELS_COMMON_CONCAT_SHAPE_H_
#define WEFT_KERNELS_COMMON_CONCAT_SHAPE_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

struct ConcatDims {
  TensorShape out_shape;
  // >= 0: that input holds all the output's data, and the output is its
  // buffer viewed as out_shape; rows and widths are not set.
  int forward_input = -1;
  int64_t rows = 0;
  // In elements, one per input; 0 for an empty input (or when rows is 0).
  std::vector<int64_t> widths;
};

// ConcatV2 of inputs of `shapes` along the value of `axis`, its last input
// (number shapes.size(), which names it in messages). A one-element vector
// is the legacy spelling of the scalar; negative values count from the end.
// Errors (InvalidArgument): axis not one int32/int64 or outside
// [-rank, rank), scalar inputs, or an input whose rank or non-axis sizes
// differ from input 0's.
StatusOr<ConcatDims> GetConcatV2Dims(absl::Span<const TensorShape> shapes,
                                     const Tensor& axis);

// Pack of inputs of `shapes` along a new dimension at `axis` (the attr;
// negative counts from the end of the output).
// Errors (InvalidArgument): axis outside [-(rank + 1), rank], inputs that
// already have kMaxRank dimensions, or inputs of different shapes.
StatusOr<ConcatDims> GetPackDims(absl::Span<const TensorShape> shapes,
                                 int64_t axis);

// The start of every ConcatV2 and Pack kernel's Compute: the dims for the
// kernel's inputs (ConcatV2's values and axis, Pack's values and its axis
// attr) into *dims and, when an input holds all the data, output 0 set to
// it viewed as dims->out_shape: the kernel has nothing left to do
// (dims->forward_input >= 0).
// Errors: GetConcatV2Dims's and GetPackDims's.
Status StartConcatV2(OpKernelContext* ctx, ConcatDims* dims);
Status StartPack(OpKernelContext* ctx, int64_t axis, ConcatDims* dims);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_CONCAT_SHAPE_H_
