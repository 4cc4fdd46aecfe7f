#include "savedmodel/tensor_slice_key.h"

#include "absl/strings/str_cat.h"

namespace weft {
namespace ordered_code {

// A length byte, then the value big-endian without its leading zero bytes.
void AppendNumIncreasing(std::string* dest, uint64_t value) {
  char buf[8];
  int len = 0;
  while (value > 0) {
    buf[7 - len] = static_cast<char>(value & 0xffu);
    value >>= 8;
    ++len;
  }
  dest->push_back(static_cast<char>(len));
  dest->append(buf + 8 - len, len);
}

// The sign bit, then as many copies of it as bytes follow the first (up to
// 9, spilling into the second byte), a bit of the opposite value, then the
// value in two's complement, big-endian: n bytes hold [-2^(7n-1), 2^(7n-1)).
void AppendSignedNumIncreasing(std::string* dest, int64_t value) {
  const uint64_t magnitude =
      value < 0 ? ~static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  if (magnitude < 64) {
    dest->push_back(static_cast<char>(0x80u ^ static_cast<uint8_t>(value)));
    return;
  }
  int bits = 0;  // bits in the magnitude
  for (uint64_t m = magnitude; m != 0; m >>= 1) ++bits;
  // 1 sign bit + len size bits (counting the delimiter) + value bits fit in
  // 8 * len bits: len = ceil((bits + 1) / 7).
  const int len = (bits + 1 + 6) / 7;
  unsigned char buf[10];
  const unsigned char sign = value < 0 ? 0xffu : 0x00u;
  buf[0] = sign;
  buf[1] = sign;
  for (int i = 0; i < 8; ++i) {
    buf[2 + i] = static_cast<unsigned char>(static_cast<uint64_t>(value) >>
                                            (56 - 8 * i));
  }
  // Header bits by length: len - 1 ones after the sign's one, as TF's
  // kLengthToHeaderBits.
  static const unsigned char kHeader[11][2] = {
      {0, 0},    {0x80, 0}, {0xc0, 0}, {0xe0, 0},    {0xf0, 0},   {0xf8, 0},
      {0xfc, 0}, {0xfe, 0}, {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  unsigned char* begin = buf + 10 - len;
  begin[0] ^= kHeader[len][0];
  begin[1] ^= kHeader[len][1];
  dest->append(reinterpret_cast<const char*>(begin), len);
}

// Bytes as they are, 0x00 as 00 ff, 0xff as ff 00, then the separator 00 01.
void AppendString(std::string* dest, absl::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u == 0x00u) {
      dest->push_back('\x00');
      dest->push_back('\xff');
    } else if (u == 0xffu) {
      dest->push_back('\xff');
      dest->push_back('\x00');
    } else {
      dest->push_back(c);
    }
  }
  dest->push_back('\x00');
  dest->push_back('\x01');
}

}  // namespace ordered_code

std::string EncodeTensorSliceKey(absl::string_view full_key,
                                 const std::vector<BundleSliceExtent>& slice) {
  std::string key;
  ordered_code::AppendNumIncreasing(&key, 0);
  ordered_code::AppendString(&key, full_key);
  ordered_code::AppendNumIncreasing(&key, slice.size());
  for (const BundleSliceExtent& e : slice) {
    ordered_code::AppendSignedNumIncreasing(&key, e.start);
    ordered_code::AppendSignedNumIncreasing(&key, e.length);
  }
  return key;
}

std::string TensorSliceSpec(const std::vector<BundleSliceExtent>& slice) {
  std::string spec;
  for (size_t d = 0; d < slice.size(); ++d) {
    if (d > 0) spec += ':';
    if (slice[d].length < 0) {
      spec += '-';
    } else {
      absl::StrAppend(&spec, slice[d].start, ",", slice[d].length);
    }
  }
  return spec;
}

}  // namespace weft
