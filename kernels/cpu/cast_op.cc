// Cast on the CPU between bool, int8, int16, int32, int64, uint8, uint16,
// half, bfloat16, float and double, every pair (a cast to the same dtype
// passes the input through: kernels/common/cast_op_base.h, shared with the CUDA
// kernel).
//
// Conversions, as TensorFlow's CPU kernel computes them:
//  - To bool: x != 0 (NaN is true). From bool: 0 or 1.
//  - Integer to integer: two's complement wrap-around (keep the low bits).
//  - Integer to floating: rounded to nearest even; to half and bfloat16
//    through float (rounded twice), as Eigen converts.
//  - Floating to floating: rounded to nearest even; double to half or
//    bfloat16 through float (rounded twice), as Eigen converts.
//  - Floating to integer: truncation toward zero. TensorFlow's kernel is a
//    C++ static_cast, undefined when the value does not fit; x86 CPUs, where
//    TensorFlow's reference results come from, convert to int32 or int64
//    and give the most negative value of that type for NaN, infinities and
//    out-of-range values, and narrower types keep the low bits of the int32
//    (300.7 -> int8 44, -1.5 -> uint8 255, 65504 -> int8 -32). weft defines
//    exactly that, so results are the same on every CPU and no conversion is
//    undefined.
//  - Truncate=true, for double -> float, double -> half, float -> half and
//    float -> bfloat16 only (TensorFlow ignores it elsewhere): the source's
//    low mantissa bits that the destination cannot hold are cleared first
//    (NaN left alone), so the value is truncated toward zero instead of
//    rounded, apart from overflow and destination subnormals.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "core/types.h"
#include "kernels/common/cast_op_base.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, half> ||
    std::is_same_v<T, bfloat16>;

// Floating value (widened to double, exactly) to integer type D, as
// described in the file comment.
template <typename D>
D FloatToInt(double v) {
  if constexpr (std::is_same_v<D, int64_t>) {
    constexpr double kLimit = 9223372036854775808.0;  // 2^63
    if (!(v >= -kLimit && v < kLimit)) {
      return std::numeric_limits<int64_t>::min();
    }
    return static_cast<int64_t>(v);
  } else {
    // Truncation keeps values in (-2^31 - 1, 2^31).
    constexpr double kLimit = 2147483648.0;  // 2^31
    const int32_t i = (v > -kLimit - 1 && v < kLimit)
                          ? static_cast<int32_t>(v)
                          : std::numeric_limits<int32_t>::min();
    return static_cast<D>(i);
  }
}

template <typename D, typename S>
D Convert(S x) {
  if constexpr (std::is_same_v<D, bool>) {
    // NaN != 0 holds.
    return static_cast<double>(x) != 0.0;
  } else if constexpr (std::is_same_v<S, bool>) {
    return static_cast<D>(x ? 1 : 0);
  } else if constexpr (kIsFloat<S> && !kIsFloat<D>) {
    return FloatToInt<D>(static_cast<double>(x));
  } else if constexpr (std::is_same_v<D, half> || std::is_same_v<D, bfloat16>) {
    // Integers and double through float, as Eigen.
    return static_cast<D>(static_cast<float>(x));
  } else if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
    using U = std::make_unsigned_t<D>;
    return static_cast<D>(static_cast<U>(x));
  } else {
    return static_cast<D>(x);
  }
}

// The source with its low `kBits` mantissa bits cleared (NaN unchanged).
template <typename S, int kBits>
S ClearLowBits(S x) {
  using Bits = std::conditional_t<sizeof(S) == 8, uint64_t, uint32_t>;
  if (std::isnan(x)) return x;
  // __builtin_bit_cast rather than memcpy through `x`: g++ 12 at -O1 with
  // the sanitizers converted the original value, not the cleared one.
  Bits b = __builtin_bit_cast(Bits, x);
  b &= ~((Bits{1} << kBits) - 1);
  return __builtin_bit_cast(S, b);
}

