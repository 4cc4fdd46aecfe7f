// If, Case and While run by the executor over prepared sub-plans
// (executor/control_flow.h): results, the run's deadline and cancellation
// checked per iteration, the iteration cap, errors naming the loop and the
// body node, signature checks when the session prepares the node, and loop
// variables that are constants in one signature and fed in another.
#include "executor/control_flow.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

StatusOr<std::shared_ptr<Graph>> Load(const std::string& text) {
  WEFT_ASSIGN_OR_RETURN(GraphDef def, ParseTextGraphDef(text, "test.pbtxt"));
  ImportOptions import_options;
  import_options.source_name = "test.pbtxt";
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(def, import_options));
  ShapeInferenceOptions shape_options;
  shape_options.source_name = "test.pbtxt";
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  return std::shared_ptr<Graph>(std::move(graph));
}

Tensor Scalar(float v) {
  Tensor t = *Tensor::Allocate(DefaultCpuAllocator(), DT_FLOAT, TensorShape());
  *t.data<float>() = v;
  return t;
}

// loop: v = 1; while v < limit: v = v + v. So 1 -> 2 -> 4 -> ... and the
// result is the first power of two >= limit.
constexpr char kDoubling[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { } } } }
node { name: "loop" op: "While" input: "x"
  attr { key: "T" value { list { type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "below" } } }
  attr { key: "body" value { func { name: "%s" } } } }
library {
  function {
    signature { name: "below" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "limit" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: %s } } } }
    node_def { name: "less" op: "Less" input: "v" input: "limit:output:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "double" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "add" op: "AddV2" input: "v" input: "v"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "add:z:0" }
  }
  function {
    signature { name: "reshape5" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "shape" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 5 } } } }
    node_def { name: "r" op: "Reshape" input: "v" input: "shape:output:0"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
    ret { key: "out" value: "r:output:0" }
  }
}
)";

std::string Doubling(const std::string& body, const std::string& limit) {
  std::string text = kDoubling;
  text.replace(text.find("%s"), 2, body);
  text.replace(text.find("%s"), 2, limit);
  return text;
}

StatusOr<float> RunLoop(const std::shared_ptr<Graph>& graph, float x,
                        SessionOptions options = {},
                        const RunOptions& run_options = {}) {
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                        Session::Create(graph, options));
  WEFT_ASSIGN_OR_RETURN(
      std::vector<Tensor> out,
      session->Run({{"x", Scalar(x)}}, {"loop"}, {}, run_options));
  return *out[0].data<float>();
}

