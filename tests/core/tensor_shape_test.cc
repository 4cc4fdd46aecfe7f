#include "core/tensor_shape.h"

#include "gtest/gtest.h"

namespace weft {
namespace {

TEST(TensorShapeTest, BuildCountsElements) {
  auto s = TensorShape::Build({2, 3, 4});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dims(), 3);
  EXPECT_EQ(s->num_elements(), 24);
  EXPECT_EQ(s->DebugString(), "[2,3,4]");
  EXPECT_EQ(TensorShape().num_elements(), 1);  // scalar
  EXPECT_EQ(TensorShape().DebugString(), "[]");
  EXPECT_EQ(TensorShape({5, 0, 7}).num_elements(), 0);
}

TEST(TensorShapeTest, RejectsNegativeDims) {
  auto s = TensorShape::Build({2, -1});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("negative"), std::string::npos)
      << s.status();
}

TEST(TensorShapeTest, RejectsElementOverflow) {
  // 2^31 * 2^31 * 4 = 2^64 overflows int64; 2^31 * 2^31 = 2^62 is the limit.
  const int64_t big = int64_t{1} << 31;
  EXPECT_TRUE(TensorShape::Build({big, big}).ok());
  auto s = TensorShape::Build({big, big, 4});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("2^62"), std::string::npos)
      << s.status();
  // A zero dim makes the count 0 even next to huge ones.
  auto z = TensorShape::Build({0, big, big, big});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->num_elements(), 0);
}

TEST(TensorShapeTest, RejectsAbsurdRank) {
  std::vector<int64_t> dims(300, 1);
  EXPECT_FALSE(TensorShape::Build(dims).ok());
}

TEST(PartialTensorShapeTest, UnknownRankAndDims) {
  PartialTensorShape unknown;
  EXPECT_TRUE(unknown.unknown_rank());
  EXPECT_EQ(unknown.dims(), -1);
  EXPECT_EQ(unknown.DebugString(), "<unknown>");
  EXPECT_TRUE(unknown.IsCompatibleWith(TensorShape({3, 4})));

  PartialTensorShape p({2, -1});
  EXPECT_FALSE(p.IsFullyDefined());
  EXPECT_EQ(p.DebugString(), "[2,?]");
  EXPECT_TRUE(p.IsCompatibleWith(TensorShape({2, 9})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({3, 9})));
  EXPECT_FALSE(p.IsCompatibleWith(TensorShape({2})));
  EXPECT_FALSE(p.ToTensorShape().ok());

  PartialTensorShape full({2, 3});
  auto t = full.ToTensorShape();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, TensorShape({2, 3}));
  EXPECT_FALSE(PartialTensorShape::Build({2, -2}).ok());
}

}  // namespace
}  // namespace weft
