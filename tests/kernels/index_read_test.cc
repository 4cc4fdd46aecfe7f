// ReadIndexTensor and ReadIndexScalar (kernels/common/copy_util.h): the
// index inputs of shape, slicing, gather and list kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kernels/common/copy_util.h"
#include "tests/kernels/index_tensor_testutil.h"

namespace weft {
namespace {

using test::Ints;
using ::testing::HasSubstr;

// Each index dtype at its extremes, as a vector, a scalar and a vector of
// one.
TEST(ReadIndexTest, ReadsEveryIndexDtype) {
  struct Case {
    DataType dtype;
    std::vector<int64_t> values;
  };
  const Case cases[] = {
      {DT_INT8, {-128, 0, 127}},
      {DT_INT16, {-32768, 5, 32767}},
      {DT_INT32, {-2147483648LL, 7, 2147483647}},
      {DT_INT64, {-(int64_t{1} << 40), 9, int64_t{1} << 40}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(DataTypeName(c.dtype));
    std::vector<int64_t> out = {42};
    Status s = ReadIndexTensor(Ints(c.dtype, c.values, TensorShape({3})),
                               "perm", &out);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out, c.values);
    int64_t scalar = 0;
    s = ReadIndexScalar(Ints(c.dtype, {c.values[0]}, TensorShape({})), "axis",
                        /*allow_vector_of_one=*/false, &scalar);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(scalar, c.values[0]);
    s = ReadIndexScalar(Ints(c.dtype, {c.values[2]}, TensorShape({1})), "axis",
                        /*allow_vector_of_one=*/true, &scalar);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(scalar, c.values[2]);
  }
  std::vector<int64_t> out = {1, 2};
  ASSERT_TRUE(
      ReadIndexTensor(Ints(DT_INT32, {}, TensorShape({0})), "dims", &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(ReadIndexTest, ErrorsNameTheInputAndLeaveTheScalar) {
  int64_t scalar = 17;
  Status s = ReadIndexScalar(Ints(DT_INT32, {1}, TensorShape({1})),
                             "axis (input 2)", false, &scalar);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("axis (input 2) must be a scalar but has shape [1]"));
  s = ReadIndexScalar(Ints(DT_INT32, {1, 2}, TensorShape({2})), "axis", true,
                      &scalar);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("has shape [2]"));

  Tensor f(DT_FLOAT, TensorShape({}));
  *f.data<float>() = 1.0f;
  const std::string wrong_dtype =
      std::string("must hold int8, int16, int32 or int64 values but is ") +
      DataTypeName(DT_FLOAT);
  s = ReadIndexScalar(f, "index (input 1)", false, &scalar);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("index (input 1) " + wrong_dtype));
  EXPECT_EQ(scalar, 17);

  std::vector<int64_t> out = {5};
  s = ReadIndexTensor(f, "perm (input 1)", &out);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("perm (input 1) " + wrong_dtype));
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace weft
