// Host-side planning of the CUDA NN kernels (kernels/cuda/conv_ops.cc,
// pooling_ops.cc, batch_norm_op.cc, matmul_op.cc): the POD parameters the
// device code takes and the cuBLAS calls. Compiled in every build (also
// without CUDA), so that cuda_nn_body_test.cc can build exactly the
// parameters the OpKernel classes build and run the kernel bodies on them
// on the host.
//
// Shapes, paddings and errors come from the contracts the CPU kernels use
// too (kernels/common/conv_shape.h, window_shape.h,
// kernels/common/pool_shape.h, batch_norm_shape.h, batch_matmul_shape.h), so
// both devices agree on every output shape and error.
#ifndef WEFT_KERNELS_CUDA_PLAN_NN_PLAN_H_
#define WEFT_KERNELS_CUDA_PLAN_NN_PLAN_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/common/batch_matmul_shape.h"
#include "kernels/common/batch_norm_shape.h"
#include "kernels/common/conv_shape.h"
#include "kernels/common/pool_shape.h"
#include "kernels/cuda/batch_norm_body.h"
#include "kernels/cuda/conv_body.h"
#include "kernels/cuda/pool_body.h"

namespace weft {

// Conv2D of `input` (4-D, in attrs.format) with `filter` ([rows, cols,
// in_depth / groups, out_depth]): the kernel's parameters and the output
// shape (in attrs.format). Errors as the CPU kernel's (MakeConv2DGeometry).
Status PlanConv2D(const WindowAttrs& attrs, const Tensor& input,
                  const Tensor& filter, gpu::ConvParams* params,
                  TensorShape* out_shape);

// DepthwiseConv2dNative of `input` with `filter` ([rows, cols, C, M]).
// Errors as the CPU kernel's (ComputeDepthwiseGeometry).
Status PlanDepthwiseConv(const WindowAttrs& attrs, const Tensor& input,
                         const Tensor& filter, gpu::ConvParams* params,
                         TensorShape* out_shape);

// The pool of `input` (in attrs.format), with attrs and depth_window from
// ReadPoolAttrs / CheckPoolAttrs (pool_shape.h): kMax / kAvg, or kDepthMax
// when depth_window > 1 (MaxPool only). `lowest` is MaxPool's start value
// (the element type's lowest finite value). Errors as GetPoolShape's.
Status PlanPool(const WindowAttrs& attrs, bool max, int64_t depth_window,
                float lowest, const TensorShape& input, gpu::PoolParams* params,
                TensorShape* out_shape);

// FusedBatchNormV3 of x, `stats` the shapes of scale, offset, mean and
// variance (inputs 1 to 4). Errors as GetBatchNormLayout's
// (batch_norm_shape.h).
Status PlanBatchNorm(const BatchNormAttrs& attrs, const TensorShape& x,
                     const TensorShape* const stats[4],
                     gpu::BatchNormParams* params);

// One strided-batched GEMM of BatchMatMulV2: for j < count, output matrix
// out_offset + j * out_stride is op(x matrix x_offset + j * x_stride) *
// op(y matrix y_offset + j * y_stride). Offsets and strides count whole
// matrices of the operand (m * k for x, k * n for y, m * n for the output).
struct BatchMatMulCall {
  int64_t x_offset = 0, y_offset = 0, out_offset = 0;
  int64_t x_stride = 0, y_stride = 0, out_stride = 0;
  int64_t count = 0;
};

// How BatchMatMulV2 runs on cuBLAS. The batch dimensions broadcast as in
// NumPy and are merged (BinaryBroadcast); one merged dimension is one
// strided-batched call (strides 0 where an operand is broadcast), more are
// a loop of calls over the outer ones, each batching the innermost. When
// the batch folds into rows (BatchMatMulShape::batch_in_rows), `rows` is
// batch * m (otherwise m), and `calls` one call of count 1.
struct BatchMatMulPlan {
  bool adj_x = false, adj_y = false;
  int64_t m = 0, k = 0, n = 0;
  // The stored row lengths of x's and y's matrices.
  int64_t ldx = 0, ldy = 0;
  int64_t rows = 0;
  TensorShape out_shape;
  int64_t batch = 0;                   // output matrices
  std::vector<BatchMatMulCall> calls;  // empty when the output is
};

// Errors as GetBatchMatMulShape's (batch_matmul_shape.h).
Status PlanBatchMatMul(const TensorShape& x, const TensorShape& y, bool adj_x,
                       bool adj_y, BatchMatMulPlan* plan);

// The arguments of one cublasGemmStridedBatchedEx call, in cuBLAS's
// column-major terms: for i < count, C_i = op(A_i) op(B_i) with C_i m x n
// at c + c_offset + i * stride_c, A_i (m x k after op) at a + a_offset +
// i * stride_a, B_i likewise; offsets and strides in elements.
struct StridedGemm {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_offset = 0, lda = 0, stride_a = 0;
  int64_t b_offset = 0, ldb = 0, stride_b = 0;
  int64_t c_offset = 0, ldc = 0, stride_c = 0;
  int64_t count = 0;
  // A is y's buffer and B is x's: a row-major out = op(x) op(y) is the
  // column-major out^T = op(y)^T op(x)^T.
};

// The cuBLAS call of `call` of `plan` (plan.k > 0).
StridedGemm BatchMatMulGemm(const BatchMatMulPlan& plan,
                            const BatchMatMulCall& call);

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_PLAN_NN_PLAN_H_
