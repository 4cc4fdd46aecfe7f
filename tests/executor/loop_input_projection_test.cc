// A loop's input projection made before the loop (executor/
// loop_input_projection.h): an RNN-like While whose body multiplies step t
// of a TensorList by a constant runs with the product of the whole
// sequence made once, and gives what the recurrence computes in double
// precision; the list comes out of the loop as it went in; a list that
// does not stack (steps of different shapes) runs the loop as it is; and
// loops the projection must not touch are found to have none.
#include "executor/loop_input_projection.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "executor/session.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "tests/executor/rewrite_rule_testutil.h"

namespace weft {
namespace loop_input_projection_test {
namespace {

using rewrite_rule_test::GraphFromText;

constexpr int kFeatures = 8;

// w[k][j], exact in float.
double Weight(int k, int j) { return ((k * 3 + j) % 7 - 3) * 0.125; }

// h_{t+1} = tanh(x_t w + h_t u) over the steps of `list` (see kListFrom*),
// h_0 = 0, w [8, 3] (Weight) and u [3, 3] Consts; 8 features a row, so that
// the loop finds the projection worth making for steps of one row; the loop
// returns (i, h, list, w, u) and `cond` reads only i.
constexpr char kLoop[] = R"(
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "h0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 1 } dim { size: 3 } } float_val: 0 } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 8 } dim { size: 3 } } W_VALUES } } } }
node { name: "u" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 3 } dim { size: 3 } }
         float_val: 0.25 float_val: 0.5 float_val: -0.75
         float_val: -0.5 float_val: 0.125 float_val: 0.25
         float_val: 1 float_val: -1 float_val: 0.5 } } } }
node { name: "es" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32
         tensor_shape { dim { size: 2 } } int_val: -1 int_val: 8 } } } }
LIST
node { name: "loop" op: "While" input: "zero" input: "h0" input: "list"
       input: "w" input: "u"
  attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT type: DT_VARIANT
                                 type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "cond" value { func { name: "steps_left" } } }
  attr { key: "body" value { func { name: "cell" } } } }
library {
  function {
    signature { name: "steps_left" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "h" type: DT_FLOAT }
                input_arg { name: "l" type: DT_VARIANT }
                input_arg { name: "w" type: DT_FLOAT }
                input_arg { name: "u" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "limit" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: STEPS } } } }
    node_def { name: "less" op: "Less" input: "i" input: "limit:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    COND_EXTRA
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "cell" input_arg { name: "i" type: DT_INT32 }
                input_arg { name: "h" type: DT_FLOAT }
                input_arg { name: "l" type: DT_VARIANT }
                input_arg { name: "w" type: DT_FLOAT }
                input_arg { name: "u" type: DT_FLOAT }
                output_arg { name: "i1" type: DT_INT32 }
                output_arg { name: "h1" type: DT_FLOAT }
                output_arg { name: "l1" type: DT_VARIANT }
                output_arg { name: "w1" type: DT_FLOAT }
                output_arg { name: "u1" type: DT_FLOAT } }
    node_def { name: "one" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "element_shape" op: "Const"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32
        tensor_shape { dim { size: 2 } } int_val: -1 int_val: 8 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0"
      attr { key: "T" value { type: DT_INT32 } } }
    node_def { name: "x_t" op: "TensorListGetItem" input: "l" input: "i"
      input: "element_shape:output:0"
      attr { key: "element_dtype" value { type: DT_FLOAT } } }
    node_def { name: "read_w" op: "Identity" input: "w"
      attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "xw" op: "MatMul" input: "x_t:item:0" input: "read_w:output:0"
      input: "^next" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "hu" op: "MatMul" input: "h" input: "u"
      attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "sum" op: "AddV2" input: "xw:product:0" input: "hu:product:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "act" op: "Tanh" input: "sum:z:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    BODY_EXTRA
    ret { key: "i1" value: "next:z:0" }
    ret { key: "h1" value: "act:y:0" }
    ret { key: "l1" value: "l" }
    ret { key: "w1" value: "w" }
    ret { key: "u1" value: "u" }
  }
}
)";

