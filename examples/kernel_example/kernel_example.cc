// The Example op of TensorFlow's custom-op guide: output = input * 2, with a
// CPU kernel that splits the work over the session's intra-op threads and a
// CUDA kernel (kernel_example.cu) when the library is built with CUDA.
#include <cstdint>
#include <string>

#include "kernel_example.h"
#include "weft/plugin.hpp"

namespace {

using namespace weft::plugin;  // NOLINT: reads like in-tree weft code

REGISTER_OP("Example")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {int32, float}")
    .Doc("Doubles every element.")
    .SetShapeFn(UnchangedShape);

template <typename T>
class ExampleCpuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    const T* in = input.data<T>();
    T* out = output->data<T>();
    // About one cycle per element: small inputs run inline.
    ctx->ParallelFor(input.NumElements(), 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = in[i] * T(2);
    });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Example").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
    ExampleCpuOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("Example").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    ExampleCpuOp<float>);

#ifdef KERNEL_EXAMPLE_CUDA
template <typename T>
class ExampleCudaOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  // Enqueues on the node's stream and returns; weft waits for the stream
  // before anything reads the output.
  void Compute(OpKernelContext* ctx) const override {
    const Tensor input = ctx->input(0);
    Tensor* output = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &output));
    OP_REQUIRES(ctx,
                LaunchExampleCuda<T>(ctx->stream(), input.NumElements(),
                                     input.data<T>(), output->data<T>()),
                Internal("launching the Example CUDA kernel failed"));
  }
};

REGISTER_KERNEL_BUILDER(
    Name("Example").Device(DEVICE_CUDA).TypeConstraint<int32_t>("T"),
    ExampleCudaOp<int32_t>);
REGISTER_KERNEL_BUILDER(
    Name("Example").Device(DEVICE_CUDA).TypeConstraint<float>("T"),
    ExampleCudaOp<float>);
#endif  // KERNEL_EXAMPLE_CUDA

}  // namespace
