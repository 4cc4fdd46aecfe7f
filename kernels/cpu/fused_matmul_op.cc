// _FusedMatMul on the CPU, for float: MatMul (matmul_op.cc) with the bias
// and activation that followed it in the graph (see fused_epilogue.h and
// ops/nn_fused_ops.cc).
//
// The product is the shared Gemm (gemm.h) with its epilogue, which adds the
// bias (and a residual, fused_ops "Add") and applies the activation to each
// output tile as it is finished, while it is in cache. A constant b is
// packed once, as MatMul packs it.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "core/tensor.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/fused_epilogue.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matmul_packed_rhs.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class FusedMatMulOp : public OpKernel {
 public:
  explicit FusedMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    OP_REQUIRES_OK(ctx,
                   ReadFusedOps(ctx, &epilogue_, &has_bias_, &has_residual_));
    if (const Tensor* b = ctx->constant_input(1)) {
      packed_b_ = MatMulPackedRhs::Make(*b, transpose_b_);
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    StatusOr<MatMulDims> dims = GetMatMulDims(a, b, transpose_a_, transpose_b_);
    OP_REQUIRES_OK(ctx, dims.status());
    const auto [m, k, n] = *dims;
    GemmEpilogue epilogue = epilogue_;
    if (has_bias_) {
      const Tensor& bias = ctx->input(2);
      OP_REQUIRES(ctx, bias.dims() == 1 && bias.dim_size(0) == n,
                  errors::InvalidArgument(
                      "bias (input 2) has shape ", bias.shape().DebugString(),
                      " but must be [", n, "], one value per output column"));
      epilogue.bias = bias.data<float>();
    }
    if (has_residual_) {
      OP_REQUIRES_OK(
          ctx, SetResidual(*ctx, has_bias_, TensorShape({m, n}), n, &epilogue));
    }
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    if (m == 0 || n == 0) return;
    float* out = c->data<float>();
    if (k == 0) {
      std::fill_n(out, m * n, 0.0f);
      ApplyEpilogueRows(epilogue, out, m, n, n);
      return;
    }
    const GemmOperand<float> lhs{a.data<float>(), a.dim_size(1), transpose_a_};
    const GemmOperand<float> rhs{b.data<float>(), b.dim_size(1), transpose_b_};
    if (const GemmPackedRhs* packed = packed_b_ ? packed_b_->For(b) : nullptr) {
      // A constant weight: read once per run, from memory when large.
      Gemm(ContextParallelFor(*ctx), m, lhs, *packed, out, n, epilogue,
           GemmRhsLocality::kMemory);
      return;
    }
    Gemm(ContextParallelFor(*ctx), m, k, n, lhs, rhs, out, n, epilogue);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  GemmEpilogue epilogue_;
  bool has_bias_ = false;
  bool has_residual_ = false;
  // A constant b packed once; null: packed per call (gemm.h).
  std::unique_ptr<MatMulPackedRhs> packed_b_;
};

REGISTER_KERNEL_BUILDER(
    Name("_FusedMatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    FusedMatMulOp);

}  // namespace
}  // namespace weft