// The sequence x [steps, 1, 8] unstacked into a list.
constexpr char kListFromTensor[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "list" op: "TensorListFromTensor" input: "x" input: "es"
  attr { key: "element_dtype" value { type: DT_FLOAT } }
  attr { key: "shape_type" value { type: DT_INT32 } } }
)";

// Two steps of different shapes, x0 [1, 8] and x1 [2, 8]: no stack.
constexpr char kRaggedList[] = R"(
node { name: "x0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "x1" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }
node { name: "one_i" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "empty" op: "TensorListReserve" input: "es" input: "two"
  attr { key: "element_dtype" value { type: DT_FLOAT } }
  attr { key: "shape_type" value { type: DT_INT32 } } }
node { name: "first" op: "TensorListSetItem" input: "empty" input: "zero" input: "x0"
  attr { key: "element_dtype" value { type: DT_FLOAT } } }
node { name: "list" op: "TensorListSetItem" input: "first" input: "one_i" input: "x1"
  attr { key: "element_dtype" value { type: DT_FLOAT } } }
)";

std::string LoopText(const std::string& list, int steps,
                     const std::string& cond_extra = "",
                     const std::string& body_extra = "") {
  std::string text = kLoop;
  auto put = [&](const std::string& key, const std::string& value) {
    text.replace(text.find(key), key.size(), value);
  };
  put("LIST", list);
  put("STEPS", std::to_string(steps));
  put("COND_EXTRA", cond_extra);
  put("BODY_EXTRA", body_extra);
  std::string w;
  for (int k = 0; k < kFeatures; ++k) {
    for (int j = 0; j < 3; ++j) {
      w += " float_val: " + std::to_string(Weight(k, j));
    }
  }
  put("W_VALUES", w);
  return text;
}

constexpr double kU[3][3] = {
    {0.25, 0.5, -0.75}, {-0.5, 0.125, 0.25}, {1, -1, 0.5}};

// The recurrence in double over rows of x (each step `rows` rows, h
// broadcast from 1 row to `rows` as AddV2 does).
std::vector<std::vector<double>> Recurrence(
    const std::vector<std::vector<std::vector<double>>>& steps) {
  std::vector<std::vector<double>> h = {{0, 0, 0}};
  for (const auto& x : steps) {
    std::vector<std::vector<double>> next;
    for (size_t r = 0; r < x.size(); ++r) {
      const std::vector<double>& hr = h[h.size() == 1 ? 0 : r];
      std::vector<double> out(3);
      for (int j = 0; j < 3; ++j) {
        double s = 0;
        for (int k = 0; k < kFeatures; ++k) s += x[r][k] * Weight(k, j);
        for (int k = 0; k < 3; ++k) s += hr[k] * kU[k][j];
        out[j] = std::tanh(s);
      }
      next.push_back(out);
    }
    h = next;
  }
  return h;
}

Tensor Floats(TensorShape shape, const std::vector<float>& values) {
  Tensor t = *Tensor::Allocate(DefaultCpuAllocator(), DT_FLOAT, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

void ExpectH(const Tensor& h, const std::vector<std::vector<double>>& want) {
  ASSERT_EQ(h.dims(), 2);
  ASSERT_EQ(h.dim_size(0), static_cast<int64_t>(want.size()));
  ASSERT_EQ(h.dim_size(1), 3);
  for (size_t r = 0; r < want.size(); ++r) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(h.data<float>()[r * 3 + j], want[r][j], 2e-6)
          << "row " << r << " unit " << j;
    }
  }
}

// The sequence of 5 steps of 8 features: x[t][k] = 0.1 (t - k) + 0.05.
std::vector<float> Sequence() {
  std::vector<float> x;
  for (int t = 0; t < 5; ++t) {
    for (int k = 0; k < kFeatures; ++k) x.push_back(0.1f * (t - k) + 0.05f);
  }
  return x;
}

// Row t of the sequence, in double.
std::vector<double> Step(const std::vector<float>& xs, int t) {
  return std::vector<double>(xs.begin() + t * kFeatures,
                             xs.begin() + (t + 1) * kFeatures);
}

