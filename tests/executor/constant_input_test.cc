// OpKernelConstruction::constant_input (kernels/op_kernel.h), as BuildPlan
// fills it: a kernel made for a session sees the session constants its
// inputs read, and only those; a signature that feeds the Const hands the
// kernel another tensor, which ConstantInputMatches tells apart; kernels
// made outside a plan (or for another node inside a scope) see none.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "device/cpu_device.h"
#include "executor/const_values.h"
#include "executor/plan.h"
#include "executor/session.h"
#include "graph/graph_def.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"

namespace weft {
namespace constant_input_test {

// y = [constant_input(1) was given when the kernel was made, input 1 is
// that constant in this run].
REGISTER_OP("ConstantInputProbe")
    .Input("x: float")
    .Input("w: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnknownShape);

class ConstantInputProbeOp : public OpKernel {
 public:
  explicit ConstantInputProbeOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), constant_(ctx->constant_input(1)) {
    // Input 0 is never a constant in these graphs.
    if (ctx->constant_input(0) != nullptr) {
      ctx->SetStatus(errors::Internal("input 0 reported constant"));
    }
  }
  bool has_constant() const { return constant_ != nullptr; }

  void Compute(OpKernelContext* ctx) const override {
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({2}), &y));
    y->data<float>()[0] = constant_ != nullptr ? 1.0f : 0.0f;
    y->data<float>()[1] =
        constant_ != nullptr && ConstantInputMatches(ctx->input(1), *constant_)
            ? 1.0f
            : 0.0f;
  }

 private:
  const Tensor* constant_;
};
REGISTER_KERNEL_BUILDER(Name("ConstantInputProbe").Device(DEVICE_CPU),
                        ConstantInputProbeOp);

Tensor Vec(std::vector<float> v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

// The fed x0, [[0]].
Tensor X() {
  Tensor t(DT_FLOAT, TensorShape({1, 1}));
  t.data<float>()[0] = 0.0f;
  return t;
}

NodeDef MakeNode(const std::string& name, const std::string& op,
                 std::vector<std::string> inputs) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  return n;
}

NodeDef MakeConst(const std::string& name, const Tensor& value) {
  NodeDef n = MakeNode(name, "Const", {});
  n.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  n.attr["value"] = AttrValue::TensorValue(value);
  return n;
}

