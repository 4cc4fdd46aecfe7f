// ReverseSequence on the CPU: for each batch entry b (along batch_dim), the
// first seq_lengths[b] elements along seq_dim are reversed and the rest
// copied. The input is viewed as [outer, A, mid, B, inner] with A and B the
// smaller and larger of the two dims, so every output run of `inner`
// elements comes from one input run: one copy per run, split over the
// arena. Every length is checked first (in [0, input.shape[seq_dim]], as
// TensorFlow requires). Element width only: every dtype moves as bytes.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& lengths_t = ctx->input(1);
    const int rank = input.dims();
    OP_REQUIRES(ctx, seq_dim_ != batch_dim_,
                errors::InvalidArgument("batch_dim == seq_dim == ", seq_dim_));
    OP_REQUIRES(ctx, seq_dim_ >= 0 && seq_dim_ < rank,
                errors::InvalidArgument(
                    "seq_dim must be < input rank: ", seq_dim_, " vs. ", rank));
    OP_REQUIRES(ctx, batch_dim_ >= 0 && batch_dim_ < rank,
                errors::InvalidArgument("batch_dim must be < input rank: ",
                                        batch_dim_, " vs. ", rank));
    OP_REQUIRES(ctx, lengths_t.dims() == 1,
                errors::InvalidArgument("seq_lengths must be 1-dim, not ",
                                        lengths_t.dims()));
    const int64_t batch = input.dim_size(batch_dim_);
    OP_REQUIRES(ctx, lengths_t.NumElements() == batch,
                errors::InvalidArgument(
                    "Length of seq_lengths != input.dims(", batch_dim_, "), (",
                    lengths_t.NumElements(), " vs. ", batch, ")"));
    std::vector<int64_t> lengths;
    OP_REQUIRES_OK(
        ctx, ReadIndexTensor(lengths_t, "seq_lengths (input 1)", &lengths));
    const int64_t seq = input.dim_size(seq_dim_);
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(ctx, lengths[b] >= 0,
                  errors::InvalidArgument("seq_lens(", b, ") < 0"));
      OP_REQUIRES(ctx, lengths[b] <= seq,
                  errors::InvalidArgument("seq_lens(", b, ") > input.dims(",
                                          seq_dim_, ")"));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    if (input.NumElements() == 0) return;
    const int lo = static_cast<int>(std::min(seq_dim_, batch_dim_));
    const int hi = static_cast<int>(std::max(seq_dim_, batch_dim_));
    int64_t outer = 1, mid = 1, inner = 1;
    for (int d = 0; d < lo; ++d) outer *= input.dim_size(d);
    for (int d = lo + 1; d < hi; ++d) mid *= input.dim_size(d);
    for (int d = hi + 1; d < rank; ++d) inner *= input.dim_size(d);
    const int64_t a = input.dim_size(lo);
    const int64_t bdim = input.dim_size(hi);
    const bool seq_is_lo = seq_dim_ < batch_dim_;
    const DataType dtype = input.dtype();
    const size_t bytes = copy_util::ElementBytes(dtype) * inner;
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    const int64_t runs = outer * a * mid * bdim;
    ctx->ParallelFor(runs, inner + 4, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        int64_t rest = r;
        const int64_t ib = rest % bdim;
        rest /= bdim;
        const int64_t im = rest % mid;
        rest /= mid;
        const int64_t ia = rest % a;
        const int64_t io = rest / a;
        const int64_t s = seq_is_lo ? ia : ib;
        const int64_t len = lengths[seq_is_lo ? ib : ia];
        const int64_t from_s = s < len ? len - 1 - s : s;
        const int64_t fa = seq_is_lo ? from_s : ia;
        const int64_t fb = seq_is_lo ? ib : from_s;
        const int64_t from = ((io * a + fa) * mid + im) * bdim + fb;
        copy_util::CopyElements(dtype, src + from * bytes, dst + r * bytes,
                                inner);
      }
    });
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

REGISTER_KERNEL_BUILDER(
    Name("ReverseSequence")
        .Device(DEVICE_CPU)
        .TypeConstraint("T", NumericAndBoolTypesPlus({DT_STRING}))
        .TypeConstraint("Tlen", {DT_INT32, DT_INT64}),
    ReverseSequenceOp);

}  // namespace
}  // namespace weft