TEST(ControlFlowTest, WhileRunsUntilCondFails) {
  auto graph = Load(Doubling("double", "100"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (int threads : {0, 1, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto v = RunLoop(*graph, 1.0f, options);
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, 128.0f);
    v = RunLoop(*graph, 300.0f, options);  // cond false at once
    ASSERT_TRUE(v.ok()) << v.status();
    EXPECT_EQ(*v, 300.0f);
  }
  // The loop's output keeps the scalar shape of its input.
  EXPECT_EQ((*graph)->output_shape((*graph)->FindNode("loop"), 0).DebugString(),
            "[]");
}

TEST(ControlFlowTest, IterationCapNamesTheLoop) {
  auto graph = Load(Doubling("double", "100"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  SessionOptions options;
  options.max_loop_iterations = 7;  // 1 -> 128 takes 7
  auto v = RunLoop(*graph, 1.0f, options);
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(*v, 128.0f);
  options.max_loop_iterations = 6;
  v = RunLoop(*graph, 1.0f, options);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(v.status().message()),
              HasSubstr("loop node 'loop' (While) did not end after 6 "
                        "iterations (SessionOptions.max_loop_iterations)"));
}

// A loop that never ends: with limit +inf and v starting at 0, v + v stays
// 0 < inf forever.
TEST(ControlFlowTest, DeadlineStopsALoopThatNeverEnds) {
  auto graph = Load(Doubling("double", "inf"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    RunOptions run_options;
    run_options.deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    const auto start = std::chrono::steady_clock::now();
    auto v = RunLoop(*graph, 0.0f, options, run_options);
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), absl::StatusCode::kDeadlineExceeded)
        << v.status();
    EXPECT_THAT(std::string(v.status().message()),
                HasSubstr("node 'loop' (While)"));
    EXPECT_LT(took, std::chrono::seconds(5));
  }
}

TEST(ControlFlowTest, CancellationStopsALoop) {
  auto graph = Load(Doubling("double", "inf"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  CancellationToken token;
  RunOptions run_options;
  run_options.cancellation = &token;
  std::thread canceller([&token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    token.Cancel();
  });
  auto v = RunLoop(*graph, 0.0f, SessionOptions(), run_options);
  canceller.join();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), absl::StatusCode::kCancelled) << v.status();
  EXPECT_THAT(std::string(v.status().message()),
              HasSubstr("node 'loop' (While)"));
}

TEST(ControlFlowTest, ErrorInABodyNamesTheLoopAndTheBodyNode) {
  // The body reshapes a scalar to [5]. With x declared a scalar, shape
  // inference through the body finds it.
  const std::string text = Doubling("reshape5", "100");
  auto graph = Load(text);
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("test.pbtxt: node 'loop' (While): body function "
                        "'reshape5': test.pbtxt: node 'loop/body/r' "
                        "(Reshape)"));
  // With x of unknown shape, the first iteration fails at run time.
  const std::string shape_attr = R"(attr { key: "shape" value { shape { } } })";
  std::string unshaped = text;
  unshaped.erase(unshaped.find(shape_attr), shape_attr.size());
  graph = Load(unshaped);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto v = RunLoop(*graph, 1.0f);
  ASSERT_FALSE(v.ok());
  const std::string message(v.status().message());
  EXPECT_THAT(message, HasSubstr("node 'loop' (While): iteration 0: body"));
  EXPECT_THAT(message, HasSubstr("node 'loop/body/r' (Reshape)"));
}

// An iteration runs the body and then the next iteration's cond as one
// graph: an error in that cond part is the next iteration's cond's. Here
// cond asserts v < 3 before comparing v with 100; v doubles from 1, so the
// cond of iteration 2 (v = 4) fails.
TEST(ControlFlowTest, ErrorInALaterCondNamesThatIterationsCond) {
  constexpr char kText[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "loop" op: "While" input: "x"
  attr { key: "T" value { list { type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "checked_below" } } }
  attr { key: "body" value { func { name: "double" } } } }
library {
  function {
    signature { name: "checked_below" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "three" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
    node_def { name: "limit" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 100 } } } }
    node_def { name: "small" op: "Less" input: "v" input: "three:output:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "check" op: "Assert" input: "small:z:0" input: "v"
      attr { key: "T" value { list { type: DT_FLOAT } } } }
    node_def { name: "less" op: "Less" input: "v" input: "limit:output:0"
      input: "^check" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "double" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "add" op: "AddV2" input: "v" input: "v"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "add:z:0" }
  }
}
)";
  auto graph = Load(kText);
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto v = RunLoop(*graph, 1.0f, options);
    ASSERT_FALSE(v.ok());
    const std::string message(v.status().message());
    EXPECT_THAT(message, HasSubstr("node 'loop' (While): iteration 2: cond"));
    EXPECT_THAT(message, HasSubstr("node 'loop/cond/check' (Assert)"));
    // From 2.5 the body makes 5: the cond of iteration 1 fails.
    v = RunLoop(*graph, 2.5f, options);
    ASSERT_FALSE(v.ok());
    EXPECT_THAT(std::string(v.status().message()),
                HasSubstr("node 'loop' (While): iteration 1: cond"));
    // From 4 the first cond fails, before any step.
    v = RunLoop(*graph, 4.0f, options);
    ASSERT_FALSE(v.ok());
    EXPECT_THAT(std::string(v.status().message()),
                HasSubstr("node 'loop' (While): iteration 0: cond"));
  }
}

