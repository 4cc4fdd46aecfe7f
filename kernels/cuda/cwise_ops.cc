// CUDA kernels of element-wise ops, float and half: unary math, rounding and
// activations (LeakyRelu's alpha and the Selu and Softplus constants rounded
// to T on the host), binary arithmetic with NumPy broadcasting, BiasAdd. Shapes
// are checked and broadcasting is planned here on the host; the device code
// is in cwise_ops_gpu.cu.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/bias_add_shape.h"
#include "kernels/common/broadcast.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/cwise_ops_gpu.h"
#include "kernels/cuda/plan/cwise_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <gpu::UnaryOp kOp, typename T>
class CudaUnaryOp : public OpKernel {
 public:
  explicit CudaUnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    float alpha = 0;
    if constexpr (kOp == gpu::UnaryOp::kLeakyRelu) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha));
    }
    params_ = MakeGpuUnaryParams<T>(alpha);
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchUnary(kOp, GpuElementType<T>(), x.raw_data(),
                                       y->raw_data(), x.NumElements(), params_,
                                       device->compute_stream()),
                      "launching the element-wise kernel"));
  }

 private:
  gpu::UnaryParams params_;
};

template <gpu::BinaryOp kOp, typename T>
class CudaBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    BinaryBroadcast bcast;
    OP_REQUIRES_OK(ctx, bcast.Init(x.shape(), y.shape()));
    gpu::BroadcastIndex index;
    Tensor* z = nullptr;
    if (bcast.x_complete() && bcast.y_complete()) {
      index.kind = gpu::BroadcastIndex::kSame;
      OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                              {0, 1}, 0, bcast.output_shape(), &z));
    } else {
      if (bcast.x_is_scalar() && bcast.y_complete()) {
        index.kind = gpu::BroadcastIndex::kXScalar;
      } else if (bcast.y_is_scalar() && bcast.x_complete()) {
        index.kind = gpu::BroadcastIndex::kYScalar;
      } else {
        const int rank = static_cast<int>(bcast.reduced_dims().size());
        OP_REQUIRES(
            ctx, rank <= gpu::kMaxBroadcastRank,
            errors::Unimplemented(
                "x has shape ", x.shape().DebugString(), " and y has shape ",
                y.shape().DebugString(), ", whose broadcast needs ", rank,
                " dimensions after merging; the CUDA kernel takes at most ",
                gpu::kMaxBroadcastRank));
        index.kind = gpu::BroadcastIndex::kStrided;
        index.rank = rank;
        for (int d = 0; d < rank; ++d) {
          index.dims[d] = bcast.reduced_dims()[d];
          index.x_strides[d] = bcast.x_strides()[d];
          index.y_strides[d] = bcast.y_strides()[d];
        }
      }
      // Only the complete input can become the output: the other is read
      // at repeated positions while the output is written.
      const int candidate = bcast.x_complete()   ? 0
                            : bcast.y_complete() ? 1
                                                 : -1;
      if (candidate >= 0) {
        OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {candidate}, 0, bcast.output_shape(), &z));
      } else {
        OP_REQUIRES_OK(ctx, ctx->allocate_output(0, bcast.output_shape(), &z));
      }
    }
    if (bcast.output_size() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchBinary(kOp, GpuElementType<T>(), x.raw_data(),
                                        y.raw_data(), z->raw_data(),
                                        bcast.output_size(), index,
                                        device->compute_stream()),
                      "launching the element-wise kernel"));
  }
};

template <typename T>
class CudaBiasAddOp : public OpKernel {
 public:
  explicit CudaBiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    StatusOr<bool> channels_first = ReadBiasAddChannelsFirst(ctx);
    OP_REQUIRES_OK(ctx, channels_first.status());
    channels_first_ = *channels_first;
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    StatusOr<BiasAddDims> dims = GetBiasAddDims(value, bias, channels_first_);
    OP_REQUIRES_OK(ctx, dims.status());
    const int channel_dim = dims->channel_dim;
    const int64_t channels = dims->channels;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, value.shape(), &out));
    if (value.NumElements() == 0) return;
    int64_t inner = 1;
    for (int d = channel_dim + 1; d < value.dims(); ++d) {
      inner *= value.dim_size(d);
    }
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchBiasAdd(GpuElementType<T>(), value.raw_data(),
                                         bias.raw_data(), out->raw_data(),
                                         value.NumElements(), channels, inner,
                                         device->compute_stream()),
                      "launching the BiasAdd kernel"));
  }

 private:
  bool channels_first_ = false;
};

