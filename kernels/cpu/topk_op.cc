// TopKV2 on the CPU: the k largest entries of each innermost row, largest
// first, with their column indices. Equal values keep their order in the
// row (the lower index first), as TensorFlow's CPU kernel orders ties, so
// the result is the same whatever `sorted` says (TensorFlow leaves the order
// unspecified for sorted = false) and however rows are split over threads.
// Deliberate difference: NaN has no place in TensorFlow's order (its result
// with NaNs depends on its sorting algorithm); weft ranks NaN above +inf, so
// the comparison stays a strict order and NaNs come first.
// Errors, as TensorFlow's: k < 0, k greater than the row length, an input of
// rank 0, and rows too long for index_type.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The value compared: float for half and bfloat16.
template <typename T>
using KeyT =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

template <typename T, typename Index>
void TopKRow(const T* row, int64_t n, int64_t k, std::vector<int64_t>& order,
             T* values, Index* indices) {
  using K = KeyT<T>;
  order.resize(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  auto before = [row](int64_t a, int64_t b) {
    const K va = static_cast<K>(row[a]);
    const K vb = static_cast<K>(row[b]);
    if constexpr (std::is_floating_point_v<K>) {
      const bool na = std::isnan(va);
      const bool nb = std::isnan(vb);
      if (na || nb) return na && (!nb || a < b);
    }
    return va > vb || (va == vb && a < b);
  };
  if (k < n) {
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
  } else {
    std::sort(order.begin(), order.end(), before);
  }
  for (int64_t i = 0; i < k; ++i) {
    values[i] = row[order[i]];
    indices[i] = static_cast<Index>(order[i]);
  }
}

template <typename T>
class TopKV2Op : public OpKernel {
 public:
  explicit TopKV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    int64_t k = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(1), "k (input 1)",
                                        /*allow_vector_of_one=*/false, &k));
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("Need k >= 0, got ", k));
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ",
                                        input.shape().DebugString()));
    const int64_t n = input.dim_size(input.dims() - 1);
    OP_REQUIRES(
        ctx, n >= k,
        errors::InvalidArgument("input must have at least k columns. Had ", n,
                                ", needed ", k));
    std::vector<int64_t> dims(input.shape().dim_sizes().begin(),
                              input.shape().dim_sizes().end());
    dims.back() = k;
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* values = nullptr;
    Tensor* indices = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *shape, &indices));
    if (shape->num_elements() == 0) return;
    switch (indices->dtype()) {
      case DT_INT16:
        Run<int16_t>(ctx, input, n, k, values, indices);
        break;
      case DT_INT32:
        Run<int32_t>(ctx, input, n, k, values, indices);
        break;
      case DT_INT64:
        Run<int64_t>(ctx, input, n, k, values, indices);
        break;
      default:
        OP_REQUIRES(ctx, false,
                    errors::InvalidArgument(
                        "index_type must be int16, int32 or int64 but is ",
                        DataTypeName(indices->dtype())));
    }
  }

 private:
  template <typename Index>
  static void Run(OpKernelContext* ctx, const Tensor& input, int64_t n,
                  int64_t k, Tensor* values, Tensor* indices) {
    OP_REQUIRES(ctx, n - 1 <= std::numeric_limits<Index>::max(),
                errors::InvalidArgument(
                    "rows of ", n, " elements need indices wider than ",
                    DataTypeName(indices->dtype()), " (index_type)"));
    const int64_t rows = input.NumElements() / n;
    const T* in = input.data<T>();
    T* v = values->data<T>();
    Index* ix = indices->data<Index>();
    // n log k comparisons per row, a few cycles each.
    const int64_t cost =
        n *
        (8 + 2 * static_cast<int64_t>(std::log2(static_cast<double>(k) + 1)));
    ctx->ParallelFor(rows, cost, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> order;
      for (int64_t r = begin; r < end; ++r) {
        TopKRow<T, Index>(in + r * n, n, k, order, v + r * k, ix + r * k);
      }
    });
  }
};

#define WEFT_REGISTER_TOPK(T)                                            \
  REGISTER_KERNEL_BUILDER(                                               \
      Name("TopKV2")                                                     \
          .Device(DEVICE_CPU)                                            \
          .TypeConstraint<T>("T")                                        \
          .TypeConstraint("Tk", {DT_INT16, DT_INT32, DT_INT64})          \
          .TypeConstraint("index_type", {DT_INT16, DT_INT32, DT_INT64}), \
      TopKV2Op<T>)

WEFT_REGISTER_TOPK(half);
WEFT_REGISTER_TOPK(bfloat16);
WEFT_REGISTER_TOPK(float);
WEFT_REGISTER_TOPK(double);
WEFT_REGISTER_TOPK(int8_t);
WEFT_REGISTER_TOPK(int16_t);
WEFT_REGISTER_TOPK(int32_t);
WEFT_REGISTER_TOPK(int64_t);
WEFT_REGISTER_TOPK(uint8_t);
WEFT_REGISTER_TOPK(uint16_t);
WEFT_REGISTER_TOPK(uint32_t);
WEFT_REGISTER_TOPK(uint64_t);

#undef WEFT_REGISTER_TOPK

}  // namespace
}  // namespace weft
