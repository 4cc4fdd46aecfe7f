// The session's graph optimizer (executor/graph_optimizer.h): constant
// folding and Conv2D / DepthwiseConv2dNative / MatMul fusion give the same
// outputs as running the graph's nodes as they are (SessionOptions.optimize
// = false), keep fetched and fed tensors' meaning, and leave alone what they
// must not rewrite.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/tensor.h"
#include "executor/graph_optimizer.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// Builds small graphs node by node.
class Builder {
 public:
  std::string Const(const std::string& name, const Tensor& value) {
    NodeDef n;
    n.name = name;
    n.op = "Const";
    n.attr["dtype"] = AttrValue::Type(value.dtype());
    n.attr["value"] = AttrValue::TensorValue(value);
    def_.node.push_back(std::move(n));
    return name;
  }
  std::string Placeholder(const std::string& name, const TensorShape& shape,
                          DataType dtype = DT_FLOAT) {
    NodeDef n;
    n.name = name;
    n.op = "Placeholder";
    n.attr["dtype"] = AttrValue::Type(dtype);
    n.attr["shape"] = AttrValue::Shape(PartialTensorShape(shape));
    def_.node.push_back(std::move(n));
    return name;
  }
  std::string Op(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs, AttrMap attrs = {},
                 DataType dtype = DT_FLOAT) {
    NodeDef n;
    n.name = name;
    n.op = op;
    n.input = std::move(inputs);
    n.attr = std::move(attrs);
    if (n.attr.find("T") == n.attr.end()) n.attr["T"] = AttrValue::Type(dtype);
    def_.node.push_back(std::move(n));
    return name;
  }
  std::string Conv(const std::string& name, const std::string& input,
                   const std::string& filter, int stride = 1,
                   const std::string& padding = "SAME",
                   const std::string& op = "Conv2D") {
    AttrMap a;
    a["strides"] = AttrValue::IntList({1, stride, stride, 1});
    a["padding"] = AttrValue::String(padding);
    return Op(name, op, {input, filter}, std::move(a));
  }

  // A node as given (no "T" attr added).
  std::string Node(const std::string& name, const std::string& op,
                   std::vector<std::string> inputs, AttrMap attrs) {
    NodeDef n;
    n.name = name;
    n.op = op;
    n.input = std::move(inputs);
    n.attr = std::move(attrs);
    def_.node.push_back(std::move(n));
    return name;
  }

  std::shared_ptr<const Graph> Build() {
    ImportOptions io;
    io.source_name = "opt.pbtxt";
    auto g = ImportGraphDef(def_, io);
    EXPECT_TRUE(g.ok()) << g.status();
    ShapeInferenceOptions so;
    so.source_name = "opt.pbtxt";
    Status s = InferShapes(g->get(), so);
    EXPECT_TRUE(s.ok()) << s;
    return std::shared_ptr<const Graph>(std::move(*g));
  }

 private:
  GraphDef def_;
};

// Uniform values in [lo, hi), reproducible.
Tensor Random(const TensorShape& shape, float lo = -1, float hi = 1,
              unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

std::unique_ptr<Session> MakeSession(std::shared_ptr<const Graph> g,
                                     bool optimize, int threads = 2) {
  SessionOptions options;
  options.threads = threads;
  options.optimize = optimize;
  options.source_name = "opt.pbtxt";
  auto s = Session::Create(std::move(g), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

struct Outcome {
  std::vector<Tensor> outputs;
  std::vector<std::string> ran;  // node names, as traced
  int num_nodes = 0;
};

Outcome RunGraph(const std::shared_ptr<const Graph>& g, bool optimize,
                 const std::vector<std::pair<std::string, Tensor>>& feeds,
                 const std::vector<std::string>& fetches) {
  auto session = MakeSession(g, optimize);
  std::vector<std::string> feed_names;
  std::vector<Tensor> feed_values;
  for (const auto& f : feeds) {
    feed_names.push_back(f.first);
    feed_values.push_back(f.second);
  }
  Outcome out;
  auto callable = session->Prepare(feed_names, fetches);
  EXPECT_TRUE(callable.ok()) << callable.status();
  if (!callable.ok()) return out;
  out.num_nodes = (*callable)->num_nodes();
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  Status s =
      session->Run(**callable, feed_values, &out.outputs, options, &metadata);
  EXPECT_TRUE(s.ok()) << s;
  for (const NodeTrace& t : metadata.node_traces) {
    out.ran.push_back(t.node->name());
  }
  return out;
}

// A float32 scalar tensor.
Tensor FloatScalar(float v) {
  Tensor t(DT_FLOAT, TensorShape({}));
  t.data<float>()[0] = v;
  return t;
}

// One traced run of `g` optimized, at `threads`, feeding x: the fetched
// values and the nodes that ran (owned by `callable`'s plan).
struct Traced {
  std::unique_ptr<Session> session;
  std::shared_ptr<const Callable> callable;
  std::vector<Tensor> outputs;
  std::vector<const Node*> nodes;
};
Traced RunTraced(const std::shared_ptr<const Graph>& g, int threads,
                 const Tensor& x, const std::string& fetch) {
  Traced out;
  out.session = MakeSession(g, true, threads);
  auto callable = out.session->Prepare({"x"}, {fetch});
  EXPECT_TRUE(callable.ok()) << callable.status();
  if (!callable.ok()) return out;
  out.callable = *callable;
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  EXPECT_TRUE(
      out.session->Run(*out.callable, {x}, &out.outputs, options, &metadata)
          .ok());
  for (const NodeTrace& t : metadata.node_traces) out.nodes.push_back(t.node);
  return out;
}

// |a - b| <= rel * |b| + abs_scale * max|B| elementwise, NaN matching NaN
// and infinities matching exactly. Folding a batch-norm scale into a filter
// rounds differently from scaling the convolution's output, by a few float
// ulps of the terms summed: 1e-5 relative to the output's scale covers the
// products of a few hundred terms below with a wide margin and still
// catches a wrong channel, bias or activation.
void ExpectClose(const Tensor& a, const Tensor& b, double rel = 1e-5,
                 double abs_scale = 1e-5) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  if (a.dtype() != DT_FLOAT) {
    ASSERT_EQ(a.TotalBytes(), b.TotalBytes());
    EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()));
    return;
  }
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  double max_b = 0;
  for (int64_t i = 0; i < b.NumElements(); ++i) {
    if (std::isfinite(y[i])) max_b = std::max(max_b, std::fabs(double(y[i])));
  }
  int bad = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const bool ok =
        std::isnan(y[i])
            ? std::isnan(x[i])
            : (std::isinf(y[i])
                   ? x[i] == y[i]
                   : std::fabs(double(x[i]) - y[i]) <=
                         rel * std::fabs(double(y[i])) + abs_scale * max_b);
    if (!ok && ++bad <= 5) {
      ADD_FAILURE() << "element " << i << ": optimized " << x[i]
                    << ", unoptimized " << y[i];
    }
  }
  EXPECT_EQ(bad, 0);
}

int CountFused(const std::vector<std::string>& names) {
  int n = 0;
  for (const auto& name : names) n += absl::StrContains(name, "+");
  return n;
}

bool Ran(const Outcome& o, const std::string& name) {
  for (const auto& n : o.ran) {
    if (n == name) return true;
  }
  return false;
}

AttrMap LeakyAlpha(float alpha) {
  AttrMap a;
  a["alpha"] = AttrValue::Float(alpha);
  return a;
}

// ---- constant folding -----------------------------------------------------

// y = x * rsqrt(var + eps) * gamma: the Keras batch-norm scale subgraph.
std::shared_ptr<const Graph> ScaleGraph() {
  Builder b;
  b.Placeholder("x", TensorShape({2, 3}));
  b.Const("var", Random(TensorShape({3}), 0.5, 2, 2));
  b.Const("eps", Random(TensorShape({}), 1e-3, 2e-3, 3));
  b.Const("gamma", Random(TensorShape({3}), 0.5, 2, 4));
  b.Op("add", "AddV2", {"var", "eps"});
  b.Op("rsqrt", "Rsqrt", {"add"});
  b.Op("scale", "Mul", {"rsqrt", "gamma"});
  b.Op("y", "Mul", {"x", "scale"});
  return b.Build();
}

TEST(OptimizeTest, FoldsConstantSubgraphs) {
  auto g = ScaleGraph();
  Tensor x = Random(TensorShape({2, 3}));
  Outcome off = RunGraph(g, false, {{"x", x}}, {"y"});
  Outcome on = RunGraph(g, true, {{"x", x}}, {"y"});
  EXPECT_EQ(off.num_nodes, 4);
  // Only the product with the placeholder is left to run.
  EXPECT_EQ(on.num_nodes, 1);
  EXPECT_EQ(on.ran, (std::vector<std::string>{"y"}));
  // Folding evaluates the same kernels: bit for bit the same.
  ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
}

