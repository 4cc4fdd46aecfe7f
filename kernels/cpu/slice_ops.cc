// Slice and StridedSlice on the CPU. StridedSlice is resolved by
// PlanStridedSlice (ops/common_shape_fns.h), the very function its shape
// inference uses, so kernel and shape function agree on every mask, clamp
// and negative stride. Both then copy a strided view of the input with
// StridedGather (memcpy runs along a contiguous innermost range); a slice
// that keeps everything in order shares the input's buffer. Dtype-agnostic
// (element width only), strings and the quantized types TensorFlow registers
// included.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/cpu/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {
namespace {

// Output 0 = input viewed over `dims` with per-dimension input `begin` and
// `steps` (in index units), reshaped to `out_shape` (same element count).
// Shares the input when the view is all of it in order.
void EmitSlice(OpKernelContext* ctx, const Tensor& input,
               const std::vector<int64_t>& begin,
               const std::vector<int64_t>& steps,
               const std::vector<int64_t>& dims, const TensorShape& out_shape) {
  bool whole = true;
  for (int d = 0; d < input.dims(); ++d) {
    const int64_t size = input.dim_size(d);
    whole = whole && dims[d] == size &&
            (size <= 1 || (begin[d] == 0 && steps[d] == 1));
  }
  if (whole) {
    StatusOr<Tensor> out = input.Reshaped(out_shape);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  if (out_shape.num_elements() == 0) return;
  const copy_util::Dims in_strides = copy_util::RowMajorStrides(input.shape());
  copy_util::Dims strides(input.dims());
  int64_t offset = 0;
  for (int d = 0; d < input.dims(); ++d) {
    strides[d] = in_strides[d] * steps[d];
    offset += begin[d] * in_strides[d];
  }
  copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), offset, dims,
                           strides, out->raw_data());
}

// input[begin[i] : begin[i] + size[i]] per dimension; a size of -1 takes the
// rest of the dimension.
class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& begin_t = ctx->input(1);
    const Tensor& size_t_ = ctx->input(2);
    const int rank = input.dims();
    OP_REQUIRES(ctx,
                begin_t.dims() == 1 && size_t_.dims() == 1 &&
                    begin_t.dim_size(0) == rank && size_t_.dim_size(0) == rank,
                errors::InvalidArgument(
                    "begin (input 1) and size (input 2) must be vectors of ",
                    rank, " values, one per dimension of input 0 ",
                    input.shape().DebugString(), ", but have shapes ",
                    begin_t.shape().DebugString(), " and ",
                    size_t_.shape().DebugString()));
    std::vector<int64_t> begin;
    std::vector<int64_t> size;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(begin_t, "begin (input 1)", &begin));
    OP_REQUIRES_OK(ctx, ReadIndexTensor(size_t_, "size (input 2)", &size));
    for (int d = 0; d < rank; ++d) {
      const int64_t dim = input.dim_size(d);
      OP_REQUIRES(ctx, begin[d] >= 0 && begin[d] <= dim,
                  errors::InvalidArgument(
                      "begin (input 1) is ", IndexListString(begin),
                      " but begin[", d, "] must be in [0, ", dim,
                      "] for input 0 ", input.shape().DebugString()));
      if (size[d] == -1) size[d] = dim - begin[d];
      OP_REQUIRES(ctx, size[d] >= 0 && size[d] <= dim - begin[d],
                  errors::InvalidArgument(
                      "size (input 2) is ", IndexListString(size), " but size[",
                      d, "] must be in [0, ", dim - begin[d],
                      "] (or -1) to slice dimension ", d, " of input 0 ",
                      input.shape().DebugString(), " from ", begin[d]));
    }
    StatusOr<TensorShape> shape = TensorShape::Build(size);
    OP_REQUIRES_OK(ctx, shape.status());
    EmitSlice(ctx, input, begin, std::vector<int64_t>(rank, 1), size, *shape);
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("begin_mask", &masks_.begin));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end_mask", &masks_.end));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ellipsis_mask", &masks_.ellipsis));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("new_axis_mask", &masks_.new_axis));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shrink_axis_mask", &masks_.shrink_axis));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    static constexpr const char* kNames[] = {"begin (input 1)", "end (input 2)",
                                             "strides (input 3)"};
    std::vector<int64_t> spec[3];
    for (int i = 0; i < 3; ++i) {
      const Tensor& t = ctx->input(i + 1);
      OP_REQUIRES(
          ctx, t.dims() == 1,
          errors::InvalidArgument(kNames[i], " must be a vector but has shape ",
                                  t.shape().DebugString()));
      OP_REQUIRES_OK(ctx, ReadIndexTensor(t, kNames[i], &spec[i]));
    }
    const std::vector<int64_t> input_dims(input.shape().dim_sizes().begin(),
                                          input.shape().dim_sizes().end());
    StatusOr<StridedSlicePlan> plan =
        PlanStridedSlice(input_dims, static_cast<int64_t>(spec[0].size()),
                         &spec[0], &spec[1], &spec[2], masks_);
    OP_REQUIRES_OK(ctx, plan.status());
    StatusOr<TensorShape> shape = TensorShape::Build(plan->final_shape);
    OP_REQUIRES_OK(ctx, shape.status());
    EmitSlice(ctx, input, plan->begin, plan->strides, plan->processing_shape,
              *shape);
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
