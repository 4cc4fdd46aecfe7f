// Softmax and LogSoftmax on the CPU, over the last dimension:
//
//   softmax(x)_i     = exp(x_i - m) / sum_j exp(x_j - m)
//   log_softmax(x)_i = (x_i - m) - log(sum_j exp(x_j - m))
//
// with m the row's maximum, so exp never overflows. A row holding a NaN or
// +inf, or only -inf, comes out all NaN, which is what TensorFlow's own CPU
// kernels give (its optional oneDNN float32 path differs there). half and
// bfloat16 are computed in float and rounded once; float rows on the AVX2
// and AVX-512 paths are softmax_float.h's. Rows are split across the
// session's arena; each row is computed the same way at any thread count.
// The shape check is shared with the CUDA kernel
// (kernels/common/softmax_shape.h).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "core/tensor.h"
#include "kernels/common/softmax_shape.h"
#include "kernels/cpu/softmax_float.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// exp(v) for the shifted logits v <= 0. Eigen's vectorized exp clamps its
// argument at the bottom of its range, so exp(-inf) would come out as the
// smallest value it can produce (2.8e-309 for double) rather than 0; below
// that clamp this returns 0, which is exact for -inf (a masked logit) and
// off by less than the smallest normal number otherwise.
template <typename T>
struct ShiftedExp {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  static constexpr T kLowest =
      std::is_same_v<T, float> ? T(-88.72) : T(-709.78);
  T operator()(const T& v) const { return v < kLowest ? T(0) : std::exp(v); }
  template <typename Packet>
  Packet packetOp(const Packet& v) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    return pselect(pcmp_lt(v, pset1<Packet>(kLowest)), pzero(v), pexp(v));
  }
};

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename T>
struct functor_traits<weft::ShiftedExp<T>> {
  enum {
    Cost = functor_traits<scalar_exp_op<T>>::Cost + 2,
    PacketAccess = packet_traits<T>::HasExp && packet_traits<T>::HasCmp,
  };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

// One row of `depth` > 0 values; `out` may be `in` (each step reads an
// element before writing the same element).
template <typename T, bool kLog>
void SoftmaxRow(const T* in, T* out, int64_t depth) {
  ConstArrayMap<T> x(in, depth);
  ArrayMap<T> y(out, depth);
  // A NaN anywhere makes m NaN and so the whole row NaN.
  const T m = x.template maxCoeff<Eigen::PropagateNaN>();
  if constexpr (kLog) {
    const T log_sum = std::log((x - m).unaryExpr(ShiftedExp<T>()).sum());
    y = (x - m) - log_sum;
  } else {
    y = (x - m).unaryExpr(ShiftedExp<T>());
    y *= T(1) / y.sum();
  }
}

template <typename T, bool kLog>
void SoftmaxRows(const OpKernelContext& ctx, const T* in, T* out, int64_t rows,
                 int64_t depth) {
  ctx.ParallelFor(rows, depth * 30, [&](int64_t begin, int64_t end) {
    if constexpr (std::is_same_v<T, float>) {
      if (SoftmaxFloatRowsOnVectorPath(in + begin * depth, out + begin * depth,
                                       end - begin, depth, kLog)) {
        return;
      }
    }
    for (int64_t r = begin; r < end; ++r) {
      SoftmaxRow<T, kLog>(in + r * depth, out + r * depth, depth);
    }
  });
}

template <typename To, typename From>
void Convert(const From* from, To* to, int64_t n) {
  ArrayMap<To>(to, n) = ConstArrayMap<From>(from, n).template cast<To>();
}

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  explicit SoftmaxOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& logits = ctx->input(0);
    StatusOr<SoftmaxDims> dims = GetSoftmaxDims(logits.shape());
    OP_REQUIRES_OK(ctx, dims.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, logits.shape(), &out));
    const int64_t total = logits.NumElements();
    if (total == 0) return;
    const int64_t depth = dims->depth;
    const int64_t rows = dims->rows;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      SoftmaxRows<T, kLog>(*ctx, logits.data<T>(), out->data<T>(), rows, depth);
    } else {
      Tensor wide;
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DT_FLOAT, logits.shape(), &wide));
      float* w = wide.data<float>();
      Convert(logits.data<T>(), w, total);
      SoftmaxRows<float, kLog>(*ctx, w, w, rows, depth);
      Convert(w, out->data<T>(), total);
    }
  }
};

#define WEFT_REGISTER_SOFTMAX(T)                                    \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("Softmax").Device(DEVICE_CPU).TypeConstraint<T>("T"),    \
      SoftmaxOp<T, false>);                                         \
  REGISTER_KERNEL_BUILDER(                                          \
      Name("LogSoftmax").Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      SoftmaxOp<T, true>)

WEFT_REGISTER_SOFTMAX(half);
WEFT_REGISTER_SOFTMAX(bfloat16);
WEFT_REGISTER_SOFTMAX(float);
WEFT_REGISTER_SOFTMAX(double);

#undef WEFT_REGISTER_SOFTMAX

}  // namespace
}  // namespace weft