TEST(LoopInputProjectionTest, RecurrenceMatchesWithTheProjection) {
  auto graph = GraphFromText(LoopText(kListFromTensor, 5));
  ASSERT_NE(graph, nullptr);
  const std::vector<float> xs = Sequence();
  std::vector<std::vector<std::vector<double>>> steps;
  for (int t = 0; t < 5; ++t) steps.push_back({Step(xs, t)});
  const auto want = Recurrence(steps);
  const Tensor x = Floats(TensorShape({5, 1, kFeatures}), xs);
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto session = Session::Create(graph, options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (int round = 0; round < 2; ++round) {
      auto out = (*session)->Run({{"x", x}}, {"loop:1", "loop:2", "list"});
      ASSERT_TRUE(out.ok()) << out.status();
      ExpectH((*out)[0], want);
      // The list leaves the loop as it came in: the caller's, not the
      // projected one (same buffer, same elements).
      EXPECT_EQ((*out)[1].raw_data(), (*out)[2].raw_data());
    }
  }
}

// Steps of [1, 8] and [2, 8] do not stack: the prologue fails and the loop
// runs as it is, h broadcasting from one row to two in the second step.
TEST(LoopInputProjectionTest, ListThatDoesNotStackRunsTheLoopAsItIs) {
  auto graph = GraphFromText(LoopText(kRaggedList, 2));
  ASSERT_NE(graph, nullptr);
  const std::vector<float> xs = Sequence();
  const Tensor x0 =
      Floats(TensorShape({1, kFeatures}), {xs.begin(), xs.begin() + kFeatures});
  const Tensor x1 =
      Floats(TensorShape({2, kFeatures}),
             {xs.begin() + kFeatures, xs.begin() + 3 * kFeatures});
  const auto want = Recurrence({{Step(xs, 0)}, {Step(xs, 1), Step(xs, 2)}});
  SessionOptions options;
  options.threads = 0;
  auto session = Session::Create(graph, options);
  ASSERT_TRUE(session.ok()) << session.status();
  auto out = (*session)->Run({{"x0", x0}, {"x1", x1}}, {"loop:1"});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectH((*out)[0], want);
}

// The While node's cond and body as FunctionBodyGraph makes them, and its
// constant loop variables (w and u).
struct Functions {
  FunctionGraph cond, body;
  std::vector<Tensor> constants;
};

Functions Instantiate(const Graph& graph) {
  Functions f;
  const Node* loop = graph.FindNode("loop");
  NameAttrList cond_f, body_f;
  EXPECT_TRUE(GetNodeAttr(loop->attrs(), "cond", &cond_f).ok());
  EXPECT_TRUE(GetNodeAttr(loop->attrs(), "body", &body_f).ok());
  auto cond = FunctionBodyGraph(graph.library(), cond_f, "loop/cond/", {},
                                OpRegistry::Global());
  auto body = FunctionBodyGraph(graph.library(), body_f, "loop/body/", {},
                                OpRegistry::Global());
  EXPECT_TRUE(cond.ok()) << cond.status();
  EXPECT_TRUE(body.ok()) << body.status();
  if (!cond.ok() || !body.ok()) return f;
  f.cond = *std::move(cond);
  f.body = *std::move(body);
  f.constants.resize(5);
  for (int i : {3, 4}) {
    const Node* c = loop->input(i).node;
    auto it = c->attrs().find("value");
    f.constants[i] = it->second.tensor;
  }
  return f;
}