// cond(p): then adds one, else negates; p a bool or a number (TensorFlow's
// truth value: nonzero).
constexpr char kIf[] = R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: %s } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "cond" op: "If" input: "p" input: "x"
  attr { key: "Tcond" value { type: %s } }
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "then_branch" value { func { name: "plus_one" } } }
  attr { key: "else_branch" value { func { name: "negate" } } } }
node { name: "case" op: "Case" input: "k" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "branches" value { list { func { name: "plus_one" } func { name: "negate" } } } } }
node { name: "k" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
library {
  function {
    signature { name: "plus_one" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "add" op: "AddV2" input: "v" input: "one:output:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "add:z:0" }
  }
  function {
    signature { name: "negate" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "neg" op: "Neg" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "out" value: "neg:y:0" }
  }
}
)";

std::string IfGraph(const std::string& pred_type) {
  std::string text = kIf;
  text.replace(text.find("%s"), 2, pred_type);
  text.replace(text.find("%s"), 2, pred_type);
  return text;
}

TEST(ControlFlowTest, IfPicksABranchByTruthValue) {
  auto graph = Load(IfGraph("DT_INT32"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(*graph, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x =
      *Tensor::Allocate(DefaultCpuAllocator(), DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 3;
  x.data<float>()[1] = -5;
  for (int p : {0, 7, -1}) {
    Tensor pred =
        *Tensor::Allocate(DefaultCpuAllocator(), DT_INT32, TensorShape());
    *pred.data<int32_t>() = p;
    auto out = (*session)->Run({{"p", pred}, {"x", x}}, {"cond"});
    ASSERT_TRUE(out.ok()) << out.status();
    const float* y = (*out)[0].data<float>();
    if (p != 0) {
      EXPECT_EQ(y[0], 4);
      EXPECT_EQ(y[1], -4);
    } else {
      EXPECT_EQ(y[0], -3);
      EXPECT_EQ(y[1], 5);
    }
  }
  // Both branches return x's shape, which the If itself does not declare.
  EXPECT_EQ((*graph)->output_shape((*graph)->FindNode("cond"), 0).DebugString(),
            "[2]");
}

TEST(ControlFlowTest, CaseOutOfRangeRunsTheLastBranch) {
  auto graph = Load(IfGraph("DT_BOOL"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(*graph, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  Tensor x =
      *Tensor::Allocate(DefaultCpuAllocator(), DT_FLOAT, TensorShape({2}));
  x.data<float>()[0] = 2;
  x.data<float>()[1] = 0.5;
  for (int k : {0, 1, 2, -3}) {
    Tensor index =
        *Tensor::Allocate(DefaultCpuAllocator(), DT_INT32, TensorShape());
    *index.data<int32_t>() = k;
    auto out = (*session)->Run({{"k", index}, {"x", x}}, {"case"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[0], k == 0 ? 3.0f : -2.0f) << k;
    EXPECT_EQ((*out)[0].data<float>()[1], k == 0 ? 1.5f : -0.5f) << k;
  }
}

TEST(ControlFlowTest, BranchSignatureMismatchIsNamedWhenPrepared) {
  std::string text = IfGraph("DT_BOOL");
  // The If now promises an int32 output.
  const std::string tout =
      R"(attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "then_branch")";
  text.replace(text.find(tout), tout.size(),
               R"(attr { key: "Tout" value { list { type: DT_INT32 } } }
  attr { key: "then_branch")");
  auto graph = Load(text);
  ASSERT_TRUE(graph.ok()) << graph.status();
  SessionOptions options;
  options.source_name = "test.pbtxt";
  auto session = Session::Create(*graph, options);
  ASSERT_TRUE(session.ok()) << session.status();
  auto callable = (*session)->Prepare({"p", "x"}, {"cond"});
  ASSERT_FALSE(callable.ok());
  EXPECT_THAT(std::string(callable.status().message()),
              HasSubstr("test.pbtxt: node 'cond' (If): then function "
                        "'plus_one' maps [float] to [float]; the node needs "
                        "[float] to [int32]"));
}

// loop: (i, v, w) = (0, x, w); while i < 3: (i + 1, v w, w), v [1, 2] and
// w [2, 2] a Const the body passes through (an RNN's captured weights).
// The MatMul in the body packs w once when w is a constant of the body.
constexpr char kWeights[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } } } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 2 } dim { size: 2 } }
         float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "loop" op: "While" input: "zero" input: "x" input: "w"
  attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "three" } } }
  attr { key: "body" value { func { name: "times_w" } } } }
library {
  function {
    signature { name: "three" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "v" type: DT_FLOAT }
                input_arg { name: "w" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "limit" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node_def { name: "less" op: "Less" input: "i" input: "limit:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "times_w" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "v" type: DT_FLOAT }
                input_arg { name: "w" type: DT_FLOAT }
                output_arg { name: "i1" type: DT_INT32 }
                output_arg { name: "v1" type: DT_FLOAT }
                output_arg { name: "w1" type: DT_FLOAT } }
    node_def { name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "mm" op: "MatMul" input: "v" input: "w"
      attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "same_w" op: "Identity" input: "w" input: "^next"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "i1" value: "next:z:0" }
    ret { key: "v1" value: "mm:product:0" }
    ret { key: "w1" value: "same_w:output:0" }
  }
}
)";

Tensor Floats(TensorShape shape, std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DefaultCpuAllocator(), DT_FLOAT, shape);
  std::copy(values.begin(), values.end(), t.data<float>());
  return t;
}

// One session runs the loop with w its constant (the body prepared with w
// as a Const), then with w fed (the loop must not use the constant's
// body), then with the constant again; at 0 and 2 threads.
TEST(ControlFlowTest, ConstantLoopVariablesAndFedOnes) {
  auto graph = Load(kWeights);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Tensor x = Floats(TensorShape({1, 2}), {1, 1});
  const Tensor fed_w = Floats(TensorShape({2, 2}), {2, 0, 0, -1});
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto session = Session::Create(*graph, options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (int round = 0; round < 2; ++round) {
      // x w^3, w = [[1, 2], [3, 4]]: [4, 6], [22, 32], [118, 172].
      auto out = (*session)->Run({{"x", x}}, {"loop:1", "loop:2"});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].data<float>()[0], 118.0f);
      EXPECT_EQ((*out)[0].data<float>()[1], 172.0f);
      EXPECT_EQ((*out)[1].data<float>()[3], 4.0f);  // w comes out as it went in
      // x fed_w^3 = [8, -1].
      out = (*session)->Run({{"x", x}, {"w", fed_w}}, {"loop:1", "loop:2"});
      ASSERT_TRUE(out.ok()) << out.status();
      EXPECT_EQ((*out)[0].data<float>()[0], 8.0f);
      EXPECT_EQ((*out)[0].data<float>()[1], -1.0f);
      EXPECT_EQ((*out)[1].data<float>()[3], -1.0f);
    }
  }
}

