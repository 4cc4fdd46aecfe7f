// ArgMax and ArgMin on the CPU: the index of the largest (smallest) value
// along the axis given by input 1 (a scalar, negative counting from the
// end), which the output drops.
//
// TensorFlow's CPU kernel is Eigen's tuple reduction, a scan that starts
// from (index 0, lowest value) (for ArgMin: highest) and takes an element
// only when it compares strictly greater (less). Weft scans the same way,
// which fixes every corner case to TensorFlow's answer:
//  - ties go to the first index;
//  - NaN never compares, so it is skipped: [1, NaN, 3] gives 2, and a group
//    with nothing but NaN (or only the lowest value, such as -inf for
//    ArgMax) gives 0.
// A long axis with few outputs is cut into blocks scanned in parallel; the
// blocks' winners are then taken in order with the same strict comparison,
// which gives exactly the sequential answer (the first block holding the
// overall extreme wins, at its first index), so results do not depend on
// the thread count.
//
// Dtypes as TensorFlow registers them on the CPU among weft's: T in half,
// bfloat16, float, double, int32, int64 and bool (half and bfloat16 compare
// as float, which is exact); output_type int32 or int64 for both ops, and
// also int16 and uint16 for ArgMax. The axis input may be int16, int32 or
// int64 (TensorFlow reads it as int32 whatever its type; weft reads it
// correctly). TensorFlow's kernel stops at rank 7; weft has no rank limit.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

constexpr int64_t kCostPerElement = 2;
// As in the reductions (reduction_util.cc): blocks of the axis only when
// there are too few outputs to split, the input is large, and each block
// holds at least kMinBlockElements elements.
constexpr int64_t kFewOutputs = 16;
constexpr int64_t kMinBlockedElements = int64_t{1} << 15;
constexpr int64_t kMaxBlocks = 64;
constexpr int64_t kMinBlockElements = 8192;
constexpr int64_t kMinWidth = 256;
constexpr int64_t kWantUnits = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The type values are compared in: float for the narrow floats, uint8_t
// (0 and 1) for bool, else T.
template <typename T>
using CompareOf =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float,
                       std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;

// The value the scan starts from (Eigen's NumTraits lowest / highest, not
// an infinity: an all -inf group gives index 0 for ArgMax).
template <typename T, bool kMax>
CompareOf<T> Start() {
  if constexpr (std::is_same_v<T, bool>) {
    return kMax ? 0 : 1;
  } else if constexpr (kMax) {
    return static_cast<CompareOf<T>>(std::numeric_limits<T>::lowest());
  } else {
    return static_cast<CompareOf<T>>(std::numeric_limits<T>::max());
  }
}

template <bool kMax, typename C>
inline bool Better(C v, C best) {
  if constexpr (kMax) {
    return v > best;
  } else {
    return v < best;
  }
}

// Scans in[r * stride + j] for r in [r0, r0 + len), j < width, updating
// best[j] / index[j] (which hold the scan state so far).
template <typename T, bool kMax>
void Scan(const T* in, int64_t stride, int64_t r0, int64_t len, int64_t width,
          CompareOf<T>* best, int64_t* index) {
  using C = CompareOf<T>;
  if (width == 1) {
    C b = best[0];
    int64_t idx = index[0];
    for (int64_t r = 0; r < len; ++r) {
      const C v = static_cast<C>(in[r * stride]);
      if (Better<kMax>(v, b)) {
        b = v;
        idx = r0 + r;
      }
    }
    best[0] = b;
    index[0] = idx;
    return;
  }
  for (int64_t r = 0; r < len; ++r) {
    const T* row = in + r * stride;
    for (int64_t j = 0; j < width; ++j) {
      const C v = static_cast<C>(row[j]);
      const bool take = Better<kMax>(v, best[j]);
      best[j] = take ? v : best[j];
      index[j] = take ? r0 + r : index[j];
    }
  }
}

// index[o * inner + j] = arg of in[o, :, j] over the [outer, len, inner]
// view, len >= 1.
template <typename T, bool kMax>
Status ArgReduce(OpKernelContext* ctx, const T* in, int64_t outer, int64_t len,
                 int64_t inner, int64_t* index) {
  using C = CompareOf<T>;
  const int64_t outputs = outer * inner;
  int64_t block = len;
  if (outputs < kFewOutputs && outputs * len >= kMinBlockedElements) {
    block =
        std::max(CeilDiv(kMinBlockElements, inner), CeilDiv(len, kMaxBlocks));
  }
  const int64_t num_blocks = CeilDiv(len, block);
  if (num_blocks == 1) {
    int64_t pieces = 1;
    if (inner > 1 && outer < kWantUnits) {
      pieces = std::min(CeilDiv(inner, kMinWidth), CeilDiv(kWantUnits, outer));
    }
    const int64_t width = CeilDiv(inner, pieces);
    pieces = CeilDiv(inner, width);
    ctx->ParallelFor(outer * pieces, len * width * kCostPerElement,
                     [&](int64_t begin, int64_t end) {
                       std::vector<C> best(width);
                       for (int64_t u = begin; u < end; ++u) {
                         const int64_t o = u / pieces;
                         const int64_t j0 = (u % pieces) * width;
                         const int64_t w = std::min(width, inner - j0);
                         std::fill_n(best.begin(), w, Start<T, kMax>());
                         int64_t* idx = index + o * inner + j0;
                         std::fill_n(idx, w, 0);
                         Scan<T, kMax>(in + o * len * inner + j0, inner, 0, len,
                                       w, best.data(), idx);
                       }
                     });
    return Status();
  }
  // Per block: its own scan from the start value; then the blocks' winners
  // are taken in order. Both are [outer, num_blocks, inner].
  const int64_t parts = outer * num_blocks * inner;
  std::vector<C> best(parts, Start<T, kMax>());
  std::vector<int64_t> where(parts, 0);
  ctx->ParallelFor(outer * num_blocks, block * inner * kCostPerElement,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t u = begin; u < end; ++u) {
                       const int64_t o = u / num_blocks;
                       const int64_t r0 = (u % num_blocks) * block;
                       const int64_t n = std::min(block, len - r0);
                       Scan<T, kMax>(in + (o * len + r0) * inner, inner, r0, n,
                                     inner, best.data() + u * inner,
                                     where.data() + u * inner);
                     }
                   });
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      C b = Start<T, kMax>();
      int64_t idx = 0;
      for (int64_t k = 0; k < num_blocks; ++k) {
        const int64_t p = (o * num_blocks + k) * inner + j;
        if (Better<kMax>(best[p], b)) {
          b = best[p];
          idx = where[p];
        }
      }
      index[o * inner + j] = idx;
    }
  }
  return Status();
}

