// TF1 TensorArrays against TensorFlow: the frozen v1 graphs of
// testdata/tensor_array (written by gen_tensor_array.py): dynamic_rnn over an
// LSTMCell, a GRUCell and an LSTMCell with sequence_length, a while_loop that
// writes TensorArrays and stacks them, every TensorArray op outside loops,
// tf.map_fn and tf.scan, an array made anew in each iteration of an outer
// loop and filled by an inner one, Bitcast and a holding Assert. Their loops
// are lowered (Enter / Merge / Switch / NextIteration / Exit); weft raises them
// into While at import, the TensorArray handle entering as a loop invariant and
// its flow as a loop variable. Each runs with and without the optimizer, on the
// calling thread and on two threads, twice, and matches TensorFlow's outputs
// (floats within control_flow_test.cc's bound, everything else exactly).
// Concurrent runs get arrays of their own; a failing Assert names its node and
// the data.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "tools/npy.h"

namespace weft {
namespace tensor_array_test {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Dir() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/tensor_array";
}

struct Case {
  std::string name;
  std::string graph;
  std::vector<std::pair<std::string, std::string>> inputs;   // node, .npy
  std::vector<std::pair<std::string, std::string>> outputs;  // tensor, .npy
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  if (!fs::exists(Dir())) return cases;
  for (const auto& entry : fs::directory_iterator(Dir())) {
    if (entry.path().extension() != ".cf") continue;
    Case c;
    c.name = entry.path().stem().string();
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      const std::string path = f.size() > 1 ? Dir() + "/" + f.back() : "";
      if (f[0] == "graph" && f.size() == 2) c.graph = path;
      if (f[0] == "input" && f.size() == 3) c.inputs.emplace_back(f[1], path);
      if (f[0] == "output" && f.size() == 3) c.outputs.emplace_back(f[1], path);
    }
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

StatusOr<std::shared_ptr<Graph>> Load(const std::string& path) {
  WEFT_ASSIGN_OR_RETURN(GraphDef def, LoadGraphDef(path));
  ImportOptions import_options;
  import_options.source_name = path;
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(def, import_options));
  ShapeInferenceOptions shape_options;
  shape_options.source_name = path;
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  return std::shared_ptr<Graph>(std::move(graph));
}

// Floats within 1e-5 relative plus 1e-5 of the largest magnitude (the
// bound of control_flow_test.cc: a few float32 ulps per step of the RNN
// loops); every other dtype bit for bit.
void ExpectClose(const std::string& what, const Tensor& got,
                 const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (want.dtype() != DT_FLOAT) {
    ASSERT_EQ(got.TotalBytes(), want.TotalBytes()) << what;
    EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), want.TotalBytes()),
              0)
        << what << ": weft " << got.SummarizeValue(20) << ", TensorFlow "
        << want.SummarizeValue(20);
    return;
  }
  float scale = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    scale = std::max(scale, std::abs(want.data<float>()[i]));
  }
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const float a = got.data<float>()[i], b = want.data<float>()[i];
    EXPECT_LE(std::abs(a - b), 1e-5f * std::abs(b) + 1e-5f * scale)
        << what << " element " << i << ": weft " << a << ", TensorFlow " << b;
  }
}

struct Loaded {
  std::vector<std::string> feeds, fetches;
  std::vector<Tensor> feed_values, expected;
};

void ReadFixtures(const Case& c, Loaded* l) {
  for (const auto& [node, npy] : c.inputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    l->feeds.push_back(node);
    l->feed_values.push_back(*std::move(value));
  }
  for (const auto& [tensor, npy] : c.outputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    l->fetches.push_back(tensor);
    l->expected.push_back(*std::move(value));
  }
}

class TensorArrayModelTest : public testing::TestWithParam<Case> {};

