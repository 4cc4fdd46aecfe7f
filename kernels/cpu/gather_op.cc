// GatherV2 on the CPU:
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
#include "kernels/cpu/copy_util.h"
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

class GatherV2Op : public OpKernel {
 public:
  explicit GatherV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dims", &batch_dims_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(2), "axis (input 2)",
                                        /*allow_vector_of_one=*/false, &axis));
    const int prank = params.dims();
    const int irank = indices.dims();
    OP_REQUIRES(ctx, prank >= 1,
                errors::InvalidArgument(
                    "params (input 0) must have rank >= 1 but is a scalar"));
    OP_REQUIRES(
        ctx, axis >= -prank && axis < prank,
        errors::InvalidArgument("axis (input 2) is ", axis, " but must be in [",
                                -prank, ", ", prank, ") for params (input 0) ",
                                params.shape().DebugString()));
    if (axis < 0) axis += prank;
    int64_t batch_dims = batch_dims_;
    OP_REQUIRES(ctx, batch_dims >= -irank && batch_dims <= irank,
                errors::InvalidArgument("attr 'batch_dims' is ", batch_dims,
                                        " but must be in [", -irank, ", ",
                                        irank, "] for indices (input 1) ",
                                        indices.shape().DebugString()));
    if (batch_dims < 0) batch_dims += irank;
    OP_REQUIRES(ctx, batch_dims < prank && batch_dims <= axis,
                errors::InvalidArgument(
                    "attr 'batch_dims' is ", batch_dims,
                    " but must be less than the rank of params (input 0) ",
                    params.shape().DebugString(), " and at most axis ", axis));
    for (int d = 0; d < batch_dims; ++d) {
      OP_REQUIRES(ctx, params.dim_size(d) == indices.dim_size(d),
                  errors::InvalidArgument(
                      "batch dimension ", d, " of params (input 0) ",
                      params.shape().DebugString(), " and indices (input 1) ",
                      indices.shape().DebugString(), " must agree"));
    }

    std::vector<int64_t> out_dims;
    int64_t batch = 1;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int d = 0; d < axis; ++d) {
      out_dims.push_back(params.dim_size(d));
      (d < batch_dims ? batch : outer) *= params.dim_size(d);
    }
    int64_t n = 1;
    for (int d = static_cast<int>(batch_dims); d < irank; ++d) {
      out_dims.push_back(indices.dim_size(d));
      n *= indices.dim_size(d);
    }
    for (int d = static_cast<int>(axis) + 1; d < prank; ++d) {
      out_dims.push_back(params.dim_size(d));
      inner *= params.dim_size(d);
    }
    const int64_t gather_dim = params.dim_size(static_cast<int>(axis));
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());

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
    OP_REQUIRES(ctx, bad < 0,
                errors::InvalidArgument(
                    "indices (input 1)", PositionString(indices.shape(), bad),
                    " = ", bad_value, " is not in [0, ", gather_dim,
                    "), the size of dimension ", axis, " of params (input 0) ",
                    params.shape().DebugString()));

    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (shape->num_elements() == 0) return;
    copy_util::VisitElementType(params.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      const E* p = static_cast<const E*>(params.raw_data());
      E* o = static_cast<E*>(out->raw_data());
      if (indices.dtype() == DT_INT32) {
        GatherRows<E>(*ctx, p, indices.data<int32_t>(), batch, outer,
                      gather_dim, n, inner, o);
      } else {
        GatherRows<E>(*ctx, p, indices.data<int64_t>(), batch, outer,
                      gather_dim, n, inner, o);
      }
    });
  }

 private:
  int64_t batch_dims_ = 0;
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

}  // namespace
}  // namespace weft
