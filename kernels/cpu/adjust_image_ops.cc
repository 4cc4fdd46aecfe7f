// AdjustContrastv2, AdjustHue and AdjustSaturation on the CPU, float
// images (the dtype TensorFlow's CPU kernels take; half runs on GPUs
// there). The arithmetic follows TensorFlow's CPU kernels step for step,
// so results match bit for bit:
// - contrast: per image and channel the mean over height x width, summed
//   by folding the plane in halves (row j += row j + ceil(n/2) until one
//   row is left) and scaled by 1/(h*w); then x' = m + f * (x - m);
// - hue: RGB to (hue in [0, 6), min, max), hue += 6 * delta wrapped into
//   [0, 6), back to RGB;
// - saturation: RGB to HSV, s = clamp(s * scale, 0, 1), back to RGB.
// Pixels are independent, so hue and saturation split over the arena;
// contrast splits over images.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// images (input 0) of rank >= 3 and a scalar factor (input 1) named
// `factor`; `rgb` also requires 3 channels.
Status CheckAdjustInputs(const OpKernelContext* ctx, const char* factor,
                         bool rgb) {
  const Tensor& images = ctx->input(0);
  if (images.dims() < 3) {
    return errors::InvalidArgument(
        "images (input 0) must be at least 3-D, got shape ",
        images.shape().DebugString());
  }
  if (ctx->input(1).dims() != 0) {
    return errors::InvalidArgument(factor, " (input 1) must be scalar: ",
                                   ctx->input(1).shape().DebugString());
  }
  if (rgb && images.dim_size(images.dims() - 1) != 3) {
    return errors::InvalidArgument(
        "images (input 0) must have 3 channels but instead has ",
        images.dim_size(images.dims() - 1), " channels");
  }
  return Status();
}

class AdjustContrastOp : public OpKernel {
 public:
  explicit AdjustContrastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    OP_REQUIRES_OK(ctx, CheckAdjustInputs(ctx, "contrast_factor", false));
    const Tensor& images = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    if (images.NumElements() == 0) return;
    const int dims = images.dims();
    const int64_t channels = images.dim_size(dims - 1);
    const int64_t plane = images.dim_size(dims - 3) * images.dim_size(dims - 2);
    const int64_t batch = images.NumElements() / (plane * channels);
    const float factor = ctx->input(1).data<float>()[0];
    const float* in = images.data<float>();
    float* dst = out->data<float>();
    ctx->ParallelFor(batch, plane * channels * 4, [&](int64_t b0, int64_t b1) {
      std::vector<float> sum;
      std::vector<float> mean(channels);
      for (int64_t b = b0; b < b1; ++b) {
        const float* x = in + b * plane * channels;
        float* y = dst + b * plane * channels;
        // Folding in halves: the first fold reads the image, later ones
        // the partial sums; an odd middle row is carried over.
        int64_t remaining = plane;
        sum.assign(x, x + channels * (plane > 1 ? (plane + 1) / 2 : 1));
        bool first = true;
        while (remaining > 1) {
          const int64_t right = remaining / 2;
          const int64_t left = remaining - right;
          const float* src = first ? x : sum.data();
          for (int64_t i = 0; i < right * channels; ++i) {
            sum[i] = src[left * channels + i] + src[i];
          }
          first = false;
          remaining = left;
        }
        const float scale = 1.0f / static_cast<float>(plane);
        for (int64_t c = 0; c < channels; ++c) mean[c] = sum[c] * scale;
        for (int64_t p = 0; p < plane; ++p) {
          for (int64_t c = 0; c < channels; ++c) {
            const int64_t i = p * channels + c;
            y[i] = mean[c] + factor * (x[i] - mean[c]);
          }
        }
      }
    });
  }
};

// RGB to hue in [0, 6) (0 for greys) and the smallest and largest channel:
// the hue's sextant is which channel is largest and which smallest.
void RgbToHueRange(float r, float g, float b, float* h, float* lo, float* hi) {
  float mid;
  int sextant;
  if (r < g) {
    if (b < r) {
      *hi = g, mid = r, *lo = b, sextant = 1;
    } else if (b > g) {
      *hi = b, mid = g, *lo = r, sextant = 3;
    } else {
      *hi = g, mid = b, *lo = r, sextant = 2;
    }
  } else {
    if (b < g) {
      *hi = r, mid = g, *lo = b, sextant = 0;
    } else if (b > r) {
      *hi = b, mid = r, *lo = g, sextant = 4;
    } else {
      *hi = r, mid = b, *lo = g, sextant = 5;
    }
  }
  if (*hi == *lo) {
    *h = 0;
    return;
  }
  const float ratio = (mid - *lo) / (*hi - *lo);
  *h = sextant + ((sextant & 1) == 0 ? ratio : 1 - ratio);
}

