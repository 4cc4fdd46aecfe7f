#include "ops/attr_value.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace weft {
namespace {

TEST(AttrValueTest, TypedGettersReadTheirKind) {
  AttrMap attrs = {
      {"s", AttrValue::String("SAME")},
      {"i", AttrValue::Int(-3)},
      {"f", AttrValue::Float(0.5f)},
      {"b", AttrValue::Bool(true)},
      {"T", AttrValue::Type(DT_HALF)},
      {"shape", AttrValue::Shape(PartialTensorShape({2, -1}))},
      {"strides", AttrValue::IntList({1, 2, 2, 1})},
      {"types", AttrValue::TypeList({DT_FLOAT, DT_INT32})},
      {"empty", AttrValue::EmptyList()},
  };
  std::string s;
  ASSERT_TRUE(GetNodeAttr(attrs, "s", &s).ok());
  EXPECT_EQ(s, "SAME");
  int64_t i;
  ASSERT_TRUE(GetNodeAttr(attrs, "i", &i).ok());
  EXPECT_EQ(i, -3);
  int32_t i32;
  ASSERT_TRUE(GetNodeAttr(attrs, "i", &i32).ok());
  EXPECT_EQ(i32, -3);
  float f;
  ASSERT_TRUE(GetNodeAttr(attrs, "f", &f).ok());
  EXPECT_EQ(f, 0.5f);
  bool b;
  ASSERT_TRUE(GetNodeAttr(attrs, "b", &b).ok());
  EXPECT_TRUE(b);
  DataType t;
  ASSERT_TRUE(GetNodeAttr(attrs, "T", &t).ok());
  EXPECT_EQ(t, DT_HALF);
  PartialTensorShape shape;
  ASSERT_TRUE(GetNodeAttr(attrs, "shape", &shape).ok());
  EXPECT_EQ(shape.DebugString(), "[2,?]");
  std::vector<int32_t> strides;
  ASSERT_TRUE(GetNodeAttr(attrs, "strides", &strides).ok());
  EXPECT_EQ(strides, (std::vector<int32_t>{1, 2, 2, 1}));
  std::vector<DataType> types;
  ASSERT_TRUE(GetNodeAttr(attrs, "types", &types).ok());
  EXPECT_EQ(types.size(), 2u);
  // An empty list has no element type and reads as any list.
  std::vector<std::string> strings = {"stale"};
  ASSERT_TRUE(GetNodeAttr(attrs, "empty", &strings).ok());
  EXPECT_TRUE(strings.empty());
}

TEST(AttrValueTest, GetterErrorsNameTheAttrAndTypes) {
  AttrMap attrs = {{"i", AttrValue::Int(int64_t{1} << 40)},
                   {"l", AttrValue::IntList({1})}};
  std::string s;
  Status st = GetNodeAttr(attrs, "i", &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "attr 'i' should be string, got int");
  st = GetNodeAttr(attrs, "missing", &s);
  EXPECT_EQ(st.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(st.message(), "no attr named 'missing'");
  int32_t small;
  st = GetNodeAttr(attrs, "i", &small);
  EXPECT_NE(st.message().find("out of int32 range"), std::string::npos) << st;
  std::vector<float> floats;
  st = GetNodeAttr(attrs, "l", &floats);
  EXPECT_EQ(st.message(), "attr 'l' should be list(float), got list(int)");
}

TEST(AttrValueTest, EqualityAndSummary) {
  EXPECT_EQ(AttrValue::Int(3), AttrValue::Int(3));
  EXPECT_NE(AttrValue::Int(3), AttrValue::Float(3));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(AttrValue::Float(nan), AttrValue::Float(nan));
  EXPECT_NE(AttrValue::IntList({1, 2}), AttrValue::IntList({1}));
  Tensor a(DT_FLOAT, TensorShape({2}));
  static_cast<float*>(a.raw_data())[0] = 1;
  static_cast<float*>(a.raw_data())[1] = 2;
  Tensor b(DT_FLOAT, TensorShape({2}));
  static_cast<float*>(b.raw_data())[0] = 1;
  static_cast<float*>(b.raw_data())[1] = 2;
  EXPECT_EQ(AttrValue::TensorValue(a), AttrValue::TensorValue(b));
  static_cast<float*>(b.raw_data())[1] = 3;
  EXPECT_NE(AttrValue::TensorValue(a), AttrValue::TensorValue(b));

  EXPECT_EQ(SummarizeAttrValue(AttrValue::String("SAME")), "\"SAME\"");
  EXPECT_EQ(SummarizeAttrValue(AttrValue::Bool(false)), "false");
  EXPECT_EQ(SummarizeAttrValue(AttrValue::Type(DT_BFLOAT16)), "bfloat16");
  EXPECT_EQ(SummarizeAttrValue(AttrValue::IntList({1, 2})), "[1, 2]");
  EXPECT_EQ(SummarizeAttrValue(AttrValue::Shape(PartialTensorShape::Scalar())),
            "[]");
  EXPECT_EQ(SummarizeAttrValue(AttrValue::Shape(PartialTensorShape())),
            "<unknown>");
  EXPECT_EQ(AttrValueTypeName(AttrValue::TypeList({DT_INT32})), "list(type)");
  NameAttrList fn{"my_fn", {{"T", AttrValue::Type(DT_FLOAT)}}};
  EXPECT_EQ(AttrValue::Func(fn), AttrValue::Func(fn));
  EXPECT_EQ(SummarizeAttrValue(AttrValue::Func(fn)), "my_fn");
}

// A list lives on the heap once written; copies are deep, and an unwritten
// list reads as empty.
TEST(AttrValueTest, ListsCopyDeepAndReadEmptyUnwritten) {
  AttrValue scalar = AttrValue::Int(3);
  const AttrValue& read = scalar;
  EXPECT_EQ(read.list->size(), 0u);
  EXPECT_TRUE(read.list->i.empty());
  EXPECT_TRUE(AttrValue::EmptyList() == AttrValue::IntList({}));
  EXPECT_LT(sizeof(AttrValue), 256u);

  AttrValue a = AttrValue::IntList({1, 2});
  AttrValue b = a;
  b.list->i.push_back(3);
  EXPECT_EQ(a.list->i, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(b.list->i, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_FALSE(a == b);
  a = b;
  EXPECT_TRUE(a == b);
  b.list->i.clear();
  EXPECT_EQ(a.list->i.size(), 3u);
  AttrValue moved = std::move(a);
  EXPECT_EQ(moved.list->i.size(), 3u);
  AttrValue with_strings = AttrValue::StringList({"x"});
  with_strings = AttrValue::EmptyList();
  EXPECT_EQ(with_strings.list->size(), 0u);
}

}  // namespace
}  // namespace weft