// x0, wp: Placeholders; w: Const [2]; wi: Identity(w); x: BiasAdd(MatMul(x0,
// [[1]]), [0]), which the optimizer fuses, so that an optimized session
// runs a plan of its own rather than the one it inspects (which makes no
// constant inputs: BuildPlanOptions::upload_constants); probe(x, w),
// probe_fed(x, wp), probe_id(x, wi).
std::shared_ptr<const Graph> ProbeGraph() {
  GraphDef def;
  for (const char* name : {"x0", "wp"}) {
    NodeDef p = MakeNode(name, "Placeholder", {});
    p.attr["dtype"] = AttrValue::Type(DT_FLOAT);
    def.node.push_back(std::move(p));
  }
  Tensor one(DT_FLOAT, TensorShape({1, 1}));
  one.data<float>()[0] = 1.0f;
  def.node.push_back(MakeConst("one", one));
  def.node.push_back(MakeConst("zero", Vec({0})));
  def.node.push_back(MakeConst("w", Vec({1, 2})));
  for (NodeDef n : {MakeNode("x1", "MatMul", {"x0", "one"}),
                    MakeNode("x", "BiasAdd", {"x1", "zero"}),
                    MakeNode("wi", "Identity", {"w"})}) {
    n.attr["T"] = AttrValue::Type(DT_FLOAT);
    def.node.push_back(std::move(n));
  }
  def.node.push_back(MakeNode("probe", "ConstantInputProbe", {"x", "w"}));
  def.node.push_back(MakeNode("probe_fed", "ConstantInputProbe", {"x", "wp"}));
  def.node.push_back(MakeNode("probe_id", "ConstantInputProbe", {"x", "wi"}));
  ImportOptions io;
  io.source_name = "probe.pbtxt";
  auto g = ImportGraphDef(def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "probe.pbtxt";
  EXPECT_TRUE(InferShapes(g->get(), so).ok());
  return std::shared_ptr<const Graph>(std::move(*g));
}

std::unique_ptr<Session> MakeSession(bool optimize) {
  SessionOptions options;
  options.threads = 1;
  options.optimize = optimize;
  options.source_name = "probe.pbtxt";
  auto s = Session::Create(ProbeGraph(), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

// The probe's output for one run.
std::vector<float> Probe(
    const Session& session,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::string& fetch) {
  auto out = session.Run(feeds, {fetch});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const Tensor& y = (*out)[0];
  return {y.data<float>()[0], y.data<float>()[1]};
}

TEST(ConstantInputTest, SessionConstantIsReported) {
  for (bool optimize : {false, true}) {
    SCOPED_TRACE(optimize ? "optimized" : "not optimized");
    auto session = MakeSession(optimize);
    EXPECT_EQ(Probe(*session, {{"x0", X()}}, "probe"),
              (std::vector<float>{1, 1}));
    // A placeholder is no constant.
    EXPECT_EQ(Probe(*session, {{"x0", X()}, {"wp", Vec({1, 2})}}, "probe_fed"),
              (std::vector<float>{0, 0}));
  }
}

// A signature that feeds the Const gives the kernel (made with the
// constant, or shared with a signature that did not feed it) another
// tensor: ConstantInputMatches is false there, in either order.
TEST(ConstantInputTest, FedConstantDoesNotMatch) {
  for (bool optimize : {false, true}) {
    for (bool fed_first : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << (optimize ? "optimized" : "not optimized")
                   << (fed_first ? ", fed first" : ", constant first"));
      auto session = MakeSession(optimize);
      auto fed = [&] {
        const std::vector<float> y =
            Probe(*session, {{"x0", X()}, {"w", Vec({5, 6})}}, "probe");
        ASSERT_EQ(y.size(), 2u);
        EXPECT_EQ(y[1], 0.0f);
      };
      auto constant = [&] {
        EXPECT_EQ(Probe(*session, {{"x0", X()}}, "probe"),
                  (std::vector<float>{1, 1}));
      };
      if (fed_first) {
        fed();
        constant();
      } else {
        constant();
        fed();
      }
    }
  }
}

// Without the optimizer, an Identity of a Const runs as a kernel: its
// output is no session constant.
TEST(ConstantInputTest, ComputedInputIsNotConstant) {
  auto session = MakeSession(/*optimize=*/false);
  EXPECT_EQ(Probe(*session, {{"x0", X()}}, "probe_id"),
            (std::vector<float>{0, 0}));
}

// The session's side of BuildPlan for these tests: kernels from the
// registry, on one CPU device, and the graph's Const values.
class TestResources : public PlanResources {
 public:
  explicit TestResources(const Graph& graph) : graph_(graph) {
    EXPECT_TRUE(CollectConstValues(graph, "probe.pbtxt", &values_).ok());
    kernels_.resize(graph.num_nodes());
  }
  Status GetKernel(const Node* node, const OpKernel** kernel,
                   Device** device) override {
    auto made = KernelRegistry::Global()->CreateKernel(
        node->def(), node->op_def(), node->types(), &device_);
    if (!made.ok()) return made.status();
    kernels_[node->id()] = std::move(*made);
    *kernel = kernels_[node->id()].get();
    *device = &device_;
    return Status();
  }
  const Tensor* ConstValue(const Node* node) const override {
    return values_[node->id()];
  }
  const OpKernel* kernel(const std::string& name) const {
    return kernels_[graph_.FindNode(name)->id()].get();
  }

 private:
  const Graph& graph_;
  CpuDevice device_{"cpu:0", nullptr};
  std::vector<const Tensor*> values_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
};

// A plan only inspected (upload_constants false, as an optimized session's
// plan of the graph as given) makes kernels without constant inputs: they
// would prepare (pack) weights for a plan that may never run.
TEST(ConstantInputTest, InspectedPlanGivesNoConstants) {
  auto graph = ProbeGraph();
  for (bool upload : {true, false}) {
    TestResources resources(*graph);
    BuildPlanOptions options;
    options.source_name = "probe.pbtxt";
    options.upload_constants = upload;
    auto plan = BuildPlan(*graph, {"x0"}, {"probe"}, {}, &resources, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    auto* probe =
        dynamic_cast<const ConstantInputProbeOp*>(resources.kernel("probe"));
    ASSERT_NE(probe, nullptr);
    EXPECT_EQ(probe->has_constant(), upload);
  }
}

// PlanNodes (what an optimizing session reads of the graph as given) lists
// BuildPlan's kernel nodes in its order, makes no kernel, and refuses what
// BuildPlan refuses with the same error.
TEST(ConstantInputTest, PlanNodesAreThePlansNodesWithoutKernels) {
  auto graph = ProbeGraph();
  for (const char* fetch : {"probe", "probe_fed", "probe_id"}) {
    SCOPED_TRACE(fetch);
    const std::vector<std::string> feeds =
        std::string(fetch) == "probe_fed" ? std::vector<std::string>{"x0", "wp"}
                                          : std::vector<std::string>{"x0"};
    TestResources built(*graph);
    BuildPlanOptions options;
    options.source_name = "probe.pbtxt";
    auto plan = BuildPlan(*graph, feeds, {fetch}, {}, &built, options);
    ASSERT_TRUE(plan.ok()) << plan.status();
    TestResources listed(*graph);
    auto nodes = PlanNodes(*graph, feeds, {fetch}, {}, &listed, options);
    ASSERT_TRUE(nodes.ok()) << nodes.status();
    std::vector<const Node*> kernel_nodes;
    for (const PlanNode& pn : (*plan)->nodes()) kernel_nodes.push_back(pn.node);
    EXPECT_EQ(*nodes, kernel_nodes);
    EXPECT_FALSE(nodes->empty());
    for (const Node* n : *nodes) {
      EXPECT_EQ(listed.kernel(n->name()), nullptr) << n->name();
    }
  }
  // An unfed placeholder the fetch needs; a feed named twice; no such fetch.
  struct Refused {
    std::vector<std::string> feeds, fetches;
  };
  for (const Refused& r :
       {Refused{{}, {"probe"}}, Refused{{"x0", "x0"}, {"probe"}},
        Refused{{"x0"}, {"nowhere"}}}) {
    TestResources a(*graph), b(*graph);
    BuildPlanOptions options;
    options.source_name = "probe.pbtxt";
    auto plan = BuildPlan(*graph, r.feeds, r.fetches, {}, &a, options);
    auto nodes = PlanNodes(*graph, r.feeds, r.fetches, {}, &b, options);
    ASSERT_FALSE(plan.ok());
    ASSERT_FALSE(nodes.ok());
    EXPECT_EQ(plan.status(), nodes.status());
  }
}

// Kernels made through the registry see constants only inside a scope for
// their own NodeDef; scopes nest and restore the outer one.
TEST(ConstantInputTest, ScopeAppliesToItsNodeOnly) {
  auto graph = ProbeGraph();
  const Node* probe = graph->FindNode("probe");
  const Node* other = graph->FindNode("probe_fed");
  ASSERT_NE(probe, nullptr);
  ASSERT_NE(other, nullptr);
  CpuDevice device("cpu:0", nullptr);
  Device* cpu = &device;
  const Tensor w = Vec({3, 4});
  EXPECT_EQ(ConstantInputScope::Current(), nullptr);
  const std::vector<const Tensor*> constants = {nullptr, &w};
  {
    ConstantInputScope outer(&probe->def(), constants);
    EXPECT_EQ(ConstantInputScope::Current(), &outer);
    auto make = [&](const Node* n) {
      OpKernelConstruction ctx(cpu, n->def(), n->op_def(), n->types(), nullptr);
      return ctx.constant_input(1);
    };
    EXPECT_EQ(make(probe), &w);
    EXPECT_EQ(make(other), nullptr);
    {
      const std::vector<const Tensor*> none = {nullptr, nullptr};
      ConstantInputScope inner(&other->def(), none);
      EXPECT_EQ(make(probe), nullptr);
      EXPECT_EQ(make(other), nullptr);
    }
    EXPECT_EQ(ConstantInputScope::Current(), &outer);
    EXPECT_EQ(make(probe), &w);
  }
  EXPECT_EQ(ConstantInputScope::Current(), nullptr);
  OpKernelConstruction outside(cpu, probe->def(), probe->op_def(),
                               probe->types(), nullptr);
  EXPECT_EQ(outside.constant_input(1), nullptr);
}

}  // namespace constant_input_test
}  // namespace weft
