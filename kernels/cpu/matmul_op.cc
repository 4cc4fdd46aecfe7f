// MatMul on the CPU: c = op(a) * op(b), op transposing when transpose_a /
// transpose_b is set.
//
// The product is Eigen's blocked GEMM, run on blocks of the output: bands of
// rows when the output is taller than wide, bands of columns otherwise, so
// that a batch-1 layer (one row, many columns) splits as well as a large
// batch. The bands are chosen from the shapes alone and handed to
// OpKernelContext::ParallelFor, which runs them on the session's arena (or
// inline). Eigen's own thread-pool device is not used: it blocks on a
// barrier, which inside a one-thread arena would wait forever. Because the
// bands do not depend on the thread count, every output element is computed
// by the same instruction sequence at any thread count: results are
// bit-identical across sessions with different `threads`.
//
// Dtypes: float and double natively; half and bfloat16 are widened to
// float, multiplied with float accumulation and rounded once, which is at
// least as accurate as TensorFlow's half kernels.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
using RowMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ColMajorMatrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
template <typename M>
using ConstStridedMap =
    Eigen::Map<const M, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename M>
using StridedMap = Eigen::Map<M, Eigen::Unaligned, Eigen::OuterStride<>>;

// Output bands smaller than this along the split dimension lose more to
// per-band operand packing than they gain; products below kMinSplitFlops
// multiply-adds stay one band.
constexpr int64_t kMinBand = 32;
constexpr int64_t kMaxBands = 64;
constexpr int64_t kMinSplitFlops = int64_t{1} << 17;

// A row-major m x k matrix `a` (transposed: stored k x m, read as its
// transpose, which is the same memory seen column-major) restricted to rows
// [r0, r0 + rows).
template <typename T, typename Fn>
void WithRows(const T* a, bool transposed, int64_t m, int64_t k, int64_t r0,
              int64_t rows, Fn&& fn) {
  if (!transposed) {
    fn(ConstStridedMap<RowMajorMatrix<T>>(a + r0 * k, rows, k,
                                          Eigen::OuterStride<>(k)));
  } else {
    fn(ConstStridedMap<ColMajorMatrix<T>>(a + r0, rows, k,
                                          Eigen::OuterStride<>(m)));
  }
}

// A row-major k x n matrix `b` (transposed: stored n x k) restricted to
// columns [c0, c0 + cols).
template <typename T, typename Fn>
void WithCols(const T* b, bool transposed, int64_t k, int64_t n, int64_t c0,
              int64_t cols, Fn&& fn) {
  if (!transposed) {
    fn(ConstStridedMap<RowMajorMatrix<T>>(b + c0, k, cols,
                                          Eigen::OuterStride<>(n)));
  } else {
    fn(ConstStridedMap<ColMajorMatrix<T>>(b + c0 * k, k, cols,
                                          Eigen::OuterStride<>(k)));
  }
}

// c (m x n, row-major) = op(a) (m x k) * op(b) (k x n), with k > 0.
template <typename T>
void Gemm(const OpKernelContext& ctx, const T* a, bool transpose_a, const T* b,
          bool transpose_b, int64_t m, int64_t k, int64_t n, T* c) {
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  int64_t band = extent;
  if (m * k * n >= kMinSplitFlops) {
    band = std::max(kMinBand, (extent + kMaxBands - 1) / kMaxBands);
  }
  const int64_t num_bands = (extent + band - 1) / band;
  const int64_t band_cost = band * k * (split_rows ? n : m);
  ctx.ParallelFor(num_bands, band_cost, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t start = i * band;
      const int64_t len = std::min(band, extent - start);
      if (split_rows) {
        StridedMap<RowMajorMatrix<T>> out(c + start * n, len, n,
                                          Eigen::OuterStride<>(n));
        WithRows(a, transpose_a, m, k, start, len, [&](const auto& lhs) {
          WithCols(b, transpose_b, k, n, 0, n,
                   [&](const auto& rhs) { out.noalias() = lhs * rhs; });
        });
      } else {
        StridedMap<RowMajorMatrix<T>> out(c + start, m, len,
                                          Eigen::OuterStride<>(n));
        WithRows(a, transpose_a, m, k, 0, m, [&](const auto& lhs) {
          WithCols(b, transpose_b, k, n, start, len,
                   [&](const auto& rhs) { out.noalias() = lhs * rhs; });
        });
      }
    }
  });
}

// Copies `n` values converting element types.
template <typename To, typename From>
void Convert(const From* from, To* to, int64_t n) {
  Eigen::Map<Eigen::Array<To, Eigen::Dynamic, 1>>(to, n) =
      Eigen::Map<const Eigen::Array<From, Eigen::Dynamic, 1>>(from, n)
          .template cast<To>();
}

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.dims() == 2,
                errors::InvalidArgument("a must be a matrix (rank 2) but has "
                                        "shape ",
                                        a.shape().DebugString()));
    OP_REQUIRES(ctx, b.dims() == 2,
                errors::InvalidArgument("b must be a matrix (rank 2) but has "
                                        "shape ",
                                        b.shape().DebugString()));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t k_b = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    OP_REQUIRES(
        ctx, k == k_b,
        errors::InvalidArgument(
            "inner dimensions differ: a has shape ", a.shape().DebugString(),
            " (transpose_a=", transpose_a_ ? "true" : "false",
            ") and b has shape ", b.shape().DebugString(),
            " (transpose_b=", transpose_b_ ? "true" : "false",
            "), so a contributes ", k, " and b ", k_b));
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    if (m == 0 || n == 0) return;
    if (k == 0) {
      // An empty sum: zeros, as in TensorFlow.
      std::fill_n(c->data<T>(), m * n, T(0));
      return;
    }
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      Gemm<T>(*ctx, a.data<T>(), transpose_a_, b.data<T>(), transpose_b_, m, k,
              n, c->data<T>());
    } else {
      // Narrow floats: widen, multiply in float, round once.
      Tensor af, bf, cf;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, a.shape(), &af));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, b.shape(), &bf));
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, c->shape(), &cf));
      Convert(a.data<T>(), af.data<float>(), a.NumElements());
      Convert(b.data<T>(), bf.data<float>(), b.NumElements());
      Gemm<float>(*ctx, af.data<float>(), transpose_a_, bf.data<float>(),
                  transpose_b_, m, k, n, cf.data<float>());
      Convert(cf.data<float>(), c->data<T>(), m * n);
    }
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
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