#define WEFT_CUDA_UNARY(name, op, T)                         \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(name).Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaUnaryOp<gpu::UnaryOp::op, T>)
#define WEFT_CUDA_BINARY(name, op, T)                        \
  REGISTER_KERNEL_BUILDER(                                   \
      Name(name).Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaBinaryOp<gpu::BinaryOp::op, T>)
#define WEFT_CUDA_CWISE(T)                                        \
  WEFT_CUDA_UNARY("Neg", kNeg, T);                                \
  WEFT_CUDA_UNARY("Abs", kAbs, T);                                \
  WEFT_CUDA_UNARY("Exp", kExp, T);                                \
  WEFT_CUDA_UNARY("Log", kLog, T);                                \
  WEFT_CUDA_UNARY("Sqrt", kSqrt, T);                              \
  WEFT_CUDA_UNARY("Rsqrt", kRsqrt, T);                            \
  WEFT_CUDA_UNARY("Tanh", kTanh, T);                              \
  WEFT_CUDA_UNARY("Sigmoid", kSigmoid, T);                        \
  WEFT_CUDA_UNARY("Relu", kRelu, T);                              \
  WEFT_CUDA_UNARY("Relu6", kRelu6, T);                            \
  WEFT_CUDA_UNARY("Elu", kElu, T);                                \
  WEFT_CUDA_UNARY("Square", kSquare, T);                          \
  WEFT_CUDA_UNARY("Reciprocal", kReciprocal, T);                  \
  WEFT_CUDA_UNARY("Erf", kErf, T);                                \
  WEFT_CUDA_UNARY("Erfc", kErfc, T);                              \
  WEFT_CUDA_UNARY("Sin", kSin, T);                                \
  WEFT_CUDA_UNARY("Cos", kCos, T);                                \
  WEFT_CUDA_UNARY("Floor", kFloor, T);                            \
  WEFT_CUDA_UNARY("Ceil", kCeil, T);                              \
  WEFT_CUDA_UNARY("Round", kRound, T);                            \
  WEFT_CUDA_UNARY("Softplus", kSoftplus, T);                      \
  WEFT_CUDA_UNARY("Selu", kSelu, T);                              \
  WEFT_CUDA_UNARY("LeakyRelu", kLeakyRelu, T);                    \
  WEFT_CUDA_BINARY("Add", kAdd, T);                               \
  WEFT_CUDA_BINARY("AddV2", kAdd, T);                             \
  WEFT_CUDA_BINARY("Sub", kSub, T);                               \
  WEFT_CUDA_BINARY("Mul", kMul, T);                               \
  WEFT_CUDA_BINARY("RealDiv", kDiv, T);                           \
  WEFT_CUDA_BINARY("Maximum", kMax, T);                           \
  WEFT_CUDA_BINARY("Minimum", kMin, T);                           \
  WEFT_CUDA_BINARY("SquaredDifference", kSquaredDifference, T);   \
  WEFT_CUDA_BINARY("Pow", kPow, T);                               \
  WEFT_CUDA_BINARY("FloorDiv", kFloorDiv, T);                     \
  WEFT_CUDA_BINARY("FloorMod", kFloorMod, T);                     \
  REGISTER_KERNEL_BUILDER(                                        \
      Name("BiasAdd").Device(DEVICE_CUDA).TypeConstraint<T>("T"), \
      CudaBiasAddOp<T>)

WEFT_CUDA_CWISE(float);
WEFT_CUDA_CWISE(half);

#undef WEFT_CUDA_CWISE
#undef WEFT_CUDA_BINARY
#undef WEFT_CUDA_UNARY

}  // namespace
}  // namespace weft
