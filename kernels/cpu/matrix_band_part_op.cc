// MatrixBandPart on the CPU: for each innermost matrix [m, n] of the input,
// keeps element (i, j) where (num_lower < 0 or i - j <= num_lower) and
// (num_upper < 0 or j - i <= num_upper) and writes zeros elsewhere (all-zero
// bytes are 0, 0.0 and false in every dtype it is registered for). Each row
// is one copy of its band and two fills; rows are split over the arena.
// Errors, as TensorFlow's: rank below 2, bounds that are not scalars, and
// num_lower > m or num_upper > n.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class MatrixBandPartOp : public OpKernel {
 public:
  explicit MatrixBandPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() >= 2,
                errors::InvalidArgument(
                    "input 0 must be at least a matrix but has shape ",
                    input.shape().DebugString()));
    int64_t lower = 0;
    int64_t upper = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "num_lower (input 1)",
                                        /*allow_vector_of_one=*/false, &lower));
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(2), "num_upper (input 2)",
                                        /*allow_vector_of_one=*/false, &upper));
    const int64_t m = input.dim_size(input.dims() - 2);
    const int64_t n = input.dim_size(input.dims() - 1);
    OP_REQUIRES(ctx, lower <= m,
                errors::InvalidArgument(
                    "num_lower must be negative or less or equal to number of "
                    "rows (",
                    m, ") got: ", lower));
    OP_REQUIRES(ctx, upper <= n,
                errors::InvalidArgument(
                    "num_upper must be negative or less or equal to number of "
                    "columns (",
                    n, ") got: ", upper));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t rows = input.NumElements() / std::max<int64_t>(n, 1);
    if (input.NumElements() == 0) return;
    const DataType dtype = input.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype);
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    ctx->ParallelFor(rows, n + 4, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r % m;
        // Columns [lo, hi) of row i are in the band.
        const int64_t lo = lower < 0 ? 0 : std::clamp<int64_t>(i - lower, 0, n);
        const int64_t hi =
            upper < 0 ? n : std::clamp<int64_t>(i + upper + 1, 0, n);
        char* row = dst + r * n * bytes;
        if (hi <= lo) {
          std::memset(row, 0, n * bytes);
          continue;
        }
        std::memset(row, 0, lo * bytes);
        copy_util::CopyElements(dtype, src + (r * n + lo) * bytes,
                                row + lo * bytes, hi - lo);
        std::memset(row + hi * bytes, 0, (n - hi) * bytes);
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("MatrixBandPart")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", NumericAndBoolTypes())
                            .TypeConstraint("Tindex", {DT_INT32, DT_INT64}),
                        MatrixBandPartOp);

}  // namespace
}  // namespace weft
