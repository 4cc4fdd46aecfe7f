// CPU kernels of the bitwise ops, for the eight integer types TensorFlow
// registers them for: Invert (~x), BitwiseAnd, BitwiseOr, BitwiseXor,
// LeftShift and RightShift, the binary ones broadcasting like every other
// (BinaryCwiseOp). As in TensorFlow, a shift amount is clamped to
// [0, bits - 1] (shifting an int8 by -1 is by 0, by 100 is by 7); LeftShift
// keeps the low bits (computed in the unsigned type, so it never overflows),
// RightShift is arithmetic for signed types.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/tensor.h"
#include "kernels/cpu/cwise_binary_op.h"
#include "kernels/cpu/cwise_unary_op.h"
#include "kernels/kernel_registry.h"

namespace weft {
namespace {

template <typename T>
struct InvertFunctor {
  T operator()(const T& x) const { return static_cast<T>(~x); }
};

template <typename T>
struct BitwiseAndFunctor {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a & b); }
};

template <typename T>
struct BitwiseOrFunctor {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a | b); }
};

template <typename T>
struct BitwiseXorFunctor {
  T operator()(const T& a, const T& b) const { return static_cast<T>(a ^ b); }
};

// The shift amount clamped to [0, bits - 1].
template <typename T>
int ClampedShift(T b) {
  constexpr int kMax = std::numeric_limits<std::make_unsigned_t<T>>::digits - 1;
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return 0;
  }
  return b > static_cast<T>(kMax) ? kMax : static_cast<int>(b);
}

template <typename T>
struct LeftShiftFunctor {
  T operator()(const T& a, const T& b) const {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << ClampedShift(b)));
  }
};

template <typename T>
struct RightShiftFunctor {
  T operator()(const T& a, const T& b) const {
    // >> of a negative signed value is arithmetic (C++20, and every
    // compiler weft builds with before it).
    return static_cast<T>(a >> ClampedShift(b));
  }
};

#define WEFT_REGISTER_BITWISE_UNARY(op, functor) \
  WEFT_REGISTER_UNARY(op, int8_t, functor);      \
  WEFT_REGISTER_UNARY(op, int16_t, functor);     \
  WEFT_REGISTER_UNARY(op, int32_t, functor);     \
  WEFT_REGISTER_UNARY(op, int64_t, functor);     \
  WEFT_REGISTER_UNARY(op, uint8_t, functor);     \
  WEFT_REGISTER_UNARY(op, uint16_t, functor);    \
  WEFT_REGISTER_UNARY(op, uint32_t, functor);    \
  WEFT_REGISTER_UNARY(op, uint64_t, functor)

#define WEFT_REGISTER_BITWISE_BINARY(op, functor) \
  WEFT_REGISTER_BINARY(op, functor, int8_t);      \
  WEFT_REGISTER_BINARY(op, functor, int16_t);     \
  WEFT_REGISTER_BINARY(op, functor, int32_t);     \
  WEFT_REGISTER_BINARY(op, functor, int64_t);     \
  WEFT_REGISTER_BINARY(op, functor, uint8_t);     \
  WEFT_REGISTER_BINARY(op, functor, uint16_t);    \
  WEFT_REGISTER_BINARY(op, functor, uint32_t);    \
  WEFT_REGISTER_BINARY(op, functor, uint64_t)

WEFT_REGISTER_BITWISE_UNARY("Invert", InvertFunctor);
WEFT_REGISTER_BITWISE_BINARY("BitwiseAnd", BitwiseAndFunctor);
WEFT_REGISTER_BITWISE_BINARY("BitwiseOr", BitwiseOrFunctor);
WEFT_REGISTER_BITWISE_BINARY("BitwiseXor", BitwiseXorFunctor);
WEFT_REGISTER_BITWISE_BINARY("LeftShift", LeftShiftFunctor);
WEFT_REGISTER_BITWISE_BINARY("RightShift", RightShiftFunctor);

#undef WEFT_REGISTER_BITWISE_UNARY
#undef WEFT_REGISTER_BITWISE_BINARY

}  // namespace
}  // namespace weft
