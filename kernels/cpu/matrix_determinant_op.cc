// MatrixDeterminant on the CPU, for float and double: the determinant of
// each innermost [n, n] matrix by LU factorization with partial pivoting,
// as TensorFlow computes it with Eigen (the sign of the row permutation
// times the product of U's diagonal); an empty matrix has determinant 1. A
// singular matrix gives 0 (signed as the factorization leaves it), NaN
// inputs give NaN. The factorization is a plain loop rather than Eigen's
// PartialPivLU, which took 17 s to compile; it is Eigen's unblocked
// algorithm, so small matrices agree to the last bits and large ones (which
// Eigen factors in blocks) to rounding. Matrices are split over the arena.
//
// TensorFlow also registers complex64 and complex128; weft leaves them out
// (the golden format cannot hold complex values and no inference graph seen
// takes complex determinants).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Unblocked LU with partial pivoting in place on a row-major n x n copy,
// as Eigen's PartialPivLU factors the small matrices models hold: for each
// column take the first row of largest magnitude as pivot, divide the
// column below it by the pivot, subtract the rank-1 update. A zero pivot
// column is left as it is (the determinant is then 0).
template <typename T>
T LuDeterminant(T* a, int64_t n) {
  bool negate = false;
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    T best = std::abs(a[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      const T v = std::abs(a[i * n + k]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    if (best != T(0)) {
      if (p != k) {
        std::swap_ranges(a + k * n, a + (k + 1) * n, a + p * n);
        negate = !negate;
      }
      const T pivot = a[k * n + k];
      for (int64_t i = k + 1; i < n; ++i) a[i * n + k] /= pivot;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      const T l = a[i * n + k];
      T* row = a + i * n;
      const T* top = a + k * n;
      for (int64_t j = k + 1; j < n; ++j) row[j] -= l * top[j];
    }
  }
  T det = T(1);
  for (int64_t k = 0; k < n; ++k) det *= a[k * n + k];
  return negate ? -det : det;
}

template <typename T>
void Determinants(const OpKernelContext& ctx, const T* in, int64_t count,
                  int64_t n, T* out) {
  ctx.ParallelFor(count, n * n * n + 1, [&](int64_t begin, int64_t end) {
    std::vector<T> lu(n * n);
    for (int64_t b = begin; b < end; ++b) {
      std::copy_n(in + b * n * n, n * n, lu.data());
      out[b] = LuDeterminant(lu.data(), n);
    }
  });
}

class MatrixDeterminantOp : public OpKernel {
 public:
  explicit MatrixDeterminantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const int rank = in.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument("Input tensor 0 must have rank >= 2, "
                                        "got ",
                                        rank));
    const int64_t n = in.dim_size(rank - 1);
    OP_REQUIRES(ctx, in.dim_size(rank - 2) == n,
                errors::InvalidArgument("Input matrix must be square. input "
                                        "(input 0) has shape ",
                                        in.shape().DebugString()));
    TensorShape shape;
    for (int d = 0; d + 2 < rank; ++d) {
      OP_REQUIRES_OK(ctx, shape.AddDim(in.dim_size(d)));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t count = out->NumElements();
    if (count == 0) return;
    if (in.dtype() == DT_FLOAT) {
      Determinants<float>(*ctx, in.data<float>(), count, n, out->data<float>());
    } else {
      Determinants<double>(*ctx, in.data<double>(), count, n,
                           out->data<double>());
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("MatrixDeterminant")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                        MatrixDeterminantOp);

}  // namespace
}  // namespace weft
