#include "executor/session.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "core/mutex.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"

namespace weft {
namespace session_test {

using ::testing::HasSubstr;

// Test-only ops with scalar-ish float semantics, so that every result below
// can be worked out by hand.
REGISTER_OP("ExecAddOne")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecSum")
    .Input("xs: N * float")
    .Output("y: float")
    .Attr("N: int >= 1")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecFail")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);
// `tag` only tells otherwise equal nodes apart, so that the optimizer's
// duplicate merge keeps each.
REGISTER_OP("ExecSlow")
    .Input("x: float")
    .Output("y: float")
    .Attr("ms: int = 5")
    .Attr("tag: int = 0")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecLog")
    .Input("x: float")
    .Output("y: float")
    .Attr("tag: int")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecAsyncAddOne")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecNoKernel")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecInPlace")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);
REGISTER_OP("ExecBlock")
    .Input("x: float")
    .Output("y: float")
    .SetShapeFn(shape_inference::UnchangedShape);

std::atomic<int> g_executions{0};
std::atomic<int> g_running{0};
std::atomic<int> g_max_running{0};
Mutex g_mu;
std::vector<int64_t>* g_log = new std::vector<int64_t>;
std::set<std::thread::id>* g_threads = new std::set<std::thread::id>;
std::atomic<int> g_forwarded{0};

void NoteRunning() {
  g_executions++;
  int now = ++g_running;
  int prev = g_max_running.load();
  while (prev < now && !g_max_running.compare_exchange_weak(prev, now)) {
  }
  MutexLock lock(&g_mu);
  g_threads->insert(std::this_thread::get_id());
}

class AddOneOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    NoteRunning();
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    y->flat<float>() = x.flat<float>() + 1.0f;
    g_running--;
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecAddOne").Device(DEVICE_CPU), AddOneOp);

class SumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    NoteRunning();
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &y));
    y->flat<float>().setZero();
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == y->shape(),
                  errors::InvalidArgument("shape mismatch"));
      y->flat<float>() += ctx->input(i).flat<float>();
    }
    g_running--;
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecSum").Device(DEVICE_CPU), SumOp);

class FailOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    g_executions++;
    ctx->SetStatus(errors::InvalidArgument("deliberate failure"));
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecFail").Device(DEVICE_CPU), FailOp);

class SlowOp : public OpKernel {
 public:
  explicit SlowOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ms", &ms_));
  }
  void Compute(OpKernelContext* ctx) const override {
    NoteRunning();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    ctx->set_output(0, ctx->input(0));
    g_running--;
  }

 private:
  int64_t ms_;
};
REGISTER_KERNEL_BUILDER(Name("ExecSlow").Device(DEVICE_CPU), SlowOp);

class LogOp : public OpKernel {
 public:
  explicit LogOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tag", &tag_));
  }
  bool IsExpensive() const override { return false; }
  void Compute(OpKernelContext* ctx) const override {
    {
      MutexLock lock(&g_mu);
      g_log->push_back(tag_);
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t tag_;
};
REGISTER_KERNEL_BUILDER(Name("ExecLog").Device(DEVICE_CPU), LogOp);

// Completes on another thread, as a GPU kernel completes on its stream.
class AsyncAddOneOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) const override {
    std::thread([ctx, done = std::move(done)] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      Tensor* y;
      OP_REQUIRES_OK_ASYNC(
          ctx, ctx->allocate_output(0, ctx->input(0).shape(), &y), done);
      y->flat<float>() = ctx->input(0).flat<float>() + 1.0f;
      done();
    }).detach();
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecAsyncAddOne").Device(DEVICE_CPU),
                        AsyncAddOneOp);

class InPlaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    Tensor* y;
    int forwarded = -1;
    OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                            {0}, 0, ctx->input(0).shape(), &y, &forwarded));
    if (forwarded == 0) g_forwarded++;
    y->flat<float>() = ctx->input(0).flat<float>() * 2.0f;
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecInPlace").Device(DEVICE_CPU), InPlaceOp);

// The latches of ExecBlock: it announces that it has started, then waits
// until the test lets it go. A test that cancels between the two knows the
// cancellation landed while a kernel was running, with no clock involved.
Notification* g_block_entered = nullptr;
Notification* g_block_release = nullptr;

class BlockOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    NoteRunning();
    g_block_entered->Notify();
    g_block_release->WaitForNotification();
    ctx->set_output(0, ctx->input(0));
    g_running--;
  }
};
REGISTER_KERNEL_BUILDER(Name("ExecBlock").Device(DEVICE_CPU), BlockOp);

void ResetCounters() {
  g_executions = 0;
  g_running = 0;
  g_max_running = 0;
  g_forwarded = 0;
  MutexLock lock(&g_mu);
  g_log->clear();
  g_threads->clear();
}

std::string Placeholder(const std::string& name) {
  return "node { name: \"" + name +
         "\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT "
         "} } attr { key: \"shape\" value { shape { dim { size: 2 } } } } }\n";
}

std::string Unary(const std::string& name, const std::string& op,
                  const std::string& input, const std::string& extra = "") {
  return "node { name: \"" + name + "\" op: \"" + op + "\" input: \"" + input +
         "\" " + extra + "}\n";
}

std::string Sum(const std::string& name, const std::vector<std::string>& in) {
  std::string s = "node { name: \"" + name + "\" op: \"ExecSum\" ";
  for (const auto& i : in) s += "input: \"" + i + "\" ";
  return s + "attr { key: \"N\" value { i: " + std::to_string(in.size()) +
         " } } }\n";
}

