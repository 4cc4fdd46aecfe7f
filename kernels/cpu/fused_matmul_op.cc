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
      const Tensor& residual = ctx->input(has_bias_ ? 3 : 2);
      if (residual.shape() != TensorShape({m, n})) {
        ComputeBroadcastResidual(ctx, m, k, n, epilogue, residual);
        return;
      }
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
    Multiply(ctx, m, k, n, epilogue, out);
  }

 private:
  // out = a b with `epilogue`, k > 0.
  void Multiply(OpKernelContext* ctx, int64_t m, int64_t k, int64_t n,
                const GemmEpilogue& epilogue, float* out) const {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
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

  // A residual whose shape is not the product's: the optimizer fused an
  // AddV2 whose operands' batch dimensions were both unknown, and at run
  // time they differ (one of them 1), so the AddV2 broadcasts. The nodes'
  // steps one after the other: the product with its bias, the broadcast
  // sum, the activation. A rank-2 residual only, as the fused AddV2 had;
  // shapes that do not broadcast fail as AddV2 fails.
  void ComputeBroadcastResidual(OpKernelContext* ctx, int64_t m, int64_t k,
                                int64_t n, const GemmEpilogue& epilogue,
                                const Tensor& residual) const {
    const int index = has_bias_ ? 3 : 2;
    auto broadcast = [](int64_t x, int64_t y) {
      return x == y ? x : x == 1 ? y : y == 1 ? x : int64_t{-1};
    };
    const int64_t rows =
        residual.dims() == 2 ? broadcast(m, residual.dim_size(0)) : -1;
    const int64_t cols =
        residual.dims() == 2 ? broadcast(n, residual.dim_size(1)) : -1;
    OP_REQUIRES(
        ctx, rows >= 0 && cols >= 0,
        errors::InvalidArgument(
            "residual (input ", index, ") of shape ",
            residual.shape().DebugString(),
            " does not broadcast with the product's shape [", m, ",", n, "]"));
    Tensor product;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(DT_FLOAT, TensorShape({m, n}), &product));
    float* p = product.data<float>();
    GemmEpilogue bias_only;
    bias_only.bias = epilogue.bias;
    if (m > 0 && n > 0) {
      if (k == 0) {
        std::fill_n(p, m * n, 0.0f);
        ApplyEpilogueRows(bias_only, p, m, n, n);
      } else {
        Multiply(ctx, m, k, n, bias_only, p);
      }
    }
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows, cols}), &c));
    float* out = c->data<float>();
    const float* r = residual.data<float>();
    const int64_t r_rows = residual.dim_size(0), r_cols = residual.dim_size(1);
    for (int64_t i = 0; i < rows; ++i) {
      const float* pi = p + (m == 1 ? 0 : i) * n;
      const float* ri = r + (r_rows == 1 ? 0 : i) * r_cols;
      for (int64_t j = 0; j < cols; ++j) {
        out[i * cols + j] = pi[n == 1 ? 0 : j] + ri[r_cols == 1 ? 0 : j];
      }
    }
    GemmEpilogue activation_only = epilogue;
    activation_only.bias = nullptr;
    activation_only.residual = nullptr;
    ApplyEpilogueRows(activation_only, out, rows, cols, cols);
  }

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