TEST(OptimizeTest, FetchedFoldedNodesKeepNameAndValue) {
  auto g = ScaleGraph();
  Tensor x = Random(TensorShape({2, 3}));
  Outcome off = RunGraph(g, false, {{"x", x}}, {"scale", "y", "rsqrt:0"});
  Outcome on = RunGraph(g, true, {{"x", x}}, {"scale", "y", "rsqrt:0"});
  ASSERT_EQ(on.outputs.size(), 3u);
  for (int i = 0; i < 3; ++i) ExpectClose(on.outputs[i], off.outputs[i], 0, 0);
  // Without feeds everything is constant: nothing runs.
  Outcome consts = RunGraph(g, true, {}, {"scale"});
  EXPECT_EQ(consts.num_nodes, 0);
  ExpectClose(consts.outputs[0], off.outputs[0], 0, 0);
}

// A TensorList op whose inputs are all constants still runs: variant
// values are never folded into constants.
TEST(OptimizeTest, ListsAreNotFolded) {
  Builder b;
  Tensor shape(DT_INT32, TensorShape({1}));
  shape.data<int32_t>()[0] = 3;
  Tensor minus_one(DT_INT32, TensorShape());
  *minus_one.data<int32_t>() = -1;
  b.Placeholder("x", TensorShape({3}));
  b.Const("shape", shape);
  b.Const("minus_one", minus_one);
  AttrMap new_list;
  new_list["element_dtype"] = AttrValue::Type(DT_FLOAT);
  new_list["shape_type"] = AttrValue::Type(DT_INT32);
  b.Node("list", "EmptyTensorList", {"shape", "minus_one"}, new_list);
  AttrMap push;
  push["element_dtype"] = AttrValue::Type(DT_FLOAT);
  b.Node("pushed", "TensorListPushBack", {"list", "x"}, push);
  b.Node("again", "TensorListPushBack", {"pushed", "x"}, push);
  b.Node("y", "TensorListStack", {"again", "minus_one"}, push);
  auto g = b.Build();
  Tensor x = Random(TensorShape({3}));
  Outcome off = RunGraph(g, false, {{"x", x}}, {"y"});
  Outcome on = RunGraph(g, true, {{"x", x}}, {"y"});
  EXPECT_EQ(on.ran, off.ran);
  EXPECT_EQ(on.ran, (std::vector<std::string>{"list", "pushed", "again", "y"}));
  ASSERT_EQ(on.outputs[0].shape(), TensorShape({2, 3}));
  ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
}

TEST(OptimizeTest, FedNodesAndWhatFollowsThemAreNotFolded) {
  auto g = ScaleGraph();
  Tensor x = Random(TensorShape({2, 3}));
  // Feeding an inner node (`add`) replaces what the graph computes there,
  // and feeding a Const (`gamma`) replaces its value.
  Tensor add = Random(TensorShape({3}), 1, 4, 7);
  Tensor gamma = Random(TensorShape({3}), -2, -1, 8);
  for (const auto& feeds :
       std::vector<std::vector<std::pair<std::string, Tensor>>>{
           {{"x", x}, {"add", add}},
           {{"x", x}, {"gamma", gamma}},
           {{"x", x}, {"add", add}, {"gamma", gamma}}}) {
    Outcome off = RunGraph(g, false, feeds, {"y", "scale"});
    Outcome on = RunGraph(g, true, feeds, {"y", "scale"});
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    ExpectClose(on.outputs[1], off.outputs[1], 0, 0);
    // Below a fed `add` nothing is constant; with only `gamma` fed, the
    // sum and its rsqrt still fold.
    EXPECT_EQ(on.num_nodes, feeds.size() == 2 && feeds[1].first == "gamma"
                                ? off.num_nodes - 2
                                : off.num_nodes);
  }
  // The same session keeps one optimized graph per signature.
  auto session = MakeSession(g, true);
  auto a = session->Run({{"x", x}}, {"scale"});
  auto b = session->Run({{"x", x}, {"add", add}}, {"scale"});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_NE((*a)[0].data<float>()[0], (*b)[0].data<float>()[0]);
}

TEST(OptimizeTest, OversizedResultsAreNotFolded) {
  // Fill makes 32 MiB out of two small constants: over the 16 MiB cap.
  Builder b;
  b.Placeholder("x", TensorShape({}));
  Tensor dims(DT_INT32, TensorShape({1}));
  dims.data<int32_t>()[0] = 8 << 20;
  b.Const("dims", dims);
  b.Const("one", Random(TensorShape({}), 1, 1.5));
  b.Op("big", "Fill", {"dims", "one"},
       {{"index_type", AttrValue::Type(DT_INT32)}});
  b.Op("y", "Mul", {"big", "x"});
  auto g = b.Build();
  Tensor x = Random(TensorShape({}));
  Outcome on = RunGraph(g, true, {{"x", x}}, {"y"});
  EXPECT_TRUE(Ran(on, "big"));
  EXPECT_EQ(on.outputs[0].NumElements(), 8 << 20);
}

// ---- fusion ---------------------------------------------------------------

struct Pattern {
  std::string name;
  std::shared_ptr<const Graph> graph;
  TensorShape input;
  std::string fetch;
  std::string fused_name;  // what the fused node is called
  int nodes_after;         // nodes run after optimizing
};

// conv -> BiasAdd(b) -> Relu
Pattern ConvBiasRelu(int k, int stride) {
  Builder b;
  b.Placeholder("x", TensorShape({2, 9, 9, 5}));
  b.Const("w", Random(TensorShape({k, k, 5, 7}), -1, 1, 11));
  b.Const("b", Random(TensorShape({7}), -1, 1, 12));
  b.Conv("conv", "x", "w", stride, k == 1 ? "VALID" : "SAME");
  b.Op("bias", "BiasAdd", {"conv", "b"});
  b.Op("relu", "Relu", {"bias"});
  return {absl::StrCat("ConvBiasRelu", k, "x", k, "s", stride),
          b.Build(),
          TensorShape({2, 9, 9, 5}),
          "relu",
          "conv+BiasAdd+Relu",
          1};
}

// Keras 3's batch normalization after a bias-free convolution, with its
// constant subgraph: conv * (rsqrt(var + eps) * gamma) + (beta - mean *
// scale), then `activation`.
Pattern KerasBatchNorm(const std::string& head, const std::string& activation,
                       bool broadcast_shape) {
  Builder b;
  const int c = head == "DepthwiseConv2dNative" ? 6 * 2 : 7;
  b.Placeholder("x", TensorShape({1, 8, 8, 6}));
  b.Const("w",
          Random(head == "DepthwiseConv2dNative" ? TensorShape({3, 3, 6, 2})
                                                 : TensorShape({3, 3, 6, 7}),
                 -1, 1, 21));
  b.Conv("conv", "x", "w", 1, "SAME", head);
  TensorShape vec =
      broadcast_shape ? TensorShape({1, 1, 1, c}) : TensorShape({c});
  b.Const("var", Random(vec, 0.5, 2, 22));
  b.Const("eps", Random(TensorShape({}), 1e-3, 2e-3, 23));
  b.Const("gamma", Random(vec, 0.5, 2, 24));
  b.Const("beta", Random(vec, -1, 1, 25));
  b.Const("mean", Random(vec, -1, 1, 26));
  b.Op("bn/add", "AddV2", {"var", "eps"});
  b.Op("bn/rsqrt", "Rsqrt", {"bn/add"});
  b.Op("bn/mul", "Mul", {"bn/rsqrt", "gamma"});
  b.Op("bn/mul_1", "Mul", {"conv", "bn/mul"});
  b.Op("bn/mul_2", "Mul", {"mean", "bn/mul"});
  b.Op("bn/sub", "Sub", {"beta", "bn/mul_2"});
  b.Op("bn/add_1", "AddV2", {"bn/mul_1", "bn/sub"});
  std::string fetch = "bn/add_1";
  std::string fused = "conv+Mul+AddV2";
  if (!activation.empty()) {
    b.Op("act", activation, {"bn/add_1"},
         activation == "LeakyRelu" ? LeakyAlpha(0.3f) : AttrMap{});
    fetch = "act";
    fused += "+" + activation;
  }
  return {absl::StrCat("KerasBatchNorm_", head, "_", activation,
                       broadcast_shape ? "_broadcast" : ""),
          b.Build(),
          TensorShape({1, 8, 8, 6}),
          fetch,
          fused,
          1};
}

// conv -> FusedBatchNormV3 (inference) -> Relu
Pattern FusedBatchNorm() {
  Builder b;
  b.Placeholder("x", TensorShape({2, 8, 8, 4}));
  b.Const("w", Random(TensorShape({3, 3, 4, 6}), -1, 1, 31));
  b.Const("b", Random(TensorShape({6}), -1, 1, 32));
  b.Conv("conv", "x", "w", 2);
  b.Op("bias", "BiasAdd", {"conv", "b"});
  b.Const("scale", Random(TensorShape({6}), 0.5, 2, 33));
  b.Const("offset", Random(TensorShape({6}), -1, 1, 34));
  b.Const("mean", Random(TensorShape({6}), -1, 1, 35));
  b.Const("var", Random(TensorShape({6}), 0.5, 2, 36));
  AttrMap a;
  a["U"] = AttrValue::Type(DT_FLOAT);
  a["is_training"] = AttrValue::Bool(false);
  a["epsilon"] = AttrValue::Float(1e-3f);
  b.Op("bn", "FusedBatchNormV3", {"bias", "scale", "offset", "mean", "var"},
       std::move(a));
  b.Op("relu", "Relu", {"bn"});
  return {"FusedBatchNorm",
          b.Build(),
          TensorShape({2, 8, 8, 4}),
          "relu",
          "conv+BiasAdd+FusedBatchNormV3+Relu",
          1};
}

