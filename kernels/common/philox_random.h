// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011) and the ways TensorFlow's random kernels turn its 32-bit words
// into values, so that weft's random ops reproduce TensorFlow's bits: the
// engine, its key and counter layouts (stateless seeds scrambled through one
// Philox block; stateful ops keyed by the seed attr with seed2 in the
// counter's high half), uniform floats made by filling a mantissa under a
// fixed exponent, and the Box-Muller transform for normals. Header-only and
// dependency-free: every random kernel on every device can include it.
#ifndef WEFT_KERNELS_COMMON_PHILOX_RANDOM_H_
#define WEFT_KERNELS_COMMON_PHILOX_RANDOM_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace weft::philox {

// One generator: a 128-bit counter (four words, least significant first)
// and a 64-bit key. Each call of Next() encrypts the counter into four
// words and then advances it by one.
struct Philox4x32 {
  uint32_t counter[4] = {0, 0, 0, 0};
  uint32_t key[2] = {0, 0};

  struct Block {
    uint32_t w[4];
    uint32_t operator[](int i) const { return w[i]; }
  };

  // The block for the current counter, without advancing it.
  Block Encrypt() const {
    constexpr uint32_t kMulA = 0xD2511F53u;
    constexpr uint32_t kMulB = 0xCD9E8D57u;
    constexpr uint32_t kWeylA = 0x9E3779B9u;
    constexpr uint32_t kWeylB = 0xBB67AE85u;
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
      const uint64_t p0 = uint64_t{kMulA} * c0;
      const uint64_t p1 = uint64_t{kMulB} * c2;
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
      const uint32_t n1 = static_cast<uint32_t>(p1);
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
      const uint32_t n3 = static_cast<uint32_t>(p0);
      c0 = n0;
      c1 = n1;
      c2 = n2;
      c3 = n3;
      k0 += kWeylA;
      k1 += kWeylB;
    }
    return Block{{c0, c1, c2, c3}};
  }

  Block Next() {
    const Block b = Encrypt();
    Skip(1);
    return b;
  }

  // Advances the counter by `n` blocks (a 128-bit addition).
  void Skip(uint64_t n) {
    const uint32_t lo = static_cast<uint32_t>(n);
    uint32_t hi = static_cast<uint32_t>(n >> 32);
    counter[0] += lo;
    if (counter[0] < lo) ++hi;
    counter[1] += hi;
    if (counter[1] < hi && ++counter[2] == 0) ++counter[3];
  }
};

// The generator of the stateless V2 ops: key[0] and counter[0..1] as
// StatelessRandomGetKeyCounter writes them (each uint64 little end first).
inline Philox4x32 FromKeyCounter(uint64_t key, uint64_t counter0,
                                 uint64_t counter1) {
  Philox4x32 g;
  g.key[0] = static_cast<uint32_t>(key);
  g.key[1] = static_cast<uint32_t>(key >> 32);
  g.counter[0] = static_cast<uint32_t>(counter0);
  g.counter[1] = static_cast<uint32_t>(counter0 >> 32);
  g.counter[2] = static_cast<uint32_t>(counter1);
  g.counter[3] = static_cast<uint32_t>(counter1 >> 32);
  return g;
}

// A stateless op's seed pair scrambled into a key and counter: the seeds
// are encrypted under a fixed key, whose first two words become the key and
// last two the counter's high half, so that neither seed needs to be strong.
inline void ScrambleSeed(uint64_t seed0, uint64_t seed1, uint64_t* key,
                         uint64_t* counter0, uint64_t* counter1) {
  const Philox4x32 g =
      FromKeyCounter(0x02461e293ec8f720ull, seed0, seed1);  // key 0x3ec8f720,
                                                            // 0x02461e29
  const Philox4x32::Block mix = g.Encrypt();
  *key = mix[0] | uint64_t{mix[1]} << 32;
  *counter0 = 0;
  *counter1 = mix[2] | uint64_t{mix[3]} << 32;
}

// The generator of the stateful ops: the seed attr is the key, seed2 the
// counter's high half.
inline Philox4x32 FromSeeds(uint64_t seed, uint64_t seed2) {
  return FromKeyCounter(seed, 0, seed2);
}

// Uniform [0, 1): 23 (float), 52 (double), 10 (half) or 7 (bfloat16) random
// mantissa bits under the exponent of 1, minus 1. The float and double
// subtractions are exact; the half and bfloat16 results, man / 2^bits, are
// returned as the exact float the caller converts.
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}

inline double Uint64ToDouble(uint32_t hi, uint32_t lo) {
  const uint64_t bits =
      (uint64_t{1023} << 52) | (uint64_t{hi & 0xfffffu} << 32) | lo;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

inline float Uint16ToHalfValue(uint32_t x) {
  return static_cast<float>(x & 0x3ffu) * (1.0f / 1024.0f);
}

inline float Uint16ToBfloat16Value(uint32_t x) {
  return static_cast<float>(x & 0x7fu) * (1.0f / 128.0f);
}

// Box-Muller in float: two standard normals from two words. The angle is
// formed in double and rounded to float, and the radius uses logf and the
// sine and cosine sincosf, as TensorFlow's CPU kernels do on Linux; u1 is
// kept away from 0 so the logarithm stays finite.
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = static_cast<float>(2.0 * M_PI * Uint32ToFloat(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  float s;
  float c;
  ::sincosf(v1, &s, &c);
  *f0 = s * u2;
  *f1 = c * u2;
}

// The same in double from four words (two 52-bit uniforms).
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3,
                            double* d0, double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  double s;
  double c;
  ::sincos(v1, &s, &c);
  *d0 = s * u2;
  *d1 = c * u2;
}

}  // namespace weft::philox

#endif  // WEFT_KERNELS_COMMON_PHILOX_RANDOM_H_
