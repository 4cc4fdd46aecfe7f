// Host-side planning of the CUDA NN kernels (kernels/cuda/conv_ops.cc,
// pooling_ops.cc, batch_norm_op.cc, matmul_op.cc): shape checks and the POD
// parameters the device code takes. Compiled in every build (also without
// CUDA), so that cuda_nn_body_test.cc can build exactly the parameters the
// OpKernel classes build and run the kernel bodies on them on the host.
//
// Shapes, paddings and errors come from the CPU kernels' own helpers
// (kernels/cpu/conv2d.h, depthwise_conv.h, image_util.h), so both devices
// agree on every output shape and error; the checks private to the CPU's
// pooling_ops.cc, fused_batch_norm_op.cc and batch_matmul_op.cc are
// repeated here with their messages.
#ifndef WEFT_KERNELS_NN_GPU_PLAN_H_
#define WEFT_KERNELS_NN_GPU_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/cpu/image_util.h"
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

// The checks of the CPU's pooling kernels on attrs already read (format,
// padding, ksize, strides): no pooling over the batch, EXPLICIT paddings
// smaller than the window; MaxPool (`max`) may pool over depth alone
// (ksize 1 along height and width, depth stride = depth window, no
// EXPLICIT padding), AvgPool may not pool over depth. *depth_window is the
// depth window (1 for spatial pools).
Status CheckPoolAttrs(bool max, const WindowAttrs& attrs,
                      int64_t* depth_window);

// The pool of `input` (in attrs.format): kMax / kAvg, or kDepthMax when
// depth_window > 1 (MaxPool only). `lowest` is MaxPool's start value (the
// element type's lowest finite value). Errors as the CPU kernel's.
Status PlanPool(const WindowAttrs& attrs, bool max, int64_t depth_window,
                float lowest, const TensorShape& input, gpu::PoolParams* params,
                TensorShape* out_shape);

// FusedBatchNormV3: `format` is data_format (NHWC, NCHW, NDHWC or NCDHW;
// checked by the caller), `stats` the shapes of scale, offset, mean and
// variance (inputs 1 to 4). Inference and training with
// exponential_avg_factor != 1 need all four to be [channels]; training
// with a factor of 1 needs scale and offset to be, and mean and variance
// to be vectors. Errors as the CPU kernel's.
Status PlanBatchNorm(const std::string& format, const TensorShape& x,
                     const TensorShape* const stats[4], float epsilon,
                     bool is_training, float exponential_avg_factor,
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
// a loop of calls over the outer ones, each batching the innermost. When y
// is one matrix for the whole batch and x is not adjoint, the batch is
// folded into the rows of a single product ([batch * m, k] x [k, n]):
// `rows` is then batch * m (otherwise m), and `calls` one call of count 1.
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

// Errors as the CPU kernel's: ranks below 2, inner dimensions that differ,
// batch dimensions that do not broadcast.
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

#endif  // WEFT_KERNELS_NN_GPU_PLAN_H_
