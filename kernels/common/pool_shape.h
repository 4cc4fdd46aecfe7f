// The attribute and shape contract of MaxPool and AvgPool, shared by their
// kernels on every device (kernels/cpu/pooling_ops.cc,
// kernels/cuda/pooling_ops.cc) so that they accept the same graphs, make
// the same output shapes and report the same errors.
#ifndef WEFT_KERNELS_COMMON_POOL_SHAPE_H_
#define WEFT_KERNELS_COMMON_POOL_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "kernels/common/window_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// Reads attrs 'data_format', 'padding', 'explicit_paddings', 'ksize' and
// 'strides' (window_shape.h's readers and their errors), then checks them as
// CheckPoolAttrs does. `max` is MaxPool (true) or AvgPool (false).
Status ReadPoolAttrs(OpKernelConstruction* ctx, bool max, WindowAttrs* attrs,
                     int64_t* depth_window);

// The checks of both pools on attrs already read: no pooling over the batch
// (Unimplemented), EXPLICIT paddings smaller than the window
// (InvalidArgument). MaxPool (`max`) may pool over depth alone (ksize 1
// along height and width, depth stride = depth window, no EXPLICIT
// padding; Unimplemented otherwise); AvgPool may not pool over depth
// (Unimplemented). *depth_window is the depth window: 1 for spatial pools.
Status CheckPoolAttrs(bool max, const WindowAttrs& attrs,
                      int64_t* depth_window);

// The geometry of a pool over an input in attrs.format.
struct PoolShape {
  int64_t batch = 0;
  int64_t depth = 0;  // of the input
  // Spatial pools: the windows along height and width. Depth pools keep
  // the spatial size (the spatial strides are ignored, as in TensorFlow):
  // only `input` and `output` are set, both the input's size.
  WindowDim rows;
  WindowDim cols;
  int64_t depth_window = 1;
  int64_t out_depth = 0;  // depth / depth_window

  // The output's shape, in attrs.format.
  TensorShape OutputShape(const WindowAttrs& attrs) const;
};

// The geometry of the pool over `input`, with `depth_window` from
// ReadPoolAttrs. InvalidArgument unless the input is 4-D; a depth pool
// needs its window to divide the input depth (Unimplemented); spatial
// windows as ComputeWindowDim.
StatusOr<PoolShape> GetPoolShape(const WindowAttrs& attrs, int64_t depth_window,
                                 const TensorShape& input);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_POOL_SHAPE_H_
