// The per-element conversion of the CUDA Cast kernel (array_ops_gpu.cu),
// also compiled for the host so that tests/kernels/cuda_array_body_test.cc
// checks it against the CPU kernel without a GPU.
//
// Conversions are those of kernels/cpu/cast_op.cc, bit for bit:
//  - to bool: x != 0 (NaN is true, -0 false); from bool: 0 or 1;
//  - int64 -> int32 keeps the low 32 bits;
//  - integers to float round to nearest even, to half through float;
//  - float -> half rounds to nearest even; with Truncate the float's low 13
//    mantissa bits are cleared first (NaN left alone);
//  - float and half to int32/int64 truncate toward zero, and NaN,
//    infinities and values out of range give the type's most negative
//    value, as the CPU kernel defines it.
// half is handled as its IEEE binary16 bits with integer arithmetic, so
// the host and the device run the same code and no conversion depends on
// the compiler's or the GPU's flush-to-zero settings.
#ifndef WEFT_KERNELS_CUDA_CAST_BODY_H_
#define WEFT_KERNELS_CUDA_CAST_BODY_H_

#include <cstdint>
#include <cstring>

#include "kernels/cuda/host_device.h"

namespace weft::gpu {

// The dtypes the CUDA Cast kernel converts between.
enum class CastType : int { kBool, kInt32, kInt64, kHalf, kFloat };

template <CastType kType>
struct CastStorage;
template <>
struct CastStorage<CastType::kBool> {
  using type = uint8_t;
};
template <>
struct CastStorage<CastType::kInt32> {
  using type = int32_t;
};
template <>
struct CastStorage<CastType::kInt64> {
  using type = int64_t;
};
template <>
struct CastStorage<CastType::kHalf> {
  using type = uint16_t;
};
template <>
struct CastStorage<CastType::kFloat> {
  using type = float;
};

struct CastParams {
  CastType dst = CastType::kFloat;
  // Set by the host only where the CPU kernel honours Truncate here
  // (float -> half).
  bool truncate = false;
};

WEFT_HOST_DEVICE uint32_t FloatToBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

WEFT_HOST_DEVICE float BitsToFloat(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

// Exact: every half is a float.
WEFT_HOST_DEVICE float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) {
    return BitsToFloat(sign | ((exp + (127 - 15)) << 23) | (mant << 13));
  }
  // Subnormal (or zero): mant * 2^-24, a product float holds exactly.
  const float magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;
  return BitsToFloat(sign | FloatToBits(magnitude));
}

// Rounded to nearest even; overflow gives infinity; NaN stays a (quiet)
// NaN of the same sign.
WEFT_HOST_DEVICE uint16_t FloatToHalfBits(float f) {
  const uint32_t x = FloatToBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {
    if (ax == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  }
  // 65520 and up round to infinity.
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  const uint32_t exp = ax >> 23;
  if (exp >= 113) {
    // A normal half: rebias the exponent, then round the 13 dropped bits
    // to nearest even (a carry may run into the exponent, as it should).
    const uint32_t odd = (ax >> 13) & 1u;
    const uint32_t rounded = ax - ((127u - 15u) << 23) + 0xfffu + odd;
    return static_cast<uint16_t>(sign | (rounded >> 13));
  }
  // A subnormal half (or zero): the value in units of 2^-24, rounded to
  // nearest even. Float subnormals and anything below 2^-25 round to 0.
  if (exp < 102) return static_cast<uint16_t>(sign);
  const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - exp;  // 14..24
  const uint32_t q = m >> shift;
  const uint32_t rem = m & ((1u << shift) - 1u);
  const uint32_t halfway = 1u << (shift - 1u);
  const uint32_t up = (rem > halfway || (rem == halfway && (q & 1u))) ? 1u : 0u;
  return static_cast<uint16_t>(sign | (q + up));
}

// The float with the low 13 mantissa bits that half cannot hold cleared, so
// that rounding it truncates toward zero (NaN left alone).
WEFT_HOST_DEVICE float ClearLowHalfBits(float f) {
  const uint32_t x = FloatToBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return f;
  return BitsToFloat(x & ~0x1fffu);
}

// The CPU kernel's float -> int32: in (-2^31 - 1, 2^31) truncate, else the
// most negative int32. For a float that range is [-2^31, 2^31).
WEFT_HOST_DEVICE int32_t FloatToInt32(float f) {
  if (f >= -2147483648.0f && f < 2147483648.0f) return static_cast<int32_t>(f);
  return INT32_MIN;
}

WEFT_HOST_DEVICE int64_t FloatToInt64(float f) {
  if (f >= -9223372036854775808.0f && f < 9223372036854775808.0f) {
    return static_cast<int64_t>(f);
  }
  return INT64_MIN;
}

WEFT_HOST_DEVICE void CastStoreFloat(const CastParams& p, float f, void* out,
                                     int64_t i) {
  switch (p.dst) {
    case CastType::kBool:
      static_cast<uint8_t*>(out)[i] = f != 0.0f ? 1 : 0;
      break;
    case CastType::kInt32:
      static_cast<int32_t*>(out)[i] = FloatToInt32(f);
      break;
    case CastType::kInt64:
      static_cast<int64_t*>(out)[i] = FloatToInt64(f);
      break;
    case CastType::kHalf:
      static_cast<uint16_t*>(out)[i] =
          FloatToHalfBits(p.truncate ? ClearLowHalfBits(f) : f);
      break;
    case CastType::kFloat:
      static_cast<float*>(out)[i] = f;
      break;
  }
}

WEFT_HOST_DEVICE void CastStoreInt(const CastParams& p, int64_t v, void* out,
                                   int64_t i) {
  switch (p.dst) {
    case CastType::kBool:
      static_cast<uint8_t*>(out)[i] = v != 0 ? 1 : 0;
      break;
    case CastType::kInt32:
      // Two's complement wrap-around: the low 32 bits.
      static_cast<int32_t*>(out)[i] =
          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
      break;
    case CastType::kInt64:
      static_cast<int64_t*>(out)[i] = v;
      break;
    case CastType::kHalf:
      // Through float, rounded twice, as Eigen converts.
      static_cast<uint16_t*>(out)[i] = FloatToHalfBits(static_cast<float>(v));
      break;
    case CastType::kFloat:
      static_cast<float*>(out)[i] = static_cast<float>(v);
      break;
  }
}

// out[i] = Cast(in[i]) for a source of kSrc and the destination p.dst.
template <CastType kSrc>
WEFT_HOST_DEVICE void CastElement(const CastParams& p, const void* in,
                                  void* out, int64_t i) {
  using S = typename CastStorage<kSrc>::type;
  const S x = static_cast<const S*>(in)[i];
  if constexpr (kSrc == CastType::kFloat) {
    CastStoreFloat(p, x, out, i);
  } else if constexpr (kSrc == CastType::kHalf) {
    CastStoreFloat(p, HalfBitsToFloat(x), out, i);
  } else if constexpr (kSrc == CastType::kBool) {
    CastStoreInt(p, x != 0 ? 1 : 0, out, i);
  } else {
    CastStoreInt(p, static_cast<int64_t>(x), out, i);
  }
}

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_CAST_BODY_H_
