// ResizeBicubic and ResizeArea on the CPU, for NHWC images, with
// TensorFlow's arithmetic (all in float, in the order TensorFlow evaluates
// it, so results agree to the last bit unless a compiler contracts a
// multiply-add):
//
//  - ResizeBicubic: the source location of output o is o * scale, or
//    (o + 0.5) * scale - 0.5 with half_pixel_centers; its four taps
//    floor(src) - 1 .. floor(src) + 2 are clamped into the image and
//    weighted by a 1025-entry table of the cubic convolution kernel
//    (a = -0.75, or Keys' a = -0.5 with half_pixel_centers, which also gives
//    taps outside the image weight 0 and renormalizes the rest), indexed by
//    the rounded fraction of src times 1024. Each output is a 4-tap
//    interpolation across rows for each of the 4 columns, then across the
//    columns.
//  - ResizeArea: output cell [o * scale, (o + 1) * scale) in each dimension
//    covers input pixels with the fraction of each pixel inside it; the
//    output is the weighted sum (columns first, then rows) times
//    1 / (height_scale * width_scale).
//
// Both output float for every input dtype. The input is widened to float
// once, so the interpolation itself is compiled once, not per dtype. Output
// rows are the units of ctx->ParallelFor.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/image_layout.h"
#include "kernels/cpu/resize_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

constexpr int64_t kTableSize = 1024;

using CoeffTable = std::array<float, (kTableSize + 1) * 2>;

// Entry 2 i: the kernel at distance i / 1024; entry 2 i + 1: at distance
// 1 + i / 1024. Evaluated in double and stored in float, as TensorFlow does.
CoeffTable MakeCoeffTable(double a) {
  CoeffTable t;
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = static_cast<float>(static_cast<double>(i) / kTableSize);
    t[i * 2] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x = static_cast<float>(x + 1.0);
    t[i * 2 + 1] =
        static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return t;
}

const CoeffTable& CoeffsFor(bool keys) {
  static const CoeffTable* keys_table = new CoeffTable(MakeCoeffTable(-0.5));
  static const CoeffTable* legacy_table = new CoeffTable(MakeCoeffTable(-0.75));
  return keys ? *keys_table : *legacy_table;
}

int64_t Clamp(int64_t v, int64_t limit) {
  return std::min(limit - 1, std::max<int64_t>(0, v));
}

struct CubicTaps {
  float weight[4];
  int64_t index[4];
};

CubicTaps GetCubicTaps(float scale, int64_t out_loc, int64_t limit,
                       bool half_pixel_centers) {
  const float src = half_pixel_centers
                        ? (static_cast<float>(out_loc) + 0.5f) * scale - 0.5f
                        : static_cast<float>(out_loc) * scale;
  const int64_t loc = static_cast<int64_t>(std::floor(src));
  const float delta = src - static_cast<float>(loc);
  const int64_t offset =
      static_cast<int64_t>(std::lrint(delta * static_cast<float>(kTableSize)));
  const CoeffTable& t = CoeffsFor(half_pixel_centers);
  const float w[4] = {t[offset * 2 + 1], t[offset * 2],
                      t[(kTableSize - offset) * 2],
                      t[(kTableSize - offset) * 2 + 1]};
  CubicTaps taps;
  for (int k = 0; k < 4; ++k) {
    taps.index[k] = Clamp(loc - 1 + k, limit);
    taps.weight[k] = w[k];
  }
  if (half_pixel_centers) {
    // Taps outside the image get no weight; the others are renormalized.
    for (int k = 0; k < 4; ++k) {
      if (taps.index[k] != loc - 1 + k) taps.weight[k] = 0.0f;
    }
    const float sum =
        taps.weight[0] + taps.weight[1] + taps.weight[2] + taps.weight[3];
    if (std::fabs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inv = 1.0f / sum;
      for (float& w_k : taps.weight) w_k *= inv;
    }
  }
  return taps;
}

// ((v0 w0 + v1 w1) + v2 w2) + v3 w3, TensorFlow's order.
inline float Interpolate4(const float w[4], float v0, float v1, float v2,
                          float v3) {
  return v0 * w[0] + v1 * w[1] + v2 * w[2] + v3 * w[3];
}

