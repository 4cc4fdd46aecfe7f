#include "savedmodel/crc32c.h"

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace weft {
namespace {

using ExtendFn = uint32_t (*)(uint32_t, const void*, size_t);

struct Impl {
  const char* name;
  ExtendFn extend;
};

std::vector<Impl> Implementations() {
  std::vector<Impl> impls = {{"portable", crc32c::internal::ExtendPortable}};
  if (crc32c::internal::HardwareAvailable()) {
    impls.push_back({"sse4.2", crc32c::internal::ExtendHardware});
  }
  impls.push_back({"dispatch", crc32c::Extend});
  return impls;
}

// RFC 3720 (iSCSI), appendix B.4, and the usual check value.
TEST(Crc32cTest, KnownVectors) {
  unsigned char zeros[32] = {}, ones[32], up[32], down[32];
  for (int i = 0; i < 32; ++i) {
    ones[i] = 0xff;
    up[i] = static_cast<unsigned char>(i);
    down[i] = static_cast<unsigned char>(31 - i);
  }
  // An iSCSI read command PDU.
  const unsigned char pdu[48] = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  for (const Impl& impl : Implementations()) {
    SCOPED_TRACE(impl.name);
    EXPECT_EQ(impl.extend(0, "123456789", 9), 0xe3069283u);
    EXPECT_EQ(impl.extend(0, zeros, 32), 0x8a9136aau);
    EXPECT_EQ(impl.extend(0, ones, 32), 0x62a8ab43u);
    EXPECT_EQ(impl.extend(0, up, 32), 0x46dd794eu);
    EXPECT_EQ(impl.extend(0, down, 32), 0x113fdb5cu);
    EXPECT_EQ(impl.extend(0, pdu, 48), 0xd9963a56u);
    EXPECT_EQ(impl.extend(0, "", 0), 0u);
  }
}

// Every length and alignment around the block sizes of the three-stream
// path, whole and split in two, agrees with the portable tables.
TEST(Crc32cTest, ImplementationsAgree) {
  std::mt19937 rng(12345);
  std::vector<unsigned char> buf(3 * 8192 * 2 + 3 * 256 + 64);
  for (auto& b : buf) b = static_cast<unsigned char>(rng());
  std::vector<size_t> lengths;
  for (size_t n = 0; n < 80; ++n) lengths.push_back(n);
  for (size_t n : {767, 768, 769, 1000, 3 * 8192 - 1, 3 * 8192, 3 * 8192 + 1,
                   3 * 8192 + 3 * 256 + 7, 2 * 3 * 8192 + 5}) {
    lengths.push_back(n);
  }
  for (const Impl& impl : Implementations()) {
    SCOPED_TRACE(impl.name);
    for (size_t align = 0; align < 8; ++align) {
      for (size_t n : lengths) {
        if (align + n > buf.size()) continue;
        const unsigned char* p = buf.data() + align;
        const uint32_t want = crc32c::internal::ExtendPortable(0, p, n);
        ASSERT_EQ(impl.extend(0, p, n), want)
            << "align " << align << " n " << n;
        const size_t cut = n / 3;
        ASSERT_EQ(impl.extend(impl.extend(0, p, cut), p + cut, n - cut), want)
            << "align " << align << " n " << n << " cut " << cut;
      }
    }
  }
}

TEST(Crc32cTest, MaskIsTensorFlowsAndRoundTrips) {
  const uint32_t crc = crc32c::Value("foo", 3);
  EXPECT_NE(crc32c::Mask(crc), crc);
  EXPECT_NE(crc32c::Mask(crc32c::Mask(crc)), crc);
  EXPECT_EQ(crc32c::Unmask(crc32c::Mask(crc)), crc);
  EXPECT_EQ(crc32c::Unmask(crc32c::Unmask(crc32c::Mask(crc32c::Mask(crc)))),
            crc);
  // ((crc >> 15) | (crc << 17)) + 0xa282ead8
  EXPECT_EQ(crc32c::Mask(0), 0xa282ead8u);
  EXPECT_EQ(crc32c::Mask(0x00008000u), 0xa282ead9u);
  EXPECT_EQ(crc32c::Mask(1u), (1u << 17) + 0xa282ead8u);
}

}  // namespace
}  // namespace weft