const NodeDef* FindDef(const FunctionGraph& fn, const std::string& name) {
  for (const NodeDef& n : fn.graph_def.node) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

TEST(LoopInputProjectionTest, FindsTheProductOfTheList) {
  auto graph = GraphFromText(LoopText(kListFromTensor, 5));
  ASSERT_NE(graph, nullptr);
  Functions f = Instantiate(*graph);
  LoopInputProjection p;
  ASSERT_TRUE(FindLoopInputProjection(f.cond, f.body,
                                      PassedThroughInputs(f.body), f.constants,
                                      "loop/projection/", &p));
  EXPECT_EQ(p.list_input, 2);
  const NodeDef* xw = FindDef(p.body, "loop/body/xw");
  ASSERT_NE(xw, nullptr);
  EXPECT_EQ(xw->op, "TensorListGetItem");
  // It keeps the product's control input.
  EXPECT_EQ(xw->input.back(), "^loop/body/next");
  EXPECT_EQ(FindDef(p.body, "loop/body/x_t"), nullptr);
  EXPECT_EQ(p.prologue.feeds, std::vector<std::string>{"loop/projection/list"});
  const NodeDef* product = FindDef(p.prologue, "loop/projection/product");
  ASSERT_NE(product, nullptr);
  EXPECT_EQ(product->op, "MatMul");

  // The prologue maps the list of x_t to the list of x_t w: run it on the
  // outer graph's list and stack the result.
  SessionOptions options;
  options.threads = 0;
  auto outer = Session::Create(graph, options);
  ASSERT_TRUE(outer.ok()) << outer.status();
  const std::vector<float> xs = Sequence();
  auto list = (*outer)->Run({{"x", Floats(TensorShape({5, 1, kFeatures}), xs)}},
                            {"list"});
  ASSERT_TRUE(list.ok()) << list.status();
  GraphDef def = p.prologue.graph_def;
  NodeDef stack;
  stack.name = "check/stacked";
  stack.op = "TensorListStack";
  stack.input = {p.prologue.fetches[0],
                 "loop/projection/projected_element_shape"};
  stack.attr["element_dtype"] = AttrValue::Type(DT_FLOAT);
  def.node.push_back(stack);
  auto imported = ImportGraphDef(std::move(def), ImportOptions());
  ASSERT_TRUE(imported.ok()) << imported.status();
  ASSERT_TRUE(InferShapes(imported->get(), ShapeInferenceOptions()).ok());
  auto prologue = Session::Create(
      std::shared_ptr<const Graph>(*std::move(imported)), options);
  ASSERT_TRUE(prologue.ok()) << prologue.status();
  auto projected =
      (*prologue)->Run({{p.prologue.feeds[0], (*list)[0]}}, {"check/stacked"});
  ASSERT_TRUE(projected.ok()) << projected.status();
  const Tensor& steps = (*projected)[0];
  ASSERT_EQ(steps.shape(), TensorShape({5, 1, 3}));
  for (int t = 0; t < 5; ++t) {
    for (int j = 0; j < 3; ++j) {
      double want = 0;
      for (int k = 0; k < kFeatures; ++k) {
        want += xs[t * kFeatures + k] * Weight(k, j);
      }
      EXPECT_NEAR(steps.data<float>()[t * 3 + j], want, 1e-6) << t << "," << j;
    }
  }
}

TEST(LoopInputProjectionTest, LeavesLoopsItMustNotTouch) {
  LoopInputProjection p;
  {
    // w fed by the caller (not a constant): no product to make once.
    auto graph = GraphFromText(LoopText(kListFromTensor, 5));
    ASSERT_NE(graph, nullptr);
    Functions f = Instantiate(*graph);
    f.constants[3] = Tensor();
    EXPECT_FALSE(FindLoopInputProjection(
        f.cond, f.body, PassedThroughInputs(f.body), f.constants, "p/", &p));
  }
  {
    // cond reads the list.
    auto graph = GraphFromText(LoopText(
        kListFromTensor, 5,
        R"(node_def { name: "len" op: "TensorListLength" input: "l" })"));
    ASSERT_NE(graph, nullptr);
    Functions f = Instantiate(*graph);
    EXPECT_FALSE(FindLoopInputProjection(
        f.cond, f.body, PassedThroughInputs(f.body), f.constants, "p/", &p));
  }
  {
    // The step goes elsewhere too.
    auto graph = GraphFromText(
        LoopText(kListFromTensor, 5, "",
                 R"(node_def { name: "also" op: "Neg" input: "x_t:item:0"
             attr { key: "T" value { type: DT_FLOAT } } })"));
    ASSERT_NE(graph, nullptr);
    Functions f = Instantiate(*graph);
    EXPECT_FALSE(FindLoopInputProjection(
        f.cond, f.body, PassedThroughInputs(f.body), f.constants, "p/", &p));
  }
}

}  // namespace
}  // namespace loop_input_projection_test
}  // namespace weft
