// The geometry of the 2-D convolutions (Conv2D, _FusedConv2D,
// DepthwiseConv2dNative, _FusedDepthwiseConv2dNative): the operands
// validated into the sizes the CPU kernels (kernels/cpu/conv2d.h,
// depthwise_conv.h) and the CUDA planning (kernels/cuda/plan/nn_plan.h)
// compute with, so both devices agree on every output shape and error.
#ifndef WEFT_KERNELS_COMMON_CONV_SHAPE_H_
#define WEFT_KERNELS_COMMON_CONV_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/common/window_shape.h"

namespace weft {

struct Conv2DGeometry {
  int64_t batch = 0;
  int64_t in_depth = 0;
  int64_t filter_depth = 0;  // input channels per group
  int64_t out_depth = 0;
  int64_t groups = 1;
  WindowDim rows;
  WindowDim cols;

  int64_t out_depth_per_group() const { return out_depth / groups; }
  // Columns of one group's patch matrix: the k of its product.
  int64_t patch_size() const {
    return rows.window * cols.window * filter_depth;
  }
  // Rows of the patch matrix: N * OH * OW.
  int64_t output_pixels() const { return batch * rows.output * cols.output; }
};

// The geometry of `input` (4-D, in attrs.format) convolved with `filter`
// ([rows, cols, in_depth / groups, out_depth]) under `attrs`. Errors name
// the shapes and what is wrong with them (not 4-D, a filter depth of 0, an
// input depth that is not a multiple of it, an output depth that is not a
// multiple of the groups, a window that does not fit). An input without
// channels counts as one group summing nothing.
Status MakeConv2DGeometry(const WindowAttrs& attrs, const Tensor& input,
                          const Tensor& filter, Conv2DGeometry* geometry);

struct DepthwiseGeometry {
  int64_t batch = 0;
  int64_t depth = 0;       // C
  int64_t multiplier = 0;  // M
  WindowDim rows;
  WindowDim cols;

  int64_t out_depth() const { return depth * multiplier; }
};

// The geometry of a depthwise convolution of `input` (4-D, in attrs.format)
// with `filter` ([rows, cols, C, M]) into *geometry. InvalidArgument, naming
// the shapes, when the ranks or depths do not fit or the window does not.
Status ComputeDepthwiseGeometry(const WindowAttrs& attrs,
                                const TensorShape& input,
                                const TensorShape& filter,
                                DepthwiseGeometry* geometry);
inline Status ComputeDepthwiseGeometry(const WindowAttrs& attrs,
                                       const Tensor& input,
                                       const Tensor& filter,
                                       DepthwiseGeometry* geometry) {
  return ComputeDepthwiseGeometry(attrs, input.shape(), filter.shape(),
                                  geometry);
}

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_CONV_SHAPE_H_