TEST_P(TensorArrayModelTest, MatchesTensorFlow) {
  const Case& c = GetParam();
  auto graph = Load(c.graph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  Loaded l;
  ReadFixtures(c, &l);
  for (bool optimize : {true, false}) {
    for (int threads : {0, 2}) {
      SCOPED_TRACE(absl::StrCat(optimize ? "optimized" : "not optimized", ", ",
                                threads, " threads"));
      SessionOptions options;
      options.threads = threads;
      options.optimize = optimize;
      options.source_name = c.graph;
      auto session = Session::Create(*graph, options);
      ASSERT_TRUE(session.ok()) << session.status();
      auto callable = (*session)->Prepare(l.feeds, l.fetches);
      ASSERT_TRUE(callable.ok()) << callable.status();
      for (int run = 0; run < 2; ++run) {
        std::vector<Tensor> outputs;
        Status s = (*session)->Run(**callable, l.feed_values, &outputs);
        ASSERT_TRUE(s.ok()) << s;
        ASSERT_EQ(outputs.size(), l.expected.size());
        for (size_t k = 0; k < l.expected.size(); ++k) {
          ExpectClose(absl::StrCat(c.name, ": ", l.fetches[k]), outputs[k],
                      l.expected[k]);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TensorArray, TensorArrayModelTest,
                         testing::ValuesIn(ReadCases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

const Case* FindCase(const std::vector<Case>& cases, const std::string& name) {
  for (const Case& c : cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The fixtures are committed: a checkout without them is broken.
TEST(TensorArrayFixturesTest, AreThere) {
  const std::vector<Case> cases = ReadCases();
  for (const char* want :
       {"dynamic_lstm_a", "dynamic_gru_a", "dynamic_lstm_len_a", "ta_loop_a",
        "ta_loop_one", "ta_ops_a", "plumbing_a", "map_scan_a", "nested_ta_a"}) {
    EXPECT_NE(FindCase(cases, want), nullptr)
        << want << ".cf is missing in " << Dir();
  }
  EXPECT_TRUE(fs::exists(Dir() + "/assert.pb"));
}

// The lowered loops come out as While nodes, the arrays stay outside them
// and their reads and writes run in the bodies.
TEST(TensorArrayFixturesTest, LoweredLoopsAreRaised) {
  for (const char* name : {"dynamic_lstm", "dynamic_gru", "ta_loop"}) {
    SCOPED_TRACE(name);
    auto def = LoadGraphDef(Dir() + "/" + name + ".pb");
    ASSERT_TRUE(def.ok()) << def.status();
    std::set<std::string> lowered;
    for (const NodeDef& n : def->node) lowered.insert(n.op);
    EXPECT_TRUE(lowered.count("Enter") && lowered.count("TensorArrayV3") &&
                lowered.count("TensorArrayWriteV3"));
    auto graph = Load(Dir() + "/" + name + ".pb");
    ASSERT_TRUE(graph.ok()) << graph.status();
    std::set<std::string> ops;
    for (const auto& node : (*graph)->nodes()) ops.insert(node->op());
    EXPECT_TRUE(ops.count("While"));
    EXPECT_TRUE(ops.count("TensorArrayV3"));
    EXPECT_TRUE(ops.count("TensorArrayGatherV3"));
    EXPECT_FALSE(ops.count("Enter") || ops.count("Exit") ||
                 ops.count("Merge") || ops.count("Switch"));
  }
}

// Gather's shape comes from its element_shape attr (stack() sets it).
TEST(TensorArrayShapesTest, GatherShapesFromElementShape) {
  auto graph = Load(Dir() + "/ta_ops.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (const auto& node : (*graph)->nodes()) {
    if (node->name() == "stacked") {
      EXPECT_EQ((*graph)->output_shape(node.get(), 0),
                PartialTensorShape({4, 3}));
    }
  }
}

// TensorArrayV3 makes a new array per run: runs at the same time never see
// each other's elements (a shared one would fail "already been written").
TEST(TensorArrayConcurrencyTest, EachRunHasItsOwnArrays) {
  const std::vector<Case> cases = ReadCases();
  const Case* c = FindCase(cases, "ta_loop_a");
  ASSERT_NE(c, nullptr);
  auto graph = Load(c->graph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  Loaded l;
  ReadFixtures(*c, &l);
  SessionOptions options;
  options.threads = 2;
  auto session = Session::Create(*graph, options);
  ASSERT_TRUE(session.ok()) << session.status();
  auto callable = (*session)->Prepare(l.feeds, l.fetches);
  ASSERT_TRUE(callable.ok()) << callable.status();
  std::vector<std::vector<std::vector<Tensor>>> results(4);
  std::vector<Status> statuses(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 10 && statuses[t].ok(); ++run) {
        std::vector<Tensor> out;
        statuses[t] = (*session)->Run(**callable, l.feed_values, &out);
        results[t].push_back(std::move(out));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_TRUE(statuses[t].ok()) << statuses[t];
    for (const std::vector<Tensor>& out : results[t]) {
      ASSERT_EQ(out.size(), l.expected.size());
      for (size_t k = 0; k < out.size(); ++k) {
        ExpectClose(l.fetches[k], out[k], l.expected[k]);
      }
    }
  }
}

// An Assert whose condition fails stops the run with TensorFlow's message
// (the data summarised), naming the Assert node.
TEST(TensorArrayAssertTest, FailingAssertNamesNodeAndData) {
  std::ifstream in(Dir() + "/assert_fail.txt");
  std::string values_line, message;
  ASSERT_TRUE(std::getline(in, values_line));
  ASSERT_TRUE(std::getline(in, message));
  std::vector<float> values;
  for (absl::string_view v : absl::StrSplit(values_line, ' ')) {
    values.push_back(std::stof(std::string(v)));
  }
  Tensor x(DT_FLOAT, TensorShape({static_cast<int64_t>(values.size())}));
  std::copy(values.begin(), values.end(), x.data<float>());
  // tf.compat.v1.Assert guards its Assert with a cond, which weft raises
  // into an If: the Assert runs in a branch and keeps its name.
  auto def = LoadGraphDef(Dir() + "/assert.pb");
  ASSERT_TRUE(def.ok()) << def.status();
  std::string assert_name;
  for (const NodeDef& n : def->node) {
    if (n.op == "Assert") assert_name = n.name;
  }
  ASSERT_FALSE(assert_name.empty());
  auto graph = Load(Dir() + "/assert.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(*graph, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  auto failed = (*session)->Run({{"x", x}}, {"y"});
  ASSERT_FALSE(failed.ok());
  const Status& s = failed.status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr(message));
  EXPECT_THAT(s.message(), HasSubstr(assert_name));
  // A positive input passes.
  Tensor positive(DT_FLOAT, x.shape());
  for (size_t i = 0; i < values.size(); ++i) {
    positive.data<float>()[i] = std::abs(values[i]);
  }
  auto out = (*session)->Run({{"x", positive}}, {"y"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_FLOAT_EQ((*out)[0].data<float>()[1], 4.0f);
}

}  // namespace tensor_array_test
}  // namespace weft
