// WireFieldReader (graph/internal/wire_fields.h): a message's fields in
// order, groups skipped whole, malformed bytes told apart from the end.
#include "graph/internal/wire_fields.h"

#include <string>
#include <vector>

#include "graph_def_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using graph_internal::AppendLengthDelimited;
using graph_internal::WireField;
using graph_internal::WireFieldReader;
using namespace weft::testing::wire;  // the hand-made inputs

// The fields of `bytes`, which they view: `bytes` must outlive them.
std::vector<WireField> All(const std::string& bytes, bool* malformed) {
  WireFieldReader reader(bytes);
  std::vector<WireField> fields;
  WireField f;
  while (reader.Next(&f)) fields.push_back(f);
  *malformed = reader.malformed();
  return fields;
}

TEST(WireFieldsTest, FieldsInOrderWithTheirBytes) {
  const std::string a = VarintField(1, 300), b = BytesField(2, "payload"),
                    c = Fixed32Field(3, 7);
  // A group (field 4: start, a varint inside, end) is one field.
  const std::string group =
      Varint((4 << 3) | 3) + VarintField(1, 5) + Varint((4 << 3) | 4);
  const std::string bytes = a + b + group + c;
  bool malformed = true;
  const std::vector<WireField> fields = All(bytes, &malformed);
  EXPECT_FALSE(malformed);
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].number, 1u);
  EXPECT_EQ(fields[0].whole, a);
  EXPECT_FALSE(fields[0].IsLengthDelimited());
  EXPECT_TRUE(fields[1].Is(2));
  EXPECT_FALSE(fields[1].Is(1));
  EXPECT_EQ(fields[1].payload, "payload");
  EXPECT_EQ(fields[1].whole, b);
  EXPECT_EQ(fields[2].number, 4u);
  EXPECT_EQ(fields[2].whole, group);
  EXPECT_EQ(fields[3].whole, c);

  std::string empty_ok;
  EXPECT_TRUE(All(empty_ok, &malformed).empty());
  EXPECT_FALSE(malformed);
}

TEST(WireFieldsTest, MalformedBytesStopTheWalk) {
  const std::string good = BytesField(2, "xy");
  const std::vector<std::string> bad = {
      good.substr(0, good.size() - 1),  // payload cut short
      Varint(2 << 3 | 2),               // length missing
      std::string(1, '\0'),             // field number 0
      Varint((1 << 3) | 0) + "\xff",    // varint cut short
      Varint((5 << 3) | 4),             // a group end with no start
      Varint((6 << 3) | 7),             // no such wire type
      Fixed32Field(3, 1).substr(0, 3),  // fixed32 cut short
  };
  for (const std::string& tail : bad) {
    bool malformed = false;
    const std::string bytes = good + tail;  // the fields view it
    const std::vector<WireField> fields = All(bytes, &malformed);
    EXPECT_TRUE(malformed) << ::testing::PrintToString(tail);
    ASSERT_EQ(fields.size(), 1u);
    EXPECT_EQ(fields[0].payload, "xy");
  }
}

TEST(WireFieldsTest, AppendLengthDelimitedReadsBack) {
  std::string out;
  const std::string big(300, 'z');  // a two-byte length
  AppendLengthDelimited(5, big, &out);
  AppendLengthDelimited(20, "", &out);
  EXPECT_EQ(out, BytesField(5, big) + BytesField(20, ""));
  bool malformed = true;
  const std::vector<WireField> fields = All(out, &malformed);
  EXPECT_FALSE(malformed);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[0].payload, big);
  EXPECT_TRUE(fields[1].Is(20));
  EXPECT_TRUE(fields[1].payload.empty());
}

}  // namespace
}  // namespace weft
