// ResizeBilinear and ResizeNearestNeighbor on the CPU, for NHWC images,
// with TensorFlow's coordinate mappings (all in float, as TensorFlow
// computes them, so the same source pixels and weights are chosen):
//
//   scale = align_corners && out > 1 ? (in - 1) / (out - 1) : in / out
//   bilinear source of output o: half_pixel_centers ? (o + 0.5) * scale - 0.5
//                                                   : o * scale
//     lower = max(floor(src), 0), upper = min(ceil(src), in - 1),
//     lerp = src - floor(src); out = top + (bottom - top) * y_lerp with
//     top/bottom = left + (right - left) * x_lerp, inputs widened to float.
//     A resize to the same size is a plain conversion to float.
//   nearest source of output o: half_pixel_centers
//     ? max(floor((o + 0.5) * scale), 0) : align_corners ? round(o * scale)
//     : floor(o * scale), clamped to in - 1.
//
// ResizeBilinear outputs float for every input dtype; ResizeNearestNeighbor
// keeps the dtype and copies pixels by their byte size, so one kernel class
// serves every dtype. Output rows are the units of ctx->ParallelFor.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/resize_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// ---- bilinear ---------------------------------------------------------------

struct Interpolation {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

std::vector<Interpolation> Interpolations(int64_t out_size, int64_t in_size,
                                          float scale,
                                          bool half_pixel_centers) {
  std::vector<Interpolation> w(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float src = half_pixel_centers
                          ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                          : static_cast<float>(i) * scale;
    const float src_floor = std::floor(src);
    w[i].lower = std::max(static_cast<int64_t>(src_floor), int64_t{0});
    w[i].upper = std::min(static_cast<int64_t>(std::ceil(src)), in_size - 1);
    w[i].lerp = src - src_floor;
  }
  return w;
}

template <typename T>
class ResizeBilinearOp : public OpKernel {
 public:
  explicit ResizeBilinearOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    StatusOr<ResizeShape> shape = GetResizeShape(
        images, ctx->input(1), align_corners_, half_pixel_centers_);
    OP_REQUIRES_OK(ctx, shape.status());
    const ResizeShape& s = *shape;
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({s.batch, s.out_height, s.out_width, s.channels}),
            &output));
    if (output->NumElements() == 0) return;
    const T* in = images.data<T>();
    float* out = output->data<float>();
    const int64_t c = s.channels;
    if (s.out_height == s.in_height && s.out_width == s.in_width) {
      const int64_t row = s.in_width * c;
      ctx->ParallelFor(s.batch * s.in_height, row,
                       [&](int64_t first, int64_t last) {
                         for (int64_t i = first * row; i < last * row; ++i) {
                           out[i] = static_cast<float>(in[i]);
                         }
                       });
      return;
    }
    const std::vector<Interpolation> ys = Interpolations(
        s.out_height, s.in_height, s.height_scale, half_pixel_centers_);
    const std::vector<Interpolation> xs = Interpolations(
        s.out_width, s.in_width, s.width_scale, half_pixel_centers_);
    const int64_t in_row = s.in_width * c;
    const int64_t out_row = s.out_width * c;
    ctx->ParallelFor(
        s.batch * s.out_height, out_row * 8, [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / s.out_height;
            const Interpolation& y = ys[r % s.out_height];
            const T* top = in + (b * s.in_height + y.lower) * in_row;
            const T* bottom = in + (b * s.in_height + y.upper) * in_row;
            float* dst = out + r * out_row;
            for (int64_t ox = 0; ox < s.out_width; ++ox) {
              const Interpolation& x = xs[ox];
              const T* tl = top + x.lower * c;
              const T* tr = top + x.upper * c;
              const T* bl = bottom + x.lower * c;
              const T* br = bottom + x.upper * c;
              for (int64_t ch = 0; ch < c; ++ch) {
                const float top_left = static_cast<float>(tl[ch]);
                const float top_right = static_cast<float>(tr[ch]);
                const float bottom_left = static_cast<float>(bl[ch]);
                const float bottom_right = static_cast<float>(br[ch]);
                const float t = top_left + (top_right - top_left) * x.lerp;
                const float bt =
                    bottom_left + (bottom_right - bottom_left) * x.lerp;
                dst[ox * c + ch] = t + (bt - t) * y.lerp;
              }
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

// ---- nearest neighbor -------------------------------------------------------

int64_t NearestSource(int64_t o, float scale, int64_t in_size,
                      bool align_corners, bool half_pixel_centers) {
  int64_t i;
  if (half_pixel_centers) {
    i = static_cast<int64_t>(
        std::floor((static_cast<float>(o) + 0.5f) * scale));
  } else if (align_corners) {
    i = static_cast<int64_t>(std::round(static_cast<float>(o) * scale));
  } else {
    i = static_cast<int64_t>(std::floor(static_cast<float>(o) * scale));
  }
  i = std::min(i, in_size - 1);
  if (half_pixel_centers) i = std::max<int64_t>(0, i);
  return i;
}

class ResizeNearestNeighborOp : public OpKernel {
 public:
  explicit ResizeNearestNeighborOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    StatusOr<ResizeShape> shape = GetResizeShape(
        images, ctx->input(1), align_corners_, half_pixel_centers_);
    OP_REQUIRES_OK(ctx, shape.status());
    const ResizeShape& s = *shape;
    // TensorFlow's limit: source coordinates are exact in float below 2^24.
    OP_REQUIRES(ctx, s.in_height < (1 << 24) && s.in_width < (1 << 24),
                errors::InvalidArgument(
                    "nearest neighbor resizing needs a height and width below "
                    "2^24, but images have shape ",
                    images.shape().DebugString()));
    Tensor* output = nullptr;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({s.batch, s.out_height, s.out_width, s.channels}),
            &output));
    if (output->NumElements() == 0) return;
    std::vector<int64_t> xs(s.out_width);
    for (int64_t x = 0; x < s.out_width; ++x) {
      xs[x] = NearestSource(x, s.width_scale, s.in_width, align_corners_,
                            half_pixel_centers_);
    }
    const size_t pixel = s.channels * DataTypeSize(images.dtype());
    const char* in = static_cast<const char*>(images.raw_data());
    char* out = static_cast<char*>(output->raw_data());
    const int64_t in_row = s.in_width * pixel;
    const int64_t out_row = s.out_width * pixel;
    ctx->ParallelFor(
        s.batch * s.out_height, out_row, [&](int64_t first, int64_t last) {
          for (int64_t r = first; r < last; ++r) {
            const int64_t b = r / s.out_height;
            const int64_t y =
                NearestSource(r % s.out_height, s.height_scale, s.in_height,
                              align_corners_, half_pixel_centers_);
            const char* src = in + (b * s.in_height + y) * in_row;
            char* dst = out + r * out_row;
            for (int64_t x = 0; x < s.out_width; ++x) {
              std::memcpy(dst + x * pixel, src + xs[x] * pixel, pixel);
            }
          }
        });
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

#define WEFT_REGISTER_RESIZE(T)                                                \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeBilinear").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
      ResizeBilinearOp<T>);                                                    \
  REGISTER_KERNEL_BUILDER(                                                     \
      Name("ResizeNearestNeighbor").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeNearestNeighborOp)

WEFT_REGISTER_RESIZE(float);
WEFT_REGISTER_RESIZE(double);
WEFT_REGISTER_RESIZE(half);
WEFT_REGISTER_RESIZE(bfloat16);
WEFT_REGISTER_RESIZE(int8_t);
WEFT_REGISTER_RESIZE(uint8_t);
WEFT_REGISTER_RESIZE(int16_t);
WEFT_REGISTER_RESIZE(uint16_t);
WEFT_REGISTER_RESIZE(int32_t);
WEFT_REGISTER_RESIZE(int64_t);

#undef WEFT_REGISTER_RESIZE

}  // namespace
}  // namespace weft
