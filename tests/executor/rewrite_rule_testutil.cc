#include "tests/executor/rewrite_rule_testutil.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "device/cpu_device.h"
#include "executor/optimizer/rule_pipeline.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace rewrite_rule_test {

std::shared_ptr<const Graph> GraphFromText(const std::string& text) {
  auto def = ParseTextGraphDef(text, "rule.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  ImportOptions io;
  io.source_name = "rule.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return nullptr;
  ShapeInferenceOptions so;
  so.source_name = "rule.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

std::shared_ptr<OptimizedGraph> RunRule(const RewriteRule& rule,
                                        const Graph& graph, const Feeds& feeds,
                                        const std::vector<std::string>& fetches,
                                        bool cpu) {
  return RunRules({&rule}, graph, feeds, fetches, cpu);
}

std::shared_ptr<OptimizedGraph> RunRules(
    const std::vector<const RewriteRule*>& rules, const Graph& graph,
    const Feeds& feeds, const std::vector<std::string>& fetches, bool cpu) {
  std::vector<std::string> feed_names;
  absl::flat_hash_set<std::string> fed;
  for (const auto& f : feeds) {
    feed_names.push_back(f.first);
    fed.insert(f.first);
  }
  // What a plan would run: the fetches' upstream nodes, stopping at fed
  // ones (which do not run).
  std::vector<const Node*> live;
  std::vector<char> seen(graph.num_nodes(), 0);
  std::vector<const Node*> stack;
  for (const std::string& f : fetches) {
    auto parsed = ParseNodeInput(f);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    if (!parsed.ok()) return nullptr;
    stack.push_back(graph.FindNode(parsed->node));
  }
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (n == nullptr || seen[n->id()] || fed.contains(n->name())) continue;
    seen[n->id()] = 1;
    live.push_back(n);
    for (const Endpoint& e : n->inputs()) stack.push_back(e.node);
    for (const Node* c : n->control_inputs()) stack.push_back(c);
  }
  // One CPU device for every test: the optimized graph keeps the placement
  // function, so the device must outlive it.
  static CpuDevice* device = new CpuDevice("cpu:0", /*arena=*/nullptr);
  GraphOptimizerOptions options;
  options.source_name = "rule.pbtxt";
  options.cpu = cpu ? device : nullptr;
  options.place = [](const Node*) -> Device* { return device; };
  auto optimized = OptimizeGraphWithRules(graph, live, feed_names, fetches, {},
                                          options, rules);
  EXPECT_TRUE(optimized.ok()) << optimized.status();
  if (!optimized.ok()) return nullptr;
  return std::shared_ptr<OptimizedGraph>(std::move(*optimized));
}

namespace {

std::vector<Tensor> RunSession(std::shared_ptr<const Graph> graph,
                               const Feeds& feeds,
                               const std::vector<std::string>& fetches) {
  SessionOptions options;
  options.threads = 2;
  options.optimize = false;
  options.source_name = "rule.pbtxt";
  auto session = Session::Create(std::move(graph), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  std::vector<std::string> names;
  std::vector<Tensor> values;
  for (const auto& f : feeds) {
    names.push_back(f.first);
    values.push_back(f.second);
  }
  auto callable = (*session)->Prepare(names, fetches);
  EXPECT_TRUE(callable.ok()) << callable.status();
  if (!callable.ok()) return {};
  std::vector<Tensor> outputs;
  Status s = (*session)->Run(**callable, values, &outputs);
  EXPECT_TRUE(s.ok()) << s;
  return outputs;
}

}  // namespace

std::vector<Tensor> RunUnoptimized(std::shared_ptr<const Graph> graph,
                                   const Feeds& feeds,
                                   const std::vector<std::string>& fetches) {
  return RunSession(std::move(graph), feeds, fetches);
}

std::vector<Tensor> RunOptimized(std::shared_ptr<OptimizedGraph> optimized,
                                 const Feeds& feeds) {
  const std::vector<std::string> fetches = optimized->fetches();
  // The session shares ownership of the optimized graph it runs.
  std::shared_ptr<const Graph> graph(optimized, &optimized->graph());
  return RunSession(std::move(graph), feeds, fetches);
}

const Node* FindNode(const OptimizedGraph& optimized, const std::string& name) {
  return optimized.graph().FindNode(name);
}

int CountOps(const OptimizedGraph& optimized, const std::string& op) {
  int count = 0;
  for (const auto& node : optimized.graph().nodes()) count += node->op() == op;
  return count;
}

void ExpectSameBits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.TotalBytes(), b.TotalBytes());
  EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()));
}

void ExpectNear(const Tensor& a, const Tensor& b, float tolerance) {
  ASSERT_EQ(a.dtype(), DT_FLOAT);
  ASSERT_EQ(b.dtype(), DT_FLOAT);
  ASSERT_EQ(a.shape(), b.shape());
  const float* x = a.data<float>();
  const float* y = b.data<float>();
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    EXPECT_NEAR(x[i], y[i], tolerance * (1 + std::fabs(y[i]))) << i;
  }
}

Tensor Values(const TensorShape& shape, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

std::string FloatPlaceholderText(const std::string& name,
                                 const TensorShape& shape) {
  const absl::Span<const int64_t> dims = shape.dim_sizes();
  return PartialFloatPlaceholderText(name, {dims.begin(), dims.end()});
}

std::string PartialFloatPlaceholderText(const std::string& name,
                                        const std::vector<int64_t>& dims) {
  std::string text = absl::StrCat(
      "node { name: '", name,
      "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'shape' value { shape {");
  for (int64_t d : dims) absl::StrAppend(&text, " dim { size: ", d, " }");
  absl::StrAppend(&text, " } } } }");
  return text;
}

std::string FloatConstText(const std::string& name, const Tensor& value) {
  std::string text = absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape {");
  for (int d = 0; d < value.dims(); ++d) {
    absl::StrAppend(&text, " dim { size: ", value.dim_size(d), " }");
  }
  absl::StrAppend(&text, " }");
  for (int64_t i = 0; i < value.NumElements(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.9g", value.data<float>()[i]);
    absl::StrAppend(&text, " float_val: ", buf);
  }
  absl::StrAppend(&text, " } } } }\n");
  return text;
}

std::string FloatScalarText(const std::string& name, float value) {
  Tensor t(DT_FLOAT, TensorShape({}));
  t.data<float>()[0] = value;
  return FloatConstText(name, t);
}

std::string IntConstText(const std::string& name,
                         const std::vector<int64_t>& shape,
                         const std::vector<int>& values) {
  std::string dims, ints;
  for (int64_t d : shape) absl::StrAppend(&dims, "dim { size: ", d, " } ");
  for (int v : values) absl::StrAppend(&ints, "int_val: ", v, " ");
  return absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { ",
      dims, "} ", ints, "} } } }\n");
}

std::string FloatOpText(const std::string& name, const std::string& op,
                        const std::vector<std::string>& inputs,
                        const std::string& attrs) {
  std::string text = absl::StrCat("node { name: '", name, "' op: '", op, "' ");
  for (const std::string& in : inputs)
    absl::StrAppend(&text, "input: '", in, "' ");
  return absl::StrCat(text, "attr { key: 'T' value { type: DT_FLOAT } } ",
                      attrs, "}\n");
}

}  // namespace rewrite_rule_test
}  // namespace weft
