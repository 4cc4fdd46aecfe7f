// Multi-device placement and execution, on the fake asynchronous device of
// fake_device_testutil.h: placement decisions, copies between memory
// spaces, results equal to CPU-only runs (also on the real models), errors,
// cancellation and concurrency.
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/mutex.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "tests/executor/fake_device_testutil.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// Test-only ops for the cancellation test. MdBlockOnDevice has a fake-GPU
// kernel only: it enqueues work that announces it has started and then
// holds the device's stream until the test lets it go. MdCountOnHost has a
// CPU kernel only and counts its runs.
REGISTER_OP("MdBlockOnDevice")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("MdCountOnHost")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float}")
    .SetShapeFn(shape_inference::UnchangedShape);

Notification* g_device_blocked = nullptr;
Notification* g_device_release = nullptr;
std::atomic<int> g_host_counts{0};

class BlockOnDeviceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    Tensor in = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &y));
    Tensor out = *y;
    Notification* blocked = g_device_blocked;
    Notification* release = g_device_release;
    static_cast<FakeGpuDevice*>(ctx->device())
        ->Enqueue([in, out, blocked, release] {
          blocked->Notify();
          release->WaitForNotification();
          std::memcpy(out.raw_data(), in.raw_data(), in.TotalBytes());
        });
  }
};
REGISTER_KERNEL_BUILDER(
    Name("MdBlockOnDevice").Device(DEVICE_FAKE_GPU).TypeConstraint<float>("T"),
    BlockOnDeviceOp);

class CountOnHostOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    g_host_counts++;
    ctx->set_output(0, ctx->input(0));
  }
};
REGISTER_KERNEL_BUILDER(
    Name("MdCountOnHost").Device(DEVICE_CPU).TypeConstraint<float>("T"),
    CountOnHostOp);

class MultiDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterFakeGpuDevice();
    FakeGpu().Reset();
  }
  void TearDown() override { FakeGpu().Reset(); }
};

std::string Placeholder(const std::string& name, const std::string& dims) {
  return absl::StrCat("node { name: '", name,
                      "' op: 'Placeholder' attr { key: 'dtype' value { type: "
                      "DT_FLOAT } } attr { key: 'shape' value { shape { ",
                      dims, " } } } }\n");
}
std::string Dims(int a, int b) {
  return absl::StrCat("dim { size: ", a, " } dim { size: ", b, " }");
}
std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs,
               const std::string& device = "", const std::string& extra = "") {
  std::string s = absl::StrCat("node { name: '", name, "' op: '", op, "'");
  for (const std::string& in : inputs)
    absl::StrAppend(&s, " input: '", in, "'");
  if (!device.empty()) absl::StrAppend(&s, " device: '", device, "'");
  absl::StrAppend(&s, " attr { key: 'T' value { type: DT_FLOAT } }", extra,
                  " }\n");
  return s;
}
std::string FloatConst(const std::string& name, int a, int b,
                       const std::vector<float>& values) {
  std::string s = absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { "
      "key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { ",
      Dims(a, b), " }");
  for (float v : values) absl::StrAppend(&s, " float_val: ", v);
  absl::StrAppend(&s, " } } } }\n");
  return s;
}
std::string IntConst(const std::string& name, const std::vector<int>& values) {
  std::string s = absl::StrCat(
      "node { name: '", name,
      "' op: 'Const' attr { key: 'dtype' value { type: DT_INT32 } } attr { "
      "key: 'value' value { tensor { dtype: DT_INT32 tensor_shape { dim { "
      "size: ",
      values.size(), " } }");
  for (int v : values) absl::StrAppend(&s, " int_val: ", v);
  absl::StrAppend(&s, " } } } }\n");
  return s;
}

