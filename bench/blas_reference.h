// OpenBLAS as the reference for matrix products: cblas_sgemm on the same
// shapes as weft's MatMul, BatchMatMulV2 and (as the GEMM an im2col
// convolution reduces to) Conv2D, with OpenBLAS's thread count set to the
// weft benchmark's. Built only when CMake found OpenBLAS
// (WEFT_HAVE_OPENBLAS); without it the reference benchmarks are skipped
// with a message saying what to install.
#ifndef WEFT_BENCH_BLAS_REFERENCE_H_
#define WEFT_BENCH_BLAS_REFERENCE_H_

#include <cstdint>
#include <string>

namespace weft::bench {

// "OpenBLAS 0.3.21 DYNAMIC_ARCH ... (core Zen)", or why there is none.
std::string BlasDescription();

// Queues (see QueueBlasReference) a benchmark `name` timing `batch`
// row-major products C[m,n] = A[m,k] B[k,n] with OpenBLAS on `threads`
// threads, reporting GFLOP/s for 2*batch*m*n*k flops.
void QueueSgemmReference(const std::string& name, int64_t batch, int64_t m,
                         int64_t n, int64_t k, int threads);

}  // namespace weft::bench

#endif  // WEFT_BENCH_BLAS_REFERENCE_H_
