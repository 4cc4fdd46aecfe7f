// GatherNd on the CPU: indices [..., k] pick slices params[i_0, ..., i_k-1, :]
// into output[...] (output shape indices.shape[:-1] + params.shape[k:]).
// Every index tuple is checked and turned into a slice number first
// (kernels/common/nd_index.h): one outside params is an error naming its
// position and value, as TensorFlow's, or, with bad_indices_policy IGNORE,
// a slice of zeros. The copy is one run per slice, split over the arena;
// dtype-agnostic (element width only), strings and the quantized types
// TensorFlow registers included.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/nd_index.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string policy;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_indices_policy", &policy));
    OP_REQUIRES_OK(ctx, IgnoreBadIndices(policy, &ignore_bad_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dims() >= 1,
                errors::InvalidArgument(
                    "indices (input 1) must be at least a vector, got shape ",
                    indices.shape().DebugString()));
    const int64_t k = IndexDepth(indices);
    OP_REQUIRES(ctx, k <= params.dims(),
                errors::InvalidArgument(
                    "indices (input 1) ", indices.shape().DebugString(),
                    " hold ", k, " coordinates per index, more than the rank ",
                    "of params (input 0) ", params.shape().DebugString()));
    std::vector<int64_t> out_dims(indices.shape().dim_sizes().begin(),
                                  indices.shape().dim_sizes().end() - 1);
    int64_t slice = 1;
    for (int d = static_cast<int>(k); d < params.dims(); ++d) {
      out_dims.push_back(params.dim_size(d));
      slice *= params.dim_size(d);
    }
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    int64_t num_rows = 1;
    for (int d = 0; d + 1 < indices.dims(); ++d)
      num_rows *= indices.dim_size(d);
    OP_REQUIRES(ctx, num_rows == 0 || params.NumElements() > 0,
                errors::InvalidArgument(
                    "Requested more than 0 entries, but params is empty.  "
                    "Params shape: ",
                    params.shape().DebugString()));
    std::vector<int64_t> rows;
    OP_REQUIRES_OK(
        ctx, FlattenNdIndices(indices, params.shape(), "indices (input 1)",
                              "params (input 0) of shape", ignore_bad_, &rows));
    const int64_t n = static_cast<int64_t>(rows.size());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const DataType dtype = params.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    const int64_t cost = slice * (dtype == DT_STRING ? 40 : 1) + 8;
    ctx->ParallelFor(n, cost, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        char* to = dst + r * slice * bytes;
        if (rows[r] < 0) {
          // IGNORE: a slice of zeros (for strings, empty ones, which the
          // allocation already holds).
          if (dtype != DT_STRING) std::memset(to, 0, slice * bytes);
          continue;
        }
        copy_util::CopyElements(dtype, src + rows[r] * slice * bytes, to,
                                slice);
      }
    });
  }

 private:
  bool ignore_bad_ = false;
};

REGISTER_KERNEL_BUILDER(
    Name("GatherNd")
        .Device(DEVICE_CPU)
        .TypeConstraint("Tparams",
                        NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8,
                                                 DT_QINT32}))
        .TypeConstraint("Tindices", {DT_INT16, DT_INT32, DT_INT64}),
    GatherNdOp);

}  // namespace
}  // namespace weft
