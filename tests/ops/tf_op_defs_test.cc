// Compares weft's op registrations with TensorFlow's own op definitions
// (tests/ops/testdata/tf_op_defs.txt, written by gen_tf_op_defs.py from
// TensorFlow's registry): same inputs, outputs, attrs, types, defaults,
// allowed values and minimums, so graph files written by TensorFlow import
// with the meaning TensorFlow gave them.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

std::string Float(float f) { return absl::StrFormat("%.9g", f); }

std::string Shape(const PartialTensorShape& s) {
  if (s.unknown_rank()) return "<unknown>";
  return absl::StrCat("[", absl::StrJoin(s.dim_sizes(), ","), "]");
}

std::string Value(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Kind::kString:
      return absl::StrCat("'", v.s, "'");
    case AttrValue::Kind::kInt:
      return absl::StrCat(v.i);
    case AttrValue::Kind::kFloat:
      return Float(v.f);
    case AttrValue::Kind::kBool:
      return v.b ? "true" : "false";
    case AttrValue::Kind::kType:
      return absl::StrCat("type", static_cast<int>(v.type));
    case AttrValue::Kind::kShape:
      return Shape(v.shape);
    case AttrValue::Kind::kList: {
      std::vector<std::string> items;
      for (const auto& x : v.list->s)
        items.push_back(absl::StrCat("'", x, "'"));
      for (int64_t x : v.list->i) items.push_back(absl::StrCat(x));
      for (float x : v.list->f) items.push_back(Float(x));
      for (bool x : v.list->b) items.push_back(x ? "true" : "false");
      for (DataType x : v.list->type) {
        items.push_back(absl::StrCat("type", static_cast<int>(x)));
      }
      for (const auto& x : v.list->shape) items.push_back(Shape(x));
      return absl::StrCat("[", absl::StrJoin(items, ","), "]");
    }
    default:
      return "?";
  }
}

std::string Allowed(const AttrValue& v) {
  std::vector<std::string> items;
  if (!v.list->type.empty()) {
    std::set<int> types;
    for (DataType t : v.list->type) types.insert(static_cast<int>(t));
    for (int t : types) items.push_back(absl::StrCat("type", t));
  } else {
    for (const auto& s : v.list->s) items.push_back(absl::StrCat("'", s, "'"));
    std::sort(items.begin(), items.end());
  }
  return absl::StrCat("{", absl::StrJoin(items, ","), "}");
}

std::string Arg(const char* kind, const OpDef::ArgDef& a) {
  std::string out = absl::StrCat("  ", kind, " ", a.name);
  if (!a.number_attr.empty())
    absl::StrAppend(&out, " number_attr=", a.number_attr);
  if (!a.type_attr.empty()) {
    absl::StrAppend(&out, " type_attr=", a.type_attr);
  } else if (!a.type_list_attr.empty()) {
    absl::StrAppend(&out, " type_list_attr=", a.type_list_attr);
  } else {
    absl::StrAppend(&out, " type", static_cast<int>(a.type));
  }
  if (a.is_ref) out += " ref";
  return out;
}

std::string Render(const OpDef& op) {
  std::vector<std::string> lines = {absl::StrCat("op ", op.name)};
  for (const auto& a : op.input_arg) lines.push_back(Arg("in", a));
  for (const auto& a : op.output_arg) lines.push_back(Arg("out", a));
  std::vector<const OpDef::AttrDef*> attrs;
  for (const auto& a : op.attr) attrs.push_back(&a);
  std::sort(attrs.begin(), attrs.end(),
            [](auto* x, auto* y) { return x->name < y->name; });
  for (const OpDef::AttrDef* a : attrs) {
    std::string line = absl::StrCat("  attr ", a->name, " ", a->type);
    if (a->default_value)
      absl::StrAppend(&line, " default=", Value(*a->default_value));
    if (a->allowed_values)
      absl::StrAppend(&line, " allowed=", Allowed(*a->allowed_values));
    if (a->has_minimum) absl::StrAppend(&line, " min=", a->minimum);
    lines.push_back(line);
  }
  return absl::StrJoin(lines, "\n");
}

std::map<std::string, std::string> ReadTensorFlowDefs() {
  std::ifstream in(std::string(WEFT_SOURCE_DIR) +
                   "/tests/ops/testdata/tf_op_defs.txt");
  std::map<std::string, std::string> defs;
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("op ", 0) == 0) {
      current = line.substr(3);
      defs[current] = line;
    } else {
      defs[current] += "\n" + line;
    }
  }
  return defs;
}

// Every op of the fixture (the op set issues 4 and 5 name) is registered, and
// each registration reads exactly as TensorFlow's.
TEST(TensorFlowOpDefsTest, RegisteredOpsMatchTensorFlow) {
  auto defs = ReadTensorFlowDefs();
  ASSERT_GT(defs.size(), 100u) << "fixture missing or empty";
  std::vector<std::string> missing;
  for (const auto& [name, tf_text] : defs) {
    auto reg = OpRegistry::Global()->LookUp(name);
    if (!reg.ok()) {
      missing.push_back(name);
      continue;
    }
    EXPECT_EQ(Render((*reg)->op_def), tf_text);
  }
  EXPECT_TRUE(missing.empty())
      << "ops in TensorFlow's fixture but not registered: "
      << absl::StrJoin(missing, " ");
}

}  // namespace
}  // namespace weft
