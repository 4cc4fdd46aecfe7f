// ClipByValue on the CPU: output = max(min(t, clip_value_max),
// clip_value_min) element-wise, evaluated in that order as TensorFlow does
// (so where min > max every element is min, and a NaN in t stays NaN).
// clip_value_min and clip_value_max are each a scalar or of t's shape;
// anything else is an InvalidArgument naming the three shapes.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    auto fits = [&](const Tensor& b) {
      return b.dims() == 0 || b.shape() == t.shape();
    };
    OP_REQUIRES(ctx, fits(lo) && fits(hi),
                errors::InvalidArgument(
                    "clip_value_min and clip_value_max must be either of the "
                    "same shape as input, or a scalar. input shape: ",
                    t.shape().DebugString(),
                    " clip_value_min shape: ", lo.shape().DebugString(),
                    " clip_value_max shape: ", hi.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, t.shape(), &out));
    const T* x = t.data<T>();
    const T* a = lo.data<T>();
    const T* b = hi.data<T>();
    const int64_t as = lo.dims() == 0 ? 0 : 1;
    const int64_t bs = hi.dims() == 0 ? 0 : 1;
    T* o = out->data<T>();
    ctx->ParallelFor(t.NumElements(), 4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const T upper = b[i * bs];
        const T lower = a[i * as];
        const T v = upper < x[i] ? upper : x[i];
        o[i] = v < lower ? lower : v;
      }
    });
  }
};

#define WEFT_REGISTER_CLIP(T)                                        \
  REGISTER_KERNEL_BUILDER(                                           \
      Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      ClipByValueOp<T>)

WEFT_REGISTER_CLIP(half);
WEFT_REGISTER_CLIP(bfloat16);
WEFT_REGISTER_CLIP(float);
WEFT_REGISTER_CLIP(double);
WEFT_REGISTER_CLIP(int8_t);
WEFT_REGISTER_CLIP(int16_t);
WEFT_REGISTER_CLIP(int32_t);
WEFT_REGISTER_CLIP(int64_t);
WEFT_REGISTER_CLIP(uint8_t);
WEFT_REGISTER_CLIP(uint16_t);

#undef WEFT_REGISTER_CLIP

}  // namespace
}  // namespace weft
