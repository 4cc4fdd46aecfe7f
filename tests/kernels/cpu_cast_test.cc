// Cast between bool, int8, int16, int32, int64, uint8, uint16, half,
// bfloat16, float and double: every pair on values that convert exactly,
// and each rule of cast_op.cc (wrap-around, rounding through float,
// floating-to-integer truncation and its out-of-range values, Truncate) on
// values whose results follow by hand from the rule, as worked out in the
// comments. TensorFlow's own outputs are checked in cpu_cwise_golden_test.cc.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kernels/op_kernel.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::AsTensorOfType;
using test::ExpectTensorEqual;
using test::OpRunner;
using test::ToDoubles;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

const DataType kTypes[] = {DT_BOOL,     DT_INT8,  DT_INT16,  DT_INT32,
                           DT_INT64,    DT_UINT8, DT_UINT16, DT_HALF,
                           DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};

StatusOr<Tensor> Cast(const Tensor& x, DataType dst, bool truncate = false,
                      int threads = 0) {
  OpRunner runner(
      "Cast",
      {{"DstT", AttrValue::Type(dst)}, {"Truncate", AttrValue::Bool(truncate)}},
      threads);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, runner.Run({x}));
  return out[0];
}

Tensor MustCast(const Tensor& x, DataType dst, bool truncate = false,
                int threads = 0) {
  StatusOr<Tensor> out = Cast(x, dst, truncate, threads);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Tensor();
}

// Values every dtype holds exactly; bool holds their != 0.
TEST(CastTest, EveryPairOnExactValues) {
  const std::vector<double> v = {0, 1, 2, 5, 100, 0, 7};
  for (DataType src : kTypes) {
    for (DataType dst : kTypes) {
      SCOPED_TRACE(std::string(DataTypeName(src)) + " -> " + DataTypeName(dst));
      const Tensor x = AsTensorOfType(src, v, {7});
      std::vector<double> want = ToDoubles(x);
      if (dst == DT_BOOL) {
        for (double& w : want) w = w != 0;
      }
      const Tensor y = MustCast(x, dst);
      ExpectTensorEqual(y, AsTensorOfType(dst, want, {7}));
      EXPECT_EQ(y.dtype(), dst);
    }
  }
}

TEST(CastTest, SameTypePassesTheInputThrough) {
  for (DataType dt : kTypes) {
    const Tensor x = AsTensorOfType(dt, {1, 0, 1}, {3});
    OpRunner runner("Cast", {{"DstT", AttrValue::Type(dt)}});
    StatusOr<std::vector<Tensor>> out = runner.Run({x});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].raw_data(), x.raw_data()) << DataTypeName(dt);
    EXPECT_FALSE(runner.kernel()->IsExpensive());
  }
  OpRunner convert("Cast", {{"DstT", AttrValue::Type(DT_FLOAT)}});
  ASSERT_TRUE(convert.Run({AsTensor<int32_t>({1}, {1})}).ok());
  EXPECT_TRUE(convert.kernel()->IsExpensive());
}

TEST(CastTest, ToAndFromBool) {
  for (DataType src : {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE}) {
    SCOPED_TRACE(DataTypeName(src));
    // NaN != 0 is true; both zeros are false.
    ExpectTensorEqual(
        MustCast(AsTensorOfType(src, {kNan, -0.0, 0, 0.001, -kInf}, {5}),
                 DT_BOOL),
        AsTensor<bool>({true, false, false, true, true}, {5}));
  }
  ExpectTensorEqual(
      MustCast(AsTensor<int64_t>({-5, 0, int64_t{1} << 40}, {3}), DT_BOOL),
      AsTensor<bool>({true, false, true}, {3}));
  ExpectTensorEqual(MustCast(AsTensor<bool>({true, false}, {2}), DT_HALF),
                    AsTensorOfType(DT_HALF, {1, 0}, {2}));
}

