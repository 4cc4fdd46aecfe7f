// Split, SplitV and Unpack on the CPU, the inverses of ConcatV2 and Pack:
// the input is viewed as [rows, sum width_j] (rows = the product of the
// dimensions before the axis) and output j receives columns
// [prefix_j, prefix_j + width_j) of every row, as memcpy runs. One parallel
// loop over flat input ranges fills all outputs. A split into one part is
// the input itself (shared). Dtype-agnostic (element width only), strings
// and the quantized type TensorFlow registers (quint8, Split and SplitV)
// included.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// out_j[r, c] = in[r, prefix_j + c]; widths in elements, their sum the
// input's row width.
void SplitRows(const OpKernelContext& ctx, DataType dtype, const char* src,
               int64_t rows, absl::Span<const int64_t> widths,
               absl::Span<char* const> dsts) {
  int64_t row_width = 0;
  for (int64_t w : widths) row_width += w;
  const int64_t total = rows * row_width;
  if (total == 0) return;
  const size_t bytes = copy_util::ElementBytes(dtype);
  const int n = static_cast<int>(dsts.size());
  const int64_t cost = dtype == DT_STRING ? 40 : 1;
  ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
    int64_t row = begin / row_width;
    int64_t col = begin % row_width;
    int seg = 0;
    while (col >= widths[seg]) col -= widths[seg++];
    int64_t pos = begin;
    while (pos < end) {
      const int64_t len = std::min(widths[seg] - col, end - pos);
      copy_util::CopyElements(dtype, src + pos * bytes,
                              dsts[seg] + (row * widths[seg] + col) * bytes,
                              len);
      pos += len;
      col = 0;
      do {
        if (++seg == n) {
          seg = 0;
          ++row;
        }
      } while (widths[seg] == 0 && pos < end);
    }
  });
}

// The sizes of a split's parts, and its outputs' widths and buffers: inline
// for the few parts graphs have (an LSTM cell's four gates), so that a split
// run in every step of a loop allocates nothing but its outputs.
using PartSizes = absl::InlinedVector<int64_t, 8>;
using PartBuffers = absl::InlinedVector<char*, 8>;

// Cuts `value` along `axis` into parts of `sizes` (summing to the axis's
// size), each output keeping the axis unless `drop_axis` (Unpack).
void SplitAlong(OpKernelContext* ctx, const Tensor& value, int axis,
                absl::Span<const int64_t> sizes, bool drop_axis) {
  const int n = static_cast<int>(sizes.size());
  if (n == 1 && !drop_axis) {
    ctx->set_output(0, value);
    return;
  }
  int64_t rows = 1;
  for (int d = 0; d < axis; ++d) rows *= value.dim_size(d);
  int64_t inner = 1;
  for (int d = axis + 1; d < value.dims(); ++d) inner *= value.dim_size(d);
  const TensorShape::Dims dims(value.shape().dim_sizes().begin(),
                               value.shape().dim_sizes().end());
  PartSizes widths(n);
  PartBuffers dsts(n);
  for (int j = 0; j < n; ++j) {
    TensorShape::Dims out_dims = dims;
    if (drop_axis) {
      out_dims.erase(out_dims.begin() + axis);
    } else {
      out_dims[axis] = sizes[j];
    }
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(j, *shape, &out));
    widths[j] = sizes[j] * inner;
    dsts[j] = static_cast<char*>(out->raw_data());
  }
  SplitRows(*ctx, value.dtype(), static_cast<const char*>(value.raw_data()),
            rows, widths, dsts);
}

