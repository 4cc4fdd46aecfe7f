// Node input spellings: ParseRef's fields; CanonicalRef's shortcut for
// inputs already spelled canonically must give what parsing and re-spelling
// give, for every spelling, and lookups by such inputs need no key spelled.
#include "savedmodel/node_ref.h"

#include <string>

#include "absl/container/flat_hash_map.h"
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

// ParseRef's fields, spelled out by hand: the node is the part before the
// first ':'; an index (and in function form an output arg) only when the
// ':'s are as many as the form has.
TEST(NodeRefTest, ParseRefFields) {
  struct Case {
    const char* input;
    bool function_form;
    const char* node;
    const char* arg;
    int index;
    bool control;
  };
  const Case cases[] = {
      {"n", false, "n", "", 0, false},
      {"n:3", false, "n", "", 3, false},
      {"n:x", false, "n", "", -1, false},
      {"n:", false, "n", "", -1, false},
      {"n:1:2", false, "n", "", 0, false},
      {"^n", false, "n", "", 0, true},
      {"^n:1", false, "n:1", "", 0, true},
      {"a/b:12", false, "a/b", "", 12, false},
      {"arg", true, "arg", "", 0, false},
      {"n:out:2", true, "n", "out", 2, false},
      {"n:out:", true, "n", "out", -1, false},
      {"n::0", true, "n", "", 0, false},
      {"n:out", true, "n", "", 0, false},
      {"n:out:0:1", true, "n", "", 0, false},
      {"^n", true, "n", "", 0, true},
      {":1", false, "", "", 1, false},
      {"", false, "", "", 0, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.input) + (c.function_form ? " (function)" : ""));
    const Ref r = ParseRef(c.input, c.function_form);
    EXPECT_EQ(r.node, c.node);
    EXPECT_EQ(r.arg, c.arg);
    EXPECT_EQ(r.index, c.index);
    EXPECT_EQ(r.control, c.control);
  }
}

TEST(NodeRefTest, CanonicalInputsAreTheirOwnKeys) {
  const char* inputs[] = {"n",   "n:0",       "n:1",      "n:01",  "n:x",
                          "^n",  "n:out:0",   "n:out:01", "n::0",  "n:1:2",
                          "arg", "n:out:0:1", "",         "n:out:"};
  for (bool function_form : {false, true}) {
    for (const char* input : inputs) {
      SCOPED_TRACE(std::string(input) + (function_form ? " (function)" : ""));
      EXPECT_EQ(IsCanonicalRef(input, function_form),
                CanonicalRef(input, function_form) == input);
    }
  }
  absl::flat_hash_map<std::string, int> graph_keys = {{"n", 1}, {"m:2", 2}};
  auto found = [](auto& map, const char* input, bool function_form) {
    auto it = FindRef(map, input, function_form);
    return it == map.end() ? 0 : it->second;
  };
  EXPECT_EQ(found(graph_keys, "n", false), 1);
  EXPECT_EQ(found(graph_keys, "n:0", false), 1);
  EXPECT_EQ(found(graph_keys, "m:2", false), 2);
  EXPECT_EQ(found(graph_keys, "m:02", false), 2);
  EXPECT_EQ(found(graph_keys, "m", false), 0);
  absl::flat_hash_map<std::string, int> body_keys = {{"f:out:1", 3}};
  EXPECT_EQ(found(body_keys, "f:out:1", true), 3);
  EXPECT_EQ(found(body_keys, "f:out:01", true), 3);
  EXPECT_EQ(found(body_keys, "f:out:0", true), 0);
}

TEST(NodeRefTest, RefNodeIsTheNamePart) {
  EXPECT_EQ(RefNode("n"), "n");
  EXPECT_EQ(RefNode("n:1"), "n");
  EXPECT_EQ(RefNode("^n"), "n");
  EXPECT_EQ(RefNode("n:out:0"), "n");
  EXPECT_EQ(RefNode("a/b/c:out:3"), "a/b/c");
  EXPECT_EQ(RefNode(""), "");
  EXPECT_EQ(RefNode("^"), "");
  EXPECT_EQ(RefNode(":1"), "");
}

}  // namespace
}  // namespace weft::savedmodel_internal