// MatMul -> bias -> activation, in the ways dense layers are written.
Pattern Dense(const std::string& bias_op, const std::string& activation,
              bool transpose_b, bool scale) {
  Builder b;
  b.Placeholder("x", TensorShape({3, 16}));
  b.Const("w",
          Random(transpose_b ? TensorShape({10, 16}) : TensorShape({16, 10}),
                 -1, 1, 41));
  b.Const("b", Random(bias_op == "BiasAdd" ? TensorShape({10})
                                           : TensorShape({1, 10}),
                      -1, 1, 42));
  AttrMap mm;
  mm["transpose_b"] = AttrValue::Bool(transpose_b);
  b.Op("mm", "MatMul", {"x", "w"}, std::move(mm));
  std::string last = "mm";
  std::string fused = "mm";
  if (scale) {
    b.Const("s", Random(TensorShape({10}), 0.5, 2, 43));
    // The scale on the left: Mul is commutative.
    last = b.Op("scaled", "Mul", {"s", last});
    fused += "+Mul";
  }
  // AddV2 with the bias first, as `b + x@w` is written.
  last = bias_op == "BiasAdd" ? b.Op("bias", "BiasAdd", {last, "b"})
                              : b.Op("bias", bias_op, {"b", last});
  fused += "+" + bias_op;
  if (!activation.empty()) {
    last = b.Op("act", activation, {last},
                activation == "LeakyRelu" ? LeakyAlpha(0.1f) : AttrMap{});
    fused += "+" + activation;
  }
  return {absl::StrCat("Dense_", bias_op, "_", activation,
                       transpose_b ? "_tb" : "", scale ? "_scaled" : ""),
          b.Build(),
          TensorShape({3, 16}),
          last,
          fused,
          1};
}

std::vector<Pattern> Patterns() {
  return {ConvBiasRelu(3, 1),
          ConvBiasRelu(3, 2),
          ConvBiasRelu(1, 1),
          KerasBatchNorm("Conv2D", "Relu6", false),
          KerasBatchNorm("Conv2D", "", true),
          KerasBatchNorm("Conv2D", "Elu", true),
          KerasBatchNorm("DepthwiseConv2dNative", "Relu6", true),
          KerasBatchNorm("DepthwiseConv2dNative", "LeakyRelu", false),
          FusedBatchNorm(),
          Dense("BiasAdd", "Relu", false, false),
          Dense("AddV2", "Elu", false, false),
          Dense("Add", "LeakyRelu", true, true),
          Dense("BiasAdd", "", true, false)};
}

TEST(OptimizeTest, FusedPatternsMatchTheUnoptimizedGraph) {
  for (const Pattern& p : Patterns()) {
    SCOPED_TRACE(p.name);
    for (int trial = 0; trial < 3; ++trial) {
      Tensor x = Random(p.input, -2, 2, 100 + trial);
      Outcome off = RunGraph(p.graph, false, {{"x", x}}, {p.fetch});
      Outcome on = RunGraph(p.graph, true, {{"x", x}}, {p.fetch});
      ASSERT_EQ(on.outputs.size(), 1u);
      ExpectClose(on.outputs[0], off.outputs[0]);
      EXPECT_EQ(on.num_nodes, p.nodes_after);
      EXPECT_EQ(on.ran, (std::vector<std::string>{p.fused_name}));
    }
  }
}

// A residual connection joins the product before it: ResNet's identity
// and projection shortcuts, a Dense layer's, an unknown batch dimension.
// The fused epilogue does the same float operations in the same order, so
// the results equal the unoptimized graph's bit for bit.
TEST(OptimizeTest, ResidualAddsJoinTheProductBitForBit) {
  AttrMap unknown_batch;
  unknown_batch["dtype"] = AttrValue::Type(DT_FLOAT);
  unknown_batch["shape"] = AttrValue::Shape(PartialTensorShape({-1, 9, 9, 8}));
  const Tensor x = Random(TensorShape({2, 9, 9, 8}), -2, 2, 61);
  for (bool known_batch : {true, false}) {
    SCOPED_TRACE(known_batch ? "known batch" : "unknown batch");
    {
      // Identity shortcut: relu(conv2(relu(conv1(x) + b1)) + b2 + x).
      Builder b;
      if (known_batch) {
        b.Placeholder("x", TensorShape({2, 9, 9, 8}));
      } else {
        b.Node("x", "Placeholder", {}, unknown_batch);
      }
      b.Const("w1", Random(TensorShape({3, 3, 8, 8}), -1, 1, 62));
      b.Const("b1", Random(TensorShape({8}), -1, 1, 63));
      b.Const("w2", Random(TensorShape({1, 1, 8, 8}), -1, 1, 64));
      b.Const("b2", Random(TensorShape({8}), -1, 1, 65));
      b.Conv("conv1", "x", "w1");
      b.Op("bias1", "BiasAdd", {"conv1", "b1"});
      b.Op("relu1", "Relu", {"bias1"});
      b.Conv("conv2", "relu1", "w2");
      b.Op("bias2", "BiasAdd", {"conv2", "b2"});
      b.Op("add", "AddV2", {"bias2", "x"});
      b.Op("out", "Relu", {"add"});
      auto g = b.Build();
      Outcome on = RunGraph(g, true, {{"x", x}}, {"out"});
      Outcome off = RunGraph(g, false, {{"x", x}}, {"out"});
      std::set<std::string> ran(on.ran.begin(), on.ran.end());
      EXPECT_EQ(ran, (std::set<std::string>{"conv1+BiasAdd+Relu",
                                            "conv2+BiasAdd+AddV2+Relu"}));
      ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    }
    {
      // Projection shortcut, the residual as AddV2's first operand, no
      // activation after it: one of the two chains takes the sum.
      Builder b;
      if (known_batch) {
        b.Placeholder("x", TensorShape({2, 9, 9, 8}));
      } else {
        b.Node("x", "Placeholder", {}, unknown_batch);
      }
      b.Const("ws", Random(TensorShape({1, 1, 8, 6}), -1, 1, 66));
      b.Const("bs", Random(TensorShape({6}), -1, 1, 67));
      b.Const("wm", Random(TensorShape({3, 3, 8, 6}), -1, 1, 68));
      b.Const("bm", Random(TensorShape({6}), -1, 1, 69));
      b.Conv("short", "x", "ws", 2);
      b.Op("short_bias", "BiasAdd", {"short", "bs"});
      b.Conv("main", "x", "wm", 2);
      b.Op("main_bias", "BiasAdd", {"main", "bm"});
      b.Op("sum", "AddV2", {"short_bias", "main_bias"});
      auto g = b.Build();
      Outcome on = RunGraph(g, true, {{"x", x}}, {"sum"});
      Outcome off = RunGraph(g, false, {{"x", x}}, {"sum"});
      EXPECT_EQ(on.num_nodes, 2);
      EXPECT_EQ(CountFused(on.ran), 2);
      EXPECT_TRUE(Ran(on, "short+BiasAdd+AddV2") ||
                  Ran(on, "main+BiasAdd+AddV2"))
          << absl::StrJoin(on.ran, ", ");
      ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    }
  }
  {
    // A Dense layer with a residual: relu6(x @ w + b + x).
    Builder b;
    b.Placeholder("x", TensorShape({3, 16}));
    b.Const("w", Random(TensorShape({16, 16}), -1, 1, 70));
    b.Const("b", Random(TensorShape({16}), -1, 1, 71));
    b.Op("mm", "MatMul", {"x", "w"});
    b.Op("bias", "BiasAdd", {"mm", "b"});
    b.Op("add", "Add", {"x", "bias"});
    b.Op("act", "Relu6", {"add"});
    auto g = b.Build();
    const Tensor xd = Random(TensorShape({3, 16}), -4, 4, 72);
    Outcome on = RunGraph(g, true, {{"x", xd}}, {"act"});
    Outcome off = RunGraph(g, false, {{"x", xd}}, {"act"});
    EXPECT_EQ(on.ran, (std::vector<std::string>{"mm+BiasAdd+Add+Relu6"}));
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
  }
}