std::shared_ptr<const Graph> MakeGraph(const std::string& text) {
  auto def = ParseTextGraphDef(text, "test.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "test.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "test.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

std::unique_ptr<Session> MakeSession(std::shared_ptr<const Graph> graph,
                                     const std::string& device, int threads,
                                     bool optimize = true) {
  SessionOptions options;
  options.device = device;
  options.threads = threads;
  options.optimize = optimize;
  options.source_name = "test.pbtxt";
  auto s = Session::Create(std::move(graph), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

Tensor Matrix(int a, int b, float start) {
  Tensor t(DT_FLOAT, TensorShape({a, b}));
  for (int i = 0; i < a * b; ++i) t.data<float>()[i] = start + i * 0.5f;
  return t;
}

std::map<std::string, std::string> Placement(const Callable& c) {
  std::map<std::string, std::string> out;
  for (const auto& [node, device] : c.placement()) out[node] = device;
  return out;
}

void ExpectNear(const Tensor& a, const Tensor& b, double tol = 1e-5) {
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.memory_space(), MemorySpace::kHost);
  double scale = 0;
  for (int64_t i = 0; i < b.NumElements(); ++i) {
    scale = std::max(scale, std::fabs(double{b.data<float>()[i]}));
  }
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    ASSERT_NEAR(a.data<float>()[i], b.data<float>()[i], tol * (1 + scale))
        << "element " << i;
  }
}

// x -> Relu (fake) -> Neg (CPU only) -> Mul(n, n) (fake) -> fetched.
std::string MixedChain() {
  return Placeholder("x", Dims(2, 3)) + Op("r", "Relu", {"x"}) +
         Op("n", "Neg", {"r"}) + Op("m", "Mul", {"n", "n"});
}

TEST_F(MultiDeviceTest, PlacesByKernelAndCopiesOncePerCrossingEdge) {
  for (int threads : {0, 2}) {
    auto session = MakeSession(MakeGraph(MixedChain()), "fake_gpu", threads);
    ASSERT_NE(session, nullptr);
    ASSERT_EQ(session->devices().size(), 2u);
    EXPECT_EQ(session->devices()[1]->name(), "fake_gpu:0");
    auto callable = session->Prepare({"x"}, {"m"});
    ASSERT_TRUE(callable.ok()) << callable.status();
    auto placed = Placement(**callable);
    EXPECT_EQ(placed["r"], "fake_gpu:0");
    EXPECT_EQ(placed["n"], "cpu:0");
    EXPECT_EQ(placed["m"], "fake_gpu:0");
    // x up, r down, n up once for both of m's inputs, m down for the fetch.
    EXPECT_EQ((*callable)->num_copies(), 4);
    EXPECT_EQ((*callable)->num_nodes(), 3);

    FakeGpu().delay_us = 100;  // a host read that does not wait sees NaN
    Tensor x = Matrix(2, 3, -1.0f);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run(**callable, {x}, &out).ok());
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].memory_space(), MemorySpace::kHost);
    for (int i = 0; i < 6; ++i) {
      float r = std::max(0.0f, x.data<float>()[i]);
      EXPECT_EQ(out[0].data<float>()[i], r * r) << i;
    }
    EXPECT_EQ(FakeGpu().copies_to_device.load(), 2);
    EXPECT_EQ(FakeGpu().copies_to_host.load(), 2);
    FakeGpu().Reset();
  }
}

TEST_F(MultiDeviceTest, CpuSessionPlacesEverythingOnTheCpu) {
  auto session = MakeSession(MakeGraph(MixedChain()), "cpu", 2);
  auto callable = session->Prepare({"x"}, {"m"});
  ASSERT_TRUE(callable.ok());
  for (const auto& [node, device] : (*callable)->placement()) {
    EXPECT_EQ(device, "cpu:0") << node;
  }
  EXPECT_EQ((*callable)->num_copies(), 0);
  EXPECT_EQ(session->devices().size(), 1u);
}

