// CanonicalRef's shortcut for inputs already spelled canonically must give
// what parsing and re-spelling give, for every spelling.
#include "savedmodel/node_ref.h"

#include <string>

#include "gtest/gtest.h"

namespace weft::savedmodel_internal {
namespace {

TEST(NodeRefTest, CanonicalRefIsParseThenSpell) {
  const char* inputs[] = {
      "",
      "n",
      "n:0",
      "n:1",
      "n:10",
      "n:01",
      "n:00",
      "n:-1",
      "n:+1",
      "n:",
      "n:x",
      "n:1:2",
      "^n",
      "^n:1",
      "^",
      ":",
      ":1",
      "n:out:0",
      "n:out:1",
      "n:out:01",
      "n:out:",
      "n::0",
      "n:out:x",
      "n:out:0:1",
      "arg",
      "n:123456789",
      "n:1234567890",
      "n:99999999999",
      "n:out:2147483647",
      "n/with/slashes:3",
      "ü:1",
  };
  for (bool function_form : {false, true}) {
    for (const char* input : inputs) {
      SCOPED_TRACE(std::string(input) + (function_form ? " (function)" : ""));
      EXPECT_EQ(CanonicalRef(input, function_form),
                SpellRef(ParseRef(input, function_form), function_form));
    }
  }
  // The spellings that differ from the input.
  EXPECT_EQ(CanonicalRef("n:0", false), "n");
  EXPECT_EQ(CanonicalRef("n:01", false), "n:1");
  EXPECT_EQ(CanonicalRef("n:out:01", true), "n:out:1");
  EXPECT_EQ(CanonicalRef("n::0", true), "n");
}

}  // namespace
}  // namespace weft::savedmodel_internal
