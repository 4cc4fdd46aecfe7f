// Element arithmetic shared by the segment reduction kernels
// (segment_reduction_ops.cc, sparse_segment_ops.cc): sums and products that
// wrap for integers as TensorFlow's do, computed in unsigned types so that
// overflow is defined (the test binaries run under UBSan), and the initial
// values of each reduction.
#ifndef WEFT_KERNELS_CPU_SEGMENT_ARITH_H_
#define WEFT_KERNELS_CPU_SEGMENT_ARITH_H_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/dtype_traits.h"

namespace weft {
namespace segment {

// What a segment reduction computes.
enum class Reduce { kSum, kMean, kProd, kMax, kMin, kSqrtN };

// The unsigned type integer arithmetic on T wraps in: at least unsigned
// int, so that narrow types do not promote to (signed) int.
template <typename T>
using WrapType = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;

template <typename T>
inline T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) +
                          static_cast<WrapType<T>>(b));
  } else {
    return a + b;
  }
}

template <typename T>
inline T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<WrapType<T>>(a) *
                          static_cast<WrapType<T>>(b));
  } else {
    return a * b;
  }
}

// sum / count in T, as TensorFlow's mean reducer divides: integer division
// for integers. A count that wraps to zero in a narrow T leaves the sum
// (TensorFlow would divide by zero).
template <typename T>
inline T DivideByCount(T sum, int64_t count) {
  const T divisor = static_cast<T>(count);
  if constexpr (std::is_integral_v<T>) {
    if (divisor == T(0)) return sum;
    if constexpr (std::is_signed_v<T>) {
      // The one overflowing quotient, lowest / -1, wraps to lowest.
      if (divisor == T(-1))
        return static_cast<T>(WrapType<T>(0) - static_cast<WrapType<T>>(sum));
    }
  }
  return static_cast<T>(sum / divisor);
}

// Eigen's max/min as TensorFlow's unsorted reductions apply them
// (data.cwiseMax(output)): the accumulator is replaced unless the new value
// is smaller (larger), so a NaN in the data is taken and a NaN accumulator is
// replaced by the next value.
template <typename T>
inline T Max(T data, T acc) {
  return data < acc ? acc : data;
}

template <typename T>
inline T Min(T data, T acc) {
  return acc < data ? acc : data;
}

// The value an unsorted reduction starts from (and an empty segment keeps).
template <typename T>
inline T Initial(Reduce r) {
  switch (r) {
    case Reduce::kProd:
      return T(1);
    case Reduce::kMax:
      return std::numeric_limits<T>::lowest();
    case Reduce::kMin:
      return std::numeric_limits<T>::max();
    default:
      return T(0);
  }
}

}  // namespace segment
}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SEGMENT_ARITH_H_
