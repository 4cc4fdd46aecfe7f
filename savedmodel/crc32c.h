// CRC-32C (Castagnoli), the checksum of TensorFlow's checkpoints and of
// LevelDB tables, with the masking both store it under. Computed with the
// SSE4.2 crc32 instruction when the CPU has it (checked at run time: the
// library itself may be built for any x86-64), else with portable
// slice-by-8 tables.
#ifndef WEFT_SAVEDMODEL_CRC32C_H_
#define WEFT_SAVEDMODEL_CRC32C_H_

#include <cstddef>
#include <cstdint>

namespace weft {
namespace crc32c {

// The CRC-32C of `data[0, n)` continued from `crc`, the CRC-32C of the bytes
// before them (0 for none): Extend(Extend(0, a), b) == Value(a + b).
uint32_t Extend(uint32_t crc, const void* data, size_t n);

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }

// What TensorFlow and LevelDB store: a CRC of data that itself holds CRCs
// is a poor check, so stored CRCs are rotated and offset.
inline constexpr uint32_t kMaskDelta = 0xa282ead8u;
inline uint32_t Mask(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rot = masked - kMaskDelta;
  return (rot >> 17) | (rot << 15);
}

namespace internal {
// The two implementations, for tests. ExtendHardware may be called only when
// HardwareAvailable() is true.
bool HardwareAvailable();
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n);
uint32_t ExtendHardware(uint32_t crc, const void* data, size_t n);
}  // namespace internal

}  // namespace crc32c
}  // namespace weft

#endif  // WEFT_SAVEDMODEL_CRC32C_H_
