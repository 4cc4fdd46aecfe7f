#include "kernels/common/conv_shape.h"

#include <algorithm>
#include <cstdint>

namespace weft {
namespace {

// Both convolutions take a 4-D input and a 4-D filter
// [rows, cols, in_depth, <last>]; `last` names the filter's last dimension.
Status CheckFourDimensional(const TensorShape& input, const TensorShape& filter,
                            const char* last) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional but has shape ",
                                   input.DebugString());
  }
  if (filter.dims() != 4) {
    return errors::InvalidArgument(
        "filter must be 4-dimensional [rows, cols, in_depth, ", last,
        "] but has shape ", filter.DebugString());
  }
  return Status();
}

}  // namespace

Status MakeConv2DGeometry(const WindowAttrs& attrs, const Tensor& input,
                          const Tensor& filter, Conv2DGeometry* geometry) {
  WEFT_RETURN_IF_ERROR(
      CheckFourDimensional(input.shape(), filter.shape(), "out_depth"));
  Conv2DGeometry s;
  s.batch = input.dim_size(attrs.index('N'));
  s.in_depth = input.dim_size(attrs.index('C'));
  s.filter_depth = filter.dim_size(2);
  s.out_depth = filter.dim_size(3);
  if (s.filter_depth <= 0) {
    return errors::InvalidArgument("filter ", filter.shape().DebugString(),
                                   " has input depth 0");
  }
  if (s.in_depth % s.filter_depth != 0) {
    return errors::InvalidArgument(
        "input depth ", s.in_depth, " of input ", input.shape().DebugString(),
        " is not a multiple of the filter's input depth ", s.filter_depth,
        " (filter ", filter.shape().DebugString(), ")");
  }
  // An input without channels sums nothing (zeros, as in TensorFlow); it
  // counts as one group.
  s.groups = std::max<int64_t>(1, s.in_depth / s.filter_depth);
  if (s.out_depth % s.groups != 0) {
    return errors::InvalidArgument(
        "output depth ", s.out_depth, " of filter ",
        filter.shape().DebugString(),
        " is not a multiple of the number of groups ", s.groups,
        " (input depth ", s.in_depth, " / filter input depth ", s.filter_depth,
        ")");
  }
  WEFT_ASSIGN_OR_RETURN(
      s.rows, ComputeWindowDim(attrs, 'H', input.dim_size(attrs.index('H')),
                               filter.dim_size(0)));
  WEFT_ASSIGN_OR_RETURN(
      s.cols, ComputeWindowDim(attrs, 'W', input.dim_size(attrs.index('W')),
                               filter.dim_size(1)));
  *geometry = s;
  return Status();
}

Status ComputeDepthwiseGeometry(const WindowAttrs& attrs,
                                const TensorShape& input,
                                const TensorShape& filter,
                                DepthwiseGeometry* geometry) {
  WEFT_RETURN_IF_ERROR(CheckFourDimensional(input, filter, "multiplier"));
  DepthwiseGeometry g;
  g.batch = input.dim_size(attrs.index('N'));
  g.depth = input.dim_size(attrs.index('C'));
  g.multiplier = filter.dim_size(3);
  if (filter.dim_size(2) != g.depth) {
    return errors::InvalidArgument(
        "input depth ", g.depth, " of input ", input.DebugString(),
        " must equal the filter's in_depth (dimension 2 of filter ",
        filter.DebugString(), ")");
  }
  WEFT_ASSIGN_OR_RETURN(
      g.rows, ComputeWindowDim(attrs, 'H', input.dim_size(attrs.index('H')),
                               filter.dim_size(0)));
  WEFT_ASSIGN_OR_RETURN(
      g.cols, ComputeWindowDim(attrs, 'W', input.dim_size(attrs.index('W')),
                               filter.dim_size(1)));
  *geometry = g;
  return Status();
}

}  // namespace weft