// Adds that are not a residual of the product's shape stay separate: a
// broadcast operand, a depthwise head, and what follows a residual other
// than an activation.
TEST(OptimizeTest, ResidualsThatMustNotFuse) {
  const Tensor x = Random(TensorShape({2, 9, 9, 8}), -2, 2, 81);
  Builder b;
  b.Placeholder("x", TensorShape({2, 9, 9, 8}));
  b.Placeholder("y", TensorShape({1, 1, 1, 8}));
  b.Const("w", Random(TensorShape({3, 3, 8, 8}), -1, 1, 82));
  b.Const("dw", Random(TensorShape({3, 3, 8, 1}), -1, 1, 83));
  b.Const("b", Random(TensorShape({8}), -1, 1, 84));
  b.Const("s", Random(TensorShape({8}), 0.5, 2, 85));
  // conv_c's own filter: the same one would make it conv_a's duplicate.
  b.Const("w2", Random(TensorShape({3, 3, 8, 8}), -1, 1, 87));
  // The operand broadcasts (one value per channel, not a constant).
  b.Conv("conv_a", "x", "w");
  b.Op("bias_a", "BiasAdd", {"conv_a", "b"});
  b.Op("add_a", "AddV2", {"bias_a", "y"});
  // A depthwise convolution takes no residual.
  b.Conv("conv_b", "x", "dw", 1, "SAME", "DepthwiseConv2dNative");
  b.Op("bias_b", "BiasAdd", {"conv_b", "b"});
  b.Op("add_b", "AddV2", {"bias_b", "x"});
  // A scale after the residual applies to the sum: it stays.
  b.Conv("conv_c", "x", "w2");
  b.Op("add_c", "AddV2", {"conv_c", "x"});
  b.Op("scaled_c", "Mul", {"add_c", "s"});
  auto g = b.Build();
  const Tensor y = Random(TensorShape({1, 1, 1, 8}), -1, 1, 86);
  const std::vector<std::string> fetches = {"add_a", "add_b", "scaled_c"};
  Outcome on = RunGraph(g, true, {{"x", x}, {"y", y}}, fetches);
  Outcome off = RunGraph(g, false, {{"x", x}, {"y", y}}, fetches);
  std::set<std::string> ran(on.ran.begin(), on.ran.end());
  EXPECT_EQ(ran,
            (std::set<std::string>{"conv_a+BiasAdd", "add_a", "conv_b+BiasAdd",
                                   "add_b", "conv_c+AddV2", "scaled_c"}));
  for (size_t i = 0; i < fetches.size(); ++i) {
    ExpectClose(on.outputs[i], off.outputs[i], 0, 0);
  }
}

TEST(OptimizeTest, NanAndInfinityPassThroughFusedActivations) {
  for (const char* activation : {"Relu", "Relu6", "Elu", "LeakyRelu", ""}) {
    SCOPED_TRACE(activation);
    Pattern p = Dense("BiasAdd", activation, false, false);
    Tensor x = Random(p.input, -2, 2, 5);
    float* v = x.data<float>();
    v[0] = std::numeric_limits<float>::quiet_NaN();   // row 0: all NaN
    v[16] = std::numeric_limits<float>::infinity();   // row 1: +-inf
    v[32] = -std::numeric_limits<float>::infinity();  // row 2: -+inf
    Outcome off = RunGraph(p.graph, false, {{"x", x}}, {p.fetch});
    Outcome on = RunGraph(p.graph, true, {{"x", x}}, {p.fetch});
    EXPECT_EQ(CountFused(on.ran), 1);
    ExpectClose(on.outputs[0], off.outputs[0]);
    // The NaN row stays NaN through every activation.
    for (int j = 0; j < 10; ++j) {
      EXPECT_TRUE(std::isnan(on.outputs[0].data<float>()[j])) << j;
    }
  }
}

TEST(OptimizeTest, FetchedIntermediatesAreNotFusedAway) {
  Pattern p = ConvBiasRelu(3, 1);
  Tensor x = Random(p.input);
  Outcome off = RunGraph(p.graph, false, {{"x", x}}, {"bias", "relu"});
  Outcome on = RunGraph(p.graph, true, {{"x", x}}, {"bias", "relu"});
  ExpectClose(on.outputs[0], off.outputs[0]);
  ExpectClose(on.outputs[1], off.outputs[1]);
  // The bias joins the convolution (its output is fetched: the fused node
  // stands in for it), the Relu stays on its own.
  std::set<std::string> ran(on.ran.begin(), on.ran.end());
  EXPECT_EQ(ran, (std::set<std::string>{"conv+BiasAdd", "relu"}));
  // Fetching the convolution itself leaves nothing to fuse.
  Outcome conv = RunGraph(p.graph, true, {{"x", x}}, {"conv", "relu"});
  EXPECT_EQ(CountFused(conv.ran), 0);
}

TEST(OptimizeTest, TargetsAndFetchesNamingTheLastNodeFollowTheFusion) {
  Pattern p = ConvBiasRelu(3, 1);
  auto session = MakeSession(p.graph, true);
  Tensor x = Random(p.input);
  auto out = session->Run({{"x", x}}, {"relu:0"}, {"relu"});
  ASSERT_TRUE(out.ok()) << out.status();
  auto off = MakeSession(p.graph, false)->Run({{"x", x}}, {"relu"});
  ASSERT_TRUE(off.ok());
  ExpectClose((*out)[0], (*off)[0]);
}

TEST(OptimizeTest, FeedingAnIntermediateStopsTheChainThere) {
  Pattern p = ConvBiasRelu(3, 1);
  Tensor x = Random(p.input);
  Tensor bias = Random(TensorShape({2, 9, 9, 7}), -1, 1, 9);
  Outcome off = RunGraph(p.graph, false, {{"x", x}, {"bias", bias}}, {"relu"});
  Outcome on = RunGraph(p.graph, true, {{"x", x}, {"bias", bias}}, {"relu"});
  ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
  EXPECT_EQ(on.ran, (std::vector<std::string>{"relu"}));
}

TEST(OptimizeTest, PatternsThatMustNotFuse) {
  Tensor x = Random(TensorShape({2, 9, 9, 5}));
  {
    // The convolution's output has two consumers.
    Builder b;
    b.Placeholder("x", TensorShape({2, 9, 9, 5}));
    b.Const("w", Random(TensorShape({3, 3, 5, 7}), -1, 1, 11));
    b.Const("b", Random(TensorShape({7}), -1, 1, 12));
    b.Conv("conv", "x", "w");
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Op("other", "Relu", {"conv"});
    b.Op("sum", "AddV2", {"bias", "other"});
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}}, {"sum"});
    Outcome off = RunGraph(g, false, {{"x", x}}, {"sum"});
    EXPECT_EQ(CountFused(on.ran), 0);
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
  }
  {
    // The bias is not a constant, and the scale is a per-element tensor.
    Builder b;
    b.Placeholder("x", TensorShape({2, 9, 9, 5}));
    b.Placeholder("b", TensorShape({7}));
    b.Const("w", Random(TensorShape({3, 3, 5, 7}), -1, 1, 11));
    b.Const("s", Random(TensorShape({9, 7}), -1, 1, 13));
    b.Conv("conv", "x", "w");
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Conv("conv2", "x", "w");
    b.Op("scaled", "Mul", {"conv2", "s"});
    auto g = b.Build();
    Tensor bias = Random(TensorShape({7}), -1, 1, 3);
    Outcome on = RunGraph(g, true, {{"x", x}, {"b", bias}}, {"bias", "scaled"});
    Outcome off =
        RunGraph(g, false, {{"x", x}, {"b", bias}}, {"bias", "scaled"});
    EXPECT_EQ(CountFused(on.ran), 0);
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    ExpectClose(on.outputs[1], off.outputs[1], 0, 0);
  }
  {
    // A scale cannot go into a filter that is not a constant; the bias
    // after it still cannot be reached, so nothing fuses.
    Builder b;
    b.Placeholder("x", TensorShape({2, 9, 9, 5}));
    b.Placeholder("w", TensorShape({3, 3, 5, 7}));
    b.Const("s", Random(TensorShape({7}), -1, 1, 13));
    b.Conv("conv", "x", "w");
    b.Op("scaled", "Mul", {"conv", "s"});
    auto g = b.Build();
    Tensor w = Random(TensorShape({3, 3, 5, 7}), -1, 1, 4);
    Outcome on = RunGraph(g, true, {{"x", x}, {"w", w}}, {"scaled"});
    EXPECT_EQ(CountFused(on.ran), 0);
  }
  {
    // int32: left alone.
    Builder b;
    b.Placeholder("x", TensorShape({1, 4, 4, 2}), DT_INT32);
    Tensor w(DT_INT32, TensorShape({1, 1, 2, 3}));
    Tensor bias(DT_INT32, TensorShape({3}));
    for (int i = 0; i < 6; ++i) w.data<int32_t>()[i] = i - 2;
    for (int i = 0; i < 3; ++i) bias.data<int32_t>()[i] = 5 - 4 * i;
    b.Const("w", w);
    b.Const("b", bias);
    AttrMap a;
    a["strides"] = AttrValue::IntList({1, 1, 1, 1});
    a["padding"] = AttrValue::String("VALID");
    b.Op("conv", "Conv2D", {"x", "w"}, std::move(a), DT_INT32);
    b.Op("bias", "BiasAdd", {"conv", "b"}, {}, DT_INT32);
    b.Op("relu", "Relu", {"bias"}, {}, DT_INT32);
    auto g = b.Build();
    Tensor xi(DT_INT32, TensorShape({1, 4, 4, 2}));
    for (int i = 0; i < 32; ++i) xi.data<int32_t>()[i] = i % 7 - 3;
    Outcome on = RunGraph(g, true, {{"x", xi}}, {"relu"});
    Outcome off = RunGraph(g, false, {{"x", xi}}, {"relu"});
    EXPECT_EQ(CountFused(on.ran), 0);
    EXPECT_EQ(on.num_nodes, 3);
    ExpectClose(on.outputs[0], off.outputs[0]);
  }
  {
    // A FusedBatchNormV3 whose batch statistics are used, and one in
    // training mode, stay.
    Builder b;
    b.Placeholder("x", TensorShape({2, 9, 9, 5}));
    b.Const("w", Random(TensorShape({3, 3, 5, 4}), -1, 1, 11));
    for (const char* c : {"scale", "offset", "mean", "var"}) {
      b.Const(c, Random(TensorShape({4}), 0.5, 1.5, 14));
    }
    b.Conv("conv", "x", "w");
    AttrMap a;
    a["U"] = AttrValue::Type(DT_FLOAT);
    a["is_training"] = AttrValue::Bool(false);
    b.Op("bn", "FusedBatchNormV3", {"conv", "scale", "offset", "mean", "var"},
         a);
    b.Conv("conv2", "x", "w");
    a["is_training"] = AttrValue::Bool(true);
    b.Op("bn2", "FusedBatchNormV3", {"conv2", "scale", "offset", "mean", "var"},
         a);
    auto g = b.Build();
    std::vector<std::string> fetches = {"bn", "bn:1", "bn2"};
    Outcome on = RunGraph(g, true, {{"x", x}}, fetches);
    Outcome off = RunGraph(g, false, {{"x", x}}, fetches);
    EXPECT_EQ(CountFused(on.ran), 0);
    for (int i = 0; i < 3; ++i) {
      ExpectClose(on.outputs[i], off.outputs[i], 0, 0);
    }
  }
}

