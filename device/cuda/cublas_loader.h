// cuBLAS, loaded at run time with dlopen instead of linked.
//
// Why: linking libcublas.so.13 would make it (and libcublasLt.so.13, about
// 540 MB) a load-time dependency of libweft.so, so a CUDA build of weft
// would no longer load on a CPU-only machine; and this toolkit ships no
// static cuBLAS (linking one would add hundreds of MB to libweft). Loading
// on first use keeps libweft's only CUDA dependency the statically linked
// runtime, and a machine without cuBLAS gets a message at the MatMul that
// needs it instead of a loader error. The types come from cublas_api.h; no
// cuBLAS symbol is referenced at link time.
#ifndef WEFT_DEVICE_CUDA_CUBLAS_LOADER_H_
#define WEFT_DEVICE_CUDA_CUBLAS_LOADER_H_

#include <cstdint>

#include <cublas_api.h>

#include "core/status.h"

namespace weft {

// The entry points weft uses, bound to the loaded library.
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t* handle);
  cublasStatus_t (*destroy)(cublasHandle_t handle);
  cublasStatus_t (*set_stream)(cublasHandle_t handle, cudaStream_t stream);
  cublasStatus_t (*set_math_mode)(cublasHandle_t handle, cublasMath_t mode);
  cublasStatus_t (*set_workspace)(cublasHandle_t handle, void* workspace,
                                  size_t bytes);
  // cublasGemmEx_64: 64-bit sizes, so no dimension check is needed.
  cublasStatus_t (*gemm_ex)(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int64_t m, int64_t n,
                            int64_t k, const void* alpha, const void* a,
                            cudaDataType a_type, int64_t lda, const void* b,
                            cudaDataType b_type, int64_t ldb, const void* beta,
                            void* c, cudaDataType c_type, int64_t ldc,
                            cublasComputeType_t compute_type,
                            cublasGemmAlgo_t algo);
  // cublasGemmStridedBatchedEx_64: batch_count products, operand i at
  // a + i * stride_a (strides in elements), for BatchMatMulV2.
  cublasStatus_t (*gemm_strided_batched_ex)(
      cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
      int64_t m, int64_t n, int64_t k, const void* alpha, const void* a,
      cudaDataType a_type, int64_t lda, long long int stride_a, const void* b,
      cudaDataType b_type, int64_t ldb, long long int stride_b,
      const void* beta, void* c, cudaDataType c_type, int64_t ldc,
      long long int stride_c, int64_t batch_count,
      cublasComputeType_t compute_type, cublasGemmAlgo_t algo);
  const char* (*status_string)(cublasStatus_t status);
  int version = 0;  // of the loaded library, as CUBLAS_VERSION: 130100
};

// Loads libcublas.so.<major of the headers weft was built with> once per
// process. FailedPrecondition naming the library and dlerror()'s text when
// it cannot be loaded or lacks a symbol. Thread-safe.
StatusOr<const CublasApi*> LoadCublas();

// "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not
// supported)" via the loaded library.
std::string CublasStatusText(const CublasApi& api, cublasStatus_t status);

}  // namespace weft

#endif  // WEFT_DEVICE_CUDA_CUBLAS_LOADER_H_