TEST_F(MultiDeviceTest, ConsumersOnOneSideShareACopy) {
  // r (fake) is read by two CPU nodes and fetched: one copy to the host.
  std::string g = Placeholder("x", Dims(2, 3)) + Op("r", "Relu", {"x"}) +
                  Op("a", "Neg", {"r"}) + Op("b", "Abs", {"r"});
  auto session = MakeSession(MakeGraph(g), "fake_gpu", 2);
  auto callable = session->Prepare({"x"}, {"a", "b", "r"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  EXPECT_EQ((*callable)->num_copies(), 2);
  std::vector<Tensor> out;
  Tensor x = Matrix(2, 3, -1.0f);
  ASSERT_TRUE(session->Run(**callable, {x}, &out).ok());
  for (int i = 0; i < 6; ++i) {
    float r = std::max(0.0f, x.data<float>()[i]);
    EXPECT_EQ(out[0].data<float>()[i], -r);
    EXPECT_EQ(out[1].data<float>()[i], r);
    EXPECT_EQ(out[2].data<float>()[i], r);
  }
}

TEST_F(MultiDeviceTest, HostMemoryArgumentsStayOnTheHost) {
  std::string g = Placeholder("x", Dims(2, 3)) + Op("r", "Relu", {"x"}) +
                  IntConst("shape", {3, -1}) +
                  Op("y", "Reshape", {"r", "shape"}, "",
                     " attr { key: 'Tshape' value { type: DT_INT32 } }");
  auto session = MakeSession(MakeGraph(g), "fake_gpu", 0, /*optimize=*/false);
  auto callable = session->Prepare({"x"}, {"y"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  EXPECT_EQ(Placement(**callable)["y"], "fake_gpu:0");
  // x up, y down; the shape is read where it is, on the host.
  EXPECT_EQ((*callable)->num_copies(), 2);
  EXPECT_EQ(FakeGpu().copies_to_device.load(), 0);  // nothing uploaded
  std::vector<Tensor> out;
  Tensor x = Matrix(2, 3, -1.0f);
  Status s = session->Run(**callable, {x}, &out);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(out[0].shape(), TensorShape({3, 2}));
  EXPECT_EQ(out[0].data<float>()[5], 1.5f);
}

TEST_F(MultiDeviceTest, ConstantsReadOnTheDeviceAreUploadedOnce) {
  for (bool optimize : {false, true}) {
    FakeGpu().Reset();
    std::string g = Placeholder("x", Dims(2, 3)) +
                    FloatConst("c", 2, 3, {1, 2, 3, 4, 5, 6}) +
                    Op("y", "AddV2", {"x", "c"});
    auto session = MakeSession(MakeGraph(g), "fake_gpu", 2, optimize);
    auto callable = session->Prepare({"x"}, {"y"});
    ASSERT_TRUE(callable.ok()) << callable.status();
    EXPECT_EQ(FakeGpu().copies_to_device.load(), 1) << optimize;
    EXPECT_EQ((*callable)->num_copies(), 2);  // x up, y down
    for (int run = 0; run < 3; ++run) {
      std::vector<Tensor> out;
      ASSERT_TRUE(session->Run(**callable, {Matrix(2, 3, 0)}, &out).ok());
      EXPECT_EQ(out[0].data<float>()[5], 2.5f + 6);
    }
    EXPECT_EQ(FakeGpu().copies_to_device.load(), 1 + 3) << optimize;
  }
}

TEST_F(MultiDeviceTest, ExplicitDeviceFieldsAndSoftPlacement) {
  std::string g = Placeholder("x", Dims(2, 3)) +
                  Op("on_cpu", "Relu", {"x"}, "/device:CPU:0") +
                  Op("on_gpu", "Relu", {"on_cpu"},
                     "/job:localhost/replica:0/task:0/device:GPU:0") +
                  Op("no_kernel", "Neg", {"on_gpu"}, "/device:GPU:0") +
                  Op("other_gpu", "Relu", {"no_kernel"}, "/device:GPU:3") +
                  Op("unknown", "Relu", {"other_gpu"}, "/device:TPU:0") +
                  Op("named", "Relu", {"unknown"}, "fake_gpu:0");
  auto session = MakeSession(MakeGraph(g), "fake_gpu", 0);
  auto callable = session->Prepare({"x"}, {"named"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  auto placed = Placement(**callable);
  EXPECT_EQ(placed["on_cpu"], "cpu:0");
  EXPECT_EQ(placed["on_gpu"], "fake_gpu:0");
  EXPECT_EQ(placed["no_kernel"], "cpu:0");       // soft: no kernel there
  EXPECT_EQ(placed["other_gpu"], "fake_gpu:0");  // soft: no such device
  EXPECT_EQ(placed["unknown"], "fake_gpu:0");
  EXPECT_EQ(placed["named"], "fake_gpu:0");
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(**callable, {Matrix(2, 3, -1)}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[5], 0.0f);  // Relu(-Relu(..)) = 0
}

TEST_F(MultiDeviceTest, FeedsAndFetchesOfDeviceTensors) {
  // Feeding r (a fake node's output) replaces it; its consumer m is on the
  // device; fetching r returns the fed host tensor.
  auto session = MakeSession(MakeGraph(MixedChain()), "fake_gpu", 2);
  FakeGpu().delay_us = 50;
  Tensor r = Matrix(2, 3, 1.0f);
  auto out = session->Run({{"r", r}}, {"m", "r", "n"});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int i = 0; i < 6; ++i) {
    float v = r.data<float>()[i];
    EXPECT_EQ((*out)[0].data<float>()[i], v * v);
    EXPECT_EQ((*out)[1].data<float>()[i], v);
    EXPECT_EQ((*out)[2].data<float>()[i], -v);
  }
}

TEST_F(MultiDeviceTest, AsyncKernelErrorsNameTheNode) {
  std::string g = absl::StrCat(
      "node { name: 'a' op: 'Placeholder' attr { key: 'dtype' "
      "value { type: DT_FLOAT } } }\n",
      "node { name: 'b' op: 'Placeholder' attr { key: 'dtype' "
      "value { type: DT_FLOAT } } }\n",
      Op("mm", "MatMul", {"a", "b"}));
  for (int threads : {0, 2}) {
    auto session = MakeSession(MakeGraph(g), "fake_gpu", threads);
    auto out =
        session->Run({{"a", Matrix(2, 3, 0)}, {"b", Matrix(4, 5, 0)}}, {"mm"});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(), HasSubstr("node 'mm' (MatMul)"));
    // The session still works.
    auto ok =
        session->Run({{"a", Matrix(2, 3, 0)}, {"b", Matrix(3, 5, 0)}}, {"mm"});
    ASSERT_TRUE(ok.ok()) << ok.status();
    EXPECT_EQ((*ok)[0].shape(), TensorShape({2, 5}));
  }
}

TEST_F(MultiDeviceTest, CopyErrorsFailTheRun) {
  auto session = MakeSession(MakeGraph(MixedChain()), "fake_gpu", 2);
  FakeGpu().fail_copies = true;
  auto out = session->Run({{"x", Matrix(2, 3, 0)}}, {"m"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("injected copy failure"));
  EXPECT_THAT(out.status().message(), HasSubstr("copying output 0 of node"));
  FakeGpu().fail_copies = false;
  EXPECT_TRUE(session->Run({{"x", Matrix(2, 3, 0)}}, {"m"}).ok());
}

TEST_F(MultiDeviceTest, AsynchronousDeviceErrorsFailTheRun) {
  // A kernel that faults on the device is only seen when the stream is
  // waited on; the run must fail then rather than return its outputs.
  for (int threads : {0, 2}) {
    auto session = MakeSession(MakeGraph(MixedChain()), "fake_gpu", threads);
    FakeGpu().fail_stream = true;
    auto out = session->Run({{"x", Matrix(2, 3, 0)}}, {"m"});
    FakeGpu().fail_stream = false;
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(),
                HasSubstr("injected asynchronous device error"));
    EXPECT_THAT(out.status().message(), HasSubstr("device fake_gpu:0"));
    EXPECT_TRUE(session->Run({{"x", Matrix(2, 3, 0)}}, {"m"}).ok());
  }
}

TEST_F(MultiDeviceTest, CancellationStopsARunWaitingOnTheDevice) {
  // x -> block (device) -> 60 nodes alternating between the device and the
  // CPU. The run waits for the device's copy of `block`'s output, which
  // cannot start until the test releases the stream; the token is cancelled
  // before that, so no node after `block` may run.
  std::string g =
      Placeholder("x", Dims(2, 3)) + Op("block", "MdBlockOnDevice", {"x"});
  std::string prev = "block";
  for (int i = 0; i < 60; ++i) {
    std::string name = absl::StrCat("n", i);
    g += Op(name, i % 2 ? "Relu" : "MdCountOnHost", {prev});
    prev = name;
  }
  for (int threads : {0, 2}) {
    SCOPED_TRACE(threads);
    auto session = MakeSession(MakeGraph(g), "fake_gpu", threads);
    auto callable = session->Prepare({"x"}, {prev});
    ASSERT_TRUE(callable.ok()) << callable.status();
    EXPECT_EQ(Placement(**callable)["block"], "fake_gpu:0");
    EXPECT_EQ(Placement(**callable)["n0"], "cpu:0");
    Notification blocked, release;
    g_device_blocked = &blocked;
    g_device_release = &release;
    g_host_counts = 0;
    CancellationToken token;
    RunOptions options;
    options.cancellation = &token;
    std::thread canceller([&] {
      blocked.WaitForNotification();
      token.Cancel();
      release.Notify();
    });
    auto out =
        session->Run({{"x", Matrix(2, 3, 0)}}, {prev}, {}, options, nullptr);
    canceller.join();
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(g_host_counts.load(), 0) << "nodes ran after the cancellation";

    // Uncancelled, the same session runs all 30 host nodes.
    Notification blocked2, release2;
    release2.Notify();
    g_device_blocked = &blocked2;
    g_device_release = &release2;
    out = session->Run({{"x", Matrix(2, 3, 0)}}, {prev});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(g_host_counts.load(), 30);
    ASSERT_EQ((*out)[0].NumElements(), 6);
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ((*out)[0].data<float>()[i], i * 0.5f) << i;
  }
}

TEST_F(MultiDeviceTest, ManyConcurrentRuns) {
  auto session = MakeSession(MakeGraph(MixedChain()), "fake_gpu", 2);
  auto callable = session->Prepare({"x"}, {"m", "n"});
  ASSERT_TRUE(callable.ok());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 200; ++run) {
        Tensor x = Matrix(2, 3, static_cast<float>(t * 1000 + run) - 3);
        std::vector<Tensor> out;
        if (!session->Run(**callable, {x}, &out).ok()) {
          failures++;
          continue;
        }
        for (int i = 0; i < 6; ++i) {
          float r = std::max(0.0f, x.data<float>()[i]);
          if (out[0].data<float>()[i] != r * r ||
              out[1].data<float>()[i] != -r) {
            failures++;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// The real models: every op with a fake kernel (MatMul, Relu, AddV2, Mul,
// Reshape) runs on the device, the rest on the CPU, and the outputs equal
// the CPU-only run's.
class MultiDeviceModelTest : public MultiDeviceTest,
                             public ::testing::WithParamInterface<const char*> {
};

TEST_P(MultiDeviceModelTest, MatchesTheCpu) {
  const std::string path = absl::StrCat(
      WEFT_SOURCE_DIR, "/tests/models/testdata/", GetParam(), ".pb");
  auto def = LoadGraphDef(path);
  ASSERT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = path;
  auto imported = ImportGraphDef(*def, io);
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::shared_ptr<Graph> graph = std::move(*imported);
  const Node* x = graph->FindNode("x");
  ASSERT_NE(x, nullptr);
  std::vector<int64_t> dims = {3, 32};
  if (std::string(GetParam()) == "cnn") dims = {2, 32, 32, 3};
  TensorShape shape;
  for (int64_t d : dims) ASSERT_TRUE(shape.AddDim(d).ok());
  ShapeInferenceOptions so;
  so.source_name = path;
  so.input_shapes["x"] = PartialTensorShape(shape);
  ASSERT_TRUE(InferShapes(graph.get(), so).ok());
  Tensor input(DT_FLOAT, shape);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    input.data<float>()[i] = uniform(rng);
  }
  const std::vector<std::string> fetches = {"Identity", "Identity_1"};
  auto cpu = MakeSession(graph, "cpu", 2);
  auto want = cpu->Run({{"x", input}}, fetches);
  ASSERT_TRUE(want.ok()) << want.status();
  for (bool optimize : {true, false}) {
    for (int threads : {0, 2}) {
      auto session = MakeSession(graph, "fake_gpu", threads, optimize);
      auto callable = session->Prepare({"x"}, fetches);
      ASSERT_TRUE(callable.ok()) << callable.status();
      int on_device = 0;
      for (const auto& [node, device] : (*callable)->placement()) {
        on_device += device == "fake_gpu:0";
      }
      EXPECT_GT(on_device, 0);
      EXPECT_LT(on_device, (*callable)->num_nodes());
      EXPECT_GT((*callable)->num_copies(), 0);
      for (int run = 0; run < 3; ++run) {
        std::vector<Tensor> got;
        Status s = session->Run(**callable, {input}, &got);
        ASSERT_TRUE(s.ok()) << s;
        for (size_t i = 0; i < fetches.size(); ++i) {
          ExpectNear(got[i], (*want)[i]);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, MultiDeviceModelTest,
                         ::testing::Values("mlp", "cnn"));

// ---- Recorded runs (SessionOptions.capture_device_graphs) ----------------

// x [?, 3] -> r = Relu(x) -> m = Mul(r, r) -> a = AddV2(m, x): every kernel
// on the fake device.
std::string DeviceOnlyChain() {
  return Placeholder("x", "dim { size: -1 } dim { size: 3 }") +
         Op("r", "Relu", {"x"}) + Op("m", "Mul", {"r", "r"}) +
         Op("a", "AddV2", {"m", "x"});
}

std::unique_ptr<Session> MakeRecordingSession(
    std::shared_ptr<const Graph> graph, const std::string& device,
    int threads) {
  SessionOptions options;
  options.device = device;
  options.threads = threads;
  options.source_name = "test.pbtxt";
  options.capture_device_graphs = true;
  auto s = Session::Create(std::move(graph), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// x with values from `start`, [rows, 3], half of them negative.
Tensor Rows(int rows, float start) {
  Tensor t = Matrix(rows, 3, start);
  for (int i = 0; i < rows * 3; i += 2) t.data<float>()[i] *= -1;
  return t;
}

TEST_F(MultiDeviceTest,
       RecordedRunsReplayWithNewValuesAndRecordAgainOnNewShapes) {
  auto graph = MakeGraph(DeviceOnlyChain());
  auto cpu = MakeSession(graph, "cpu", 0);
  for (int threads : {0, 2}) {
    FakeGpu().Reset();
    auto session = MakeRecordingSession(graph, "fake_gpu", threads);
    auto callable = session->Prepare({"x"}, {"a", "m", "x"});
    ASSERT_TRUE(callable.ok()) << callable.status();
    EXPECT_TRUE((*callable)->device_graph_status().ok())
        << (*callable)->device_graph_status();
    int run = 0;
    for (int rows : {2, 2, 2, 5, 5, 2}) {
      SCOPED_TRACE(absl::StrCat("run ", run, ", ", rows, " rows"));
      Tensor x = Rows(rows, 0.25f * ++run);
      std::vector<Tensor> got;
      Status s = session->Run(**callable, {x}, &got);
      ASSERT_TRUE(s.ok()) << s;
      auto want = cpu->Run({{"x", x}}, {"a", "m", "x"});
      ASSERT_TRUE(want.ok()) << want.status();
      ASSERT_EQ(got.size(), 3u);
      for (int i = 0; i < 3; ++i) ExpectNear(got[i], (*want)[i]);
    }
    // Recorded on the first run and at each change of shape (2 -> 5 -> 2);
    // every run is one launch of a recording.
    EXPECT_EQ(FakeGpu().captures, 3);
    EXPECT_EQ(FakeGpu().capture_launches, 6);
    EXPECT_TRUE((*callable)->device_graph_status().ok());
  }
}

TEST_F(MultiDeviceTest, RecordedRunsSayWhyTheyCannotBeRecorded) {
  struct Case {
    std::string graph;
    std::string device;
    std::vector<std::string> fetches;
    std::string why;
  };
  const Case cases[] = {
      {MixedChain(), "fake_gpu", {"m"}, "node 'n' (Neg) runs on cpu:0"},
      {Placeholder("a", Dims(2, 3)) + Placeholder("b", Dims(3, 4)) +
           Op("mm", "MatMul", {"a", "b"}),
       "fake_gpu",
       {"mm"},
       "node 'mm' (MatMul) has an asynchronous kernel"},
      {DeviceOnlyChain(), "cpu", {"a"}, "the session runs on the CPU only"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    FakeGpu().Reset();
    auto graph = MakeGraph(c.graph);
    auto session = MakeRecordingSession(graph, c.device, 0);
    std::vector<std::string> feeds = c.fetches[0] == "mm"
                                         ? std::vector<std::string>{"a", "b"}
                                         : std::vector<std::string>{"x"};
    auto callable = session->Prepare(feeds, c.fetches);
    ASSERT_TRUE(callable.ok()) << callable.status();
    Status why = (*callable)->device_graph_status();
    EXPECT_EQ(why.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(why.message(), HasSubstr(c.why));
    // The runs still happen, node by node.
    std::vector<Tensor> inputs;
    if (c.fetches[0] == "mm") {
      inputs = {Matrix(2, 3, 1), Matrix(3, 4, 2)};
    } else {
      inputs = {Matrix(2, 3, -1)};
    }
    std::vector<Tensor> got;
    Status s = session->Run(**callable, inputs, &got);
    ASSERT_TRUE(s.ok()) << s;
    auto cpu = MakeSession(graph, "cpu", 0);
    auto cpu_callable = cpu->Prepare(feeds, c.fetches);
    ASSERT_TRUE(cpu_callable.ok());
    std::vector<Tensor> want;
    ASSERT_TRUE(cpu->Run(**cpu_callable, inputs, &want).ok());
    ExpectNear(got[0], want[0]);
    EXPECT_EQ(FakeGpu().captures, 0);
  }
  // Off: the status says so.
  auto session = MakeSession(MakeGraph(DeviceOnlyChain()), "fake_gpu", 0);
  auto callable = session->Prepare({"x"}, {"a"});
  ASSERT_TRUE(callable.ok());
  EXPECT_THAT((*callable)->device_graph_status().message(),
              HasSubstr("capture_device_graphs is off"));
}

TEST_F(MultiDeviceTest, AFailedRecordingFallsBackToNodeByNodeRuns) {
  auto graph = MakeGraph(DeviceOnlyChain());
  auto cpu = MakeSession(graph, "cpu", 0);
  auto session = MakeRecordingSession(graph, "fake_gpu", 2);
  auto callable = session->Prepare({"x"}, {"a"});
  ASSERT_TRUE(callable.ok());
  FakeGpu().fail_capture = true;
  for (int run = 0; run < 3; ++run) {
    Tensor x = Rows(4, run);
    std::vector<Tensor> got;
    Status s = session->Run(**callable, {x}, &got);
    ASSERT_TRUE(s.ok()) << s;
    auto want = cpu->Run({{"x", x}}, {"a"});
    ASSERT_TRUE(want.ok());
    ExpectNear(got[0], (*want)[0]);
  }
  Status why = (*callable)->device_graph_status();
  EXPECT_THAT(why.message(), HasSubstr("capturing the run"));
  EXPECT_THAT(why.message(), HasSubstr("injected capture failure"));
  EXPECT_EQ(FakeGpu().captures, 0);
  EXPECT_EQ(FakeGpu().capture_launches, 0);
}

TEST_F(MultiDeviceTest, ReplayErrorsFailTheRun) {
  auto session =
      MakeRecordingSession(MakeGraph(DeviceOnlyChain()), "fake_gpu", 0);
  auto callable = session->Prepare({"x"}, {"a"});
  ASSERT_TRUE(callable.ok());
  std::vector<Tensor> got;
  ASSERT_TRUE(session->Run(**callable, {Rows(2, 1)}, &got).ok());
  FakeGpu().fail_stream = true;
  Status s = session->Run(**callable, {Rows(2, 1)}, &got);
  FakeGpu().fail_stream = false;
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("replaying the recorded run on "
                                     "fake_gpu:0"));
  EXPECT_THAT(s.message(), HasSubstr("injected asynchronous device error"));
  EXPECT_TRUE(got.empty());
  ASSERT_TRUE(session->Run(**callable, {Rows(2, 1)}, &got).ok());
}

TEST_F(MultiDeviceTest, ConcurrentRecordedRuns) {
  auto graph = MakeGraph(DeviceOnlyChain());
  auto cpu = MakeSession(graph, "cpu", 0);
  auto session = MakeRecordingSession(graph, "fake_gpu", 2);
  auto callable = session->Prepare({"x"}, {"a"});
  ASSERT_TRUE(callable.ok());
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Tensor x = Rows(2 + (i % 2), t * 100 + i);
        std::vector<Tensor> got;
        auto want = cpu->Run({{"x", x}}, {"a"});
        if (!session->Run(**callable, {x}, &got).ok() || !want.ok() ||
            got[0].NumElements() != (*want)[0].NumElements()) {
          wrong++;
          continue;
        }
        for (int64_t k = 0; k < got[0].NumElements(); ++k) {
          if (got[0].data<float>()[k] != (*want)[0].data<float>()[k]) {
            wrong++;
            break;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong, 0);
}

TEST_F(MultiDeviceTest, TracedRunsGoNodeByNode) {
  auto session =
      MakeRecordingSession(MakeGraph(DeviceOnlyChain()), "fake_gpu", 0);
  auto callable = session->Prepare({"x"}, {"a"});
  ASSERT_TRUE(callable.ok());
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  std::vector<Tensor> got;
  ASSERT_TRUE(
      session->Run(**callable, {Rows(2, 1)}, &got, options, &metadata).ok());
  EXPECT_EQ(metadata.node_traces.size(), 3u);
  EXPECT_EQ(FakeGpu().capture_launches, 0);
}

}  // namespace
}  // namespace weft