TEST(OptimizeTest, ChromeTraceNamesTheFusedNodes) {
  Pattern p = ConvBiasRelu(3, 1);
  auto session = MakeSession(p.graph, true);
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  auto out =
      session->Run({{"x", Random(p.input)}}, {"relu"}, {}, options, &metadata);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(metadata.node_traces.size(), 1u);
  EXPECT_EQ(metadata.node_traces[0].node->name(), "conv+BiasAdd+Relu");
  EXPECT_EQ(metadata.node_traces[0].node->op(), "_FusedConv2D");
  std::string path = ::testing::TempDir() + "/weft_optimize_trace.json";
  ASSERT_TRUE(WriteChromeTrace(metadata, path).ok());
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string json(1 << 16, '\0');
  json.resize(std::fread(json.data(), 1, json.size(), f));
  std::fclose(f);
  std::remove(path.c_str());
  EXPECT_THAT(json, HasSubstr("\"name\": \"conv+BiasAdd+Relu\""));
  EXPECT_THAT(json,
              HasSubstr("\"fused_nodes\": [\"conv\", \"bias\", \"relu\"]"));
}

TEST(OptimizeTest, ResultsDoNotDependOnTheThreadCount) {
  Pattern p = KerasBatchNorm("Conv2D", "Relu6", false);
  Tensor x = Random(p.input);
  std::vector<Tensor> first;
  for (int threads : {0, 1, 2, 4}) {
    auto session = MakeSession(p.graph, true, threads);
    auto out = session->Run({{"x", x}}, {p.fetch});
    ASSERT_TRUE(out.ok()) << out.status();
    if (first.empty()) {
      first = *out;
    } else {
      ExpectClose((*out)[0], first[0], 0, 0);
    }
  }
}

// ---- pad folding ----------------------------------------------------------

// [4, 2] paddings of `dtype` (DT_INT32 or DT_INT64), dimension by dimension.
Tensor Paddings(const std::vector<int64_t>& v, DataType dtype = DT_INT32) {
  Tensor t(dtype, TensorShape({4, 2}));
  for (int i = 0; i < 8; ++i) {
    if (dtype == DT_INT32) {
      t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    } else {
      t.data<int64_t>()[i] = v[i];
    }
  }
  return t;
}

struct PadCase {
  std::string name;
  std::string head = "DepthwiseConv2dNative";
  std::vector<int64_t> paddings = {0, 0, 0, 1, 0, 1, 0, 0};
  DataType paddings_type = DT_INT32;
  std::string pad_op = "Pad";
  float pad_value = 0;  // PadV2
  std::string conv_padding = "VALID";
  int stride = 2;
  bool fuse = true;  // BiasAdd + Relu6 after the convolution
};

// x -> Pad -> conv [-> BiasAdd -> Relu6]; fetches "y".
std::shared_ptr<const Graph> PadGraph(const PadCase& c) {
  Builder b;
  b.Placeholder("x", TensorShape({2, 10, 9, 6}));
  b.Const("paddings", Paddings(c.paddings, c.paddings_type));
  AttrMap pad_attrs;
  pad_attrs["Tpaddings"] = AttrValue::Type(c.paddings_type);
  if (c.pad_op == "PadV2") {
    Tensor value(DT_FLOAT, TensorShape({}));
    value.data<float>()[0] = c.pad_value;
    b.Const("value", value);
    b.Op("pad", "PadV2", {"x", "paddings", "value"}, pad_attrs);
  } else {
    b.Op("pad", "Pad", {"x", "paddings"}, pad_attrs);
  }
  const int64_t out_c = c.head == "Conv2D" ? 5 : 6 * 2;
  b.Const("w", Random(TensorShape({3, 3, 6, c.head == "Conv2D" ? 5 : 2}), -1, 1,
                      21));
  AttrMap a;
  a["strides"] = AttrValue::IntList({1, c.stride, c.stride, 1});
  a["padding"] = AttrValue::String(c.conv_padding);
  if (c.conv_padding == "EXPLICIT") {
    a["explicit_paddings"] = AttrValue::IntList({0, 0, 1, 0, 0, 2, 0, 0});
  }
  b.Op(c.fuse ? "conv" : "y", c.head, {"pad", "w"}, a);
  if (c.fuse) {
    b.Const("b", Random(TensorShape({out_c}), -1, 1, 22));
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Op("y", "Relu6", {"bias"});
  }
  return b.Build();
}

TEST(OptimizeTest, ZeroPadsFoldIntoTheConvolutionsPadding) {
  std::vector<PadCase> cases;
  for (const char* head : {"DepthwiseConv2dNative", "Conv2D"}) {
    for (bool fuse : {true, false}) {
      for (int stride : {1, 2}) {
        PadCase c;
        c.head = head, c.fuse = fuse, c.stride = stride;
        c.name = absl::StrCat(head, fuse ? "_fused" : "", "_s", stride);
        cases.push_back(c);
      }
    }
    PadCase c;
    c.head = head;
    c.name = absl::StrCat(head, "_int64_asymmetric");
    c.paddings = {0, 0, 2, 1, 0, 3, 0, 0};
    c.paddings_type = DT_INT64;
    cases.push_back(c);
    c.name = absl::StrCat(head, "_padv2_explicit");
    c.pad_op = "PadV2";
    c.conv_padding = "EXPLICIT";  // the amounts add up
    cases.push_back(c);
  }
  for (const PadCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto g = PadGraph(c);
    Tensor x = Random(TensorShape({2, 10, 9, 6}), -2, 2, 23);
    Outcome off = RunGraph(g, false, {{"x", x}}, {"y"});
    Outcome on = RunGraph(g, true, {{"x", x}}, {"y"});
    ASSERT_EQ(on.outputs.size(), 1u);
    // The padded zeros added nothing: the same values bit for bit.
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    EXPECT_FALSE(Ran(on, "pad"));
    EXPECT_EQ(on.num_nodes, 1);
    EXPECT_EQ(CountFused(on.ran), c.fuse ? 1 : 0);
  }
}

TEST(OptimizeTest, PadsThatMustNotFold) {
  std::vector<PadCase> cases;
  PadCase c;
  c.name = "nonzero_value";
  c.pad_op = "PadV2";
  c.pad_value = 0.5f;
  cases.push_back(c);
  c = PadCase();
  c.name = "channels_padded";
  c.head = "Conv2D";  // the filter's input depth follows the padded channels
  c.paddings = {0, 0, 0, 1, 0, 1, 0, 0};
  cases.push_back(c);
  c = PadCase();
  c.name = "batch_padded";
  c.paddings = {1, 0, 0, 1, 0, 1, 0, 0};
  cases.push_back(c);
  c = PadCase();
  c.name = "same_padding";
  c.conv_padding = "SAME";
  cases.push_back(c);
  for (const PadCase& p : cases) {
    SCOPED_TRACE(p.name);
    PadCase k = p;
    if (k.name == "channels_padded") {
      // Pad C from 6 to 7; the filter is built for 7 input channels below.
      k.paddings = {0, 0, 0, 1, 0, 1, 0, 1};
    }
    std::shared_ptr<const Graph> g;
    if (k.name == "channels_padded") {
      Builder b;
      b.Placeholder("x", TensorShape({2, 10, 9, 6}));
      b.Const("paddings", Paddings(k.paddings));
      b.Op("pad", "Pad", {"x", "paddings"});
      b.Const("w", Random(TensorShape({3, 3, 7, 5}), -1, 1, 21));
      b.Conv("y", "pad", "w", 2, "VALID");
      g = b.Build();
    } else {
      g = PadGraph(k);
    }
    Tensor x = Random(TensorShape({2, 10, 9, 6}), -2, 2, 24);
    Outcome off = RunGraph(g, false, {{"x", x}}, {"y"});
    Outcome on = RunGraph(g, true, {{"x", x}}, {"y"});
    ASSERT_EQ(on.outputs.size(), 1u);
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    EXPECT_TRUE(Ran(on, "pad"));
  }
  // The Pad's output fetched too, or fed: it stays.
  auto g = PadGraph(PadCase());
  Tensor x = Random(TensorShape({2, 10, 9, 6}), -2, 2, 25);
  Outcome fetched = RunGraph(g, true, {{"x", x}}, {"y", "pad"});
  EXPECT_TRUE(Ran(fetched, "pad"));
  Outcome off = RunGraph(g, false, {{"x", x}}, {"y", "pad"});
  ExpectClose(fetched.outputs[0], off.outputs[0], 0, 0);
  Tensor padded = Random(TensorShape({2, 11, 10, 6}), -2, 2, 26);
  Outcome fed = RunGraph(g, true, {{"pad", padded}}, {"y"});
  Outcome fed_off = RunGraph(g, false, {{"pad", padded}}, {"y"});
  ExpectClose(fed.outputs[0], fed_off.outputs[0], 0, 0);
}

