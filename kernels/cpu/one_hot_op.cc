// OneHot on the CPU: indices of shape [prefix..., suffix...] become
// [prefix..., depth, suffix...] (the new dimension at `axis`, -1 = last),
// with on_value where the index equals the position along it and off_value
// elsewhere. Indices outside [0, depth), negative ones included, give an
// all-off line, as in TensorFlow. The output is filled with off_value and
// then on_value is written once per valid index; both steps are split over
// the session's arena. Dtype-agnostic in the values (element width only,
// strings included).
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename Index>
void SetOnValues(const OpKernelContext& ctx, DataType dtype,
                 const Index* indices, int64_t prefix, int64_t depth,
                 int64_t suffix, const void* on, char* out) {
  const size_t bytes = copy_util::ElementBytes(dtype);
  ctx.ParallelFor(prefix * suffix, 4, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      const int64_t v = static_cast<int64_t>(indices[k]);
      if (v < 0 || v >= depth) continue;
      const int64_t p = k / suffix;
      const int64_t s = k % suffix;
      copy_util::CopyElements(dtype, on,
                              out + ((p * depth + v) * suffix + s) * bytes, 1);
    }
  });
}

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    const int rank = indices.dims();
    OP_REQUIRES(ctx, axis_ >= -1 && axis_ <= rank,
                errors::InvalidArgument("attr 'axis' is ", axis_,
                                        " but must be -1 or in [0, ", rank,
                                        "] for indices (input 0) ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(ctx, depth_t.dims() == 0,
                errors::InvalidArgument("depth (input 1) must be a scalar but "
                                        "has shape ",
                                        depth_t.shape().DebugString()));
    const int64_t depth = depth_t.data<int32_t>()[0];
    OP_REQUIRES(ctx, depth >= 0,
                errors::InvalidArgument("depth (input 1) is ", depth,
                                        " but must be >= 0"));
    OP_REQUIRES(ctx, on.dims() == 0,
                errors::InvalidArgument("on_value (input 2) must be a scalar "
                                        "but has shape ",
                                        on.shape().DebugString()));
    OP_REQUIRES(ctx, off.dims() == 0,
                errors::InvalidArgument("off_value (input 3) must be a scalar "
                                        "but has shape ",
                                        off.shape().DebugString()));
    OP_REQUIRES(ctx, rank < kMaxRank,
                errors::InvalidArgument("indices (input 0) already have the "
                                        "maximum rank ",
                                        kMaxRank));
    const int at = axis_ == -1 ? rank : static_cast<int>(axis_);
    std::vector<int64_t> out_dims(indices.shape().dim_sizes().begin(),
                                  indices.shape().dim_sizes().end());
    out_dims.insert(out_dims.begin() + at, depth);
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (shape->num_elements() == 0) return;
    const DataType dtype = out->dtype();
    copy_util::ParallelFillElements(*ctx, dtype, off.raw_data(),
                                    out->raw_data(), out->NumElements());
    int64_t prefix = 1;
    for (int d = 0; d < at; ++d) prefix *= indices.dim_size(d);
    const int64_t suffix = indices.NumElements() / prefix;
    char* o = static_cast<char*>(out->raw_data());
    switch (indices.dtype()) {
      case DT_UINT8:
        SetOnValues(*ctx, dtype, indices.data<uint8_t>(), prefix, depth, suffix,
                    on.raw_data(), o);
        break;
      case DT_INT8:
        SetOnValues(*ctx, dtype, indices.data<int8_t>(), prefix, depth, suffix,
                    on.raw_data(), o);
        break;
      case DT_INT32:
        SetOnValues(*ctx, dtype, indices.data<int32_t>(), prefix, depth, suffix,
                    on.raw_data(), o);
        break;
      case DT_INT64:
        SetOnValues(*ctx, dtype, indices.data<int64_t>(), prefix, depth, suffix,
                    on.raw_data(), o);
        break;
      default:
        OP_REQUIRES(ctx, false,
                    errors::InvalidArgument(
                        "indices (input 0) must be uint8, int8, int32 or int64 "
                        "but are ",
                        DataTypeName(indices.dtype())));
    }
  }

 private:
  int64_t axis_ = -1;
};

REGISTER_KERNEL_BUILDER(
    Name("OneHot")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING}))
        .TypeConstraint("TI", {DT_UINT8, DT_INT8, DT_INT32, DT_INT64}),
    OneHotOp);

}  // namespace
}  // namespace weft
