// FakeQuantWithMinMaxArgs and FakeQuantWithMinMaxVars on the CPU: each
// float is clamped to a nudged [min, max] and rounded to one of 2^num_bits
// levels (from 1 with narrow_range), the way TensorFlow's kernels compute
// it, so results match bit for bit: the range is nudged so that 0.0 is a
// level (zero point rounded half away from zero), then
//   Args: floor((clamp(x) - nudged_min) * inv_scale - zero + 0.5) * scale
//   Vars: floor((clamp(x) - nudged_min) / scale - zero + 0.5) * scale
// with inv_scale = levels / (max - min) computed directly, not as 1/scale.
// Vars with min = max = 0 gives zeros.
#include <cmath>
#include <cstdint>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

struct Nudged {
  float min;
  float max;
  float scale;
  float inv_scale;
  float zero;  // the zero point's level, counted from nudged_min
};

Nudged Nudge(float min, float max, int quant_min, int quant_max) {
  const float qmin = static_cast<float>(quant_min);
  const float qmax = static_cast<float>(quant_max);
  Nudged n;
  n.scale = (max - min) / (qmax - qmin);
  n.inv_scale = (qmax - qmin) / (max - min);
  const float zero_from_min = qmin - min / n.scale;
  uint16_t zero_point;
  if (zero_from_min < qmin) {
    zero_point = static_cast<uint16_t>(quant_min);
  } else if (!(zero_from_min <= qmax)) {  // also NaN (min = max)
    zero_point = static_cast<uint16_t>(quant_max);
  } else {
    zero_point = static_cast<uint16_t>(std::round(zero_from_min));
  }
  n.min = (qmin - zero_point) * n.scale;
  n.max = (qmax - zero_point) * n.scale;
  n.zero = std::floor(-n.min * n.inv_scale + 0.5f);
  return n;
}

Status ReadBits(OpKernelConstruction* ctx, int* quant_min, int* quant_max) {
  int64_t bits = 8;
  bool narrow = false;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("num_bits", &bits));
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("narrow_range", &narrow));
  if (bits < 2 || bits > 16) {
    return errors::InvalidArgument(
        "num_bits must be between 2 and 16, inclusive, but is ", bits);
  }
  *quant_min = narrow ? 1 : 0;
  *quant_max = (1 << bits) - 1;
  return Status();
}

// Clamps with TensorFlow's Eigen cwiseMin/cwiseMax order: NaN stays NaN.
inline float Clamp(float x, const Nudged& n) {
  const float a = n.max < x ? n.max : x;
  return a < n.min ? n.min : a;
}

class FakeQuantArgsOp : public OpKernel {
 public:
  explicit FakeQuantArgsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float min = 0, max = 0;
    Status s = ctx->GetAttr("min", &min);
    if (s.ok()) s = ctx->GetAttr("max", &max);
    if (s.ok()) s = ReadBits(ctx, &quant_min_, &quant_max_);
    if (s.ok() && !(min < max)) {
      s = errors::InvalidArgument(
          "min has to be smaller than max, was: min=", min, ", max=", max);
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    nudged_ = Nudge(min, max, quant_min_, quant_max_);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    const float* in = x.data<float>();
    float* y = out->data<float>();
    const Nudged n = nudged_;
    ctx->ParallelFor(x.NumElements(), 4, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const float shifted = Clamp(in[i], n) - n.min;
        y[i] = std::floor(shifted * n.inv_scale - n.zero + 0.5f) * n.scale;
      }
    });
  }

 private:
  int quant_min_ = 0;
  int quant_max_ = 255;
  Nudged nudged_{};
};

class FakeQuantVarsOp : public OpKernel {
 public:
  explicit FakeQuantVarsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    Status s = ReadBits(ctx, &quant_min_, &quant_max_);
    if (!s.ok()) ctx->SetStatus(s);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& min_t = ctx->input(1);
    const Tensor& max_t = ctx->input(2);
    OP_REQUIRES(ctx, min_t.dims() == 0,
                errors::InvalidArgument("min (input 1) must be rank 0 but is "
                                        "rank ",
                                        min_t.dims()));
    OP_REQUIRES(ctx, max_t.dims() == 0,
                errors::InvalidArgument("max (input 2) must be rank 0 but is "
                                        "rank ",
                                        max_t.dims()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    const float min = min_t.data<float>()[0];
    const float max = max_t.data<float>()[0];
    const float* in = x.data<float>();
    float* y = out->data<float>();
    if (min == 0.0f && max == 0.0f) {
      for (int64_t i = 0; i < x.NumElements(); ++i) y[i] = 0.0f;
      return;
    }
    const Nudged n = Nudge(min, max, quant_min_, quant_max_);
    ctx->ParallelFor(x.NumElements(), 8, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const float shifted = Clamp(in[i], n) - n.min;
        y[i] = std::floor(shifted / n.scale - n.zero + 0.5f) * n.scale;
      }
    });
  }

 private:
  int quant_min_ = 0;
  int quant_max_ = 255;
};

REGISTER_KERNEL_BUILDER(Name("FakeQuantWithMinMaxArgs").Device(DEVICE_CPU),
                        FakeQuantArgsOp);
REGISTER_KERNEL_BUILDER(Name("FakeQuantWithMinMaxVars").Device(DEVICE_CPU),
                        FakeQuantVarsOp);

}  // namespace
}  // namespace weft
