// CPU kernels of the broadcasting division and power ops: Div, DivNoNan,
// FloorDiv, FloorMod, TruncateDiv, Pow, SquaredDifference. Dtypes: half,
// bfloat16, float, double, int32 and int64 (DivNoNan floating only;
// TruncateDiv also int8, int16 and the four unsigned types), as TensorFlow
// registers them on the CPU among weft's dtypes.
//
// Semantics, as TensorFlow's CPU kernels:
//  - Div: x / y; for integers C's truncating division (-7 / 2 = -3).
//  - FloorDiv: floor(x / y), the quotient rounded in T first for floating
//    types (so floor of the rounded quotient); for integers the exact floor
//    (-7 // 2 = -4).
//  - FloorMod: Python's modulo, with the sign of y: for floating types
//    fmod(x, y), plus y when that is non-zero and its sign differs from y's
//    (FloorMod(-1, inf) = inf, FloorMod(-0, 3) = -0); for integers likewise
//    from C's %.
//  - TruncateDiv: x / y rounded toward zero: for floating types trunc of the
//    quotient rounded in T; for integers C's division, as Div. TruncateDiv
//    also serves the 8- and 16-bit and unsigned integers.
//  - Integer Div, FloorDiv, FloorMod and TruncateDiv by 0 are errors; the most
//  negative
//    value divided by -1 wraps to itself (modulo: 0) instead of trapping.
//  - DivNoNan: 0 where y is 0 (even for x NaN), else x / y.
//  - Pow: the C library's pow for floating types (half and bfloat16 through
//    float); integers by repeated squaring, wrapping on overflow, and a
//    negative exponent is an error.
//  - SquaredDifference: (x - y) * (x - y) in T (wrapping for integers).
// half and bfloat16 arithmetic is Eigen's, each operation rounded to T as in
// TensorFlow, so results agree exactly apart from pow.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include <Eigen/Core>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/kernel_registry.h"

namespace weft {
namespace {

// InvalidArgument naming the first element of y for which `bad` holds.
template <typename T, typename Pred>
Status CheckDivisor(const Tensor& y, Pred bad, const char* what) {
  const T* v = y.data<T>();
  const int64_t n = y.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (bad(v[i])) {
      return errors::InvalidArgument(
          what, ": y holds ", static_cast<int64_t>(v[i]), " at flat index ", i);
    }
  }
  return Status();
}

template <typename T>
Status CheckNoZeroDivisor(const Tensor& x, const Tensor& y) {
  return CheckDivisor<T>(
      y, [](T v) { return v == 0; }, "integer division by zero");
}

template <typename T>
constexpr bool kIsInt = std::is_integral_v<T>;

// C's truncating quotient; the most negative value over -1 wraps.
template <typename T>
T TruncDiv(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (b == T(-1)) return static_cast<T>(U(0) - U(a));
  return a / b;
}

template <typename T>
struct IntDivFunctor {
  static Status CheckInputs(const Tensor& x, const Tensor& y) {
    return CheckNoZeroDivisor<T>(x, y);
  }
  T operator()(const T& a, const T& b) const { return TruncDiv(a, b); }
};

// TruncateDiv of integers, signed or unsigned.
template <typename T>
struct IntTruncateDivFunctor {
  static Status CheckInputs(const Tensor& x, const Tensor& y) {
    return CheckNoZeroDivisor<T>(x, y);
  }
  T operator()(const T& a, const T& b) const {
    if constexpr (std::is_signed_v<T>) {
      return TruncDiv(a, b);
    } else {
      return static_cast<T>(a / b);
    }
  }
};

template <typename T>
struct FloatTruncateDivFunctor {
  T operator()(const T& a, const T& b) const {
    const T q = a / b;
    return static_cast<T>(std::trunc(static_cast<CwiseComputeT<T>>(q)));
  }
};

template <typename T>
struct IntFloorDivFunctor {
  static Status CheckInputs(const Tensor& x, const Tensor& y) {
    return CheckNoZeroDivisor<T>(x, y);
  }
  // The truncated quotient, one lower when it was rounded up: a remainder
  // and operands of opposite signs. (z * y wraps exactly when z = x for
  // y = -1, where there is no remainder.)
  T operator()(const T& a, const T& b) const {
    const T z = TruncDiv(a, b);
    using U = std::make_unsigned_t<T>;
    const bool exact = static_cast<T>(U(z) * U(b)) == a;
    return !exact && ((a < T(0)) != (b < T(0))) ? z - T(1) : z;
  }
};

template <typename T>
struct IntFloorModFunctor {
  static Status CheckInputs(const Tensor& x, const Tensor& y) {
    return CheckNoZeroDivisor<T>(x, y);
  }
  T operator()(const T& a, const T& b) const {
    if (b == T(-1)) return T(0);
    const T r = a % b;
    return r != T(0) && ((b < T(0)) != (r < T(0))) ? r + b : r;
  }
};

template <typename T>
struct FloatFloorDivFunctor {
  T operator()(const T& a, const T& b) const {
    const T q = a / b;
    return static_cast<T>(std::floor(static_cast<CwiseComputeT<T>>(q)));
  }
};

template <typename T>
struct FloatFloorModFunctor {
  T operator()(const T& a, const T& b) const {
    using C = CwiseComputeT<T>;
    // fmod is exact, so it is representable in T.
    const T r = static_cast<T>(std::fmod(static_cast<C>(a), static_cast<C>(b)));
    return r != T(0) && ((b < T(0)) != (r < T(0))) ? T(r + b) : r;
  }
};

template <typename T>
struct DivNoNanFunctor {
  T operator()(const T& a, const T& b) const {
    return b == T(0) ? T(0) : T(a / b);
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet zero = pzero(a);
    return pselect(pcmp_eq(b, zero), zero, pdiv(a, b));
  }
};

template <typename T>
struct FloatPowFunctor {
  T operator()(const T& a, const T& b) const {
    using C = CwiseComputeT<T>;
    return static_cast<T>(std::pow(static_cast<C>(a), static_cast<C>(b)));
  }
};

template <typename T>
struct IntPowFunctor {
  static Status CheckInputs(const Tensor& x, const Tensor& y) {
    return CheckDivisor<T>(
        y, [](T v) { return v < 0; }, "integer Pow needs exponents >= 0");
  }
  T operator()(const T& a, const T& b) const {
    using U = std::make_unsigned_t<T>;
    U base = static_cast<U>(a);
    U result = 1;
    for (T e = b; e > 0; e >>= 1) {
      if (e & 1) result *= base;
      base *= base;
    }
    return static_cast<T>(result);
  }
};

template <typename T>
struct SquaredDifferenceFunctor {
  T operator()(const T& a, const T& b) const {
    if constexpr (kIsInt<T>) {
      using U = std::make_unsigned_t<T>;
      const U d = U(a) - U(b);
      return static_cast<T>(d * d);
    } else {
      const T d = a - b;
      return d * d;
    }
  }
  template <typename Packet>
  Packet packetOp(const Packet& a, const Packet& b) const {
    using namespace Eigen::internal;  // NOLINT(build/namespaces)
    const Packet d = psub(a, b);
    return pmul(d, d);
  }
};

template <typename T>
using DivFunctorFor =
    std::conditional_t<kIsInt<T>, IntDivFunctor<T>, DivFunctor<T>>;
template <typename T>
using FloorDivFunctor = std::conditional_t<kIsInt<T>, IntFloorDivFunctor<T>,
                                           FloatFloorDivFunctor<T>>;
template <typename T>
using FloorModFunctor = std::conditional_t<kIsInt<T>, IntFloorModFunctor<T>,
                                           FloatFloorModFunctor<T>>;
template <typename T>
using TruncateDivFunctor =
    std::conditional_t<kIsInt<T>, IntTruncateDivFunctor<T>,
                       FloatTruncateDivFunctor<T>>;
template <typename T>
using PowFunctor =
    std::conditional_t<kIsInt<T>, IntPowFunctor<T>, FloatPowFunctor<T>>;

}  // namespace
}  // namespace weft

