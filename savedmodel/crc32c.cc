#include "savedmodel/crc32c.h"

#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <nmmintrin.h>
#define WEFT_CRC32C_X86 1
#else
#define WEFT_CRC32C_X86 0
#endif

namespace weft {
namespace crc32c {
namespace {

// The reflected Castagnoli polynomial.
constexpr uint32_t kPoly = 0x82f63b78u;

// Slice-by-8 tables: kTables.t[k][b] is the CRC state after byte b followed
// by k zero bytes.
struct Tables {
  uint32_t t[8][256];
};

constexpr Tables MakeTables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1u) ? kPoly : 0u);
    tables.t[0][b] = crc;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) {
      const uint32_t prev = tables.t[k - 1][b];
      tables.t[k][b] = (prev >> 8) ^ tables.t[0][prev & 0xffu];
    }
  }
  return tables;
}

constexpr Tables kTables = MakeTables();

inline uint32_t LoadLE32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[3]} << 24);
}

// The raw CRC state (no inversion before or after) continued over the bytes.
uint32_t RawPortable(uint32_t s, const unsigned char* p, size_t n) {
  const auto& t = kTables.t;
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    s = (s >> 8) ^ t[0][(s ^ *p++) & 0xffu];
    --n;
  }
  while (n >= 8) {
    const uint32_t lo = LoadLE32(p) ^ s;
    const uint32_t hi = LoadLE32(p + 4);
    s = t[7][lo & 0xffu] ^ t[6][(lo >> 8) & 0xffu] ^ t[5][(lo >> 16) & 0xffu] ^
        t[4][lo >> 24] ^ t[3][hi & 0xffu] ^ t[2][(hi >> 8) & 0xffu] ^
        t[1][(hi >> 16) & 0xffu] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    s = (s >> 8) ^ t[0][(s ^ *p++) & 0xffu];
    --n;
  }
  return s;
}

#if WEFT_CRC32C_X86

// The operator "continue the raw state over `len` zero bytes", which is
// linear in the state: four byte-indexed tables, one per state byte.
struct ZeroShift {
  uint32_t t[4][256];
};

ZeroShift MakeZeroShift(size_t len) {
  ZeroShift z{};
  uint32_t basis[32];
  static const unsigned char kZeros[256] = {};
  for (int bit = 0; bit < 32; ++bit) {
    uint32_t s = uint32_t{1} << bit;
    for (size_t left = len; left > 0;) {
      const size_t step = left < sizeof(kZeros) ? left : sizeof(kZeros);
      s = RawPortable(s, kZeros, step);
      left -= step;
    }
    basis[bit] = s;
  }
  for (int k = 0; k < 4; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t v = 0;
      for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) v ^= basis[8 * k + i];
      }
      z.t[k][b] = v;
    }
  }
  return z;
}

inline uint32_t Shift(const ZeroShift& z, uint32_t s) {
  return z.t[0][s & 0xffu] ^ z.t[1][(s >> 8) & 0xffu] ^
         z.t[2][(s >> 16) & 0xffu] ^ z.t[3][s >> 24];
}

// Three independent crc32 streams hide the instruction's 3-cycle latency;
// each round covers 3 x kLong (or kShort) bytes and joins the streams with
// the zero-shift tables.
constexpr size_t kLong = 8192;
constexpr size_t kShort = 256;

struct HardwareShifts {
  ZeroShift long_shift = MakeZeroShift(kLong);
  ZeroShift short_shift = MakeZeroShift(kShort);
};

const HardwareShifts& Shifts() {
  static const HardwareShifts* shifts = new HardwareShifts();
  return *shifts;
}

inline uint64_t Load64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

__attribute__((target("sse4.2"))) uint32_t RawStreams(uint32_t s,
                                                      const unsigned char*& p,
                                                      size_t& n, size_t len,
                                                      const ZeroShift& shift) {
  while (n >= 3 * len) {
    uint64_t c0 = s, c1 = 0, c2 = 0;
    const unsigned char* p0 = p;
    const unsigned char* p1 = p + len;
    const unsigned char* p2 = p + 2 * len;
    for (size_t i = 0; i < len; i += 8) {
      c0 = _mm_crc32_u64(c0, Load64(p0 + i));
      c1 = _mm_crc32_u64(c1, Load64(p1 + i));
      c2 = _mm_crc32_u64(c2, Load64(p2 + i));
    }
    s = Shift(shift, Shift(shift, static_cast<uint32_t>(c0)) ^
                         static_cast<uint32_t>(c1)) ^
        static_cast<uint32_t>(c2);
    p += 3 * len;
    n -= 3 * len;
  }
  return s;
}

__attribute__((target("sse4.2"))) uint32_t RawHardware(uint32_t s,
                                                       const unsigned char* p,
                                                       size_t n) {
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7u) != 0) {
    s = _mm_crc32_u8(s, *p++);
    --n;
  }
  if (n >= 3 * kShort) {
    const HardwareShifts& shifts = Shifts();
    s = RawStreams(s, p, n, kLong, shifts.long_shift);
    s = RawStreams(s, p, n, kShort, shifts.short_shift);
  }
  uint64_t s64 = s;
  while (n >= 8) {
    s64 = _mm_crc32_u64(s64, Load64(p));
    p += 8;
    n -= 8;
  }
  s = static_cast<uint32_t>(s64);
  while (n > 0) {
    s = _mm_crc32_u8(s, *p++);
    --n;
  }
  return s;
}

bool DetectHardware() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}

#endif  // WEFT_CRC32C_X86

}  // namespace

namespace internal {

bool HardwareAvailable() {
#if WEFT_CRC32C_X86
  static const bool available = DetectHardware();
  return available;
#else
  return false;
#endif
}

uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n) {
  return ~RawPortable(~crc, static_cast<const unsigned char*>(data), n);
}

uint32_t ExtendHardware(uint32_t crc, const void* data, size_t n) {
#if WEFT_CRC32C_X86
  return ~RawHardware(~crc, static_cast<const unsigned char*>(data), n);
#else
  return ExtendPortable(crc, data, n);
#endif
}

}  // namespace internal

uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  if (internal::HardwareAvailable()) {
    return internal::ExtendHardware(crc, data, n);
  }
  return internal::ExtendPortable(crc, data, n);
}

}  // namespace crc32c
}  // namespace weft
