// _LayerNorm (ops/nn_fused_ops.cc) on the CPU, float: rows of x's last
// dimension through layer_norm_float.h, split across the session's arena
// (each row is computed alone, so results do not depend on the thread
// count). gamma and beta must hold one value per element of that
// dimension; the output takes over x's buffer when nothing else holds it.
#include <cstdint>

#include "core/tensor.h"
#include "kernels/cpu/layer_norm_float.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class LayerNormOp : public OpKernel {
 public:
  explicit LayerNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& gamma = ctx->input(1);
    const Tensor& beta = ctx->input(2);
    OP_REQUIRES(ctx, x.dims() >= 1,
                errors::InvalidArgument("x must have rank >= 1, but has shape ",
                                        x.shape().DebugString()));
    const int64_t depth = x.dim_size(x.dims() - 1);
    OP_REQUIRES(ctx,
                gamma.dims() == 1 && beta.dims() == 1 &&
                    gamma.dim_size(0) == depth && beta.dim_size(0) == depth,
                errors::InvalidArgument(
                    "gamma ", gamma.shape().DebugString(), " and beta ",
                    beta.shape().DebugString(), " must both be [", depth,
                    "], the last dimension of x ", x.shape().DebugString()));
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    const int64_t rows = x.NumElements() / depth;
    const float* in = x.data<float>();
    float* out = y->data<float>();
    const float* g = gamma.data<float>();
    const float* b = beta.data<float>();
    const float eps = epsilon_;
    // Three passes over the row, a few cycles per value each.
    ctx->ParallelFor(rows, 8 * depth, [&](int64_t begin, int64_t end) {
      LayerNormFloatRows(in + begin * depth, out + begin * depth, end - begin,
                         depth, g, b, eps);
    });
  }

 private:
  float epsilon_ = 0;
};

REGISTER_KERNEL_BUILDER(
    Name("_LayerNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    LayerNormOp);

}  // namespace
}  // namespace weft