namespace Eigen::internal {
template <typename T>
struct functor_traits<weft::IntDivFunctor<T>> {
  enum { Cost = 20, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::IntFloorDivFunctor<T>> {
  enum { Cost = 25, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::IntTruncateDivFunctor<T>> {
  enum { Cost = 20, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::FloatTruncateDivFunctor<T>> {
  enum { Cost = 20, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::IntFloorModFunctor<T>> {
  enum { Cost = 25, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::FloatFloorDivFunctor<T>> {
  enum { Cost = 20, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::FloatFloorModFunctor<T>> {
  enum { Cost = 30, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::DivNoNanFunctor<T>> {
  enum {
    Cost = functor_traits<scalar_quotient_op<T, T>>::Cost + 2,
    PacketAccess = packet_traits<T>::HasDiv && packet_traits<T>::HasCmp,
  };
};
template <typename T>
struct functor_traits<weft::FloatPowFunctor<T>> {
  enum { Cost = 60, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::IntPowFunctor<T>> {
  enum { Cost = 30, PacketAccess = false };
};
template <typename T>
struct functor_traits<weft::SquaredDifferenceFunctor<T>> {
  enum {
    Cost = 4,
    PacketAccess = !weft::kIsInt<T> && packet_traits<T>::HasSub &&
                   packet_traits<T>::HasMul,
  };
};
}  // namespace Eigen::internal

namespace weft {
namespace {

WEFT_REGISTER_BINARY_NUMERIC("Div", DivFunctorFor);
WEFT_REGISTER_BINARY_FLOAT("DivNoNan", DivNoNanFunctor);
WEFT_REGISTER_BINARY_NUMERIC("FloorDiv", FloorDivFunctor);
WEFT_REGISTER_BINARY_NUMERIC("FloorMod", FloorModFunctor);
WEFT_REGISTER_BINARY_NUMERIC("TruncateDiv", TruncateDivFunctor);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, int8_t);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, int16_t);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, uint8_t);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, uint16_t);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, uint32_t);
WEFT_REGISTER_BINARY("TruncateDiv", TruncateDivFunctor, uint64_t);
WEFT_REGISTER_BINARY_NUMERIC("Pow", PowFunctor);
WEFT_REGISTER_BINARY_NUMERIC("SquaredDifference", SquaredDifferenceFunctor);

}  // namespace
}  // namespace weft
