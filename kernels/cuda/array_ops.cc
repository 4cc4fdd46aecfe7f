// CUDA kernels of the layout ops: Transpose, ConcatV2, Pack and Tile, for
// float, half, int32, int64 and bool. Shapes are checked by the contracts
// the CPU kernels share (kernels/common/transpose_shape.h, tile_shape.h,
// concat_shape.h) and the copies planned on the host
// (kernels/cuda/plan/array_plan.h); the device code, compiled per element size,
// is in array_ops_gpu.cu. Outputs that equal an input (an order-keeping
// permutation, multiples of 1, one non-empty concat input) share its buffer, as
// on the CPU.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cuda/array_ops_gpu.h"
#include "kernels/cuda/cuda_kernel_util.h"
#include "kernels/cuda/plan/array_plan.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

int ElementSize(const Tensor& t) {
  return static_cast<int>(DataTypeSize(t.dtype()));
}

class CudaTransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    TransposeDims dims;
    OP_REQUIRES_OK(ctx, StartTranspose(ctx, &dims));
    if (!dims.moves_data) return;
    const Tensor& x = ctx->input(0);
    StatusOr<TransposePlan> plan = PlanTranspose(x.shape(), dims);
    OP_REQUIRES_OK(ctx, plan.status());
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims.out_shape, &y));
    if (y->NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(ctx, CudaCall(gpu::LaunchTranspose(
                                     ElementSize(x), plan->params, x.raw_data(),
                                     y->raw_data(), y->NumElements(),
                                     device->compute_stream()),
                                 "launching the Transpose kernel"));
  }
};

class CudaTileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    TileDims dims;
    OP_REQUIRES_OK(ctx, StartTile(ctx, &dims));
    if (dims.same) return;
    const Tensor& x = ctx->input(0);
    StatusOr<gpu::TileParams> params = PlanTile(x.shape(), dims);
    OP_REQUIRES_OK(ctx, params.status());
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims.out_shape, &y));
    if (y->NumElements() == 0) return;
    CudaDevice* device = CurrentCudaDevice(ctx);
    OP_REQUIRES_OK(
        ctx, CudaCall(gpu::LaunchTile(ElementSize(x), *params, x.raw_data(),
                                      y->raw_data(), y->NumElements(),
                                      device->compute_stream()),
                      "launching the Tile kernel"));
  }
};

// Output 0 of a ConcatV2 or Pack from `dims`, unless an input was
// forwarded: the inputs (one per width) copied by the launches
// ConcatLaunches plans.
void LaunchConcats(OpKernelContext* ctx, const ConcatDims& dims) {
  if (dims.forward_input >= 0) return;
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims.out_shape, &out));
  std::vector<const void*> inputs(dims.widths.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    inputs[i] = ctx->input(static_cast<int>(i)).raw_data();
  }
  const std::vector<gpu::ConcatParams> launches = ConcatLaunches(dims, inputs);
  if (launches.empty()) return;
  CudaDevice* device = CurrentCudaDevice(ctx);
  for (const gpu::ConcatParams& p : launches) {
    OP_REQUIRES_OK(ctx, CudaCall(gpu::LaunchConcat(ElementSize(*out), p,
                                                   dims.rows, out->raw_data(),
                                                   device->compute_stream()),
                                 "launching the concat kernel"));
  }
}

class CudaConcatV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) const override {
    ConcatDims dims;
    OP_REQUIRES_OK(ctx, StartConcatV2(ctx, &dims));
    LaunchConcats(ctx, dims);
  }
};

class CudaPackOp : public OpKernel {
 public:
  explicit CudaPackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ConcatDims dims;
    OP_REQUIRES_OK(ctx, StartPack(ctx, axis_, &dims));
    LaunchConcats(ctx, dims);
  }

 private:
  int64_t axis_ = 0;
};

std::vector<DataType> LayoutTypes() {
  return {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64, DT_BOOL};
}

REGISTER_KERNEL_BUILDER(Name("Transpose")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", LayoutTypes())
                            .HostMemory("perm"),
                        CudaTransposeOp);
REGISTER_KERNEL_BUILDER(Name("ConcatV2")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", LayoutTypes())
                            .HostMemory("axis"),
                        CudaConcatV2Op);
REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_CUDA).TypeConstraint("T", LayoutTypes()),
    CudaPackOp);
REGISTER_KERNEL_BUILDER(Name("Tile")
                            .Device(DEVICE_CUDA)
                            .TypeConstraint("T", LayoutTypes())
                            .HostMemory("multiples"),
                        CudaTileOp);

}  // namespace
}  // namespace weft
