// _Gelu (ops/nn_fused_ops.cc) on the CPU, float: gelu_float.h's vector loop
// on the AVX2 and AVX-512 paths; on the baseline path each value in double
// (std::erfc, or x / (1 + e^-2y) for the tanh form) rounded once. Values
// are split across the session's arena; each is computed alone, so results
// do not depend on the thread count.
#include <cmath>
#include <cstdint>

#include "core/tensor.h"
#include "kernels/cpu/gelu_float.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

float GeluDouble(float value, bool approximate) {
  const double x = value;
  if (approximate) {
    const double two_y = 2 * 0.7978845608028654 * (x + 0.044715 * x * x * x);
    return static_cast<float>(x / (1 + std::exp(-two_y)));
  }
  return static_cast<float>(0.5 * x * std::erfc(-x * 0.7071067811865476));
}

class GeluOp : public OpKernel {
 public:
  explicit GeluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("approximate", &approximate_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    const float* in = x.data<float>();
    float* out = y->data<float>();
    const bool approximate = approximate_;
    // Cycles per value (ParallelFor's unit): about 4 on the vector paths,
    // tens in double on the baseline path.
    constexpr int64_t kCost = 20;
    ctx->ParallelFor(x.NumElements(), kCost, [&](int64_t begin, int64_t end) {
      if (GeluFloatOnVectorPath(in + begin, out + begin, end - begin,
                                approximate)) {
        return;
      }
      for (int64_t i = begin; i < end; ++i) {
        out[i] = GeluDouble(in[i], approximate);
      }
    });
  }

 private:
  bool approximate_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("_Gelu").Device(DEVICE_CPU).TypeConstraint<float>("T"), GeluOp);

}  // namespace
}  // namespace weft
