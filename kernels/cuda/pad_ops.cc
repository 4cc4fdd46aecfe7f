// Pad, PadV2 and MirrorPad on CUDA. paddings (and PadV2's constant_values)
// are HostMemory, as in TensorFlow's GPU kernels, and checked on the host
// by the rules the CPU kernels share (kernels/common/pad_shape.h, through
// PlanGpuPad); the device runs one kernel per
// element size that reads the input or writes the constant per output
// element (pad_body.h). No padding at all returns the input itself.
#include "core/tensor.h"
#include "kernels/common/pad_shape.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/movement_plan.h"
#include "kernels/cuda/slice_ops_gpu.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

void GpuPadCompute(OpKernelContext* ctx, PadMode mode, uint64_t value_bits) {
  const Tensor& input = ctx->input(0);
  StatusOr<GpuPadPlan> plan = PlanGpuPad(input, ctx->input(1), mode);
  OP_REQUIRES_OK(ctx, plan.status());
  if (plan->forward_input) {
    ctx->set_output(0, input);
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, plan->shape, &out));
  if (plan->shape.num_elements() == 0) return;
  CudaDevice* device = CurrentCudaDevice(ctx);
  OP_REQUIRES_OK(
      ctx,
      CudaCall(gpu::LaunchPad(static_cast<int>(DataTypeSize(input.dtype())),
                              input.raw_data(), value_bits, out->raw_data(),
                              plan->shape.num_elements(), plan->pad,
                              device->compute_stream()),
               "launching the pad kernel"));
}

// Zero is all zero bits in every registered dtype.
class CudaPadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    GpuPadCompute(ctx, PadMode::kConstant, 0);
  }
};

class CudaPadV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<uint64_t> bits = PadConstantBits(ctx->input(2));
    OP_REQUIRES_OK(ctx, bits.status());
    GpuPadCompute(ctx, PadMode::kConstant, *bits);
  }
};

class CudaMirrorPadOp : public OpKernel {
 public:
  explicit CudaMirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    StatusOr<PadMode> mode = ReadMirrorPadMode(ctx);
    OP_REQUIRES_OK(ctx, mode.status());
    mode_ = *mode;
  }

  void Compute(OpKernelContext* ctx) const override {
    GpuPadCompute(ctx, mode_, 0);
  }

 private:
  PadMode mode_ = PadMode::kReflect;
};

REGISTER_KERNEL_BUILDER(Name("Pad")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("paddings"),
                        CudaPadOp);
REGISTER_KERNEL_BUILDER(Name("PadV2")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("paddings")
                            .HostMemory("constant_values"),
                        CudaPadV2Op);
REGISTER_KERNEL_BUILDER(Name("MirrorPad")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", CudaMovementTypes())
                            .HostMemory("paddings"),
                        CudaMirrorPadOp);

}  // namespace
}  // namespace weft
