// The geometry the CPU image resize kernels share (ResizeBilinear,
// ResizeNearestNeighbor, ResizeBicubic, ResizeArea): TensorFlow's
// ImageResizerState checks on images and size, in its order and with its
// messages' meaning, and the scale of each dimension as TensorFlow computes
// it in float.
#ifndef WEFT_KERNELS_CPU_RESIZE_SHAPE_H_
#define WEFT_KERNELS_CPU_RESIZE_SHAPE_H_

#include <cstdint>
#include <limits>

#include "core/status.h"
#include "core/tensor.h"

namespace weft {

// The validated geometry of one resize.
struct ResizeShape {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t channels = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  float height_scale = 0;
  float width_scale = 0;
};

inline float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return (align_corners && out > 1)
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// TensorFlow's ImageResizerState checks, in its order.
inline StatusOr<ResizeShape> GetResizeShape(const Tensor& images,
                                            const Tensor& size,
                                            bool align_corners,
                                            bool half_pixel_centers) {
  if (half_pixel_centers && align_corners) {
    return errors::InvalidArgument(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  if (images.dims() != 4) {
    return errors::InvalidArgument(
        "images must be 4-dimensional [batch, height, width, channels] but "
        "has shape ",
        images.shape().DebugString());
  }
  ResizeShape s;
  s.batch = images.dim_size(0);
  s.in_height = images.dim_size(1);
  s.in_width = images.dim_size(2);
  s.channels = images.dim_size(3);
  if (s.channels <= 0) {
    return errors::InvalidArgument("images ", images.shape().DebugString(),
                                   " must have at least one channel");
  }
  if (s.in_height <= 0 || s.in_width <= 0) {
    return errors::InvalidArgument("images ", images.shape().DebugString(),
                                   " must have a non-zero height and width");
  }
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (s.in_height >= kMaxInt32 || s.in_width >= kMaxInt32) {
    return errors::InvalidArgument("images ", images.shape().DebugString(),
                                   " are too large: height and width must be "
                                   "below 2^31 - 1");
  }
  if (size.dims() != 1 || size.NumElements() != 2) {
    return errors::InvalidArgument(
        "size must be a vector of 2 values [new_height, new_width] but has "
        "shape ",
        size.shape().DebugString());
  }
  s.out_height = size.data<int32_t>()[0];
  s.out_width = size.data<int32_t>()[1];
  if (s.out_height <= 0 || s.out_width <= 0) {
    return errors::InvalidArgument("size [", s.out_height, ", ", s.out_width,
                                   "] must be positive");
  }
  s.height_scale = ResizeScale(s.in_height, s.out_height, align_corners);
  s.width_scale = ResizeScale(s.in_width, s.out_width, align_corners);
  return s;
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_RESIZE_SHAPE_H_