// Integers keep their low bits.
TEST(CastTest, IntegersWrap) {
  const Tensor x =
      AsTensor<int64_t>({300, -129, 65535, 70000, -1, (int64_t{1} << 40) + 5,
                         std::numeric_limits<int64_t>::min()},
                        {7});
  // 300 = 256 + 44; -129 = -256 + 127; 65535 = 0xFFFF; 70000 = 65536 + 4464;
  // 2^40 + 5 keeps 5; -2^63 keeps 0.
  ExpectTensorEqual(MustCast(x, DT_INT8),
                    AsTensor<int8_t>({44, 127, -1, 112, -1, 5, 0}, {7}));
  ExpectTensorEqual(MustCast(x, DT_UINT8),
                    AsTensor<uint8_t>({44, 127, 255, 112, 255, 5, 0}, {7}));
  ExpectTensorEqual(MustCast(x, DT_INT16),
                    AsTensor<int16_t>({300, -129, -1, 4464, -1, 5, 0}, {7}));
  ExpectTensorEqual(
      MustCast(x, DT_UINT16),
      AsTensor<uint16_t>({300, 65407, 65535, 4464, 65535, 5, 0}, {7}));
  ExpectTensorEqual(
      MustCast(x, DT_INT32),
      AsTensor<int32_t>({300, -129, 65535, 70000, -1, 5, 0}, {7}));
  ExpectTensorEqual(MustCast(AsTensor<uint16_t>({65535, 32768}, {2}), DT_INT16),
                    AsTensor<int16_t>({-1, -32768}, {2}));
  ExpectTensorEqual(MustCast(AsTensor<int8_t>({-1, -128}, {2}), DT_UINT16),
                    AsTensor<uint16_t>({65535, 65408}, {2}));
}

// Floating to integer: truncation toward zero within range; NaN, infinities
// and values out of int32's range give int32's minimum, of which narrower
// types keep the low bits (0 for 8 and 16 bits); int64 has its own range.
TEST(CastTest, FloatToIntegerTruncatesAndDefinesOutOfRange) {
  const std::vector<double> v = {2.7,   -2.7, -1.5, 127.9, 300.7, -129.5,
                                 65504, kNan, kInf, -kInf, 3e9,   -3e9};
  const Tensor x = AsTensorOfType(DT_FLOAT, v, {12});
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  // Truncated: 2, -2, -1, 127, 300, -129, 65504; then the out-of-range ones.
  ExpectTensorEqual(MustCast(x, DT_INT32),
                    AsTensor<int32_t>({2, -2, -1, 127, 300, -129, 65504, kMin32,
                                       kMin32, kMin32, kMin32, kMin32},
                                      {12}));
  // 300 keeps 44, -129 keeps 127, 65504 = 0xFFE0 keeps 0xE0 = -32.
  ExpectTensorEqual(
      MustCast(x, DT_INT8),
      AsTensor<int8_t>({2, -2, -1, 127, 44, 127, -32, 0, 0, 0, 0, 0}, {12}));
  // -2 is 254, -1 is 255, 300 keeps 44, -129 keeps 127, 65504 keeps 224.
  ExpectTensorEqual(
      MustCast(x, DT_UINT8),
      AsTensor<uint8_t>({2, 254, 255, 127, 44, 127, 224, 0, 0, 0, 0, 0}, {12}));
  ExpectTensorEqual(
      MustCast(x, DT_INT16),
      AsTensor<int16_t>({2, -2, -1, 127, 300, -129, -32, 0, 0, 0, 0, 0}, {12}));
  ExpectTensorEqual(
      MustCast(x, DT_UINT16),
      AsTensor<uint16_t>(
          {2, 65534, 65535, 127, 300, 65407, 65504, 0, 0, 0, 0, 0}, {12}));
  // int64 holds +-3e9.
  ExpectTensorEqual(MustCast(x, DT_INT64),
                    AsTensor<int64_t>({2, -2, -1, 127, 300, -129, 65504, kMin64,
                                       kMin64, kMin64, 3000000000, -3000000000},
                                      {12}));
  // The edges of int32 and int64 from double: 2^31 - 0.1 truncates to
  // 2^31 - 1, -2^31 - 0.9 to -2^31, 2^31 is out; 2^63 is out, -2^63 in.
  const Tensor d = AsTensorOfType(
      DT_DOUBLE, {2147483647.9, -2147483648.9, 2147483648.0}, {3});
  ExpectTensorEqual(MustCast(d, DT_INT32),
                    AsTensor<int32_t>({2147483647, kMin32, kMin32}, {3}));
  const Tensor e = AsTensorOfType(
      DT_DOUBLE, {9223372036854775808.0, -9223372036854775808.0, 1e19}, {3});
  ExpectTensorEqual(MustCast(e, DT_INT64),
                    AsTensor<int64_t>({kMin64, kMin64, kMin64}, {3}));
  // half and bfloat16 sources follow the same rule through float.
  ExpectTensorEqual(
      MustCast(AsTensorOfType(DT_HALF, {65504, -1.5, kInf}, {3}), DT_INT8),
      AsTensor<int8_t>({-32, -1, 0}, {3}));
  ExpectTensorEqual(
      MustCast(AsTensorOfType(DT_BFLOAT16, {65536, 3e9}, {2}), DT_INT32),
      AsTensor<int32_t>({65536, kMin32}, {2}));
}