std::shared_ptr<const Graph> MakeGraph(const std::string& text) {
  auto def = ParseTextGraphDef(text, "exec.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "exec.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "exec.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

std::unique_ptr<Session> MakeSession(std::shared_ptr<const Graph> g,
                                     int threads) {
  SessionOptions options;
  options.threads = threads;
  options.source_name = "exec.pbtxt";
  auto s = Session::Create(std::move(g), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

Tensor Vec2(float a, float b) {
  Tensor t(DT_FLOAT, TensorShape({2}));
  t.flat<float>()(0) = a;
  t.flat<float>()(1) = b;
  return t;
}

std::vector<float> Values(const Tensor& t) {
  std::vector<float> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<float>()(i);
  return v;
}

class SessionThreadsTest : public ::testing::TestWithParam<int> {};

// x -> a (x+1) -> {b (a+1), c (a+1)} -> d = b + c: d = 2x + 4.
TEST_P(SessionThreadsTest, Diamond) {
  auto g = MakeGraph(Placeholder("x") + Unary("a", "ExecAddOne", "x") +
                     Unary("b", "ExecAddOne", "a") +
                     Unary("c", "ExecAddOne", "a") + Sum("d", {"b", "c"}));
  auto session = MakeSession(g, GetParam());
  auto out = session->Run({{"x", Vec2(1, -3)}}, {"d", "a"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{6, -2}));
  EXPECT_EQ(Values((*out)[1]), (std::vector<float>{2, -2}));
}

// Fan-out of 50 from x, fan-in of all of them: sum = 50 * (x + 1).
TEST_P(SessionThreadsTest, WideFanOutFanIn) {
  std::string text = Placeholder("x");
  std::vector<std::string> names;
  for (int i = 0; i < 50; ++i) {
    names.push_back("n" + std::to_string(i));
    text += Unary(names.back(), "ExecAddOne", "x");
  }
  text += Sum("total", names);
  auto session = MakeSession(MakeGraph(text), GetParam());
  auto out = session->Run({{"x", Vec2(0, 1)}}, {"total"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{50, 100}));
}

TEST_P(SessionThreadsTest, LongChain) {
  std::string text = Placeholder("x");
  std::string prev = "x";
  for (int i = 0; i < 1000; ++i) {
    std::string name = "n" + std::to_string(i);
    text += Unary(name, "ExecAddOne", prev);
    prev = name;
  }
  auto session = MakeSession(MakeGraph(text), GetParam());
  auto out = session->Run({{"x", Vec2(0, 0.5)}}, {prev});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{1000, 1000.5}));
}

TEST_P(SessionThreadsTest, AsyncKernelCompletesOnAnotherThread) {
  auto g = MakeGraph(Placeholder("x") + Unary("a", "ExecAsyncAddOne", "x") +
                     Unary("b", "ExecAddOne", "a") +
                     Unary("c", "ExecAsyncAddOne", "b"));
  auto session = MakeSession(g, GetParam());
  for (int i = 0; i < 20; ++i) {
    auto out = session->Run({{"x", Vec2(1, 2)}}, {"c"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 5}));
  }
}

TEST_P(SessionThreadsTest, FailingKernelCancelsTheRest) {
  // x -> fail -> 100 more nodes; none of them may run.
  std::string text = Placeholder("x") + Unary("f", "ExecFail", "x");
  std::string prev = "f";
  for (int i = 0; i < 100; ++i) {
    std::string name = "n" + std::to_string(i);
    text += Unary(name, "ExecAddOne", prev);
    prev = name;
  }
  auto session = MakeSession(MakeGraph(text), GetParam());
  ResetCounters();
  auto out = session->Run({{"x", Vec2(1, 2)}}, {prev});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(out.status().message()),
            "node 'f' (ExecFail): deliberate failure");
  EXPECT_EQ(g_executions.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Threads, SessionThreadsTest,
                         ::testing::Values(0, 1, 2, 4));

TEST(SessionTest, ControlEdgesOrderExecution) {
  // c2 waits for c1 through a control edge although no data flows.
  auto g = MakeGraph(
      Placeholder("x") +
      Unary("c2", "ExecLog", "x",
            "input: \"^c1\" attr { key: \"tag\" value { i: 2 } } ") +
      Unary("c1", "ExecLog", "x", "attr { key: \"tag\" value { i: 1 } } ") +
      Unary("c3", "ExecLog", "c2", "attr { key: \"tag\" value { i: 3 } } "));
  for (int threads : {0, 2}) {
    auto session = MakeSession(g, threads);
    ResetCounters();
    auto out = session->Run({{"x", Vec2(1, 2)}}, {"c3"});
    ASSERT_TRUE(out.ok()) << out.status();
    MutexLock lock(&g_mu);
    EXPECT_EQ(*g_log, (std::vector<int64_t>{1, 2, 3}));
  }
}

TEST(SessionTest, PrunesWhatFetchesDoNotNeed) {
  // `bad` has no kernel and `boom` fails, but neither is needed for `ok`.
  auto g = MakeGraph(Placeholder("x") + Unary("ok", "ExecAddOne", "x") +
                     Unary("bad", "ExecNoKernel", "x") +
                     Unary("boom", "ExecFail", "x"));
  auto session = MakeSession(g, 0);
  ResetCounters();
  auto out = session->Run({{"x", Vec2(1, 2)}}, {"ok"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(g_executions.load(), 1);
  auto missing = session->Run({{"x", Vec2(1, 2)}}, {"bad"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("no kernel for op 'ExecNoKernel' on device CPU"));
  // Create() reports it when the fetches are given up front.
  SessionOptions options;
  options.threads = 0;
  options.feeds = {"x"};
  options.fetches = {"bad"};
  auto created = Session::Create(g, options);
  ASSERT_FALSE(created.ok());
  EXPECT_THAT(std::string(created.status().message()),
              HasSubstr("node 'bad' (ExecNoKernel)"));
}

// The signature Create() prepared is the one Prepare hands out for the same
// feeds, fetches and targets (a caller that names its signature up front
// and then prepares it pays for optimizing and packing once); any other
// signature is prepared anew on each call and not kept.
TEST(SessionTest, CreateKeepsTheSignatureItPrepared) {
  auto g = MakeGraph(Placeholder("x") + Unary("a", "ExecAddOne", "x") +
                     Unary("b", "ExecAddOne", "a"));
  SessionOptions options;
  options.threads = 0;
  options.feeds = {"x"};
  options.fetches = {"b"};
  auto session = Session::Create(g, options);
  ASSERT_TRUE(session.ok()) << session.status();
  auto first = (*session)->Prepare({"x"}, {"b"});
  auto second = (*session)->Prepare({"x"}, {"b"});
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->get(), second->get());
  auto other = (*session)->Prepare({"x"}, {"a"});
  auto other_again = (*session)->Prepare({"x"}, {"a"});
  ASSERT_TRUE(other.ok() && other_again.ok());
  EXPECT_NE(other->get(), other_again->get());
  EXPECT_NE(other->get(), first->get());
  // Targets are part of the signature.
  auto targeted = (*session)->Prepare({"x"}, {"b"}, {"a"});
  ASSERT_TRUE(targeted.ok());
  EXPECT_NE(targeted->get(), first->get());
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run(**first, {Vec2(1, 2)}, &out).ok());
  EXPECT_EQ(Values(out[0]), (std::vector<float>{3, 4}));
}

TEST(SessionTest, FeedsOverrideInnerNodes) {
  // Feeding `a` cuts `boom` (upstream of a) out of the run.
  auto g = MakeGraph(Placeholder("x") + Unary("boom", "ExecFail", "x") +
                     Unary("a", "ExecAddOne", "boom") +
                     Unary("b", "ExecAddOne", "a"));
  auto session = MakeSession(g, 2);
  ResetCounters();
  auto out = session->Run({{"a", Vec2(10, 20)}}, {"b", "a"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{11, 21}));
  EXPECT_EQ(Values((*out)[1]), (std::vector<float>{10, 20}));
  EXPECT_EQ(g_executions.load(), 1);
}

TEST(SessionTest, ConstsAreEvaluatedOnceAndFetchable) {
  auto g = MakeGraph(R"(
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 2 } } float_val: 3 float_val: 4 } } } }
node { name: "a" op: "ExecAddOne" input: "c" }
)");
  auto session = MakeSession(g, 0);
  auto out = session->Run({}, {"a", "c"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 5}));
  EXPECT_EQ(Values((*out)[1]), (std::vector<float>{3, 4}));
}