// The split dimension from scalar input 0 (Split) or 2 (SplitV), negative
// counting from the end. Its name for errors is a literal, not formatted on
// every call.
bool ReadSplitDim(OpKernelContext* ctx, int input, const Tensor& value,
                  int* axis) {
  int64_t dim = 0;
  const Status s = ReadIndexScalar(
      ctx->input(input),
      input == 0 ? "split_dim (input 0)" : "split_dim (input 2)",
      /*allow_vector_of_one=*/false, &dim);
  if (!s.ok()) {
    ctx->SetStatus(s);
    return false;
  }
  const int rank = value.dims();
  if (dim < -rank || dim >= rank) {
    ctx->SetStatus(errors::InvalidArgument(
        "split_dim (input ", input, ") is ", dim, " but must be in [", -rank,
        ", ", rank, ") for the value ", value.shape().DebugString()));
    return false;
  }
  *axis = static_cast<int>(dim < 0 ? dim + rank : dim);
  return true;
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(1);
    int axis = 0;
    if (!ReadSplitDim(ctx, 0, value, &axis)) return;
    const int n = ctx->num_outputs();
    const int64_t size = value.dim_size(axis);
    OP_REQUIRES(ctx, size % n == 0,
                errors::InvalidArgument("cannot split dimension ", axis,
                                        " (size ", size, ") of the value ",
                                        value.shape().DebugString(), " into ",
                                        n, " equal parts"));
    SplitAlong(ctx, value, axis, PartSizes(n, size / n), /*drop_axis=*/false);
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(0);
    const Tensor& sizes_t = ctx->input(1);
    int axis = 0;
    if (!ReadSplitDim(ctx, 2, value, &axis)) return;
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, sizes_t.dims() == 1 && sizes_t.dim_size(0) == n,
                errors::InvalidArgument(
                    "size_splits (input 1) must be a vector of num_split = ", n,
                    " sizes but has shape ", sizes_t.shape().DebugString()));
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(sizes_t, "size_splits (input 1)", &sizes));
    int wildcard = -1;
    int64_t total = 0;
    for (int j = 0; j < n; ++j) {
      if (sizes[j] == -1) {
        OP_REQUIRES(ctx, wildcard < 0,
                    errors::InvalidArgument(
                        "size_splits (input 1) is ", IndexListString(sizes),
                        "; at most one size can be -1 (inferred)"));
        wildcard = j;
        continue;
      }
      OP_REQUIRES(ctx, sizes[j] >= 0,
                  errors::InvalidArgument(
                      "size_splits (input 1) is ", IndexListString(sizes),
                      "; sizes must be >= 0, or -1 for the rest"));
      OP_REQUIRES(
          ctx, !__builtin_add_overflow(total, sizes[j], &total),
          errors::InvalidArgument("size_splits (input 1) ",
                                  IndexListString(sizes), " overflows int64"));
    }
    const int64_t size = value.dim_size(axis);
    // TensorFlow takes a single part literally: no -1 there.
    OP_REQUIRES(ctx, n > 1 || sizes[0] == size,
                errors::InvalidArgument(
                    "size_splits (input 1) is ", IndexListString(sizes),
                    " but a split into one part must give its size, ", size,
                    " (dimension ", axis, " of the value ",
                    value.shape().DebugString(), ")"));
    OP_REQUIRES(ctx, wildcard >= 0 ? total <= size : total == size,
                errors::InvalidArgument(
                    "cannot split dimension ", axis, " (size ", size,
                    ") of the value ", value.shape().DebugString(),
                    " into parts of sizes ", IndexListString(sizes),
                    wildcard >= 0 ? ": the given sizes exceed it"
                                  : ": they must add up to it"));
    if (wildcard >= 0) sizes[wildcard] = size - total;
    SplitAlong(ctx, value, axis, sizes, /*drop_axis=*/false);
  }
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(0);
    const int rank = value.dims();
    int64_t axis = axis_;
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        errors::InvalidArgument("attr 'axis' is ", axis, " but must be in [",
                                -rank, ", ", rank, ") to unstack input 0 ",
                                value.shape().DebugString()));
    if (axis < 0) axis += rank;
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, value.dim_size(static_cast<int>(axis)) == n,
                errors::InvalidArgument(
                    "attr 'num' is ", n, " but dimension ", axis,
                    " of input 0 ", value.shape().DebugString(), " has size ",
                    value.dim_size(static_cast<int>(axis))));
    if (n == 1) {
      TensorShape::Dims dims(value.shape().dim_sizes().begin(),
                             value.shape().dim_sizes().end());
      dims.erase(dims.begin() + axis);
      StatusOr<TensorShape> shape = TensorShape::Build(dims);
      OP_REQUIRES_OK(ctx, shape.status());
      StatusOr<Tensor> out = value.Reshaped(*shape);
      OP_REQUIRES_OK(ctx, out.status());
      ctx->set_output(0, *std::move(out));
      return;
    }
    SplitAlong(ctx, value, static_cast<int>(axis), PartSizes(n, 1),
               /*drop_axis=*/true);
  }

 private:
  int64_t axis_ = 0;
};

std::vector<DataType> SplitTypes() {
  return NumericAndBoolTypesPlus({DT_STRING, DT_QUINT8});
}

REGISTER_KERNEL_BUILDER(
    Name("Split").Device(DEVICE_CPU).TypeConstraint("T", SplitTypes()),
    SplitOp);
REGISTER_KERNEL_BUILDER(
    Name("SplitV").Device(DEVICE_CPU).TypeConstraint("T", SplitTypes()),
    SplitVOp);
REGISTER_KERNEL_BUILDER(
    Name("Unpack")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    UnpackOp);

}  // namespace
}  // namespace weft