template <typename Out>
void Narrow(const int64_t* from, void* to, int64_t n) {
  Out* out = static_cast<Out*>(to);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(from[i]);
}

template <typename T, bool kMax>
class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& dimension = ctx->input(1);
    OP_REQUIRES(ctx, dimension.dims() == 0,
                errors::InvalidArgument("dimension (input 1) must be a scalar "
                                        "but has shape ",
                                        dimension.shape().DebugString()));
    std::vector<int64_t> dim_value;
    OP_REQUIRES_OK(
        ctx, ReadIndexTensor(dimension, "dimension (input 1)", &dim_value));
    const int64_t dim = dim_value[0];
    const int rank = input.dims();
    OP_REQUIRES(ctx, dim >= -rank && dim < rank,
                errors::InvalidArgument("dimension (input 1) is ", dim,
                                        " but must be in [", -rank, ", ", rank,
                                        ") for input 0 of shape ",
                                        input.shape().DebugString()));
    const int axis = static_cast<int>(dim < 0 ? dim + rank : dim);
    const int64_t len = input.dim_size(axis);
    OP_REQUIRES(ctx, len > 0,
                errors::InvalidArgument(
                    "dimension ", dim, " of input 0 (shape ",
                    input.shape().DebugString(), ") is empty, so it has no ",
                    kMax ? "largest" : "smallest", " element"));
    int64_t outer = 1;
    int64_t inner = 1;
    std::vector<int64_t> out_dims;
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      out_dims.push_back(input.dim_size(d));
      (d < axis ? outer : inner) *= input.dim_size(d);
    }
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    const T* in = input.data<T>();
    const DataType out_type = out->dtype();
    if (out_type == DT_INT64) {
      OP_REQUIRES_OK(ctx, (ArgReduce<T, kMax>(ctx, in, outer, len, inner,
                                              out->data<int64_t>())));
      return;
    }
    Tensor wide;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_INT64, *out_shape, &wide));
    OP_REQUIRES_OK(ctx, (ArgReduce<T, kMax>(ctx, in, outer, len, inner,
                                            wide.data<int64_t>())));
    const int64_t* idx = wide.data<int64_t>();
    switch (out_type) {
      case DT_INT32:
        Narrow<int32_t>(idx, out->raw_data(), n);
        break;
      case DT_INT16:
        Narrow<int16_t>(idx, out->raw_data(), n);
        break;
      case DT_UINT16:
        Narrow<uint16_t>(idx, out->raw_data(), n);
        break;
      default:
        ctx->SetStatus(errors::InvalidArgument(
            "output_type ", DataTypeName(out_type),
            " is not supported; expected int16, uint16, int32 or int64"));
    }
  }
};

#define WEFT_REGISTER_ARG_OUT(op, T, kMax, Out)                    \
  REGISTER_KERNEL_BUILDER(Name(op)                                 \
                              .Device(DEVICE_CPU)                  \
                              .TypeConstraint<T>("T")              \
                              .TypeConstraint<Out>("output_type"), \
                          ArgOp<T, kMax>)

#define WEFT_REGISTER_ARG(T)                          \
  WEFT_REGISTER_ARG_OUT("ArgMax", T, true, int64_t);  \
  WEFT_REGISTER_ARG_OUT("ArgMax", T, true, int32_t);  \
  WEFT_REGISTER_ARG_OUT("ArgMax", T, true, int16_t);  \
  WEFT_REGISTER_ARG_OUT("ArgMax", T, true, uint16_t); \
  WEFT_REGISTER_ARG_OUT("ArgMin", T, false, int64_t); \
  WEFT_REGISTER_ARG_OUT("ArgMin", T, false, int32_t)

WEFT_REGISTER_ARG(half);
WEFT_REGISTER_ARG(bfloat16);
WEFT_REGISTER_ARG(float);
WEFT_REGISTER_ARG(double);
WEFT_REGISTER_ARG(int32_t);
WEFT_REGISTER_ARG(int64_t);
WEFT_REGISTER_ARG(bool);

#undef WEFT_REGISTER_ARG
#undef WEFT_REGISTER_ARG_OUT

}  // namespace
}  // namespace weft
