#include "kernels/common/shape_size_rank.h"

#include <cstdint>
#include <limits>

#include "absl/strings/string_view.h"
#include "core/tensor.h"

namespace weft {
namespace {

// Writes `values` to output 0 (a vector of `n` or a scalar when `scalar`)
// in the output's dtype; an int32 output refuses values that do not fit.
void WriteIndexOutput(OpKernelContext* ctx, const int64_t* values, int64_t n,
                      bool scalar, absl::string_view what) {
  const bool is32 = ctx->expected_output_dtype(0) == DT_INT32;
  for (int64_t i = 0; i < n && is32; ++i) {
    OP_REQUIRES(ctx, values[i] <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(
                    what, " ", values[i],
                    " does not fit the int32 output; use out_type int64"));
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(
                          0, scalar ? TensorShape() : TensorShape({n}), &out));
  for (int64_t i = 0; i < n; ++i) {
    if (is32) {
      out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    } else {
      out->data<int64_t>()[i] = values[i];
    }
  }
}

}  // namespace

void WriteShapeOutput(OpKernelContext* ctx) {
  const TensorShape& shape = ctx->input(0).shape();
  WriteIndexOutput(ctx, shape.dim_sizes().data(), shape.dims(),
                   /*scalar=*/false, "a dimension of input 0 is");
}

void WriteSizeOutput(OpKernelContext* ctx) {
  const int64_t size = ctx->input(0).NumElements();
  WriteIndexOutput(ctx, &size, 1, /*scalar=*/true,
                   "the element count of input 0 is");
}

void WriteRankOutput(OpKernelContext* ctx) {
  const int64_t rank = ctx->input(0).dims();
  WriteIndexOutput(ctx, &rank, 1, /*scalar=*/true, "the rank is");
}

}  // namespace weft
