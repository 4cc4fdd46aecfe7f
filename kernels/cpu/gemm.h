// Dense matrix products for CPU kernels: MatMul, and the convolutions that
// lower to a product of a patch matrix and a filter matrix.
//
// Operands are row-major matrices anywhere in memory, described by a
// pointer, a leading dimension (elements from one row to the next) and a
// transpose flag, so that a kernel can multiply a slice of a larger tensor
// (one group's channels of a filter, a band of output rows) without copying
// it out first.
//
// The floating products are Eigen's blocked GEMM on one thread. Gemm splits
// the output into bands and hands them to OpKernelContext::ParallelFor; the
// bands depend on the shape alone, never on the thread count, so every
// output element is computed by the same instruction sequence whatever
// parallelism the session has, and results are bit-identical across thread
// counts. Eigen's own thread-pool device is not used: it blocks on a
// barrier, which inside a one-thread arena would wait forever.
//
// Instantiated (in gemm.cc, the one translation unit that pays for Eigen's
// GEMM templates) for float, double and uint32_t. uint32_t is how int32
// kernels multiply: unsigned arithmetic wraps modulo 2^32, which is the
// two's-complement wrapping TensorFlow's int32 convolutions show, without
// signed overflow; callers view int32 buffers as uint32_t (the same object
// representation, and aliasing between the two is allowed).
#ifndef WEFT_KERNELS_CPU_GEMM_H_
#define WEFT_KERNELS_CPU_GEMM_H_

#include <cstdint>

#include "kernels/op_kernel.h"

namespace weft {

// op(M) of a row-major matrix M at `data`: element (i, j) of op(M) is
// data[i * ld + j], or data[j * ld + i] when `transposed`.
template <typename T>
struct GemmOperand {
  const T* data = nullptr;
  int64_t ld = 0;
  bool transposed = false;
};

// c = op(a) * op(b) on the calling thread, for op(a) m x k and op(b) k x n,
// into the row-major m x n matrix at `c` with leading dimension `ldc`
// (overwritten, never read). k == 0 gives zeros. `c` must not overlap the
// operands.
template <typename T>
void GemmSerial(int64_t m, int64_t k, int64_t n, GemmOperand<T> a,
                GemmOperand<T> b, T* c, int64_t ldc);

// The same product split into bands of output rows (when m >= n) or
// columns, run through ctx.ParallelFor. Small products stay one band.
template <typename T>
void Gemm(const OpKernelContext& ctx, int64_t m, int64_t k, int64_t n,
          GemmOperand<T> a, GemmOperand<T> b, T* c, int64_t ldc);

#define WEFT_DECLARE_GEMM(T)                                                   \
  extern template void GemmSerial<T>(                                          \
      int64_t, int64_t, int64_t, GemmOperand<T>, GemmOperand<T>, T*, int64_t); \
  extern template void Gemm<T>(const OpKernelContext&, int64_t, int64_t,       \
                               int64_t, GemmOperand<T>, GemmOperand<T>, T*,    \
                               int64_t);
WEFT_DECLARE_GEMM(float)
WEFT_DECLARE_GEMM(double)
WEFT_DECLARE_GEMM(uint32_t)
#undef WEFT_DECLARE_GEMM

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_GEMM_H_
