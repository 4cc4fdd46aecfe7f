// GatherV2 and the legacy Gather (GatherV2 along axis 0) on the CPU (shapes,
// axis and batch_dims checked by kernels/common/gather_shape.h, which the CUDA
// kernel shares):
//
//   output[b, o, n, i] = params[b, o, indices[b, n], i]
//
// with params viewed as [batch, outer, params.shape[axis], inner] (batch =
// the first batch_dims dimensions, shared with indices) and indices as
// [batch, n]. Every index is checked before anything is copied: one outside
// [0, params.shape[axis]) is an error naming its position and value (as
// TensorFlow's CPU kernel does; nothing out of bounds is read). Rows of
// `inner` elements are memcpy runs, split over the session's arena when
// large. Dtype-agnostic (element width only), strings and the quantized
// types TensorFlow registers included.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/gather_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// "[1,2]": the position of flat element `flat` of a tensor of `shape`.
std::string PositionString(const TensorShape& shape, int64_t flat) {
  std::vector<int64_t> pos(shape.dims());
  for (int d = shape.dims() - 1; d >= 0; --d) {
    pos[d] = flat % shape.dim_size(d);
    flat /= shape.dim_size(d);
  }
  return IndexListString(pos);
}

// Index of the first entry of `indices` outside [0, limit), or -1.
template <typename Index>
int64_t FirstBadIndex(const Index* indices, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = indices[i];
    if (v < 0 || v >= limit) return i;
  }
  return -1;
}

template <typename E, typename Index>
void GatherRows(const OpKernelContext& ctx, const E* params,
                const Index* indices, int64_t batch, int64_t outer,
                int64_t gather_dim, int64_t n, int64_t inner, E* out) {
  const int64_t rows = batch * outer * n;
  const int64_t cost = inner * (std::is_same_v<E, std::string> ? 40 : 1) + 4;
  ctx.ParallelFor(rows, cost, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t j = r % n;
      const int64_t bo = r / n;  // batch * outer + o
      const int64_t b = bo / outer;
      const int64_t index = indices[b * n + j];
      const E* from = params + (bo * gather_dim + index) * inner;
      E* to = out + r * inner;
      if (inner == 1) {
        copy_util::MoveOne<E>(to, from);
      } else if constexpr (std::is_same_v<E, std::string>) {
        std::copy(from, from + inner, to);
      } else {
        std::memcpy(to, from, static_cast<size_t>(inner) * sizeof(E));
      }
    }
  });
}

// Shared by GatherV2 and the legacy Gather (axis 0, no batch dims).
void ComputeGather(OpKernelContext* ctx, const Tensor& axis,
                   int64_t batch_dims) {
  const Tensor& params = ctx->input(0);
  const Tensor& indices = ctx->input(1);
  StatusOr<GatherDims> dims = ResolveGather(params, indices, axis, batch_dims);
  OP_REQUIRES_OK(ctx, dims.status());
  const int64_t gather_dim = dims->gather_dim;

  int64_t bad = -1;
  int64_t bad_value = 0;
  if (indices.dtype() == DT_INT32) {
    const int32_t* idx = indices.data<int32_t>();
    bad = FirstBadIndex(idx, indices.NumElements(), gather_dim);
    if (bad >= 0) bad_value = idx[bad];
  } else {
    const int64_t* idx = indices.data<int64_t>();
    bad = FirstBadIndex(idx, indices.NumElements(), gather_dim);
    if (bad >= 0) bad_value = idx[bad];
  }
  OP_REQUIRES(
      ctx, bad < 0,
      errors::InvalidArgument(
          "indices (input 1)", PositionString(indices.shape(), bad), " = ",
          bad_value, " is not in [0, ", gather_dim, "), the size of dimension ",
          dims->axis, " of params (input 0) ", params.shape().DebugString()));

  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims->shape, &out));
  if (dims->shape.num_elements() == 0) return;
  copy_util::VisitElementType(params.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const E* p = static_cast<const E*>(params.raw_data());
    E* o = static_cast<E*>(out->raw_data());
    if (indices.dtype() == DT_INT32) {
      GatherRows<E>(*ctx, p, indices.data<int32_t>(), dims->batch, dims->outer,
                    gather_dim, dims->n, dims->inner, o);
    } else {
      GatherRows<E>(*ctx, p, indices.data<int64_t>(), dims->batch, dims->outer,
                    gather_dim, dims->n, dims->inner, o);
    }
  });
}

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ComputeGather(ctx, ctx->input(2), batch_dims_);
  }

 private:
  int64_t batch_dims_ = 0;
};

// The legacy Gather: GatherV2 along axis 0 (validate_indices is ignored, as
// in TensorFlow; indices are always checked).
class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), axis_(DT_INT32, TensorShape()) {
    axis_.data<int32_t>()[0] = 0;
  }

  void Compute(OpKernelContext* ctx) const override {
    ComputeGather(ctx, axis_, 0);
  }

 private:
  Tensor axis_;
};

REGISTER_KERNEL_BUILDER(
    Name("GatherV2")
        .Device(DEVICE_CPU)
        .TypeConstraint("Tparams",
                        NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8,
                                                 DT_QINT16, DT_QUINT16,
                                                 DT_QINT32}))
        .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
    GatherV2Op);
REGISTER_KERNEL_BUILDER(
    Name("Gather")
        .Device(DEVICE_CPU)
        .TypeConstraint("Tparams",
                        NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8,
                                                 DT_QINT16, DT_QUINT16,
                                                 DT_QINT32}))
        .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
    GatherOp);

}  // namespace
}  // namespace weft