TEST(OptimizeTest, SummaryCountsFoldedPads) {
  auto g = PadGraph(PadCase());
  auto session = MakeSession(g, true);
  auto callable = session->Prepare({"x"}, {"y"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  EXPECT_THAT((*callable)->optimizer_summary(),
              HasSubstr("1 Pads folded into convolutions"));
}

// ---- swish ------------------------------------------------------------------

// x * Sigmoid(x) and x * Sigmoid(beta * x), either operand order, after a
// fused convolution (Keras' EfficientNet block) and on a plain input, over
// values that reach the sigmoid's tails, +-inf, NaN and -0: one _Swish node,
// bit-identical to the Sigmoid and Mul it replaces, at 1 and 2 threads. 67
// elements per image row: neither a multiple of a vector nor a single one.
TEST(OptimizeTest, SwishIsOneNodeBitIdenticalToSigmoidTimesX) {
  for (bool sigmoid_first : {false, true}) {
    SCOPED_TRACE(sigmoid_first);
    Builder b;
    b.Placeholder("x", TensorShape({2, 5, 67, 3}));
    b.Const("w", Random(TensorShape({1, 1, 3, 4}), -1, 1, 21));
    b.Const("b", Random(TensorShape({4}), -1, 1, 22));
    b.Conv("conv", "x", "w");
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Op("sig", "Sigmoid", {"bias"});
    b.Op("swish", "Mul",
         sigmoid_first ? std::vector<std::string>{"sig", "bias"}
                       : std::vector<std::string>{"bias", "sig"});
    b.Op("sig2", "Sigmoid", {"x"});
    b.Op("swish2", "Mul", {"x", "sig2"});
    // tf.nn.silu's form, Sigmoid(beta * x): beta 1 (Keras) and 1.5.
    b.Const("one", FloatScalar(1.0f));
    b.Const("beta", FloatScalar(1.5f));
    b.Op("bx", "Mul", {"x", "one"});
    b.Op("sig3", "Sigmoid", {"bx"});
    b.Op("swish3", "Mul", {"sig3", "x"});
    b.Op("bx4", "Mul", {"beta", "bias"});
    b.Op("sig4", "Sigmoid", {"bx4"});
    b.Op("swish4", "Mul", {"bias", "sig4"});
    auto g = b.Build();
    Tensor x = Random(TensorShape({2, 5, 67, 3}), -120, 120, 23);
    float* v = x.data<float>();
    v[0] = std::numeric_limits<float>::infinity();
    v[1] = -std::numeric_limits<float>::infinity();
    v[2] = std::numeric_limits<float>::quiet_NaN();
    v[3] = -0.0f;
    v[4] = -90.0f;  // a sigmoid below the smallest normal float
    for (int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      const std::vector<std::string> fetches = {"swish", "swish2", "swish3",
                                                "swish4"};
      Outcome off = RunGraph(g, false, {{"x", x}}, fetches);
      auto session = MakeSession(g, true, threads);
      auto callable = session->Prepare({"x"}, fetches);
      ASSERT_TRUE(callable.ok()) << callable.status();
      std::vector<Tensor> on;
      RunOptions options;
      options.trace = true;
      RunMetadata metadata;
      ASSERT_TRUE(session->Run(**callable, {x}, &on, options, &metadata).ok());
      std::vector<std::string> ops;
      for (const NodeTrace& t : metadata.node_traces) {
        ops.push_back(t.node->op());
      }
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "_Swish"), 4);
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "Sigmoid"), 0);
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "Mul"), 0);
      // Bit for bit, except that a NaN may have another sign or payload.
      for (int k = 0; k < 4; ++k) {
        ASSERT_EQ(on[k].shape(), off.outputs[k].shape());
        const float* a = on[k].data<float>();
        const float* e = off.outputs[k].data<float>();
        int differ = 0;
        for (int64_t i = 0; i < on[k].NumElements(); ++i) {
          const bool same = std::isnan(e[i])
                                ? std::isnan(a[i])
                                : std::memcmp(&a[i], &e[i], sizeof(float)) == 0;
          differ += !same;
        }
        EXPECT_EQ(differ, 0) << k;
      }
    }
    // The special values, from the definition: inf * 1, -inf * 0 is NaN
    // (as Mul gives), NaN, -0 * 0.5.
    Outcome on = RunGraph(g, true, {{"x", x}}, {"swish2"});
    const float* y = on.outputs[0].data<float>();
    EXPECT_EQ(y[0], std::numeric_limits<float>::infinity());
    EXPECT_TRUE(std::isnan(y[1]));
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], 0.0f);
    EXPECT_TRUE(std::signbit(y[3]));
  }
}

TEST(OptimizeTest, SwishPatternsThatMustNotFuse) {
  Tensor x = Random(TensorShape({4, 33}), -8, 8, 31);
  {
    // The Sigmoid's value also goes elsewhere.
    Builder b;
    b.Placeholder("x", TensorShape({4, 33}));
    b.Op("sig", "Sigmoid", {"x"});
    b.Op("swish", "Mul", {"x", "sig"});
    b.Op("other", "Neg", {"sig"});
    b.Op("sum", "AddV2", {"swish", "other"});
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}}, {"sum"});
    Outcome off = RunGraph(g, false, {{"x", x}}, {"sum"});
    // No _Swish: the element-wise fusion takes the three nodes before the
    // fetched sum instead.
    EXPECT_FALSE(Ran(on, "sig+swish"));
    EXPECT_EQ(CountFused(on.ran), 1) << absl::StrJoin(on.ran, ", ");
    EXPECT_EQ(on.ran.size(), 2u) << absl::StrJoin(on.ran, ", ");
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
  }
  {
    // The Mul's other operand is not the Sigmoid's input.
    Builder b;
    b.Placeholder("x", TensorShape({4, 33}));
    b.Placeholder("z", TensorShape({4, 33}));
    b.Op("sig", "Sigmoid", {"x"});
    b.Op("gate", "Mul", {"z", "sig"});
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}, {"z", x}}, {"gate"});
    EXPECT_TRUE(Ran(on, "sig"));
    EXPECT_TRUE(Ran(on, "gate"));
  }
  {
    // The Sigmoid is fetched: its value must stay.
    Builder b;
    b.Placeholder("x", TensorShape({4, 33}));
    b.Op("sig", "Sigmoid", {"x"});
    b.Op("swish", "Mul", {"x", "sig"});
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}}, {"swish", "sig"});
    Outcome off = RunGraph(g, false, {{"x", x}}, {"swish", "sig"});
    EXPECT_TRUE(Ran(on, "sig"));
    EXPECT_TRUE(Ran(on, "swish"));
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
    ExpectClose(on.outputs[1], off.outputs[1], 0, 0);
  }
}

// ---- swish as a fused epilogue
// -----------------------------------------------