// The images as float, [batch, height, width, channels].
template <typename T>
std::vector<float> ToFloat(const Tensor& images) {
  std::vector<float> x(images.NumElements());
  ConvertElements(images.data<T>(), x.data(), images.NumElements());
  return x;
}

void ResizeBicubic(const OpKernelContext& ctx, const ResizeShape& s,
                   bool half_pixel_centers, const float* in, float* out) {
  std::vector<CubicTaps> xs(s.out_width);
  for (int64_t x = 0; x < s.out_width; ++x) {
    xs[x] = GetCubicTaps(s.width_scale, x, s.in_width, half_pixel_centers);
  }
  const int64_t c = s.channels;
  const int64_t in_row = s.in_width * c;
  ctx.ParallelFor(
      s.batch * s.out_height, s.out_width * c * 32,
      [&](int64_t first, int64_t last) {
        for (int64_t r = first; r < last; ++r) {
          const int64_t b = r / s.out_height;
          const int64_t y = r % s.out_height;
          const CubicTaps ys =
              GetCubicTaps(s.height_scale, y, s.in_height, half_pixel_centers);
          const float* image = in + b * s.in_height * in_row;
          const float* rows[4];
          for (int k = 0; k < 4; ++k) rows[k] = image + ys.index[k] * in_row;
          float* o = out + r * s.out_width * c;
          for (int64_t x = 0; x < s.out_width; ++x) {
            const CubicTaps& xt = xs[x];
            for (int64_t ch = 0; ch < c; ++ch) {
              float cols[4];
              for (int k = 0; k < 4; ++k) {
                const int64_t p = xt.index[k] * c + ch;
                cols[k] = Interpolate4(ys.weight, rows[0][p], rows[1][p],
                                       rows[2][p], rows[3][p]);
              }
              o[x * c + ch] =
                  Interpolate4(xt.weight, cols[0], cols[1], cols[2], cols[3]);
            }
          }
        }
      });
}

// The input pixels [start, end) an area output cell covers along one
// dimension, with the covered fraction of the first and last.
struct AreaSpan {
  int64_t start = 0;
  int64_t end = 0;
  float start_scale = 0;
  float last_scale = 0;
};

// The fraction of input pixel v inside [lo, hi) (hi - lo = scale).
float Coverage(int64_t v, float lo, float hi, float scale) {
  const float next = static_cast<float>(v + 1);
  if (static_cast<float>(v) < lo) return next > hi ? scale : next - lo;
  return next > hi ? hi - static_cast<float>(v) : 1.0f;
}

AreaSpan GetAreaSpan(int64_t o, float scale) {
  const float lo = static_cast<float>(o) * scale;
  const float hi = static_cast<float>(o + 1) * scale;
  AreaSpan a;
  a.start = static_cast<int64_t>(std::floor(lo));
  a.end = static_cast<int64_t>(std::ceil(hi));
  a.start_scale = Coverage(a.start, lo, hi, scale);
  a.last_scale = Coverage(a.end - 1, lo, hi, scale);
  return a;
}