// Integers to floating types round to nearest even; to half and bfloat16
// through float.
TEST(CastTest, IntegerToFloatRounding) {
  const Tensor x = AsTensor<int64_t>(
      {(1 << 24) + 1, (1 << 24) + 3, (int64_t{1} << 53) + 1, 2049, 2051, 65520},
      {6});
  // float: 2^24 + 1 ties to 2^24, 2^24 + 3 ties up to 2^24 + 4.
  ExpectTensorEqual(MustCast(x, DT_FLOAT),
                    AsTensor<float>({16777216.0f, 16777220.0f,
                                     9007199254740992.0f, 2049, 2051, 65520},
                                    {6}));
  // double: 2^53 + 1 ties to 2^53.
  EXPECT_EQ(ToDoubles(MustCast(x, DT_DOUBLE))[2], 9007199254740992.0);
  // half: 2049 ties to 2048, 2051 ties to 2052, 65520 (above the largest
  // half plus half an ulp) is inf.
  const std::vector<double> h = ToDoubles(MustCast(x, DT_HALF));
  EXPECT_EQ(h[3], 2048);
  EXPECT_EQ(h[4], 2052);
  EXPECT_EQ(h[5], kInf);
  // bfloat16: 2049 (8 bits of mantissa) becomes 2048, 65520 becomes 65536.
  const std::vector<double> b = ToDoubles(MustCast(x, DT_BFLOAT16));
  EXPECT_EQ(b[3], 2048);
  EXPECT_EQ(b[5], 65536);
}

// double to half and bfloat16 rounds through float, as Eigen (and so
// TensorFlow) converts: 1 + 2^-11 + 2^-40 is above the midpoint between 1 and
// the next half, 1 + 2^-10, so rounding once gives 1 + 2^-10; float rounds it
// to the midpoint 1 + 2^-11, which then ties to even, 1. The same for
// bfloat16 with 2^-8.
TEST(CastTest, DoubleToHalfAndBfloat16RoundThroughFloat) {
  const Tensor x = AsTensor<double>(
      {1 + std::ldexp(1, -11) + std::ldexp(1, -40),
       1 + std::ldexp(1, -8) + std::ldexp(1, -40), 65519.99, 65520, kNan},
      {5});
  const std::vector<double> h = ToDoubles(MustCast(x, DT_HALF));
  EXPECT_EQ(h[0], 1);
  EXPECT_EQ(h[2], 65504);  // below the midpoint to inf
  EXPECT_EQ(h[3], kInf);   // the midpoint ties to "even": inf
  EXPECT_TRUE(std::isnan(h[4]));
  const std::vector<double> b = ToDoubles(MustCast(x, DT_BFLOAT16));
  EXPECT_EQ(b[1], 1);
  EXPECT_TRUE(std::isnan(b[4]));
  // Widening is exact.
  const Tensor wide =
      MustCast(AsTensorOfType(DT_HALF, {65504, 6e-8}, {2}), DT_DOUBLE);
  EXPECT_EQ(ToDoubles(wide)[0], 65504);
  EXPECT_EQ(ToDoubles(wide)[1], std::ldexp(1, -24));
}

