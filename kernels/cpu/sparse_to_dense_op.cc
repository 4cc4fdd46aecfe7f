// SparseToDense on the CPU: a tensor of output_shape filled with
// default_value, then dense[sparse_indices[i]] = sparse_values[i] (or the
// one scalar value). sparse_indices is a scalar or vector (one coordinate
// per index, for a vector output) or a matrix [n, rank]. Every index is
// checked against the output before anything is written (out-of-bounds
// indices are an error whatever validate_indices says); validate_indices
// also requires them sorted in row-major order without repeats, as
// TensorFlow does. Element width only: every dtype moves as bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/nd_index.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class SparseToDenseOp : public OpKernel {
 public:
  explicit SparseToDenseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_indices", &validate_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& shape_t = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& default_value = ctx->input(3);
    OP_REQUIRES(ctx, indices.dims() <= 2,
                errors::InvalidArgument(
                    "sparse_indices should be a scalar, vector, or matrix, "
                    "got shape ",
                    indices.shape().DebugString()));
    const int64_t n = indices.dims() > 0 ? indices.dim_size(0) : 1;
    const int64_t k = indices.dims() > 1 ? indices.dim_size(1) : 1;
    OP_REQUIRES(
        ctx, shape_t.dims() == 1,
        errors::InvalidArgument("output_shape must be rank 1, got shape ",
                                shape_t.shape().DebugString()));
    OP_REQUIRES(ctx, shape_t.NumElements() == k,
                errors::InvalidArgument(
                    "output_shape has incorrect number of elements: ",
                    shape_t.NumElements(), " should be: ", k));
    OP_REQUIRES(
        ctx,
        values.dims() == 0 || (values.dims() == 1 && values.NumElements() == n),
        errors::InvalidArgument("sparse_values has incorrect shape ",
                                values.shape().DebugString(),
                                ", should be [] or [", n, "]"));
    OP_REQUIRES(ctx, default_value.dims() == 0,
                errors::InvalidArgument("default_value should be a scalar, "
                                        "got shape ",
                                        default_value.shape().DebugString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(shape_t, "output_shape (input 1)", &dims));
    StatusOr<TensorShape> out_shape = TensorShape::Build(dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    // As [n, k] rows of coordinates.
    StatusOr<Tensor> rows_t = indices.Reshaped(TensorShape({n, k}));
    OP_REQUIRES_OK(ctx, rows_t.status());
    std::vector<int64_t> rows;
    OP_REQUIRES_OK(
        ctx, FlattenNdIndices(*rows_t, *out_shape, "sparse_indices (input 0)",
                              "output_shape", false, &rows));
    if (validate_) {
      for (int64_t i = 1; i < n; ++i) {
        OP_REQUIRES(ctx, rows[i] > rows[i - 1],
                    errors::InvalidArgument(
                        "indices[", i, "] = ", RowCoords(*rows_t, i),
                        rows[i] == rows[i - 1]
                            ? " is repeated"
                            : " is out of order. Many sparse ops require "
                              "sorted indices."));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const DataType dtype = out->dtype();
    copy_util::ParallelFillElements(*ctx, dtype, default_value.raw_data(),
                                    out->raw_data(), out->NumElements());
    const size_t bytes = copy_util::ElementBytes(dtype);
    const char* src = static_cast<const char*>(values.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    const bool scalar = values.dims() == 0;
    for (int64_t i = 0; i < n; ++i) {
      copy_util::CopyElements(dtype, src + (scalar ? 0 : i * bytes),
                              dst + rows[i] * bytes, 1);
    }
  }

 private:
  // "[1, 2]": the coordinates of row i of the [n, k] indices.
  static std::string RowCoords(const Tensor& rows, int64_t i) {
    const int64_t k = rows.dim_size(1);
    std::vector<int64_t> v(k);
    for (int64_t j = 0; j < k; ++j) {
      v[j] = rows.dtype() == DT_INT32 ? rows.data<int32_t>()[i * k + j]
                                      : rows.data<int64_t>()[i * k + j];
    }
    return IndexListString(v);
  }

  bool validate_ = true;
};

REGISTER_KERNEL_BUILDER(
    Name("SparseToDense")
        .Device(DEVICE_CPU)
        .TypeConstraint("T",
                        NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8,
                                                 DT_QINT16, DT_QUINT16}))
        .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
    SparseToDenseOp);

}  // namespace
}  // namespace weft
