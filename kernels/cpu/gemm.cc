#include "kernels/cpu/gemm.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

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

// Calls fn with an Eigen map of op(x) (rows x cols): a row-major map, or
// for a transposed operand the same memory seen column-major.
template <typename T, typename Fn>
void WithOperand(const GemmOperand<T>& x, int64_t rows, int64_t cols, Fn&& fn) {
  if (!x.transposed) {
    fn(ConstStridedMap<RowMajorMatrix<T>>(x.data, rows, cols,
                                          Eigen::OuterStride<>(x.ld)));
  } else {
    fn(ConstStridedMap<ColMajorMatrix<T>>(x.data, rows, cols,
                                          Eigen::OuterStride<>(x.ld)));
  }
}

// Unsigned 32-bit product: c row by row as a sum of scaled rows of op(b),
// which the compiler vectorizes when op(b) is not transposed.
void WrappingProduct(int64_t m, int64_t k, int64_t n,
                     const GemmOperand<uint32_t>& a,
                     const GemmOperand<uint32_t>& b, uint32_t* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    uint32_t* row = c + i * ldc;
    std::fill_n(row, n, 0u);
    for (int64_t l = 0; l < k; ++l) {
      const uint32_t x =
          a.transposed ? a.data[l * a.ld + i] : a.data[i * a.ld + l];
      if (!b.transposed) {
        const uint32_t* brow = b.data + l * b.ld;
        for (int64_t j = 0; j < n; ++j) row[j] += x * brow[j];
      } else {
        for (int64_t j = 0; j < n; ++j) row[j] += x * b.data[j * b.ld + l];
      }
    }
  }
}

// op(x) restricted to rows [r0, r0 + rows) (of the m x k op(a)) or columns
// [c0, c0 + cols) (of the k x n op(b)).
template <typename T>
GemmOperand<T> RowsFrom(GemmOperand<T> a, int64_t r0) {
  a.data += a.transposed ? r0 : r0 * a.ld;
  return a;
}
template <typename T>
GemmOperand<T> ColsFrom(GemmOperand<T> b, int64_t c0) {
  b.data += b.transposed ? c0 * b.ld : c0;
  return b;
}

}  // namespace

template <typename T>
void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<T> a,
                GemmOperand<T> b, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, uint32_t>) {
    WrappingProduct(m, k, n, a, b, c, ldc);
  } else {
    StridedMap<RowMajorMatrix<T>> out(c, m, n, Eigen::OuterStride<>(ldc));
    WithOperand(a, m, k, [&](const auto& lhs) {
      WithOperand(b, k, n, [&](const auto& rhs) { out.noalias() = lhs * rhs; });
    });
  }
}

template <typename T>
void Gemm(const OpKernelContext& ctx, int64_t m, int64_t k, int64_t n,
          GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  const bool split_rows = m >= n;
  const int64_t extent = split_rows ? m : n;
  int64_t band = extent;
  if (m * k * n >= kMinSplitFlops) {
    band = std::max(kMinBand, (extent + kMaxBands - 1) / kMaxBands);
  }
  const int64_t num_bands = (extent + band - 1) / band;
  const int64_t band_cost =
      band * std::max<int64_t>(k, 1) * (split_rows ? n : m);
  ctx.ParallelFor(num_bands, band_cost, [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      const int64_t start = i * band;
      const int64_t len = std::min(band, extent - start);
      if (split_rows) {
        GemmSerial<T>(len, k, n, RowsFrom(a, start), b, c + start * ldc, ldc);
      } else {
        GemmSerial<T>(m, k, len, a, ColsFrom(b, start), c + start, ldc);
      }
    }
  });
}

#define WEFT_INSTANTIATE_GEMM(T)                                           \
  template void GemmSerial<T>(int64_t, int64_t, int64_t, GemmOperand<T>,   \
                              GemmOperand<T>, T*, int64_t);                \
  template void Gemm<T>(const OpKernelContext&, int64_t, int64_t, int64_t, \
                        GemmOperand<T>, GemmOperand<T>, T*, int64_t);
WEFT_INSTANTIATE_GEMM(float)
WEFT_INSTANTIATE_GEMM(double)
WEFT_INSTANTIATE_GEMM(uint32_t)
#undef WEFT_INSTANTIATE_GEMM

}  // namespace weft