// The bodies see the shapes shape inference proves for every iteration
// (the node declares none here): a variable that doubles in length each
// iteration is [?] to them, not its input's [1] (which would refuse the
// second iteration's value), while the counter stays a scalar.
constexpr char kGrowing[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } } } } }
node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "loop" op: "While" input: "i" input: "x"
  attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "few" } } }
  attr { key: "body" value { func { name: "twice" } } } }
library {
  function {
    signature { name: "few" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "three" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } } }
    node_def { name: "less" op: "Less" input: "i" input: "three:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "twice" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "i_out" type: DT_INT32 }
                output_arg { name: "out" type: DT_FLOAT } }
    node_def { name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "axis" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node_def { name: "cat" op: "ConcatV2" input: "v" input: "v" input: "axis:output:0"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } }
      attr { key: "Tidx" value { type: DT_INT32 } } }
    ret { key: "i_out" value: "next:z:0" }
    ret { key: "out" value: "cat:output:0" }
  }
}
)";

TEST(ControlFlowTest, BodiesSeeTheShapesEveryIterationKeeps) {
  auto graph = Load(kGrowing);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Node* loop = (*graph)->FindNode("loop");
  EXPECT_EQ((*graph)->output_shape(loop, 0).DebugString(), "[]");
  EXPECT_EQ((*graph)->output_shape(loop, 1).DebugString(), "[?]");
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto session = Session::Create(*graph, options);
    ASSERT_TRUE(session.ok()) << session.status();
    auto out = (*session)->Run({{"x", Floats(TensorShape({1}), {2.5f})}},
                               {"loop:0", "loop:1"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<int32_t>()[0], 3);
    ASSERT_EQ((*out)[1].shape(), TensorShape({8}));
    for (int k = 0; k < 8; ++k) EXPECT_EQ((*out)[1].data<float>()[k], 2.5f);
  }
}