void HueRangeToRgb(float h, float lo, float hi, float* rgb) {
  // h is in [0, 6) or NaN (whose int conversion TensorFlow leaves to the
  // hardware; any sextant gives NaN here).
  const int sextant = h >= 0 && h < 6 ? static_cast<int>(h) : 5;
  float ratio = h - sextant;
  if ((sextant & 1) != 0) ratio = 1 - ratio;
  const float mid = lo + ratio * (hi - lo);
  // Which channel gets hi, mid and lo, per sextant.
  static constexpr int kHi[6] = {0, 1, 1, 2, 2, 0};
  static constexpr int kMid[6] = {1, 0, 2, 1, 0, 2};
  const int s = sextant >= 0 && sextant < 6 ? sextant : 5;
  rgb[kHi[s]] = hi;
  rgb[kMid[s]] = mid;
  rgb[3 - kHi[s] - kMid[s]] = lo;
}

class AdjustHueOp : public OpKernel {
 public:
  explicit AdjustHueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    OP_REQUIRES_OK(ctx, CheckAdjustInputs(ctx, "delta", true));
    const Tensor& images = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, images.shape(), &out));
    const float delta = ctx->input(1).data<float>()[0];
    const float* in = images.data<float>();
    float* dst = out->data<float>();
    ctx->ParallelFor(images.NumElements() / 3, 10, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* x = in + 3 * p;
        float h, lo, hi;
        RgbToHueRange(x[0], x[1], x[2], &h, &lo, &hi);
        h += delta * 6;
        // TensorFlow's loops never end for an infinite or huge hue.
        if (!(h > -60 && h < 60)) h = std::fmod(h, 6.0f);
        while (h < 0) h += 6;
        while (h >= 6) h -= 6;
        HueRangeToRgb(h, lo, hi, dst + 3 * p);
      }
    });
  }
};

void RgbToHsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  // The offsets are added in double, as in TensorFlow.
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = static_cast<float>(norm * (b - r) + 2.0 / 6.0);
  } else {
    hh = static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  }
  if (range <= 0.0f) hh = 0;
  if (hh < 0.0f) hh = hh + 1;
  *h = hh;
  *v = vv;
}

void HsvToRgb(float h, float s, float v, float* rgb) {
  const float c = s * v;
  const float m = v - c;
  const float dh = h * 6;
  // Out of range (NaN) takes the default case, as TensorFlow's INT_MIN does.
  const int sextant = dh >= 0 && dh < 7 ? static_cast<int>(dh) : -1;
  float fmodu = dh;
  if (!(fmodu > -20 && fmodu < 20)) fmodu = std::fmod(fmodu, 2.0f);
  while (fmodu <= 0) fmodu += 2.0f;
  while (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  float r = 0, g = 0, b = 0;
  switch (sextant) {
    case 0:
      r = c, g = x;
      break;
    case 1:
      r = x, g = c;
      break;
    case 2:
      g = c, b = x;
      break;
    case 3:
      g = x, b = c;
      break;
    case 4:
      r = x, b = c;
      break;
    case 5:
      r = c, b = x;
      break;
    default:
      break;
  }
  rgb[0] = r + m;
  rgb[1] = g + m;
  rgb[2] = b + m;
}

class AdjustSaturationOp : public OpKernel {
 public:
  explicit AdjustSaturationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    OP_REQUIRES_OK(ctx, CheckAdjustInputs(ctx, "scale", true));
    const Tensor& images = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, images.shape(), &out));
    const float scale = ctx->input(1).data<float>()[0];
    const float* in = images.data<float>();
    float* dst = out->data<float>();
    ctx->ParallelFor(images.NumElements() / 3, 10, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const float* x = in + 3 * p;
        float h, s, v;
        RgbToHsv(x[0], x[1], x[2], &h, &s, &v);
        s = std::min(1.0f, std::max(0.0f, s * scale));
        HsvToRgb(h, s, v, dst + 3 * p);
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("AdjustContrastv2").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT}),
    AdjustContrastOp);
REGISTER_KERNEL_BUILDER(
    Name("AdjustHue").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT}),
    AdjustHueOp);
REGISTER_KERNEL_BUILDER(
    Name("AdjustSaturation").Device(DEVICE_CPU).TypeConstraint("T", {DT_FLOAT}),
    AdjustSaturationOp);

}  // namespace
}  // namespace weft
