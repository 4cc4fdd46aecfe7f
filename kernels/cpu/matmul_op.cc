// MatMul on the CPU: c = op(a) * op(b), op transposing when transpose_a /
// transpose_b is set.
//
// The product is the shared banded GEMM of kernels/cpu/gemm.h: Eigen's
// blocked GEMM run on bands of output rows when the output is taller than
// wide, bands of columns otherwise, so that a batch-1 layer (one row, many
// columns) splits as well as a large batch. The bands are chosen from the
// shapes alone and run through OpKernelContext::ParallelFor on the session's
// arena (or inline), so results are bit-identical across sessions with
// different `threads`.
//
// A constant float b (a Dense layer's weights) is packed for the GEMM once,
// when the kernel is made (matmul_packed_rhs.h); a fed one per call.
//
// Dtypes: float and double natively; half and bfloat16 are widened to
// float, multiplied with float accumulation and rounded once, which is at
// least as accurate as TensorFlow's half kernels.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/matmul_packed_rhs.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Copies `n` values converting element types.
template <typename To, typename From>
void Convert(const From* from, To* to, int64_t n) {
  Eigen::Map<Eigen::Array<To, Eigen::Dynamic, 1>>(to, n) =
      Eigen::Map<const Eigen::Array<From, Eigen::Dynamic, 1>>(from, n)
          .template cast<To>();
}

// A rank-2 operand as stored (row-major, rows of dim_size(1) elements).
template <typename T>
GemmOperand<T> Operand(const T* data, const Tensor& t, bool transposed) {
  return GemmOperand<T>{data, t.dim_size(1), transposed};
}

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
    if constexpr (std::is_same_v<T, float>) {
      if (const Tensor* b = ctx->constant_input(1)) {
        packed_b_ = MatMulPackedRhs::Make(*b, transpose_b_);
      }
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    StatusOr<MatMulDims> dims = GetMatMulDims(a, b, transpose_a_, transpose_b_);
    OP_REQUIRES_OK(ctx, dims.status());
    const auto [m, k, n] = *dims;
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    if (m == 0 || n == 0) return;
    if (k == 0) {
      // An empty sum: zeros, as in TensorFlow.
      std::fill_n(c->data<T>(), m * n, T(0));
      return;
    }
    const GemmPackedRhs* packed = packed_b_ ? packed_b_->For(b) : nullptr;
    if constexpr (std::is_same_v<T, float>) {
      if (packed != nullptr) {
        // A constant weight: read once per run, from memory when large.
        Gemm(ContextParallelFor(*ctx), m, Operand(a.data<T>(), a, transpose_a_),
             *packed, c->data<T>(), n, GemmEpilogue(),
             GemmRhsLocality::kMemory);
        return;
      }
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      Gemm<T>(ContextParallelFor(*ctx), m, k, n,
              Operand(a.data<T>(), a, transpose_a_),
              Operand(b.data<T>(), b, transpose_b_), c->data<T>(), n);
    } else {
      // Narrow floats: widen, multiply in float, round once.
      Tensor af, bf, cf;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, a.shape(), &af));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, b.shape(), &bf));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, c->shape(), &cf));
      Convert(a.data<T>(), af.data<float>(), a.NumElements());
      Convert(b.data<T>(), bf.data<float>(), b.NumElements());
      Gemm<float>(ContextParallelFor(*ctx), m, k, n,
                  Operand(af.data<float>(), a, transpose_a_),
                  Operand(bf.data<float>(), b, transpose_b_), cf.data<float>(),
                  n);
      Convert(cf.data<float>(), c->data<T>(), m * n);
    }
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
  // A constant float b packed once; null: packed per call (gemm.h).
  std::unique_ptr<MatMulPackedRhs> packed_b_;
};

#define WEFT_REGISTER_MATMUL(T) \
  REGISTER_KERNEL_BUILDER(      \
      Name("MatMul").Device(DEVICE_CPU).TypeConstraint<T>("T"), MatMulOp<T>)

WEFT_REGISTER_MATMUL(float);
WEFT_REGISTER_MATMUL(double);
WEFT_REGISTER_MATMUL(half);
WEFT_REGISTER_MATMUL(bfloat16);

#undef WEFT_REGISTER_MATMUL

}  // namespace
}  // namespace weft
