#include "graph_def_testutil.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace weft::testing {
namespace {

void ExpectAttrMapsEqual(const AttrMap& a, const AttrMap& b,
                         const std::string& where) {
  EXPECT_EQ(a.size(), b.size()) << where << ": attr counts differ";
  for (const auto& [name, value] : a) {
    auto it = b.find(name);
    if (it == b.end()) {
      ADD_FAILURE() << where << ": attr '" << name << "' missing";
      continue;
    }
    EXPECT_TRUE(value == it->second)
        << where << ": attr '" << name
        << "' differs: " << SummarizeAttrValue(value) << " vs "
        << SummarizeAttrValue(it->second);
  }
}

void ExpectNodesEqual(const NodeDef& a, const NodeDef& b,
                      const std::string& where) {
  const std::string at = where + "node '" + a.name + "'";
  EXPECT_EQ(a.name, b.name) << at;
  EXPECT_EQ(a.op, b.op) << at;
  EXPECT_EQ(a.input, b.input) << at;
  EXPECT_EQ(a.device, b.device) << at;
  ExpectAttrMapsEqual(a.attr, b.attr, at);
}

void ExpectArgsEqual(const std::vector<OpDef::ArgDef>& a,
                     const std::vector<OpDef::ArgDef>& b,
                     const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name) << where;
    EXPECT_EQ(a[i].description, b[i].description) << where;
    EXPECT_EQ(a[i].type, b[i].type) << where;
    EXPECT_EQ(a[i].type_attr, b[i].type_attr) << where;
    EXPECT_EQ(a[i].number_attr, b[i].number_attr) << where;
    EXPECT_EQ(a[i].type_list_attr, b[i].type_list_attr) << where;
    EXPECT_EQ(a[i].is_ref, b[i].is_ref) << where;
  }
}

void ExpectOpDefsEqual(const OpDef& a, const OpDef& b,
                       const std::string& where) {
  EXPECT_EQ(a.name, b.name) << where;
  ExpectArgsEqual(a.input_arg, b.input_arg, where + " input_arg");
  ExpectArgsEqual(a.output_arg, b.output_arg, where + " output_arg");
  ASSERT_EQ(a.attr.size(), b.attr.size()) << where;
  for (size_t i = 0; i < a.attr.size(); ++i) {
    const OpDef::AttrDef& x = a.attr[i];
    const OpDef::AttrDef& y = b.attr[i];
    EXPECT_EQ(x.name, y.name) << where;
    EXPECT_EQ(x.type, y.type) << where;
    EXPECT_EQ(x.default_value.has_value(), y.default_value.has_value())
        << where << " attr " << x.name;
    if (x.default_value && y.default_value) {
      EXPECT_TRUE(*x.default_value == *y.default_value) << where;
    }
    EXPECT_EQ(x.allowed_values.has_value(), y.allowed_values.has_value())
        << where;
    if (x.allowed_values && y.allowed_values) {
      EXPECT_TRUE(*x.allowed_values == *y.allowed_values) << where;
    }
    EXPECT_EQ(x.has_minimum, y.has_minimum) << where;
    EXPECT_EQ(x.minimum, y.minimum) << where;
  }
  EXPECT_EQ(a.summary, b.summary) << where;
  EXPECT_EQ(a.description, b.description) << where;
  EXPECT_EQ(a.is_commutative, b.is_commutative) << where;
  EXPECT_EQ(a.is_aggregate, b.is_aggregate) << where;
  EXPECT_EQ(a.is_stateful, b.is_stateful) << where;
  EXPECT_EQ(a.allows_uninitialized_input, b.allows_uninitialized_input)
      << where;
}

}  // namespace

// From the source tree's path the build gives, not __FILE__: a compiler
// launcher (ccache with base_dir) may compile with relative paths.
std::string GraphTestDataPath(const std::string& name) {
  return std::string(WEFT_SOURCE_DIR "/tests/graph/testdata/") + name;
}

std::string ReadTestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void ExpectGraphDefsEqual(const GraphDef& a, const GraphDef& b) {
  ASSERT_EQ(a.node.size(), b.node.size()) << "node counts differ";
  for (size_t i = 0; i < a.node.size(); ++i) {
    ExpectNodesEqual(a.node[i], b.node[i], "");
  }
  EXPECT_EQ(a.versions.producer, b.versions.producer);
  EXPECT_EQ(a.versions.min_consumer, b.versions.min_consumer);
  EXPECT_EQ(a.versions.bad_consumers, b.versions.bad_consumers);
  EXPECT_EQ(a.library.gradient, b.library.gradient);
  EXPECT_EQ(a.library.registered_gradients, b.library.registered_gradients);
  ASSERT_EQ(a.library.function.size(), b.library.function.size());
  for (size_t i = 0; i < a.library.function.size(); ++i) {
    const FunctionDef& f = a.library.function[i];
    const FunctionDef& g = b.library.function[i];
    const std::string where = "function '" + f.signature.name + "' ";
    ExpectOpDefsEqual(f.signature, g.signature, where + "signature");
    EXPECT_EQ(f.control_output, g.control_output) << where;
    ExpectAttrMapsEqual(f.attr, g.attr, where);
    ASSERT_EQ(f.arg_attr.size(), g.arg_attr.size()) << where;
    for (const auto& [index, attrs] : f.arg_attr) {
      auto it = g.arg_attr.find(index);
      ASSERT_NE(it, g.arg_attr.end()) << where << "arg_attr " << index;
      ExpectAttrMapsEqual(attrs, it->second, where + "arg_attr");
    }
    EXPECT_EQ(f.resource_arg_unique_id, g.resource_arg_unique_id) << where;
    ASSERT_EQ(f.node_def.size(), g.node_def.size()) << where;
    for (size_t k = 0; k < f.node_def.size(); ++k) {
      ExpectNodesEqual(f.node_def[k], g.node_def[k], where);
    }
    EXPECT_EQ(f.ret, g.ret) << where;
    EXPECT_EQ(f.control_ret, g.control_ret) << where;
  }
}

TempDir::TempDir() {
  char pattern[] = "/tmp/weft_graph_test_XXXXXX";
  const char* dir = mkdtemp(pattern);
  EXPECT_NE(dir, nullptr);
  path_ = dir ? dir : "/tmp";
}

TempDir::~TempDir() {
  for (const std::string& f : files_) std::remove(f.c_str());
  rmdir(path_.c_str());
}

std::string TempDir::File(const std::string& name) {
  files_.push_back(path_ + "/" + name);
  return files_.back();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

namespace wire {

std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}

std::string VarintField(int number, uint64_t v) {
  return Varint(static_cast<uint64_t>(number) << 3) + Varint(v);
}

std::string BytesField(int number, const std::string& payload) {
  return Varint((static_cast<uint64_t>(number) << 3) | 2) +
         Varint(payload.size()) + payload;
}

std::string Fixed32Field(int number, uint32_t v) {
  std::string out = Varint((static_cast<uint64_t>(number) << 3) | 5);
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  return out;
}

}  // namespace wire
}  // namespace weft::testing
