#include "core/types.h"

#include <algorithm>

#include "core/dtype_traits.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

// The numeric values are TensorFlow's (tensorflow/core/framework/types.proto);
// graph files store them directly.
TEST(DataTypeTest, EnumValuesMatchTensorFlow) {
  EXPECT_EQ(DT_FLOAT, 1);
  EXPECT_EQ(DT_DOUBLE, 2);
  EXPECT_EQ(DT_INT32, 3);
  EXPECT_EQ(DT_UINT8, 4);
  EXPECT_EQ(DT_INT16, 5);
  EXPECT_EQ(DT_INT8, 6);
  EXPECT_EQ(DT_STRING, 7);
  EXPECT_EQ(DT_COMPLEX64, 8);
  EXPECT_EQ(DT_INT64, 9);
  EXPECT_EQ(DT_BOOL, 10);
  EXPECT_EQ(DT_BFLOAT16, 14);
  EXPECT_EQ(DT_UINT16, 17);
  EXPECT_EQ(DT_COMPLEX128, 18);
  EXPECT_EQ(DT_HALF, 19);
  EXPECT_EQ(DT_RESOURCE, 20);
  EXPECT_EQ(DT_VARIANT, 21);
  EXPECT_EQ(DT_UINT32, 22);
  EXPECT_EQ(DT_UINT64, 23);
}

TEST(DataTypeTest, NamesRoundTrip) {
  for (DataType dt : AllDataTypes()) {
    auto parsed = DataTypeFromName(DataTypeName(dt));
    ASSERT_TRUE(parsed.has_value()) << DataTypeName(dt);
    EXPECT_EQ(*parsed, dt);
  }
  EXPECT_FALSE(DataTypeFromName("doubel").has_value());
  EXPECT_EQ(DataTypeName(static_cast<DataType>(99)), "dtype(99)");
  EXPECT_FALSE(IsValidDataType(0));
  EXPECT_FALSE(IsValidDataType(24));
  EXPECT_TRUE(IsValidDataType(19));
}

TEST(DataTypeTest, SizesMatchCppTypes) {
  EXPECT_EQ(DataTypeSize(DT_FLOAT), sizeof(float));
  EXPECT_EQ(DataTypeSize(DT_DOUBLE), sizeof(double));
  EXPECT_EQ(DataTypeSize(DT_HALF), sizeof(half));
  EXPECT_EQ(DataTypeSize(DT_BFLOAT16), sizeof(bfloat16));
  EXPECT_EQ(DataTypeSize(DT_INT64), sizeof(int64_t));
  EXPECT_EQ(DataTypeSize(DT_BOOL), sizeof(bool));
  EXPECT_EQ(DataTypeSize(DT_COMPLEX128), sizeof(complex128));
  EXPECT_EQ(DataTypeSize(DT_STRING), 0u);
  EXPECT_EQ(DataTypeSize(DT_INVALID), 0u);
  EXPECT_FALSE(DataTypeIsPod(DT_STRING));
  EXPECT_TRUE(DataTypeIsPod(DT_UINT64));
}

TEST(DataTypeTest, TraitsMapBothWays) {
  EXPECT_EQ(DataTypeToEnum<float>::value, DT_FLOAT);
  EXPECT_EQ(DataTypeToEnum<half>::value, DT_HALF);
  EXPECT_EQ(DataTypeToEnum<bfloat16>::value, DT_BFLOAT16);
  EXPECT_EQ(DataTypeToEnum<int64_t>::value, DT_INT64);
  EXPECT_TRUE((std::is_same_v<EnumToDataType<DT_INT32>::Type, int32_t>));
  EXPECT_TRUE((std::is_same_v<EnumToDataType<DT_STRING>::Type, std::string>));
}

TEST(DataTypeTest, Categories) {
  EXPECT_TRUE(DataTypeIsFloating(DT_BFLOAT16));
  EXPECT_FALSE(DataTypeIsFloating(DT_INT32));
  EXPECT_TRUE(DataTypeIsInteger(DT_UINT16));
  EXPECT_FALSE(DataTypeIsInteger(DT_QINT8));
  EXPECT_TRUE(DataTypeIsQuantized(DT_QINT8));
  EXPECT_TRUE(DataTypeIsComplex(DT_COMPLEX64));
  EXPECT_TRUE(DataTypeIsUnsigned(DT_UINT64));
  EXPECT_FALSE(DataTypeIsUnsigned(DT_INT64));
}

TEST(DataTypeTest, Aliases) {
  auto real = DataTypeAlias("realnumbertype");
  ASSERT_TRUE(real.has_value());
  auto has = [](const std::vector<DataType>& v, DataType dt) {
    return std::find(v.begin(), v.end(), dt) != v.end();
  };
  EXPECT_TRUE(has(*real, DT_HALF));
  EXPECT_FALSE(has(*real, DT_COMPLEX64));
  EXPECT_FALSE(has(*real, DT_BOOL));
  auto number = DataTypeAlias("numbertype");
  ASSERT_TRUE(number.has_value());
  EXPECT_TRUE(has(*number, DT_COMPLEX64));
  EXPECT_FALSE(has(*number, DT_BOOL));
  EXPECT_FALSE(has(*number, DT_STRING));
  auto all = DataTypeAlias("all");
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(has(*all, DT_STRING));
  EXPECT_FALSE(DataTypeAlias("nosuchtype").has_value());
  EXPECT_EQ(DataTypeListString({DT_FLOAT, DT_DOUBLE}), "[float, double]");
}

}  // namespace
}  // namespace weft
