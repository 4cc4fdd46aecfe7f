// ConcatV2 and Pack on the CPU. Both view every input as [rows, width_i]
// (rows = the product of the dimensions before the axis) and the output as
// [rows, sum width_i]; each output row is the inputs' rows one after another,
// so the copy is a sequence of memcpy runs. Work is split over flat output
// ranges, so one huge row (axis 0) parallelizes as well as many small ones.
// Dtype-agnostic (element width only), strings and the quantized types
// TensorFlow registers included.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "kernels/cpu/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// out[r, prefix_i + c] = in_i[r, c] for every input i; widths in elements.
void ConcatRows(const OpKernelContext& ctx, DataType dtype,
                const std::vector<const char*>& srcs,
                const std::vector<int64_t>& widths, int64_t rows, char* dst) {
  int64_t row_width = 0;
  for (int64_t w : widths) row_width += w;
  const int64_t total = rows * row_width;
  if (total == 0) return;
  const size_t bytes = copy_util::ElementBytes(dtype);
  const int n = static_cast<int>(srcs.size());
  const int64_t cost = dtype == DT_STRING ? 40 : 1;
  ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
    int64_t row = begin / row_width;
    int64_t col = begin % row_width;
    int seg = 0;
    while (col >= widths[seg]) col -= widths[seg++];
    int64_t pos = begin;
    while (pos < end) {
      const int64_t len = std::min(widths[seg] - col, end - pos);
      copy_util::CopyElements(dtype,
                              srcs[seg] + (row * widths[seg] + col) * bytes,
                              dst + pos * bytes, len);
      pos += len;
      col = 0;
      // Next non-empty segment, wrapping to the next row.
      do {
        if (++seg == n) {
          seg = 0;
          ++row;
        }
      } while (widths[seg] == 0 && pos < end);
    }
  });
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs() - 1;
    int64_t axis = 0;
    // A one-element vector is TensorFlow's legacy spelling of the scalar.
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(n),
                                        absl::StrCat("axis (input ", n, ")"),
                                        /*allow_vector_of_one=*/true, &axis));
    const TensorShape& first = ctx->input(0).shape();
    const int rank = first.dims();
    OP_REQUIRES(ctx, rank > 0,
                errors::InvalidArgument("input 0 is a scalar; scalars cannot "
                                        "be concatenated (Pack stacks them)"));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument("axis (input ", n, ") is ", axis,
                                        " but must be in [", -rank, ", ", rank,
                                        ") for inputs of rank ", rank));
    if (axis < 0) axis += rank;
    int64_t axis_total = 0;
    int non_empty = 0;
    int last_non_empty = 0;
    for (int i = 0; i < n; ++i) {
      const TensorShape& s = ctx->input(i).shape();
      bool match = s.dims() == rank;
      for (int d = 0; match && d < rank; ++d) {
        match = d == axis || s.dim_size(d) == first.dim_size(d);
      }
      OP_REQUIRES(ctx, match,
                  errors::InvalidArgument(
                      "input ", i, " has shape ", s.DebugString(),
                      " but must match input 0 ", first.DebugString(),
                      " in rank and in every dimension but the axis ", axis));
      axis_total += s.dim_size(static_cast<int>(axis));
      if (s.num_elements() > 0) {
        ++non_empty;
        last_non_empty = i;
      }
    }
    std::vector<int64_t> out_dims(first.dim_sizes().begin(),
                                  first.dim_sizes().end());
    out_dims[axis] = axis_total;
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    // All the data in one input of the output's shape: nothing to move.
    if (non_empty == 1 && ctx->input(last_non_empty).shape() == *shape) {
      ctx->set_output(0, ctx->input(last_non_empty));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    int64_t rows = 1;
    for (int d = 0; d < axis; ++d) rows *= first.dim_size(d);
    std::vector<const char*> srcs(n);
    std::vector<int64_t> widths(n);
    for (int i = 0; i < n; ++i) {
      const Tensor& in = ctx->input(i);
      srcs[i] = static_cast<const char*>(in.raw_data());
      widths[i] = rows == 0 ? 0 : in.NumElements() / rows;
    }
    ConcatRows(*ctx, out->dtype(), srcs, widths, rows,
               static_cast<char*>(out->raw_data()));
  }
};

// N tensors of one shape stacked along a new dimension `axis` of size N.
class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs();
    const TensorShape& first = ctx->input(0).shape();
    const int rank = first.dims();
    int64_t axis = axis_;
    OP_REQUIRES(ctx, axis >= -(rank + 1) && axis <= rank,
                errors::InvalidArgument(
                    "attr 'axis' is ", axis, " but must be in [", -(rank + 1),
                    ", ", rank + 1, ") to stack inputs of rank ", rank));
    OP_REQUIRES(
        ctx, rank < kMaxRank,
        errors::InvalidArgument("stacking inputs of rank ", rank,
                                " exceeds the maximum rank ", kMaxRank));
    if (axis < 0) axis += rank + 1;
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first,
                  errors::InvalidArgument(
                      "all inputs to stack must have one shape, but input 0 "
                      "is ",
                      first.DebugString(), " and input ", i, " is ",
                      ctx->input(i).shape().DebugString()));
    }
    std::vector<int64_t> out_dims(first.dim_sizes().begin(),
                                  first.dim_sizes().end());
    out_dims.insert(out_dims.begin() + axis, n);
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    if (n == 1) {
      StatusOr<Tensor> out = ctx->input(0).Reshaped(*shape);
      OP_REQUIRES_OK(ctx, out.status());
      ctx->set_output(0, *std::move(out));
      return;
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    int64_t rows = 1;
    for (int d = 0; d < axis; ++d) rows *= first.dim_size(d);
    const int64_t width = rows == 0 ? 0 : first.num_elements() / rows;
    std::vector<const char*> srcs(n);
    for (int i = 0; i < n; ++i) {
      srcs[i] = static_cast<const char*>(ctx->input(i).raw_data());
    }
    ConcatRows(*ctx, out->dtype(), srcs, std::vector<int64_t>(n, width), rows,
               static_cast<char*>(out->raw_data()));
  }

 private:
  int64_t axis_ = 0;
};

// TensorFlow's CPU kernels for both: all numeric types, bool, strings and
// the quantized types.
std::vector<DataType> ConcatTypes() {
  return NumericAndBoolTypesPlus(
      {DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT16, DT_QUINT16, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(
    Name("ConcatV2").Device(DEVICE_CPU).TypeConstraint("T", ConcatTypes()),
    ConcatV2Op);
REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_CPU).TypeConstraint("T", ConcatTypes()), PackOp);

}  // namespace
}  // namespace weft
