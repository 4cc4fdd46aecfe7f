// MatMul on CUDA through cuBLAS (cublasGemmEx), float and half. half
// accumulates in float (CUBLAS_COMPUTE_32F), as the CPU kernel does; float
// uses plain float32 math (no TF32) unless the device enables it.
#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/matmul_shape.h"
#include "kernels/op_kernel.h"

#include <library_types.h>

namespace weft {
namespace {

template <typename T>
class CudaMatMulOp : public OpKernel {
 public:
  explicit CudaMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
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
    CudaDevice* device = CurrentCudaDevice(ctx);
    if (k == 0) {
      OP_REQUIRES_OK(ctx,
                     CudaCall(cudaMemsetAsync(c->raw_data(), 0, c->TotalBytes(),
                                              device->compute_stream()),
                              "cudaMemsetAsync"));
      return;
    }
    // cuBLAS is column-major: a row-major [m,n] C is a column-major [n,m]
    // C^T = op(B)^T op(A)^T, so B comes first and each matrix's leading
    // dimension is its stored row length.
    const cudaDataType type = std::is_same_v<T, half> ? CUDA_R_16F : CUDA_R_32F;
    const float alpha = 1.0f, beta = 0.0f;
    OP_REQUIRES_OK(ctx, device->WithBlas([&](const CublasApi& api,
                                             cublasHandle_t handle) -> Status {
      cublasStatus_t s =
          api.gemm_ex(handle, transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N,
                      transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha,
                      b.raw_data(), type, b.dim_size(1), a.raw_data(), type,
                      a.dim_size(1), &beta, c->raw_data(), type, n,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
      if (s != CUBLAS_STATUS_SUCCESS) {
        return errors::Internal("cublasGemmEx (m=", m, ", n=", n, ", k=", k,
                                "): ", CublasStatusText(api, s));
      }
      return Status();
    }));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
    CudaMatMulOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CUDA).TypeConstraint<half>("T"),
    CudaMatMulOp<half>);

}  // namespace
}  // namespace weft
