// MatMul on CUDA through cuBLAS (cublasGemmEx), and BatchMatMulV2 through
// cublasGemmStridedBatchedEx, float and half. half accumulates in float
// (CUBLAS_COMPUTE_32F), as the CPU kernel does. float uses plain float32
// math (CUBLAS_COMPUTE_32F) by default, so results match the CPU kernels
// within float32 tolerance; when the session allows TF32
// (SessionOptions.allow_tf32, CudaDevice::allow_tf32()) it passes
// CUBLAS_COMPUTE_32F_FAST_TF32, which rounds the inputs to TF32 on tensor
// cores: several times faster, about 1e-3 relative error. Shapes and errors
// are the CPU kernels' (matmul_shape.h, batch_matmul_shape.h through
// nn_plan.h).
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/nn_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

#include <library_types.h>

namespace weft {
namespace {

// The cuBLAS compute type of a product of T on `device`: float may use
// TF32 when the session allows it; half always accumulates in float32.
template <typename T>
cublasComputeType_t ComputeType(const CudaDevice& device) {
  if (std::is_same_v<T, float> && device.allow_tf32()) {
    return CUBLAS_COMPUTE_32F_FAST_TF32;
  }
  return CUBLAS_COMPUTE_32F;
}

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
    const cublasComputeType_t compute = ComputeType<T>(*device);
    const float alpha = 1.0f, beta = 0.0f;
    OP_REQUIRES_OK(ctx, device->WithBlas([&](const CublasApi& api,
                                             cublasHandle_t handle) -> Status {
      cublasStatus_t s = api.gemm_ex(
          handle, transpose_b_ ? CUBLAS_OP_T : CUBLAS_OP_N,
          transpose_a_ ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha,
          b.raw_data(), type, b.dim_size(1), a.raw_data(), type, a.dim_size(1),
          &beta, c->raw_data(), type, n, compute, CUBLAS_GEMM_DEFAULT);
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

// BatchMatMulV2: the batch planned on the host (nn_plan.h: batch
// broadcasting as strided-batched calls, a loop of them where one stride
// pattern does not cover the batch), each call one cuBLAS launch.
template <typename T>
class CudaBatchMatMulV2Op : public OpKernel {
 public:
  explicit CudaBatchMatMulV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_x", &adj_x_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BatchMatMulPlan plan;
    OP_REQUIRES_OK(
        ctx, PlanBatchMatMul(x.shape(), y.shape(), adj_x_, adj_y_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan.out_shape, &out));
    if (out->NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    if (plan.k == 0) {
      OP_REQUIRES_OK(
          ctx, CudaCall(cudaMemsetAsync(out->raw_data(), 0, out->TotalBytes(),
                                        device->compute_stream()),
                        "cudaMemsetAsync"));
      return;
    }
    const cudaDataType type = std::is_same_v<T, half> ? CUDA_R_16F : CUDA_R_32F;
    const T* xp = static_cast<const T*>(x.raw_data());
    const T* yp = static_cast<const T*>(y.raw_data());
    T* outp = static_cast<T*>(out->raw_data());
    const cublasComputeType_t compute = ComputeType<T>(*device);
    const float alpha = 1.0f, beta = 0.0f;
    OP_REQUIRES_OK(ctx, device->WithBlas([&](const CublasApi& api,
                                             cublasHandle_t handle) -> Status {
      for (const BatchMatMulCall& call : plan.calls) {
        const StridedGemm g = BatchMatMulGemm(plan, call);
        cublasStatus_t s = api.gemm_strided_batched_ex(
            handle, g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
            g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &alpha,
            yp + g.a_offset, type, g.lda, g.stride_a, xp + g.b_offset, type,
            g.ldb, g.stride_b, &beta, outp + g.c_offset, type, g.ldc,
            g.stride_c, g.count, compute, CUBLAS_GEMM_DEFAULT);
        if (s != CUBLAS_STATUS_SUCCESS) {
          return errors::Internal("cublasGemmStridedBatchedEx (m=", plan.rows,
                                  ", n=", plan.n, ", k=", plan.k,
                                  ", batch=", g.count,
                                  "): ", CublasStatusText(api, s));
        }
      }
      return Status();
    }));
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("BatchMatMulV2").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
    CudaBatchMatMulV2Op<float>);
REGISTER_KERNEL_BUILDER(
    Name("BatchMatMulV2").Device(DEVICE_CUDA).TypeConstraint<half>("T"),
    CudaBatchMatMulV2Op<half>);

REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
    CudaMatMulOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_CUDA).TypeConstraint<half>("T"),
    CudaMatMulOp<half>);

}  // namespace
}  // namespace weft
