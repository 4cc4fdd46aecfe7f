// Function calls and functional control flow against TensorFlow: the graphs
// of testdata/control_flow (written by gen_control_flow.py: nested
// tf.function calls, tf.cond, tf.switch_case, tf.while_loop with a
// data-dependent trip count, nested loops, a cond inside a loop, a loop
// variable that grows) run and match TensorFlow's outputs, with and without
// the optimizer, on the calling thread and on two threads. Each sidecar
// NAME_CASE.cf names the graph, the inputs and TensorFlow's outputs.
//
// TensorLists: tensor_lists runs every TensorList op once, list_loop reads
// and writes TensorArrays in a loop, and testdata/rnn (gen_rnn.py) holds
// frozen Keras LSTM, GRU and SimpleRNN models, each with return_sequences
// off and on, functional (.pb) and lowered (_lowered.pb); so are
// Bidirectional(LSTM) (two loops, the backward one over ReverseV2'd steps)
// and LSTMs masked by Embedding(mask_zero=True) (SelectV2 on the mask inside
// the loop body keeps the state at padded steps), alone and bidirectional;
// and an LSTM without a bias and one with relu for tanh. The tfk_ ones
// (gen_rnn_tf_keras.py) are tf.keras 2's LSTM, masked LSTM and masked
// Bidirectional(LSTM), whose loops are StatelessWhile and differ inside.
//
// Detection post-processing: detection runs TopKV2, GatherV2 and
// NonMaxSuppressionV3, V4 (padded) and V5 (soft) on one image's boxes;
// batched_detection runs padded NMS per image inside a tf.map_fn loop.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
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
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string Dir() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/control_flow";
}

// Keras LSTM, GRU and SimpleRNN models (gen_rnn.py): loops over TensorLists.
std::string RnnDir() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/rnn";
}

struct Case {
  std::string name;  // the sidecar's stem, e.g. "while_loop_long"
  std::string graph;
  std::vector<std::pair<std::string, std::string>> inputs;   // node, .npy
  std::vector<std::pair<std::string, std::string>> outputs;  // tensor, .npy
};

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  for (const std::string& dir : {Dir(), RnnDir()}) {
    if (!fs::exists(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".cf") continue;
      Case c;
      c.name = entry.path().stem().string();
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f = absl::StrSplit(line, ' ');
        const std::string path = f.size() > 1 ? dir + "/" + f.back() : "";
        if (f[0] == "graph" && f.size() == 2) c.graph = path;
        if (f[0] == "input" && f.size() == 3) c.inputs.emplace_back(f[1], path);
        if (f[0] == "output" && f.size() == 3)
          c.outputs.emplace_back(f[1], path);
      }
      cases.push_back(std::move(c));
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

// Imports and shape-infers `path`, with input "x" of shape `x_shape`.
StatusOr<std::shared_ptr<Graph>> Load(
    const std::string& path,
    const PartialTensorShape& x_shape = PartialTensorShape()) {
  WEFT_ASSIGN_OR_RETURN(GraphDef def, LoadGraphDef(path));
  ImportOptions import_options;
  import_options.source_name = path;
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(def, import_options));
  ShapeInferenceOptions shape_options;
  shape_options.source_name = path;
  if (!x_shape.unknown_rank()) shape_options.input_shapes["x"] = x_shape;
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  return std::shared_ptr<Graph>(std::move(graph));
}

// Float outputs within 1e-5 relative plus 1e-5 of the tensor's largest
// magnitude: the loops apply sin, cos, exp and matrix products up to a few
// dozen times, each a few float32 ulps apart from TensorFlow's. Integer
// outputs (trip counts, list lengths and shapes) exactly.
void ExpectClose(const std::string& what, const Tensor& got,
                 const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (want.dtype() == DT_INT32) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ(got.data<int32_t>()[i], want.data<int32_t>()[i]) << what;
    }
    return;
  }
  if (want.dtype() == DT_INT64) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ(got.data<int64_t>()[i], want.data<int64_t>()[i]) << what;
    }
    return;
  }
  ASSERT_EQ(want.dtype(), DT_FLOAT) << what;
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

class ControlFlowModelTest : public testing::TestWithParam<Case> {};

// "dir/NAME.pbtxt" -> "dir/NAME<form>.pbtxt" (the same for ".pb").
std::string Form(const std::string& path, const std::string& form) {
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + form + p.extension().string()))
      .string();
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

void CheckCase(const Case& c, const std::string& path);

// Every form of the graph: functional; lowered (Switch / Merge / Enter ...,
// raised back into If, Case and While at import); and for loops and conds,
// built with TF1's control flow (constant Enters, v1 conds).
TEST_P(ControlFlowModelTest, MatchesTensorFlow) {
  const Case& c = GetParam();
  for (const char* form : {"", "_lowered", "_tf1"}) {
    const std::string path = Form(c.graph, form);
    if (*form != 0 && std::string(form) == "_tf1" && !fs::exists(path)) {
      continue;  // calls and Case have no TF1 form
    }
    SCOPED_TRACE(path);
    CheckCase(c, path);
  }
}