// Mantissa bits, the implicit one included: 53, 24, 11 and 8.
template <typename T>
constexpr int kMantissa = std::is_same_v<T, double>  ? 53
                          : std::is_same_v<T, float> ? 24
                          : std::is_same_v<T, half>  ? 11
                                                     : 8;

template <typename D, typename S>
constexpr bool kTruncates =
    (std::is_same_v<S, double> &&
     (std::is_same_v<D, float> || std::is_same_v<D, half>)) ||
    (std::is_same_v<S, float> &&
     (std::is_same_v<D, half> || std::is_same_v<D, bfloat16>));

using CastFn = void (*)(const void* in, void* out, int64_t begin, int64_t end,
                        bool truncate);

template <typename S, typename D>
void CastRange(const void* in, void* out, int64_t begin, int64_t end,
               bool truncate) {
  const S* s = static_cast<const S*>(in);
  D* d = static_cast<D*>(out);
  if constexpr (kTruncates<D, S>) {
    if (truncate) {
      constexpr int kBits = kMantissa<S> - kMantissa<D>;
      for (int64_t i = begin; i < end; ++i) {
        d[i] = Convert<D>(ClearLowBits<S, kBits>(s[i]));
      }
      return;
    }
  }
  for (int64_t i = begin; i < end; ++i) d[i] = Convert<D>(s[i]);
}

// Calls fn(TypeTag<T>{}) for the dtypes Cast serves; false for others.
template <typename Fn>
bool VisitCastType(DataType dt, Fn&& fn) {
  switch (dt) {
    case DT_BOOL:
      fn(TypeTag<bool>{});
      return true;
    case DT_INT8:
      fn(TypeTag<int8_t>{});
      return true;
    case DT_INT16:
      fn(TypeTag<int16_t>{});
      return true;
    case DT_INT32:
      fn(TypeTag<int32_t>{});
      return true;
    case DT_INT64:
      fn(TypeTag<int64_t>{});
      return true;
    case DT_UINT8:
      fn(TypeTag<uint8_t>{});
      return true;
    case DT_UINT16:
      fn(TypeTag<uint16_t>{});
      return true;
    case DT_HALF:
      fn(TypeTag<half>{});
      return true;
    case DT_BFLOAT16:
      fn(TypeTag<bfloat16>{});
      return true;
    case DT_FLOAT:
      fn(TypeTag<float>{});
      return true;
    case DT_DOUBLE:
      fn(TypeTag<double>{});
      return true;
    default:
      return false;
  }
}

CastFn FindCast(DataType src, DataType dst) {
  CastFn fn = nullptr;
  VisitCastType(src, [&](auto s) {
    VisitCastType(dst, [&](auto d) {
      fn = &CastRange<typename decltype(s)::type, typename decltype(d)::type>;
    });
  });
  return fn;
}

class CastOp : public CastOpBase {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : CastOpBase(ctx) {
    if (!ctx->status().ok() || identity()) return;
    fn_ = FindCast(src(), dst());
    OP_REQUIRES(
        ctx, fn_ != nullptr,
        errors::Unimplemented("Cast from ", DataTypeName(src()), " to ",
                              DataTypeName(dst()), " is not supported"));
  }

 private:
  void Convert(OpKernelContext* ctx, const Tensor& x,
               Tensor* y) const override {
    const void* in = x.raw_data();
    void* out = y->raw_data();
    ctx->ParallelFor(x.NumElements(), 3, [&](int64_t begin, int64_t end) {
      fn_(in, out, begin, end, truncate());
    });
  }

  CastFn fn_ = nullptr;
};

const std::vector<DataType>& CastTypes() {
  static const auto* types = new std::vector<DataType>{
      DT_BOOL,   DT_INT8, DT_INT16,    DT_INT32, DT_INT64, DT_UINT8,
      DT_UINT16, DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return *types;
}

REGISTER_KERNEL_BUILDER(Name("Cast")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("SrcT", CastTypes())
                            .TypeConstraint("DstT", CastTypes()),
                        CastOp);

}  // namespace
}  // namespace weft