// A loop that writes item i of a list it is given, while the outer graph
// also reads the list it started from: each iteration's run takes the loop
// variables (Session::RunTakingFeeds), so TensorListSetItem may write the
// list in place once the loop alone holds it, but never the outer one.
constexpr char kListWriter[] = R"(
node { name: "n" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "shape" value { shape { } } } }
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 0 } } } } } }
node { name: "list" op: "TensorListReserve" input: "shape" input: "n"
       attr { key: "element_dtype" value { type: DT_FLOAT } }
       attr { key: "shape_type" value { type: DT_INT32 } } }
node { name: "i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "loop" op: "While" input: "i" input: "n" input: "list"
  attr { key: "T" value { list { type: DT_INT32 type: DT_INT32 type: DT_VARIANT } } }
  attr { key: "cond" value { func { name: "below" } } }
  attr { key: "body" value { func { name: "write" } } } }
node { name: "written" op: "TensorListStack" input: "loop:2" input: "shape"
       attr { key: "element_dtype" value { type: DT_FLOAT } } }
node { name: "outer" op: "TensorListStack" input: "list" input: "shape"
       attr { key: "element_dtype" value { type: DT_FLOAT } } }
library {
  function {
    signature { name: "below" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "n" type: DT_INT32 }
                input_arg { name: "l" type: DT_VARIANT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "less" op: "Less" input: "i" input: "n"
      attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "write" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "n" type: DT_INT32 }
                input_arg { name: "l" type: DT_VARIANT }
                output_arg { name: "i_out" type: DT_INT32 }
                output_arg { name: "n_out" type: DT_INT32 }
                output_arg { name: "l_out" type: DT_VARIANT } }
    node_def { name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "item" op: "Cast" input: "next:z:0"
      attr { key: "SrcT" value { type: DT_INT32 } }
      attr { key: "DstT" value { type: DT_FLOAT } } }
    node_def { name: "set" op: "TensorListSetItem" input: "l" input: "i"
      input: "item:y:0" attr { key: "element_dtype" value { type: DT_FLOAT } } }
    ret { key: "i_out" value: "next:z:0" }
    ret { key: "n_out" value: "n" }
    ret { key: "l_out" value: "set:output_handle:0" }
  }
}
)";

TEST(ControlFlowTest, ALoopWritesItsOwnListNotTheOneItStartedFrom) {
  auto graph = Load(kListWriter);
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto session = Session::Create(*graph, options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (int n : {0, 1, 5}) {
      Tensor fed = *Tensor::Allocate(DefaultCpuAllocator(), DT_INT32, {});
      *fed.data<int32_t>() = n;
      auto out = (*session)->Run({{"n", fed}}, {"written", "outer"});
      ASSERT_TRUE(out.ok()) << out.status();
      ASSERT_EQ((*out)[0].shape(), TensorShape({n}));
      ASSERT_EQ((*out)[1].shape(), TensorShape({n}));
      for (int k = 0; k < n; ++k) {
        EXPECT_EQ((*out)[0].data<float>()[k], k + 1.0f) << k;
        EXPECT_EQ((*out)[1].data<float>()[k], 0.0f) << k;  // never set
      }
    }
  }
}

}  // namespace
}  // namespace weft
