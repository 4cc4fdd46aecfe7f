// Cumsum and Cumprod on the CPU: running sums and products along `axis`
// (negative counts from the end), inclusive or `exclusive` (each output
// leaves out its own element: the first is 0 or 1), from the front or in
// `reverse`. Each line along the axis is accumulated in order in T itself,
// one rounded operation per element as TensorFlow's Eigen scan does (half
// and bfloat16 round every partial result to T), so results agree exactly;
// signed integers wrap. Lines are split over the arena in blocks of the
// dimensions after the axis, whose elements sit side by side in memory.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T, bool kProd>
struct ScanStep {
  static T Init() { return kProd ? T(1) : T(0); }
  static T Apply(const T& acc, const T& x) {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(kProd ? static_cast<U>(U(acc) * U(x))
                                  : static_cast<U>(U(acc) + U(x)));
    } else {
      return kProd ? T(acc * x) : T(acc + x);
    }
  }
};

template <typename T, bool kProd>
class ScanOp : public OpKernel {
 public:
  explicit ScanOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("exclusive", &exclusive_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reverse", &reverse_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& axis_t = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.dims() == 0,
                errors::InvalidArgument("axis (input 1) must be a scalar but "
                                        "has shape ",
                                        axis_t.shape().DebugString()));
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(axis_t, "axis (input 1)",
                                        /*allow_vector_of_one=*/false, &axis));
    const int rank = x.dims();
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        errors::InvalidArgument("ScanOp: Expected scan axis in the range [",
                                -rank, ", ", rank, "), but got ", axis));
    if (axis < 0) axis += rank;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &out));
    if (x.NumElements() == 0) return;
    int64_t outer = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    const int64_t len = x.dim_size(static_cast<int>(axis));
    const int64_t inner = x.NumElements() / outer / len;
    // Work items: an outer index and a block of up to kBlock inner columns.
    constexpr int64_t kBlock = 256;
    const int64_t blocks = (inner + kBlock - 1) / kBlock;
    const T* in = x.data<T>();
    T* o = out->data<T>();
    const bool exclusive = exclusive_;
    const bool reverse = reverse_;
    ctx->ParallelFor(outer * blocks, len * std::min(inner, kBlock) * 2,
                     [&](int64_t begin, int64_t end) {
                       std::vector<T> acc(std::min(inner, kBlock));
                       for (int64_t w = begin; w < end; ++w) {
                         const int64_t p = w / blocks;
                         const int64_t j0 = (w % blocks) * kBlock;
                         const int64_t width = std::min(kBlock, inner - j0);
                         std::fill(acc.begin(), acc.begin() + width,
                                   ScanStep<T, kProd>::Init());
                         for (int64_t s = 0; s < len; ++s) {
                           const int64_t t = reverse ? len - 1 - s : s;
                           const int64_t base = (p * len + t) * inner + j0;
                           for (int64_t j = 0; j < width; ++j) {
                             const T v = in[base + j];
                             if (exclusive) {
                               o[base + j] = acc[j];
                               acc[j] = ScanStep<T, kProd>::Apply(acc[j], v);
                             } else {
                               acc[j] = ScanStep<T, kProd>::Apply(acc[j], v);
                               o[base + j] = acc[j];
                             }
                           }
                         }
                       }
                     });
  }

 private:
  bool exclusive_ = false;
  bool reverse_ = false;
};

#define WEFT_REGISTER_SCAN(T)                                                \
  REGISTER_KERNEL_BUILDER(Name("Cumsum")                                     \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("T")                        \
                              .TypeConstraint("Tidx", {DT_INT32, DT_INT64}), \
                          ScanOp<T, false>);                                 \
  REGISTER_KERNEL_BUILDER(Name("Cumprod")                                    \
                              .Device(DEVICE_CPU)                            \
                              .TypeConstraint<T>("T")                        \
                              .TypeConstraint("Tidx", {DT_INT32, DT_INT64}), \
                          ScanOp<T, true>)

WEFT_REGISTER_SCAN(half);
WEFT_REGISTER_SCAN(bfloat16);
WEFT_REGISTER_SCAN(float);
WEFT_REGISTER_SCAN(double);
WEFT_REGISTER_SCAN(int8_t);
WEFT_REGISTER_SCAN(int16_t);
WEFT_REGISTER_SCAN(int32_t);
WEFT_REGISTER_SCAN(int64_t);
WEFT_REGISTER_SCAN(uint8_t);
WEFT_REGISTER_SCAN(uint16_t);
WEFT_REGISTER_SCAN(uint32_t);
WEFT_REGISTER_SCAN(uint64_t);
WEFT_REGISTER_SCAN(complex64);
WEFT_REGISTER_SCAN(complex128);

#undef WEFT_REGISTER_SCAN

}  // namespace
}  // namespace weft
