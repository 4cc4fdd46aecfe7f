// Little-endian fixed-width and varint decoding over a string_view that is
// consumed as it is read, as LevelDB tables and TensorBundles write them.
// Every reader returns false, leaving its output unspecified, when the bytes
// run out or a varint is too long.
#ifndef WEFT_SAVEDMODEL_CODING_H_
#define WEFT_SAVEDMODEL_CODING_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace weft {
namespace coding {

inline uint32_t DecodeFixed32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{u[0]} | (uint32_t{u[1]} << 8) | (uint32_t{u[2]} << 16) |
         (uint32_t{u[3]} << 24);
}

inline uint64_t DecodeFixed64(const char* p) {
  return uint64_t{DecodeFixed32(p)} | (uint64_t{DecodeFixed32(p + 4)} << 32);
}

// At most 10 bytes; the 10th may hold only the value's top bit.
inline bool GetVarint64(absl::string_view* in, uint64_t* value) {
  uint64_t result = 0;
  for (int i = 0; i < 10; ++i) {
    if (i >= static_cast<int>(in->size())) return false;
    const auto byte = static_cast<unsigned char>((*in)[i]);
    if (i == 9 && byte > 1) return false;
    result |= uint64_t{byte & 0x7fu} << (7 * i);
    if ((byte & 0x80u) == 0) {
      in->remove_prefix(i + 1);
      *value = result;
      return true;
    }
  }
  return false;
}

// At most 5 bytes, the value below 2^32.
inline bool GetVarint32(absl::string_view* in, uint32_t* value) {
  absl::string_view copy = *in;
  uint64_t v = 0;
  if (!GetVarint64(&copy, &v) || v > 0xffffffffu ||
      in->size() - copy.size() > 5) {
    return false;
  }
  *in = copy;
  *value = static_cast<uint32_t>(v);
  return true;
}

}  // namespace coding
}  // namespace weft

#endif  // WEFT_SAVEDMODEL_CODING_H_