void CheckCase(const Case& c, const std::string& path) {
  auto graph = Load(path);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::vector<std::string> feeds, fetches;
  std::vector<Tensor> feed_values, expected;
  for (const auto& [node, npy] : c.inputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    feeds.push_back(node);
    feed_values.push_back(*std::move(value));
  }
  for (const auto& [tensor, npy] : c.outputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    fetches.push_back(tensor);
    expected.push_back(*std::move(value));
  }
  for (bool optimize : {true, false}) {
    for (int threads : {0, 2}) {
      SCOPED_TRACE(absl::StrCat(optimize ? "optimized" : "not optimized", ", ",
                                threads, " threads"));
      SessionOptions options;
      options.threads = threads;
      options.optimize = optimize;
      options.source_name = path;
      auto session = Session::Create(*graph, options);
      ASSERT_TRUE(session.ok()) << session.status();
      auto callable = (*session)->Prepare(feeds, fetches);
      ASSERT_TRUE(callable.ok()) << callable.status();
      // Twice: a second run reuses the prepared bodies.
      for (int run = 0; run < 2; ++run) {
        std::vector<Tensor> outputs;
        Status s = (*session)->Run(**callable, feed_values, &outputs);
        ASSERT_TRUE(s.ok()) << s;
        ASSERT_EQ(outputs.size(), expected.size());
        for (size_t k = 0; k < expected.size(); ++k) {
          ExpectClose(absl::StrCat(c.name, ": ", fetches[k]), outputs[k],
                      expected[k]);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ControlFlow, ControlFlowModelTest,
                         testing::ValuesIn(ReadCases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// The fixtures are committed: a checkout without them is broken.
TEST(ControlFlowFixturesTest, AreThere) {
  std::set<std::string> names;
  for (const Case& c : ReadCases()) names.insert(c.name);
  for (const char* want : {"nested_call_a",
                           "cond_pos",
                           "cond_neg",
                           "switch_case_k9",
                           "while_loop_long",
                           "nested_while_a",
                           "cond_in_loop_a",
                           "growing_loop_a",
                           "tensor_lists_a",
                           "list_loop_long",
                           "lstm_a",
                           "lstm_seq_a",
                           "gru_a",
                           "gru_seq_a",
                           "simple_rnn_a",
                           "simple_rnn_seq_a",
                           "bilstm_a",
                           "bilstm_seq_a",
                           "masked_lstm_a",
                           "masked_lstm_seq_a",
                           "masked_bilstm_a",
                           "masked_bilstm_seq_a",
                           "lstm_nobias_a",
                           "lstm_relu_a",
                           "tfk_lstm_seq_a",
                           "tfk_masked_lstm_a",
                           "tfk_masked_bilstm_seq_a",
                           "detection_a",
                           "detection_few",
                           "batched_detection_a"}) {
    EXPECT_TRUE(names.count(want))
        << want << ".cf is missing in " << Dir() << " or " << RnnDir();
  }
}

// Calls are inlined at import: the body's nodes are named after the call.
TEST(ControlFlowFixturesTest, CallsAreInlinedUnderTheCallsName) {
  auto graph = Load(Dir() + "/nested_call.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  int in_bodies = 0, calls = 0, nested = 0;
  for (const auto& node : (*graph)->nodes()) {
    if (absl::StrContains(node->op(), "PartitionedCall")) ++calls;
    if (absl::StrContains(node->name(), "/")) ++in_bodies;
    // outer call -> middle's call of inner -> inner's MatMul
    if (node->op() == "MatMul" &&
        std::count(node->name().begin(), node->name().end(), '/') >= 2) {
      ++nested;
    }
  }
  EXPECT_EQ(calls, 0);
  EXPECT_GT(in_bodies, 0);
  EXPECT_EQ(nested, 2);  // inner is called twice
}

// Lowered loops and conds come out of import as While and If nodes, with no
// Switch, Merge, Enter, Exit, NextIteration or LoopCond left.
TEST(ControlFlowFixturesTest, LoweredControlFlowIsRaised) {
  const std::vector<std::pair<const char*, std::vector<std::string>>> want = {
      {"cond", {"If"}},
      {"switch_case", {"Case"}},  // lowered into _SwitchN
      {"while_loop", {"While"}},
      {"nested_while", {"While"}},  // the inner one is in the body
      {"cond_in_loop", {"While"}},
      {"growing_loop", {"While"}},
  };
  for (const auto& [name, ops] : want) {
    for (const char* form : {"_lowered", "_tf1"}) {
      const std::string path = Dir() + "/" + name + form + ".pbtxt";
      if (std::string(name) == "switch_case" && std::string(form) == "_tf1") {
        continue;
      }
      auto graph = Load(path);
      ASSERT_TRUE(graph.ok()) << graph.status();
      std::vector<std::string> raised;
      for (const auto& node : (*graph)->nodes()) {
        const std::string& op = node->op();
        EXPECT_TRUE(op != "Switch" && op != "Merge" && op != "Enter" &&
                    op != "Exit" && op != "NextIteration" && op != "LoopCond" &&
                    op != "_SwitchN")
            << path << ": " << node->name() << " (" << op << ")";
        if (op == "If" || op == "Case" || op == "While") raised.push_back(op);
      }
      EXPECT_EQ(raised, ops) << path;
    }
  }
}

std::string OutputShape(const Graph& graph, const std::string& node) {
  const Node* n = graph.FindNode(node);
  return n == nullptr ? "no node " + node
                      : graph.output_shape(n, 0).DebugString();
}

// Shapes reach through loops and conds. Without a given input shape: the
// trip count is a known scalar and the loop variables have their declared
// invariants [?,4].
TEST(ControlFlowShapesTest, DeclaredShapesWithoutInputShapes) {
  auto graph = Load(Dir() + "/growing_loop.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(OutputShape(**graph, "Identity"), "[?,4]");
  EXPECT_EQ(OutputShape(**graph, "Identity_1"), "[]");
}

// With x [3,4]: a loop that keeps its variable's shape gives [3,4] (the
// node itself only declares [?,4]); one that appends a row every iteration
// leaves the first dimension unknown; both branches of the cond give [3,4];
// nested loops and a cond inside a loop keep [3,4].
TEST(ControlFlowShapesTest, LoopInvariantShapesAreKnown) {
  const PartialTensorShape x({3, 4});
  for (const char* name :
       {"while_loop", "nested_while", "cond_in_loop", "cond", "nested_call"}) {
    auto graph = Load(Dir() + "/" + name + ".pbtxt", x);
    ASSERT_TRUE(graph.ok()) << graph.status();
    EXPECT_EQ(OutputShape(**graph, "Identity"), "[3,4]") << name;
  }
  auto growing = Load(Dir() + "/growing_loop.pbtxt", x);
  ASSERT_TRUE(growing.ok()) << growing.status();
  EXPECT_EQ(OutputShape(**growing, "Identity"), "[?,4]");
  EXPECT_EQ(OutputShape(**growing, "Identity_1"), "[]");
}

// Keras RNNs lowered: one While, whose loop variables include the
// TensorLists (variant scalars).
TEST(ControlFlowFixturesTest, LoweredRnnLoopsAreRaised) {
  for (const char* name : {"lstm", "gru_seq", "simple_rnn"}) {
    const std::string path = RnnDir() + "/" + name + "_lowered.pb";
    auto graph = Load(path);
    ASSERT_TRUE(graph.ok()) << graph.status();
    int loops = 0;
    for (const auto& node : (*graph)->nodes()) {
      EXPECT_TRUE(node->op() != "Enter" && node->op() != "Merge" &&
                  node->op() != "Switch" && node->op() != "Exit")
          << path << ": " << node->name() << " (" << node->op() << ")";
      if (node->op() != "While") continue;
      ++loops;
      int lists = 0;
      for (int o = 0; o < node->num_outputs(); ++o) {
        if (node->output_type(o) != DT_VARIANT) continue;
        ++lists;
        EXPECT_EQ((*graph)->output_shape(node.get(), o).DebugString(), "[]")
            << path << ": output " << o;
      }
      EXPECT_GE(lists, 2) << path;  // the inputs read, the outputs written
    }
    EXPECT_EQ(loops, 1) << path;
  }
}

// A lowered Bidirectional layer is two loops, raised into two Whiles.
TEST(ControlFlowFixturesTest, LoweredBidirectionalLoopsAreRaised) {
  for (const char* name : {"bilstm", "masked_bilstm_seq"}) {
    const std::string path = RnnDir() + "/" + name + "_lowered.pb";
    auto graph = Load(path);
    ASSERT_TRUE(graph.ok()) << graph.status();
    int loops = 0;
    for (const auto& node : (*graph)->nodes()) {
      EXPECT_TRUE(node->op() != "Enter" && node->op() != "Exit")
          << path << ": " << node->name() << " (" << node->op() << ")";
      if (node->op() == "While") ++loops;
    }
    EXPECT_EQ(loops, 2) << path;
  }
}

// Shapes reach through the lists as far as the ops state them: the stacked
// outputs get the step count and units from the element_shape inputs, but
// the batch dimension, -1 there, stays unknown (TensorFlow follows it
// through the list handles' shape metadata, which weft does not keep).
TEST(ControlFlowShapesTest, RnnOutputShapes) {
  const PartialTensorShape x({2, 5, 3});
  for (const auto& [name, want] :
       std::vector<std::pair<std::string, std::string>>{
           {"lstm", "[?,4]"},
           {"lstm_seq", "[?,5,4]"},
           {"gru_seq", "[?,5,4]"}}) {
    for (const char* form : {"", "_lowered"}) {
      const std::string path = RnnDir() + "/" + name + form + ".pb";
      auto graph = Load(path, x);
      ASSERT_TRUE(graph.ok()) << graph.status();
      EXPECT_EQ(OutputShape(**graph, "Identity"), want) << path;
    }
  }
}

}  // namespace
}  // namespace weft