// A swish activation after a product and its bias, as Keras writes it
// (tf.nn.silu's beta * x here with beta 1.5, Sigmoid,
// x * Sigmoid, and the IdentityN its custom gradient writes, IdentityN(result,
// x, beta), of which only the result is read: here first or last) or as
// x * Sigmoid(x). The
// product absorbs the swish as its activation ("Swish" in fused_ops): one
// fused node, no Sigmoid, Mul or _Swish left, the IdentityN kept with the read
// input alone, and the unoptimized graph's bits (any NaN for a NaN) at 1 and
// 2 threads, for a 1x1 and a 3x3 convolution, a depthwise one and a MatMul,
// over values that reach the sigmoid's tails, infinities and NaN.
TEST(OptimizeTest, SwishAfterAProductBecomesItsActivation) {
  struct Head {
    const char* op;
    TensorShape input, filter;
    int64_t channels;
  };
  const Head heads[] = {
      {"Conv2D", TensorShape({2, 7, 9, 5}), TensorShape({1, 1, 5, 37}), 37},
      {"Conv2D", TensorShape({1, 12, 11, 24}), TensorShape({3, 3, 24, 40}), 40},
      {"DepthwiseConv2dNative", TensorShape({2, 8, 6, 19}),
       TensorShape({3, 3, 19, 1}), 19},
      {"MatMul", TensorShape({13, 70}), TensorShape({70, 33}), 33}};
  for (const Head& h : heads) {
    for (bool keras : {true, false}) {
      SCOPED_TRACE(absl::StrCat(h.op, " ", h.filter.DebugString(),
                                keras ? " keras" : " x * Sigmoid(x)"));
      Builder b;
      b.Placeholder("x", h.input);
      b.Const("w", Random(h.filter, -1, 1, 31));
      b.Const("b", Random(TensorShape({h.channels}), -1, 1, 32));
      b.Const("beta", FloatScalar(keras ? 1.5f : 1.0f));
      if (std::string(h.op) == "MatMul") {
        b.Op("head", "MatMul", {"x", "w"});
      } else {
        b.Conv("head", "x", "w", 1, "SAME", h.op);
      }
      b.Op("bias", "BiasAdd", {"head", "b"});
      std::string fetch;
      if (keras) {
        b.Op("bx", "Mul", {"beta", "bias"});
        b.Op("sig", "Sigmoid", {"bx"});
        b.Op("swish", "Mul", {"bias", "sig"});
        // The MatMul's IdentityN reads the result last: its output 2
        // becomes the pruned node's output 0.
        const bool last = std::string(h.op) == "MatMul";
        AttrMap t;
        t["T"] = AttrValue::TypeList({DT_FLOAT, DT_FLOAT, DT_FLOAT});
        b.Node("identity", "IdentityN",
               last ? std::vector<std::string>{"beta", "bias", "swish"}
                    : std::vector<std::string>{"swish", "bias", "beta"},
               t);
        b.Op("out", "Neg", {last ? "identity:2" : "identity"});
        fetch = "out";
      } else {
        b.Op("sig", "Sigmoid", {"bias"});
        b.Op("swish", "Mul", {"sig", "bias"});
        fetch = "swish";
      }
      auto g = b.Build();
      Tensor x = Random(h.input, -6, 6, 33);
      float* v = x.data<float>();
      v[0] = std::numeric_limits<float>::infinity();
      v[7] = -std::numeric_limits<float>::infinity();
      v[h.input.num_elements() - 1] = std::numeric_limits<float>::quiet_NaN();
      v[h.input.num_elements() / 2] = 90.0f;
      v[h.input.num_elements() / 3] = -90.0f;
      Outcome off = RunGraph(g, false, {{"x", x}}, {fetch});
      for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Traced run = RunTraced(g, threads, x, fetch);
        ASSERT_EQ(run.outputs.size(), 1u);
        std::vector<std::string> ops;
        for (const Node* n : run.nodes) {
          ops.push_back(n->op());
          if (n->op().rfind("_Fused", 0) != 0) continue;
          std::vector<std::string> fused_ops;
          ASSERT_TRUE(GetNodeAttr(n->attrs(), "fused_ops", &fused_ops).ok());
          EXPECT_EQ(fused_ops, (std::vector<std::string>{"BiasAdd", "Swish"}));
          float beta = 0;
          ASSERT_TRUE(GetNodeAttr(n->attrs(), "swish_beta", &beta).ok());
          EXPECT_EQ(beta, keras ? 1.5f : 1.0f);
          if (keras) {
            EXPECT_EQ(n->num_inputs(), 3);  // input, filter, bias
          }
        }
        for (const char* gone : {"Sigmoid", "Mul", "_Swish", h.op}) {
          EXPECT_EQ(std::count(ops.begin(), ops.end(), gone), 0) << gone;
        }
        EXPECT_EQ(std::count(ops.begin(), ops.end(), "IdentityN"),
                  keras ? 1 : 0);
        ExpectClose(run.outputs[0], off.outputs[0], 0, 0);
      }
    }
  }
}

// The swish stays a node of its own (after the product's bias) when the
// product's value also goes elsewhere: the IdentityN's output of it is read,
// another node reads it, or it is fetched. Results as unoptimized.
TEST(OptimizeTest, SwishEpilogueOnlyWhenTheValueGoesNowhereElse) {
  const Tensor x = Random(TensorShape({1, 6, 5, 4}), -4, 4, 41);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    Builder b;
    b.Placeholder("x", TensorShape({1, 6, 5, 4}));
    b.Const("w", Random(TensorShape({1, 1, 4, 8}), -1, 1, 42));
    b.Const("b", Random(TensorShape({8}), -1, 1, 43));
    b.Conv("conv", "x", "w");
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Op("sig", "Sigmoid", {"bias"});
    b.Op("swish", "Mul", {"bias", "sig"});
    AttrMap t;
    t["T"] = AttrValue::TypeList({DT_FLOAT, DT_FLOAT});
    b.Node("identity", "IdentityN", {"swish", "bias"}, t);
    b.Op("relu", "Relu", {"bias"});
    std::vector<std::string> fetches = {"identity"};
    if (variant == 0) fetches.push_back("identity:1");
    if (variant == 1) fetches.push_back("relu");
    if (variant == 2) fetches.push_back("bias");
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}}, fetches);
    Outcome off = RunGraph(g, false, {{"x", x}}, fetches);
    EXPECT_TRUE(Ran(on, "sig+swish")) << absl::StrJoin(on.ran, ", ");
    for (size_t k = 0; k < fetches.size(); ++k) {
      ExpectClose(on.outputs[k], off.outputs[k], 0, 0);
    }
  }
}

// Keras' hard swish (hard_silu) after a product and its bias, x * (Relu6(x +
// 3) / 6) as AddV2, Relu6, RealDiv and Mul: the product's activation
// ("HardSwish"), those four nodes gone, the unoptimized graph's bits (any NaN
// for a NaN), for a 1x1 convolution, a depthwise one (then a 1x1: one
// separable node) and a MatMul, at 1 and 2 threads. Values reach both
// sides of the Relu6, infinities and NaN.
TEST(OptimizeTest, HardSwishAfterAProductBecomesItsActivation) {
  struct Head {
    const char* op;
    TensorShape input, filter;
    int64_t channels;
  };
  const Head heads[] = {
      {"Conv2D", TensorShape({2, 7, 9, 5}), TensorShape({1, 1, 5, 37}), 37},
      {"DepthwiseConv2dNative", TensorShape({2, 8, 6, 19}),
       TensorShape({3, 3, 19, 1}), 19},
      {"MatMul", TensorShape({13, 70}), TensorShape({70, 33}), 33}};
  for (const Head& h : heads) {
    SCOPED_TRACE(h.op);
    const bool depthwise = std::string(h.op) == "DepthwiseConv2dNative";
    Builder b;
    b.Placeholder("x", h.input);
    b.Const("w", Random(h.filter, -2, 2, 51));
    b.Const("b", Random(TensorShape({h.channels}), -2, 2, 52));
    b.Const("three", FloatScalar(3.0f));
    b.Const("six", FloatScalar(6.0f));
    if (std::string(h.op) == "MatMul") {
      b.Op("head", "MatMul", {"x", "w"});
    } else {
      b.Conv("head", "x", "w", 1, "SAME", h.op);
    }
    b.Op("bias", "BiasAdd", {"head", "b"});
    b.Op("add", "AddV2", {"bias", "three"});
    b.Op("relu6", "Relu6", {"add"});
    b.Op("div", "RealDiv", {"relu6", "six"});
    b.Op("hswish", "Mul", {"bias", "div"});
    std::string fetch = "hswish";
    if (depthwise) {
      b.Const("pw", Random(TensorShape({1, 1, h.channels, 7}), -1, 1, 53));
      b.Conv("pointwise", "hswish", "pw");
      // Not the fetch itself: a fetched product heads no fusion.
      b.Op("out", "Relu", {"pointwise"});
      fetch = "out";
    }
    auto g = b.Build();
    Tensor x = Random(h.input, -3, 3, 54);
    float* v = x.data<float>();
    v[0] = std::numeric_limits<float>::infinity();
    v[7] = -std::numeric_limits<float>::infinity();
    v[h.input.num_elements() - 1] = std::numeric_limits<float>::quiet_NaN();
    Outcome off = RunGraph(g, false, {{"x", x}}, {fetch});
    for (int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      Traced run = RunTraced(g, threads, x, fetch);
      ASSERT_EQ(run.nodes.size(), 1u);
      const Node* fused = run.nodes[0];
      std::vector<std::string> fused_ops;
      ASSERT_TRUE(GetNodeAttr(fused->attrs(),
                              depthwise ? "depthwise_fused_ops" : "fused_ops",
                              &fused_ops)
                      .ok())
          << fused->op() << " " << fused->name();
      EXPECT_EQ(fused_ops, (std::vector<std::string>{"BiasAdd", "HardSwish"}));
      ExpectClose(run.outputs[0], off.outputs[0], 0, 0);
    }
  }
}

