// SparseFillEmptyRows on the CPU, for every dtype TensorFlow registers it
// for on the CPU that weft holds (numbers, bool, complex, string): each row
// of the sparse tensor's dense shape that has no entry gets one,
// [row, 0, ..., 0] = default_value. Entries are grouped by row in row
// order (stable within a row, as TensorFlow's counting sort leaves them);
// when every row already has an entry and rows are in order, indices and
// values pass through unchanged. reverse_index_map[i] is where input entry
// i went. Values only move, so the kernel works on element bytes
// (copy_util), one instantiation for all dtypes.
//
// Errors are TensorFlow's messages. TensorFlow reads column 0 of an
// indices matrix without columns; weft reports it instead.
#include <cstdint>
#include <new>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// `rows` zeros in *v, or ResourceExhausted (rows comes from the data and
// may be far larger than memory).
Status ZeroedCounts(int64_t rows, std::vector<int64_t>* v) {
  try {
    v->assign(static_cast<size_t>(rows), 0);
  } catch (const std::bad_alloc&) {
    return errors::ResourceExhausted("out of memory for ", rows,
                                     " row counts (dense_shape[0])");
  }
  return Status();
}

class SparseFillEmptyRowsOp : public OpKernel {
 public:
  explicit SparseFillEmptyRowsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& values = ctx->input(1);
    const Tensor& dense_shape = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES(ctx, dense_shape.dims() == 1,
                errors::InvalidArgument("dense_shape must be a vector, saw: ",
                                        dense_shape.shape().DebugString()));
    OP_REQUIRES(ctx, indices.dims() == 2,
                errors::InvalidArgument("indices must be a matrix, saw: ",
                                        indices.shape().DebugString()));
    OP_REQUIRES(ctx, values.dims() == 1,
                errors::InvalidArgument("values must be a vector, saw: ",
                                        values.shape().DebugString()));
    OP_REQUIRES(ctx, indices.dim_size(0) == values.dim_size(0),
                errors::InvalidArgument(
                    "The length of `values` (", values.dim_size(0),
                    ") must match the first dimension of `indices` (",
                    indices.dim_size(0), ")."));
    OP_REQUIRES(ctx, default_value.dims() == 0,
                errors::InvalidArgument("default_value must be a scalar, saw: ",
                                        default_value.shape().DebugString()));
    OP_REQUIRES(ctx, dense_shape.NumElements() != 0,
                errors::InvalidArgument("Dense shape cannot be empty."));
    const int64_t n = indices.dim_size(0);
    const int64_t rank = indices.dim_size(1);
    const int64_t rows = dense_shape.data<int64_t>()[0];
    OP_REQUIRES(
        ctx, rows >= 0,
        errors::InvalidArgument("dense_shape[0] must be >= 0, got ", rows));
    OP_REQUIRES(ctx, n == 0 || rank > 0,
                errors::InvalidArgument("indices (input 0) has no columns but ",
                                        n, " rows"));
    const int64_t* in_idx = indices.data<int64_t>();

    // dense_shape[0] is data: checked (and allocated) like any size.
    StatusOr<TensorShape> rows_shape = TensorShape::Build({rows});
    OP_REQUIRES_OK(ctx, rows_shape.status());
    Tensor* empty_rows = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, *rows_shape, &empty_rows));
    Tensor* reverse = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({n}), &reverse));
    int64_t* reverse_map = reverse->data<int64_t>();
    const DataType dtype = values.dtype();
    if (rows == 0) {
      OP_REQUIRES(ctx, n == 0,
                  errors::InvalidArgument(
                      "Received SparseTensor with dense_shape[0] = 0 but "
                      "indices.shape[0] = ",
                      n));
      Tensor* unused = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(0, TensorShape({0, rank}), &unused));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &unused));
      return;
    }

    // Entries per row, then (in place) the end offset of each row in the
    // output, where an empty row takes one slot.
    std::vector<int64_t> offset;
    std::vector<int64_t> filled;
    OP_REQUIRES_OK(ctx, ZeroedCounts(rows, &offset));
    OP_REQUIRES_OK(ctx, ZeroedCounts(rows, &filled));
    bool ordered = true;
    int64_t last_row = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in_idx[i * rank];
      OP_REQUIRES(ctx, row >= 0 && row < rows,
                  errors::InvalidArgument(
                      "indices(", i, ", 0) is invalid: ", row, " >= ", rows));
      ++offset[row];
      ordered = ordered && row >= last_row;
      last_row = row;
    }
    bool* empty = empty_rows->data<bool>();
    bool all_full = true;
    for (int64_t row = 0; row < rows; ++row) {
      empty[row] = offset[row] == 0;
      all_full = all_full && !empty[row];
      if (offset[row] == 0) offset[row] = 1;
      if (row > 0) offset[row] += offset[row - 1];
    }

    if (all_full && ordered) {
      ctx->set_output(0, indices);
      ctx->set_output(1, values);
      for (int64_t i = 0; i < n; ++i) reverse_map[i] = i;
      return;
    }
    const int64_t total = offset[rows - 1];
    StatusOr<TensorShape> out_shape = TensorShape::Build({total, rank});
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out_indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out_indices));
    Tensor* out_values = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({total}), &out_values));
    int64_t* out_idx = out_indices->data<int64_t>();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const char* src = static_cast<const char*>(values.raw_data());
    char* dst = static_cast<char*>(out_values->raw_data());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = in_idx[i * rank];
      const int64_t at = (row == 0 ? 0 : offset[row - 1]) + filled[row]++;
      for (int64_t c = 0; c < rank; ++c) {
        out_idx[at * rank + c] = in_idx[i * rank + c];
      }
      copy_util::CopyElements(dtype, src + i * bytes, dst + at * bytes, 1);
      reverse_map[i] = at;
    }
    for (int64_t row = 0; row < rows; ++row) {
      if (filled[row] != 0) continue;
      const int64_t at = row == 0 ? 0 : offset[row - 1];
      // An indices matrix without columns has nowhere to put the row.
      if (rank > 0) out_idx[at * rank] = row;
      for (int64_t c = 1; c < rank; ++c) out_idx[at * rank + c] = 0;
      copy_util::CopyElements(dtype, default_value.raw_data(), dst + at * bytes,
                              1);
    }
  }
};

REGISTER_KERNEL_BUILDER(
    Name("SparseFillEmptyRows")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING})),
    SparseFillEmptyRowsOp);

}  // namespace
}  // namespace weft
