// CPU kernels of Select and SelectV2: output = condition ? t : e, element by
// element, for half, bfloat16, float, double, int32, int64 and bool.
//
// Shapes, as in TensorFlow:
//  - Select: t and e have the same shape, and the condition is a scalar
//    (picking all of t or all of e), has that same shape, or is a vector whose
//    length is t's first dimension (picking rows) when t is not a vector.
//  - SelectV2: the three shapes broadcast together (NumPy rules).
//
// Choosing an element is moving its bytes, so one compiled loop per element
// size (1, 2, 4, 8 bytes) serves every dtype.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "core/tensor.h"
#include "core/types.h"
#include "kernels/common/broadcast.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// out[i] = c[i * cs] ? t[i * ts] : e[i * es] for i < n; strides are 0 or 1.
// `out` may be t or e when that one has stride 1.
template <typename E>
void SelectRun(const bool* c, int64_t cs, const E* t, int64_t ts, const E* e,
               int64_t es, E* out, int64_t n) {
  if (cs == 1 && ts == 1 && es == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? t[i] : e[i];
  } else if (cs == 0) {
    // One condition for the whole run: a copy of t's or e's run.
    const E* src = *c ? t : e;
    const int64_t s = *c ? ts : es;
    if (s == 0) {
      for (int64_t i = 0; i < n; ++i) out[i] = *src;
    } else if (src != out) {
      std::memmove(out, src, n * sizeof(E));
    }
  } else if (ts == 1 && es == 0) {
    // A tensor against one value (an attention mask's -1e9): loops with
    // fixed strides, which the compiler vectorizes.
    const E b = *e;
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? t[i] : b;
  } else if (ts == 0 && es == 1) {
    const E a = *t;
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? a : e[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? t[i * ts] : e[i * es];
  }
}

// The loop nest of `bcast` (inputs condition, t, e), split by rows of its
// innermost dimension.
template <typename E>
void SelectCompute(const OpKernelContext& ctx, const MultiBroadcast& bcast,
                   const bool* c, const E* t, const E* e, E* out) {
  const int64_t total = bcast.output_size();
  if (total == 0) return;
  const absl::Span<const int64_t> dims = bcast.reduced_dims();
  if (dims.empty()) {  // every input a single element
    SelectRun(c, 0, t, 0, e, 0, out, 1);
    return;
  }
  const absl::Span<const int64_t> st[3] = {bcast.strides(0), bcast.strides(1),
                                           bcast.strides(2)};
  const int outer_rank = static_cast<int>(dims.size()) - 1;
  const int64_t inner = dims[outer_rank];
  const int64_t rows = total / inner;
  ctx.ParallelFor(rows, 2 * inner, [&](int64_t begin, int64_t end) {
    absl::InlinedVector<int64_t, 6> index(outer_rank, 0);
    int64_t off[3] = {0, 0, 0};
    int64_t r = begin;
    for (int d = outer_rank - 1; d >= 0; --d) {
      index[d] = r % dims[d];
      r /= dims[d];
      for (int k = 0; k < 3; ++k) off[k] += index[d] * st[k][d];
    }
    for (int64_t row = begin; row < end; ++row) {
      SelectRun(c + off[0], st[0][outer_rank], t + off[1], st[1][outer_rank],
                e + off[2], st[2][outer_rank], out + row * inner, inner);
      for (int d = outer_rank - 1; d >= 0; --d) {
        for (int k = 0; k < 3; ++k) off[k] += st[k][d];
        if (++index[d] < dims[d]) break;
        for (int k = 0; k < 3; ++k) off[k] -= st[k][d] * dims[d];
        index[d] = 0;
      }
    }
  });
}

// Runs the select for `cond_shape` (the condition viewed with that shape,
// same element count) against t and e.
void BroadcastSelect(OpKernelContext* ctx, const TensorShape& cond_shape) {
  const Tensor& cond = ctx->input(0);
  const Tensor& t = ctx->input(1);
  const Tensor& e = ctx->input(2);
  MultiBroadcast bcast;
  const TensorShape* shapes[] = {&cond_shape, &t.shape(), &e.shape()};
  const absl::string_view names[] = {"condition", "t", "e"};
  OP_REQUIRES_OK(ctx, bcast.Init(shapes, names));
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                          {1, 2}, 0, bcast.output_shape(), &out));
  const bool* c = cond.data<bool>();
  switch (DataTypeSize(t.dtype())) {
#define WEFT_SELECT_CASE(E)                                             \
  SelectCompute<E>(*ctx, bcast, c, static_cast<const E*>(t.raw_data()), \
                   static_cast<const E*>(e.raw_data()),                 \
                   static_cast<E*>(out->raw_data()));                   \
  break
    case 1:
      WEFT_SELECT_CASE(uint8_t);
    case 2:
      WEFT_SELECT_CASE(uint16_t);
    case 4:
      WEFT_SELECT_CASE(uint32_t);
    case 8:
      WEFT_SELECT_CASE(uint64_t);
#undef WEFT_SELECT_CASE
    default:
      ctx->SetStatus(
          errors::Internal("Select: no loop for ", DataTypeName(t.dtype())));
  }
}

class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    OP_REQUIRES(ctx, t.shape() == e.shape(),
                errors::InvalidArgument(
                    "t and e must have the same shape, but t has shape ",
                    t.shape().DebugString(), " and e has shape ",
                    e.shape().DebugString()));
    if (cond.dims() == 0) {
      // All of t or all of e.
      ctx->set_output(0, *cond.data<bool>() ? t : e);
      return;
    }
    if (cond.dims() == 1 && t.dims() != 1) {
      // One condition per row of t.
      OP_REQUIRES(ctx, t.dims() >= 1,
                  errors::InvalidArgument(
                      "a vector condition picks rows of t, which must be at "
                      "least a vector, but t has shape ",
                      t.shape().DebugString()));
      OP_REQUIRES(ctx, cond.dim_size(0) == t.dim_size(0),
                  errors::InvalidArgument(
                      "a vector condition picks rows of t, so its length must "
                      "be t's first dimension, but condition has shape ",
                      cond.shape().DebugString(), " and t has shape ",
                      t.shape().DebugString()));
      TensorShape rows({cond.dim_size(0)});
      for (int d = 1; d < t.dims(); ++d) rows.AddDim(1).IgnoreError();
      BroadcastSelect(ctx, rows);
      return;
    }
    OP_REQUIRES(ctx, cond.shape() == t.shape(),
                errors::InvalidArgument(
                    "condition must be a scalar, a vector of t's first "
                    "dimension or of t's shape, but condition has shape ",
                    cond.shape().DebugString(), " and t has shape ",
                    t.shape().DebugString()));
    BroadcastSelect(ctx, cond.shape());
  }
};

class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    BroadcastSelect(ctx, ctx->input(0).shape());
  }
};

const std::vector<DataType>& SelectTypes() {
  static const auto* types = new std::vector<DataType>{
      DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64, DT_BOOL};
  return *types;
}

REGISTER_KERNEL_BUILDER(
    Name("Select").Device(DEVICE_CPU).TypeConstraint("T", SelectTypes()),
    SelectOp);
REGISTER_KERNEL_BUILDER(
    Name("SelectV2").Device(DEVICE_CPU).TypeConstraint("T", SelectTypes()),
    SelectV2Op);

}  // namespace
}  // namespace weft
