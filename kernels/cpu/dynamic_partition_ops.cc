// DynamicPartition, DynamicStitch and ParallelDynamicStitch on the CPU.
//
// DynamicPartition: data's shape starts with partitions' shape; each row
// data[p] (p a position in partitions) goes, in order, to output
// partitions[p]. DynamicStitch: merged[indices[i][p]] = data[i][p] for every
// i and p, later writes winning, merged having max(index) + 1 rows (rows no
// index names are zero); ParallelDynamicStitch is the same on the CPU.
// Every partition number and index is checked before anything moves; a bad
// one is an error naming its position and value, as TensorFlow's. Rows are
// moved by element width (strings included).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/nd_index.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Whether `shape` starts with the dimensions of `prefix`.
bool StartsWith(const TensorShape& shape, const TensorShape& prefix) {
  if (shape.dims() < prefix.dims()) return false;
  for (int d = 0; d < prefix.dims(); ++d) {
    if (shape.dim_size(d) != prefix.dim_size(d)) return false;
  }
  return true;
}

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_partitions", &num_partitions_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    OP_REQUIRES(
        ctx, StartsWith(data.shape(), partitions.shape()),
        errors::InvalidArgument(
            "data.shape must start with partitions.shape, got data.shape = ",
            data.shape().DebugString(),
            ", partitions.shape = ", partitions.shape().DebugString()));
    const int64_t n = partitions.NumElements();
    const int32_t* p = partitions.data<int32_t>();
    std::vector<int64_t> counts(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(
          ctx, p[i] >= 0 && p[i] < num_partitions_,
          errors::InvalidArgument(
              "partitions", RowPosition(partitions.shape().dim_sizes(), i),
              " = ", p[i], " is not in [0, ", num_partitions_, ")"));
      ++counts[p[i]];
    }
    std::vector<int64_t> row_dims(1);
    int64_t row = 1;
    for (int d = partitions.dims(); d < data.dims(); ++d) {
      row_dims.push_back(data.dim_size(d));
      row *= data.dim_size(d);
    }
    std::vector<char*> outs(num_partitions_);
    for (int j = 0; j < num_partitions_; ++j) {
      row_dims[0] = counts[j];
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              j, TensorShape::Build(row_dims).value(), &out));
      outs[j] = static_cast<char*>(out->raw_data());
    }
    if (row == 0) return;
    const DataType dtype = data.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype) * row;
    const char* src = static_cast<const char*>(data.raw_data());
    std::vector<int64_t> filled(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      const int j = p[i];
      copy_util::CopyElements(dtype, src + i * bytes,
                              outs[j] + filled[j]++ * bytes, row);
    }
  }

 private:
  int64_t num_partitions_ = 1;
};

class DynamicStitchOp : public OpKernel {
 public:
  explicit DynamicStitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs() / 2;
    // The dimensions of a data row: data[0].shape past indices[0]'s.
    const TensorShape& i0 = ctx->input(0).shape();
    const TensorShape& d0 = ctx->input(n).shape();
    OP_REQUIRES(
        ctx, StartsWith(d0, i0),
        errors::InvalidArgument(
            "data[0].shape = ", d0.DebugString(),
            " does not start with indices[0].shape = ", i0.DebugString()));
    std::vector<int64_t> out_dims(1, 0);
    int64_t row = 1;
    for (int d = i0.dims(); d < d0.dims(); ++d) {
      out_dims.push_back(d0.dim_size(d));
      row *= d0.dim_size(d);
    }
    int64_t max_index = -1;
    for (int i = 0; i < n; ++i) {
      const Tensor& indices = ctx->input(i);
      const TensorShape& ds = ctx->input(n + i).shape();
      bool ok = StartsWith(ds, indices.shape()) &&
                ds.dims() - indices.dims() == d0.dims() - i0.dims();
      for (int d = indices.dims(); ok && d < ds.dims(); ++d) {
        ok = ds.dim_size(d) == d0.dim_size(d - indices.dims() + i0.dims());
      }
      OP_REQUIRES(ctx, ok,
                  errors::InvalidArgument(
                      "data[", i, "].shape = ", ds.DebugString(),
                      " does not equal indices[", i, "].shape + data[0].shape[",
                      i0.dims(), ":] (indices[", i,
                      "].shape = ", indices.shape().DebugString(),
                      ", data[0].shape = ", d0.DebugString(), ")"));
      const int32_t* idx = indices.data<int32_t>();
      for (int64_t j = 0; j < indices.NumElements(); ++j) {
        OP_REQUIRES(
            ctx, idx[j] >= 0,
            errors::InvalidArgument(
                "indices[", i, "]", RowPosition(indices.shape().dim_sizes(), j),
                " = ", idx[j], " is out of range (negative)"));
        max_index = std::max<int64_t>(max_index, idx[j]);
      }
    }
    out_dims[0] = max_index + 1;
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const DataType dtype = out->dtype();
    const size_t bytes = copy_util::ElementBytes(dtype) * row;
    if (dtype != DT_STRING && out_shape->num_elements() > 0) {
      std::memset(out->raw_data(), 0,
                  out_shape->num_elements() * copy_util::ElementBytes(dtype));
    }
    if (row == 0) return;
    char* dst = static_cast<char*>(out->raw_data());
    for (int i = 0; i < n; ++i) {
      const Tensor& indices = ctx->input(i);
      const int32_t* idx = indices.data<int32_t>();
      const char* src = static_cast<const char*>(ctx->input(n + i).raw_data());
      for (int64_t j = 0; j < indices.NumElements(); ++j) {
        copy_util::CopyElements(dtype, src + j * bytes, dst + idx[j] * bytes,
                                row);
      }
    }
  }
};

// TensorFlow's CPU kernels: every type weft holds but the resource and
// variant handles (DynamicStitch also takes the quantized types).
std::vector<DataType> PartitionTypes() {
  return NumericAndBoolTypesPlus({DT_STRING});
}
std::vector<DataType> StitchTypes() {
  return NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(Name("DynamicPartition")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", PartitionTypes()),
                        DynamicPartitionOp);
REGISTER_KERNEL_BUILDER(
    Name("DynamicStitch").Device(DEVICE_CPU).TypeConstraint("T", StitchTypes()),
    DynamicStitchOp);
REGISTER_KERNEL_BUILDER(Name("ParallelDynamicStitch")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", StitchTypes()),
                        DynamicStitchOp);

}  // namespace
}  // namespace weft