// Truncate=true clears the low mantissa bits before converting, for
// double -> float and half, float -> half and bfloat16: the value moves
// toward zero instead of to the nearest.
TEST(CastTest, TruncateClearsLowBits) {
  // float -> bfloat16: 1.9990234375 = 1 + 1023/1024 rounds up to 2; cleared
  // to 8 bits of mantissa it is 1 + 127/128 = 1.9921875.
  const Tensor f = AsTensor<float>({1.9990234375f, -1.9990234375f, NAN}, {3});
  ExpectTensorEqual(MustCast(f, DT_BFLOAT16),
                    AsTensorOfType(DT_BFLOAT16, {2, -2, kNan}, {3}));
  ExpectTensorEqual(
      MustCast(f, DT_BFLOAT16, true),
      AsTensorOfType(DT_BFLOAT16, {1.9921875, -1.9921875, kNan}, {3}));
  // float -> half: 1 + 2^-11 + 2^-12 rounds up to 1 + 2^-10, truncates to 1.
  const Tensor g = AsTensor<float>({1 + 0x1p-11f + 0x1p-12f, 70000}, {2});
  ExpectTensorEqual(
      MustCast(g, DT_HALF),
      AsTensorOfType(DT_HALF, {1 + std::ldexp(1, -10), kInf}, {2}));
  // 70000 stays out of half's range either way.
  ExpectTensorEqual(MustCast(g, DT_HALF, true),
                    AsTensorOfType(DT_HALF, {1, kInf}, {2}));
  // double -> float: 1 + 2^-24 + 2^-30 rounds up to 1 + 2^-23, truncates to
  // 1. double -> half the same way at 11 bits.
  const Tensor d = AsTensor<double>(
      {1 + std::ldexp(1, -24) + std::ldexp(1, -30), 65519.99}, {2});
  EXPECT_EQ(ToDoubles(MustCast(d, DT_FLOAT))[0], 1 + std::ldexp(1, -23));
  EXPECT_EQ(ToDoubles(MustCast(d, DT_FLOAT, true))[0], 1);
  // 65519.99 truncated to 11 bits is 65504 (rounded, too).
  EXPECT_EQ(ToDoubles(MustCast(d, DT_HALF, true))[1], 65504);
  // Elsewhere Truncate changes nothing (as in TensorFlow): double ->
  // bfloat16 still rounds, and widening is exact.
  const Tensor r = AsTensor<double>({1.9990234375}, {1});
  ExpectTensorEqual(MustCast(r, DT_BFLOAT16, true),
                    AsTensorOfType(DT_BFLOAT16, {2}, {1}));
  ExpectTensorEqual(
      MustCast(AsTensorOfType(DT_HALF, {1.5}, {1}), DT_FLOAT, true),
      AsTensor<float>({1.5f}, {1}));
}

TEST(CastTest, LargeTensorsMatchOnTwoThreads) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<double> u(-70000, 70000);
  std::vector<double> v(200003);
  for (double& e : v) e = u(rng);
  const Tensor x = AsTensorOfType(DT_FLOAT, v, {200003});
  for (DataType dst : {DT_HALF, DT_BFLOAT16, DT_INT8, DT_UINT16, DT_INT64,
                       DT_DOUBLE, DT_BOOL}) {
    SCOPED_TRACE(DataTypeName(dst));
    ExpectTensorEqual(MustCast(x, dst, false, 2), MustCast(x, dst, false, 0));
    ExpectTensorEqual(MustCast(x, dst, true, 2), MustCast(x, dst, true, 0));
  }
  const Tensor empty = MustCast(Tensor(DT_INT32, {0, 5}), DT_HALF);
  EXPECT_EQ(empty.shape(), TensorShape({0, 5}));
  EXPECT_EQ(empty.dtype(), DT_HALF);
}

TEST(CastTest, UnservedTypesAreRefused) {
  StatusOr<Tensor> out = Cast(AsTensor<float>({1}, {1}), DT_COMPLEX64);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "no kernel"))
      << out.status();
  out = Cast(AsTensorOfType(DT_UINT32, {1}, {1}), DT_FLOAT);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(absl::StrContains(out.status().message(), "no kernel"))
      << out.status();
}

}  // namespace
}  // namespace weft