TEST(SessionTest, FeedErrorsNameTheFeed) {
  auto g = MakeGraph(Placeholder("x") + Unary("a", "ExecAddOne", "x"));
  auto session = MakeSession(g, 0);
  Tensor wrong_type(DT_INT32, TensorShape({2}));
  auto out = session->Run({{"x", wrong_type}}, {"a"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "exec.pbtxt: feed 'x': expected float [2], got int32 [2]");
  Tensor wrong_shape(DT_FLOAT, TensorShape({3}));
  out = session->Run({{"x", wrong_shape}}, {"a"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "exec.pbtxt: feed 'x': expected float [2], got float [3]");
  out = session->Run({}, {"a"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "exec.pbtxt: node 'x' (Placeholder) must be fed: node 'a' "
            "(ExecAddOne) needs it");
  out = session->Run({{"x", Vec2(1, 1)}}, {"nope"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(std::string(out.status().message()),
            "exec.pbtxt: fetch 'nope': no node named 'nope'");
  out = session->Run({{"x", Vec2(1, 1)}}, {"a:1"});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("has 1 output"));
  out = session->Run({{"x", Vec2(1, 1)}, {"x", Vec2(1, 1)}}, {"a"});
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("given twice"));
}

// 8 threads x 1000 runs of one session. With threads = 0 each caller runs
// its own run inline, which also makes this test meaningful under
// ThreadSanitizer without an instrumented oneTBB.
class ConcurrentRunsTest : public ::testing::TestWithParam<int> {};

TEST_P(ConcurrentRunsTest, GiveIdenticalResults) {
  std::string text = Placeholder("x");
  std::vector<std::string> names;
  for (int i = 0; i < 20; ++i) {
    names.push_back("n" + std::to_string(i));
    text += Unary(names.back(), "ExecAddOne", "x");
  }
  text += Sum("total", names);
  auto session = MakeSession(MakeGraph(text), GetParam());
  auto callable = session->Prepare({"x"}, {"total"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        float v = static_cast<float>(t * 1000 + i);
        std::vector<Tensor> out;
        Status s = session->Run(**callable, {Vec2(v, -v)}, &out);
        if (!s.ok() ||
            Values(out[0]) != std::vector<float>{20 * (v + 1), 20 * (1 - v)}) {
          mismatches++;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(Threads, ConcurrentRunsTest, ::testing::Values(0, 2));

// x -> s0 ... s{n-1} (independent 2 ms ExecSlow nodes, told apart by their
// tags) -> total (their ExecSum).
std::string SlowFanIn(int n) {
  std::string text = Placeholder("x");
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    names.push_back("s" + std::to_string(i));
    text += Unary(names.back(), "ExecSlow", "x",
                  "attr { key: \"ms\" value { i: 2 } } attr { key: \"tag\" "
                  "value { i: " +
                      std::to_string(i) + " } } ");
  }
  return text + Sum("total", names);
}

TEST(SessionTest, ThreadCountNeverExceedsTheSetting) {
  // 16 independent slow nodes: with threads = k at most k run at once.
  auto g = MakeGraph(SlowFanIn(16));
  for (int threads : {1, 2, 3}) {
    auto session = MakeSession(g, threads);
    ResetCounters();
    auto out = session->Run({{"x", Vec2(1, 1)}}, {"total"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(g_executions.load(), 17) << "threads=" << threads;
    EXPECT_LE(g_max_running.load(), threads) << "threads=" << threads;
    EXPECT_EQ(session->num_threads(), threads);
  }
  // threads = 0: every kernel on the calling thread.
  auto session = MakeSession(g, 0);
  ResetCounters();
  auto out = session->Run({{"x", Vec2(1, 1)}}, {"total"});
  ASSERT_TRUE(out.ok()) << out.status();
  MutexLock lock(&g_mu);
  ASSERT_EQ(g_threads->size(), 1u);
  EXPECT_EQ(*g_threads->begin(), std::this_thread::get_id());
}

TEST(SessionTest, IndependentNodesRunSideBySide) {
  // With threads = 2 the run's second thread (a spin-team helper that takes
  // the nodes the run hands out) runs some of 8 independent 2 ms nodes
  // while the calling thread runs others.
  // Any one of 5 runs shows it (a loaded machine may start the second
  // thread late in one).
  auto session = MakeSession(MakeGraph(SlowFanIn(8)), 2);
  int most_running = 0;
  for (int run = 0; run < 5; ++run) {
    ResetCounters();
    auto out = session->Run({{"x", Vec2(1, 1)}}, {"total"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(g_executions.load(), 9);
    EXPECT_LE(g_max_running.load(), 2);
    most_running = std::max(most_running, g_max_running.load());
  }
  EXPECT_EQ(most_running, 2);
}

TEST(SessionTest, CancellationStopsPromptly) {
  // x -> block -> 200 x AddOne. The token is cancelled while `block` runs;
  // "promptly" is "before the next kernel", so none of the AddOnes runs.
  std::string text = Placeholder("x") + Unary("block", "ExecBlock", "x");
  std::string prev = "block";
  for (int i = 0; i < 200; ++i) {
    std::string name = "s" + std::to_string(i);
    text += Unary(name, "ExecAddOne", prev);
    prev = name;
  }
  auto g = MakeGraph(text);
  for (int threads : {0, 2}) {
    SCOPED_TRACE(threads);
    auto session = MakeSession(g, threads);
    ResetCounters();
    Notification entered, release;
    g_block_entered = &entered;
    g_block_release = &release;
    CancellationToken token;
    RunOptions options;
    options.cancellation = &token;
    std::thread canceller([&] {
      entered.WaitForNotification();
      token.Cancel();
      release.Notify();
    });
    auto out = session->Run({{"x", Vec2(1, 1)}}, {prev}, {}, options);
    canceller.join();
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(g_executions.load(), 1) << "kernels ran after the cancellation";

    // The same session runs the whole chain when nothing cancels it.
    ResetCounters();
    Notification entered2, release2;
    release2.Notify();
    g_block_entered = &entered2;
    g_block_release = &release2;
    out = session->Run({{"x", Vec2(1, 2)}}, {prev});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values((*out)[0]), (std::vector<float>{201, 202}));
    EXPECT_EQ(g_executions.load(), 201);
  }
}

TEST(SessionTest, DeadlineExpires) {
  std::string text = Placeholder("x");
  std::string prev = "x";
  for (int i = 0; i < 200; ++i) {
    std::string name = "s" + std::to_string(i);
    text +=
        Unary(name, "ExecSlow", prev, "attr { key: \"ms\" value { i: 5 } } ");
    prev = name;
  }
  auto session = MakeSession(MakeGraph(text), 2);
  RunOptions options;
  options.deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  auto out = session->Run({{"x", Vec2(1, 1)}}, {prev}, {}, options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(SessionTest, InputBuffersAreForwardedWhenUnshared) {
  // a -> p (sole consumer): forwarded. a2 -> {q, r}: the first of them to
  // run sees a shared buffer.
  auto g = MakeGraph(
      Placeholder("x") + Unary("a", "ExecAddOne", "x") +
      Unary("p", "ExecInPlace", "a") + Unary("a2", "ExecAddOne", "x") +
      Unary("q", "ExecInPlace", "a2") + Unary("r", "ExecInPlace", "a2"));
  auto session = MakeSession(g, 0);
  ResetCounters();
  auto out = session->Run({{"x", Vec2(1, 2)}}, {"p"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 6}));
  EXPECT_EQ(g_forwarded.load(), 1);
  ResetCounters();
  out = session->Run({{"x", Vec2(1, 2)}}, {"q", "r"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values((*out)[0]), (std::vector<float>{4, 6}));
  EXPECT_EQ(Values((*out)[1]), (std::vector<float>{4, 6}));
  // Fetched tensors are held by the output vector, so at most the last
  // consumer of a2 may forward.
  EXPECT_LE(g_forwarded.load(), 1);
}

TEST(SessionTest, TakenFeedsReadOnceAreForwarded) {
  // x -> p alone; y -> {q, r}; z -> s and fetched as it is.
  auto g = MakeGraph(
      Placeholder("x") + Placeholder("y") + Placeholder("z") +
      Unary("p", "ExecInPlace", "x") + Unary("q", "ExecInPlace", "y") +
      Unary("r", "ExecInPlace", "y") + Unary("s", "ExecInPlace", "z"));
  for (int threads : {0, 2}) {
    auto session = MakeSession(g, threads);
    auto sole = session->Prepare({"x"}, {"p"});
    ASSERT_TRUE(sole.ok()) << sole.status();
    std::vector<Tensor> outputs;

    // The run holds the only reference: p writes into x's buffer, and the
    // caller's vector is left without it.
    ResetCounters();
    std::vector<Tensor> feeds = {Vec2(1, 2)};
    const void* buffer = feeds[0].raw_data();
    ASSERT_TRUE(session->RunTakingFeeds(**sole, &feeds, &outputs).ok());
    EXPECT_EQ(Values(outputs[0]), (std::vector<float>{2, 4}));
    EXPECT_EQ(outputs[0].raw_data(), buffer);
    EXPECT_EQ(g_forwarded.load(), 1);
    EXPECT_FALSE(feeds[0].IsInitialized());

    // The caller keeps a copy: not forwarded, and the copy is unchanged.
    ResetCounters();
    Tensor kept = Vec2(1, 2);
    feeds = {kept};
    ASSERT_TRUE(session->RunTakingFeeds(**sole, &feeds, &outputs).ok());
    EXPECT_EQ(Values(outputs[0]), (std::vector<float>{2, 4}));
    EXPECT_EQ(Values(kept), (std::vector<float>{1, 2}));
    EXPECT_EQ(g_forwarded.load(), 0);

    // Run (not taking) never forwards a feed.
    ResetCounters();
    feeds = {Vec2(1, 2)};
    ASSERT_TRUE(session->Run(**sole, feeds, &outputs).ok());
    EXPECT_EQ(g_forwarded.load(), 0);
    EXPECT_EQ(Values(feeds[0]), (std::vector<float>{1, 2}));

    // Read by two nodes, or by one and fetched: never forwarded.
    auto shared = session->Prepare({"y", "z"}, {"q", "r", "s", "z"});
    ASSERT_TRUE(shared.ok()) << shared.status();
    ResetCounters();
    feeds = {Vec2(3, 4), Vec2(5, 6)};
    ASSERT_TRUE(session->RunTakingFeeds(**shared, &feeds, &outputs).ok());
    EXPECT_EQ(Values(outputs[0]), (std::vector<float>{6, 8}));
    EXPECT_EQ(Values(outputs[1]), (std::vector<float>{6, 8}));
    EXPECT_EQ(Values(outputs[2]), (std::vector<float>{10, 12}));
    EXPECT_EQ(Values(outputs[3]), (std::vector<float>{5, 6}));
    EXPECT_EQ(g_forwarded.load(), 0);
  }
}

TEST(SessionTest, TraceIsWrittenAsChromeTraceJson) {
  auto g = MakeGraph(Placeholder("x") + Unary("a", "ExecAddOne", "x") +
                     Unary("b", "ExecAddOne", "a"));
  auto session = MakeSession(g, 2);
  RunOptions options;
  options.trace = true;
  RunMetadata metadata;
  auto out = session->Run({{"x", Vec2(1, 2)}}, {"b"}, {}, options, &metadata);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(metadata.node_traces.size(), 2u);
  EXPECT_GE(metadata.node_traces[1].start_ns, metadata.node_traces[0].start_ns);
  std::string path = (std::filesystem::temp_directory_path() /
                      ("weft_trace_" + std::to_string(::getpid()) + ".json"))
                         .string();
  ASSERT_TRUE(WriteChromeTrace(metadata, path).ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path.c_str());
  EXPECT_THAT(ss.str(), HasSubstr("\"traceEvents\""));
  EXPECT_THAT(ss.str(), HasSubstr("\"name\": \"b\", \"cat\": \"ExecAddOne\""));
  EXPECT_THAT(ss.str(), HasSubstr("\"device\": \"cpu:0\""));
}

}  // namespace session_test
}  // namespace weft
