// Slice and StridedSlice on the CPU. Both are resolved to a strided view of
// the input by kernels/common/slice_shape.h, which the CUDA kernels share (the
// StridedSlice view by PlanStridedSlice, the very function its shape
// inference uses), and then copy that view with StridedGather (memcpy runs
// along a contiguous innermost range); a slice that keeps everything in
// order shares the input's buffer. Dtype-agnostic (element width only),
// strings and the quantized types TensorFlow registers included.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/slice_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Output 0 = `view` of `input`: the input itself, reshaped, when the view
// is all of it in order, otherwise a strided copy.
void EmitSlice(OpKernelContext* ctx, const Tensor& input,
               const SliceView& view) {
  if (view.whole) {
    StatusOr<Tensor> out = input.Reshaped(view.shape);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, view.shape, &out));
  if (view.shape.num_elements() == 0) return;
  const copy_util::Dims in_strides = copy_util::RowMajorStrides(input.shape());
  copy_util::Dims strides(input.dims());
  int64_t offset = 0;
  for (int d = 0; d < input.dims(); ++d) {
    strides[d] = in_strides[d] * view.steps[d];
    offset += view.begin[d] * in_strides[d];
  }
  copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), offset,
                           view.dims, strides, out->raw_data());
}

// input[begin[i] : begin[i] + size[i]] per dimension; a size of -1 takes the
// rest of the dimension.
class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<SliceView> view =
        ResolveSlice(ctx->input(0), ctx->input(1), ctx->input(2));
    OP_REQUIRES_OK(ctx, view.status());
    EmitSlice(ctx, ctx->input(0), *view);
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &masks_));
  }

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<SliceView> view = ResolveStridedSlice(
        ctx->input(0), ctx->input(1), ctx->input(2), ctx->input(3), masks_);
    OP_REQUIRES_OK(ctx, view.status());
    EmitSlice(ctx, ctx->input(0), *view);
  }

 private:
  StridedSliceMasks masks_;
};

std::vector<DataType> SliceTypes() {
  return NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(
    Name("Slice").Device(DEVICE_CPU).TypeConstraint("T", SliceTypes()),
    SliceOp);
REGISTER_KERNEL_BUILDER(
    Name("StridedSlice").Device(DEVICE_CPU).TypeConstraint("T", SliceTypes()),
    StridedSliceOp);

}  // namespace
}  // namespace weft