void ResizeArea(const OpKernelContext& ctx, const ResizeShape& s,
                const float* in, float* out) {
  std::vector<AreaSpan> xs(s.out_width);
  for (int64_t x = 0; x < s.out_width; ++x) {
    xs[x] = GetAreaSpan(x, s.width_scale);
  }
  const float norm = static_cast<float>(
      1.0 / static_cast<double>(s.height_scale * s.width_scale));
  const int64_t c = s.channels;
  const int64_t in_row = s.in_width * c;
  const int64_t cost = s.out_width * c *
                       static_cast<int64_t>(std::ceil(s.height_scale) + 1) *
                       static_cast<int64_t>(std::ceil(s.width_scale) + 1);
  ctx.ParallelFor(
      s.batch * s.out_height, cost, [&](int64_t first, int64_t last) {
        std::vector<float> y_scales;
        std::vector<const float*> rows;
        for (int64_t r = first; r < last; ++r) {
          const int64_t b = r / s.out_height;
          const int64_t y = r % s.out_height;
          const float lo = static_cast<float>(y) * s.height_scale;
          const float hi = static_cast<float>(y + 1) * s.height_scale;
          const int64_t y0 = static_cast<int64_t>(std::floor(lo));
          const int64_t y1 = static_cast<int64_t>(std::ceil(hi));
          y_scales.clear();
          rows.clear();
          for (int64_t i = y0; i < y1; ++i) {
            y_scales.push_back(Coverage(i, lo, hi, s.height_scale));
            rows.push_back(in +
                           (b * s.in_height + Clamp(i, s.in_height)) * in_row);
          }
          float* o = out + r * s.out_width * c;
          for (int64_t x = 0; x < s.out_width; ++x) {
            const AreaSpan& a = xs[x];
            const int64_t first_col = Clamp(a.start, s.in_width) * c;
            const int64_t last_col = Clamp(a.end - 1, s.in_width) * c;
            for (int64_t ch = 0; ch < c; ++ch) {
              float sum = 0;
              for (size_t i = 0; i < rows.size(); ++i) {
                const float* row = rows[i];
                float sum_y = row[first_col + ch] * a.start_scale;
                if (a.start + 1 != a.end) {
                  for (int64_t v = a.start + 1; v < a.end - 1; ++v) {
                    sum_y += row[Clamp(v, s.in_width) * c + ch];
                  }
                  sum_y += row[last_col + ch] * a.last_scale;
                }
                sum += sum_y * y_scales[i];
              }
              o[x * c + ch] = sum * norm;
            }
          }
        }
      });
}

template <typename T, bool kBicubic>
class ResizeFloatOutputOp : public OpKernel {
 public:
  explicit ResizeFloatOutputOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("align_corners", &align_corners_));
    if (kBicubic) {
      OP_REQUIRES_OK(ctx,
                     ctx->GetAttr("half_pixel_centers", &half_pixel_centers_));
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    StatusOr<ResizeShape> shape = GetResizeShape(
        images, ctx->input(1), align_corners_, half_pixel_centers_);
    OP_REQUIRES_OK(ctx, shape.status());
    const ResizeShape& s = *shape;
    Tensor* output = nullptr;
    StatusOr<TensorShape> out_shape =
        TensorShape::Build({s.batch, s.out_height, s.out_width, s.channels});
    OP_REQUIRES_OK(ctx, out_shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &output));
    if (output->NumElements() == 0) return;
    const float* in = nullptr;
    std::vector<float> widened;
    if constexpr (std::is_same_v<T, float>) {
      in = images.data<float>();
    } else {
      widened = ToFloat<T>(images);
      in = widened.data();
    }
    if (kBicubic) {
      ResizeBicubic(*ctx, s, half_pixel_centers_, in, output->data<float>());
    } else {
      ResizeArea(*ctx, s, in, output->data<float>());
    }
  }

 private:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

#define WEFT_REGISTER_RESIZE_FLOAT(T)                                  \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("ResizeBicubic").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ResizeFloatOutputOp<T, true>);                                   \
  REGISTER_KERNEL_BUILDER(                                             \
      Name("ResizeArea").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      ResizeFloatOutputOp<T, false>)

WEFT_REGISTER_RESIZE_FLOAT(float);
WEFT_REGISTER_RESIZE_FLOAT(double);
WEFT_REGISTER_RESIZE_FLOAT(half);
WEFT_REGISTER_RESIZE_FLOAT(bfloat16);
WEFT_REGISTER_RESIZE_FLOAT(int8_t);
WEFT_REGISTER_RESIZE_FLOAT(uint8_t);
WEFT_REGISTER_RESIZE_FLOAT(int16_t);
WEFT_REGISTER_RESIZE_FLOAT(uint16_t);
WEFT_REGISTER_RESIZE_FLOAT(int32_t);
WEFT_REGISTER_RESIZE_FLOAT(int64_t);

#undef WEFT_REGISTER_RESIZE_FLOAT

}  // namespace
}  // namespace weft