// A hard swish whose constants are not 3 and 6, that ends in a Mul by 1 / 6
// (other bits than RealDiv), or whose x also goes elsewhere stays as its
// nodes; results as unoptimized.
TEST(OptimizeTest, HardSwishOnlyAsKerasWritesIt) {
  const Tensor x = Random(TensorShape({1, 6, 5, 4}), -8, 8, 61);
  for (int variant = 0; variant < 3; ++variant) {
    SCOPED_TRACE(variant);
    Builder b;
    b.Placeholder("x", TensorShape({1, 6, 5, 4}));
    b.Const("w", Random(TensorShape({1, 1, 4, 8}), -1, 1, 62));
    b.Const("b", Random(TensorShape({8}), -1, 1, 63));
    b.Const("three", FloatScalar(variant == 0 ? 2.5f : 3.0f));
    b.Const("six", FloatScalar(variant == 1 ? 1.0f / 6 : 6.0f));
    b.Conv("conv", "x", "w");
    b.Op("bias", "BiasAdd", {"conv", "b"});
    b.Op("add", "AddV2", {"bias", "three"});
    b.Op("relu6", "Relu6", {"add"});
    b.Op("div", variant == 1 ? "Mul" : "RealDiv", {"relu6", "six"});
    b.Op("hswish", "Mul", {"bias", "div"});
    std::vector<std::string> fetches = {"hswish"};
    if (variant == 2) {
      b.Op("other", "Neg", {"bias"});
      fetches.push_back("other");
    }
    auto g = b.Build();
    Outcome on = RunGraph(g, true, {{"x", x}}, fetches);
    Outcome off = RunGraph(g, false, {{"x", x}}, fetches);
    EXPECT_TRUE(Ran(on, "hswish")) << absl::StrJoin(on.ran, ", ");
    for (size_t k = 0; k < fetches.size(); ++k) {
      ExpectClose(on.outputs[k], off.outputs[k], 0, 0);
    }
  }
}

// ---- duplicates
// --------------------------------------------------------------

// Merged duplicates count as readers of the node they merge into: a Relu
// computed twice after a convolution's bias is one activation of the fused
// node, read by both products; a BiasAdd computed twice, once read by a
// Relu and once by a Neg, is read twice and absorbs neither. Results as
// unoptimized, bit for bit.
TEST(OptimizeTest, DuplicatesMergeBeforeFusion) {
  Builder b;
  b.Placeholder("x", TensorShape({1, 6, 5, 4}));
  b.Const("w", Random(TensorShape({1, 1, 4, 8}), -1, 1, 71));
  b.Const("w2", Random(TensorShape({1, 1, 8, 3}), -1, 1, 72));
  b.Const("w3", Random(TensorShape({1, 1, 8, 5}), -1, 1, 73));
  b.Const("b", Random(TensorShape({8}), -1, 1, 74));
  b.Conv("conv", "x", "w");
  b.Op("bias", "BiasAdd", {"conv", "b"});
  b.Op("relu_a", "Relu", {"bias"});
  b.Op("relu_b", "Relu", {"bias"});
  b.Conv("conv2", "relu_a", "w2");
  b.Conv("conv3", "relu_b", "w3");
  b.Op("out2", "Neg", {"conv2"});
  b.Op("out3", "Neg", {"conv3"});
  b.Conv("convb", "x", "w");
  b.Op("bias_x", "BiasAdd", {"convb", "b"});
  b.Op("bias_y", "BiasAdd", {"convb", "b"});
  b.Op("relu_x", "Relu", {"bias_x"});
  b.Op("neg_y", "Neg", {"bias_y"});
  auto g = b.Build();
  const Tensor x = Random(TensorShape({1, 6, 5, 4}), -2, 2, 75);
  const std::vector<std::string> fetches = {"out2", "out3", "relu_x", "neg_y"};
  Outcome on = RunGraph(g, true, {{"x", x}}, fetches);
  Outcome off = RunGraph(g, false, {{"x", x}}, fetches);
  const std::set<std::string> ran(on.ran.begin(), on.ran.end());
  // convb is conv's duplicate, so bias_x and bias_y are bias's: bias then
  // has five readers and ends the chain; relu_b goes into relu_a, relu_x
  // (fetched) stays.
  EXPECT_EQ(ran,
            (std::set<std::string>{"conv+BiasAdd", "relu_a", "conv2", "conv3",
                                   "out2", "out3", "relu_x", "neg_y"}))
      << absl::StrJoin(on.ran, ", ");
  for (size_t k = 0; k < fetches.size(); ++k) {
    ExpectClose(on.outputs[k], off.outputs[k], 0, 0);
  }
}

// ---- a batch normalization standing alone
// ------------------------------------

// A Mul of a rank-4 tensor by a constant per channel, then an AddV2 of a
// constant per channel and a Relu (a batch normalization and activation
// before a convolution: DenseNet, ResNetV2) run as a 1x1 depthwise
// convolution with that chain: before a 1x1 convolution, with or without
// the Relu, both in one _FusedSeparableConv2D (the product applies the
// chain as it packs its rows: kernels/cpu/gemm.h's GemmLhsPrologue); before
// a 3x3 convolution, or with only its bias, on its own.
// The unoptimized graph's values (a -0 may come out +0).
TEST(OptimizeTest, StandAloneBatchNormBecomesADepthwiseHead) {
  const TensorShape xs({2, 6, 5, 8});
  const Tensor x = Random(xs, -3, 3, 91);
  struct Case {
    // What reads the Relu: "1x1", "3x3", "1x1 no relu" (the AddV2 read by
    // the 1x1 convolution) or "" (no Relu, no convolution).
    const char* after;
    std::vector<std::string> ran_ops;
  };
  const Case cases[] = {
      {"1x1", {"_FusedSeparableConv2D", "Neg"}},
      {"1x1 no relu", {"_FusedSeparableConv2D", "Neg"}},
      {"3x3", {"MaxPool", "_FusedDepthwiseConv2dNative", "Conv2D", "Neg"}},
      {"", {"_FusedDepthwiseConv2dNative"}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.after);
    const std::string after = c.after;
    Builder b;
    b.Placeholder("x", xs);
    b.Const("s", Random(TensorShape({8}), 0.5, 2, 92));
    b.Const("o", Random(TensorShape({1, 1, 1, 8}), -1, 1, 93));
    b.Const("w1", Random(TensorShape({1, 1, 8, 5}), -1, 1, 94));
    b.Const("w3", Random(TensorShape({3, 3, 8, 5}), -1, 1, 95));
    std::string in = "x";
    if (after == "3x3") {
      AttrMap pool;
      pool["ksize"] = AttrValue::IntList({1, 2, 2, 1});
      pool["strides"] = AttrValue::IntList({1, 1, 1, 1});
      pool["padding"] = AttrValue::String("SAME");
      in = b.Op("pool", "MaxPool", {"x"}, pool);
    }
    b.Op("scale", "Mul", {in, "s"});
    b.Op("shift", "AddV2", {"scale", "o"});
    std::string fetch = "shift";
    if (after == "1x1 no relu") {
      b.Conv("conv", "shift", "w1");
      fetch = b.Op("out", "Neg", {"conv"});
    } else if (!after.empty()) {
      b.Op("relu", "Relu", {"shift"});
      b.Conv("conv", "relu", after == "1x1" ? "w1" : "w3");
      fetch = b.Op("out", "Neg", {"conv"});
    }
    auto g = b.Build();
    Outcome off = RunGraph(g, false, {{"x", x}}, {fetch});
    for (int threads : {1, 2}) {
      SCOPED_TRACE(threads);
      Traced run = RunTraced(g, threads, x, fetch);
      std::vector<std::string> ops;
      for (const Node* n : run.nodes) ops.push_back(n->op());
      EXPECT_EQ(ops, c.ran_ops);
      ExpectClose(run.outputs[0], off.outputs[0], 0, 0);
    }
  }
}

// A Mul by a tensor that is not a constant, one that broadcasts its other
// operand, one on a rank-3 tensor (a layer normalization's gamma) and one
// with nothing after it to absorb stay Muls.
TEST(OptimizeTest, MulsThatHeadNoChain) {
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    Builder b;
    const TensorShape xs = variant == 1   ? TensorShape({2, 6, 5, 1})
                           : variant == 2 ? TensorShape({2, 6, 8})
                                          : TensorShape({2, 6, 5, 8});
    b.Placeholder("x", xs);
    b.Placeholder("y", TensorShape({8}));
    b.Const("s", Random(TensorShape({8}), 0.5, 2, 96));
    b.Const("o", Random(TensorShape({8}), -1, 1, 97));
    b.Op("scale", "Mul", {"x", variant == 0 ? "y" : "s"});
    const std::string fetch =
        variant == 3 ? "scale" : b.Op("shift", "AddV2", {"scale", "o"});
    auto g = b.Build();
    const Tensor x = Random(xs, -2, 2, 98);
    const Tensor y = Random(TensorShape({8}), -2, 2, 99);
    Outcome on = RunGraph(g, true, {{"x", x}, {"y", y}}, {fetch});
    Outcome off = RunGraph(g, false, {{"x", x}, {"y", y}}, {fetch});
    EXPECT_TRUE(Ran(on, "scale")) << absl::StrJoin(on.ran, ", ");
    ExpectClose(on.outputs[0], off.outputs[0], 0, 0);
  }
}

}  // namespace
}  // namespace weft
