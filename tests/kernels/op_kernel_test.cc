#include "kernels/op_kernel.h"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "absl/strings/match.h"
#include "core/mutex.h"
#include "core/tensor_types.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"

namespace weft {
namespace op_kernel_test {

OpDef::ArgDef Arg(const std::string& name, const std::string& type_attr) {
  OpDef::ArgDef a;
  a.name = name;
  a.type_attr = type_attr;
  return a;
}

OpDef::AttrDef Attr(const std::string& name, const std::string& type) {
  OpDef::AttrDef a;
  a.name = name;
  a.type = type;
  return a;
}

// Scale(x: T) -> (y: T), T: type, factor: float
OpDef ScaleOpDef() {
  OpDef op;
  op.name = "Scale";
  op.input_arg.push_back(Arg("x", "T"));
  op.output_arg.push_back(Arg("y", "T"));
  op.attr.push_back(Attr("T", "type"));
  op.attr.push_back(Attr("factor", "float"));
  return op;
}

NodeDef ScaleNode(float factor) {
  NodeDef node;
  node.name = "net/scale";
  node.op = "Scale";
  node.attr["T"] = AttrValue::Type(DT_FLOAT);
  node.attr["factor"] = AttrValue::Float(factor);
  return node;
}

NodeTypes Types(std::vector<DataType> in, std::vector<DataType> out) {
  NodeTypes t;
  for (int i = 0; i < static_cast<int>(in.size()); ++i) {
    t.input_ranges.push_back({i, i + 1});
  }
  for (int i = 0; i < static_cast<int>(out.size()); ++i) {
    t.output_ranges.push_back({i, i + 1});
  }
  t.input_types = std::move(in);
  t.output_types = std::move(out);
  return t;
}

// y = factor * x, in place when the executor allows it.
class ScaleOp : public OpKernel {
 public:
  explicit ScaleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("factor", &factor_));
    OP_REQUIRES(ctx, factor_ != 0.0f,
                errors::InvalidArgument("factor must be nonzero"));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, x.shape(), &y));
    y->flat<float>() = x.flat<float>() * factor_;
  }

  bool IsExpensive() const override { return false; }

 private:
  float factor_ = 0;
};

Tensor FloatTensor(std::vector<float> values, TensorShape shape) {
  Tensor t(DT_FLOAT, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<float>()[i] = values[i];
  return t;
}

std::vector<float> Values(const Tensor& t) {
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.NumElements());
}

// Builds a kernel outside the registry and runs it as an executor would.
class ScaleHarness {
 public:
  explicit ScaleHarness(Device* device, float factor = 2.0f)
      : op_(ScaleOpDef()),
        node_(ScaleNode(factor)),
        types_(Types({DT_FLOAT}, {DT_FLOAT})),
        construction_(device, node_, op_, types_, nullptr),
        kernel_(&construction_) {}

  const OpKernelConstruction& construction() const { return construction_; }
  const ScaleOp& kernel() const { return kernel_; }

  // Runs on `input` (a slot the caller owns); returns the context's status.
  Status Run(Device* device, const Tensor* input, bool forwardable,
             Tensor* output) {
    const Tensor* inputs[] = {input};
    bool fwd[] = {forwardable};
    OpKernelContext::Params params;
    params.device = device;
    params.kernel = &kernel_;
    params.inputs = inputs;
    params.forwardable_inputs = fwd;
    params.outputs = absl::Span<Tensor>(output, 1);
    OpKernelContext ctx(&params);
    kernel_.Compute(&ctx);
    return ctx.status();
  }

 private:
  OpDef op_;
  NodeDef node_;
  NodeTypes types_;
  OpKernelConstruction construction_;
  ScaleOp kernel_;
};

TEST(OpKernelTest, ConstructionReadsAttrs) {
  CpuDevice device("cpu:0", nullptr);
  ScaleHarness h(&device, 3.0f);
  EXPECT_TRUE(h.construction().status().ok()) << h.construction().status();
  EXPECT_EQ(h.construction().name(), "net/scale");
  EXPECT_EQ(h.construction().type_string(), "Scale");
  EXPECT_EQ(h.construction().device_type(), "CPU");
  EXPECT_EQ(h.construction().num_inputs(), 1);
  EXPECT_EQ(h.construction().input_type(0), DT_FLOAT);
  EXPECT_TRUE(h.construction().HasAttr("factor"));
  EXPECT_FALSE(h.construction().HasAttr("bias"));
  EXPECT_FALSE(h.kernel().IsExpensive());
  EXPECT_EQ(h.kernel().AsAsync(), nullptr);
  Tensor in = FloatTensor({1, 2, 3}, TensorShape({3}));
  Tensor out;
  ASSERT_TRUE(h.Run(&device, &in, false, &out).ok());
  EXPECT_EQ(Values(out), (std::vector<float>{3, 6, 9}));
}

TEST(OpKernelTest, ConstructionErrorNamesTheNode) {
  CpuDevice device("cpu:0", nullptr);
  ScaleHarness h(&device, 0.0f);
  EXPECT_EQ(h.construction().status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(h.construction().status().message(),
            "node 'net/scale' (Scale): factor must be nonzero");
}

TEST(OpKernelTest, MissingAttrErrorNamesNodeAndAttr) {
  CpuDevice device("cpu:0", nullptr);
  OpDef op = ScaleOpDef();
  NodeDef node = ScaleNode(1.0f);
  node.attr.erase("factor");
  NodeTypes types = Types({DT_FLOAT}, {DT_FLOAT});
  OpKernelConstruction ctx(&device, node, op, types, nullptr);
  ScaleOp kernel(&ctx);
  ASSERT_FALSE(ctx.status().ok());
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(
      absl::StartsWith(ctx.status().message(), "node 'net/scale' (Scale): "))
      << ctx.status();
  EXPECT_NE(ctx.status().message().find("factor"), absl::string_view::npos)
      << ctx.status();
}

TEST(OpKernelTest, FirstErrorWinsAndIsPrefixedOnce) {
  CpuDevice device("cpu:0", nullptr);
  OpDef op = ScaleOpDef();
  NodeDef node = ScaleNode(1.0f);
  NodeTypes types = Types({DT_FLOAT}, {DT_FLOAT});
  OpKernelConstruction ctx(&device, node, op, types, nullptr);
  ctx.SetStatus(Status());
  EXPECT_TRUE(ctx.status().ok());
  ctx.SetStatus(errors::InvalidArgument("node 'net/scale' (Scale): first"));
  ctx.SetStatus(errors::Internal("second"));
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ctx.status().message(), "node 'net/scale' (Scale): first");
}

TEST(OpKernelTest, ComputeAllocatesFromTheDeviceAllocator) {
  CpuAllocator allocator;
  CpuDevice device("cpu:0", nullptr, &allocator);
  ScaleHarness h(&device);
  Tensor in = FloatTensor({1, -2, 4.5f}, TensorShape({3}));  // default alloc
  Tensor out;
  ASSERT_TRUE(h.Run(&device, &in, /*forwardable=*/false, &out).ok());
  EXPECT_EQ(Values(out), (std::vector<float>{2, -4, 9}));
  EXPECT_EQ(Values(in), (std::vector<float>{1, -2, 4.5f}));
  EXPECT_FALSE(out.SharesBufferWith(in));
  AllocatorStats stats = allocator.GetStats();
  EXPECT_EQ(stats.num_allocs, 1);
  EXPECT_EQ(stats.bytes_in_use, 12);
  out = Tensor();
  EXPECT_EQ(allocator.GetStats().bytes_in_use, 0);
}

TEST(OpKernelTest, ForwardsAnUnsharedForwardableInput) {
  CpuAllocator allocator;
  CpuDevice device("cpu:0", nullptr, &allocator);
  ScaleHarness h(&device);
  Tensor slot = FloatTensor({1, 2, 3, 4}, TensorShape({2, 2}));
  const void* buffer = slot.raw_data();
  Tensor out;
  ASSERT_TRUE(h.Run(&device, &slot, /*forwardable=*/true, &out).ok());
  // Written in place: no allocation, the same buffer.
  EXPECT_EQ(out.raw_data(), buffer);
  EXPECT_TRUE(out.SharesBufferWith(slot));
  EXPECT_EQ(out.shape(), TensorShape({2, 2}));
  EXPECT_EQ(Values(out), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(allocator.GetStats().num_allocs, 0);
}

TEST(OpKernelTest, DoesNotForwardASharedBuffer) {
  CpuDevice device("cpu:0", nullptr);
  ScaleHarness h(&device);
  Tensor slot = FloatTensor({1, 2, 3}, TensorShape({3}));
  Tensor other_holder = slot;  // e.g. a fetch or another consumer's copy
  Tensor out;
  ASSERT_TRUE(h.Run(&device, &slot, /*forwardable=*/true, &out).ok());
  EXPECT_FALSE(out.SharesBufferWith(slot));
  EXPECT_EQ(Values(out), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(Values(other_holder), (std::vector<float>{1, 2, 3}));
}

TEST(OpKernelTest, DoesNotForwardWhenTheExecutorForbids) {
  CpuDevice device("cpu:0", nullptr);
  ScaleHarness h(&device);
  Tensor slot = FloatTensor({1, 2, 3}, TensorShape({3}));
  ASSERT_TRUE(slot.RefCountIsOne());
  Tensor out;
  ASSERT_TRUE(h.Run(&device, &slot, /*forwardable=*/false, &out).ok());
  EXPECT_FALSE(out.SharesBufferWith(slot));
  EXPECT_EQ(Values(slot), (std::vector<float>{1, 2, 3}));
}

// Binary op harness for the finer forwarding rules.
// Pair(a: T, b: U) -> (out: T)
class ForwardingTest : public ::testing::Test {
 protected:
  class Kernel : public OpKernel {
   public:
    using OpKernel::OpKernel;
    void Compute(OpKernelContext*) const override {}
  };

  ForwardingTest()
      : device_("cpu:0", nullptr),
        types_(Types({DT_FLOAT, DT_INT32}, {DT_FLOAT})) {
    op_.name = "Pair";
    op_.input_arg = {Arg("a", "T"), Arg("b", "U")};
    op_.output_arg = {Arg("out", "T")};
    op_.attr = {Attr("T", "type"), Attr("U", "type")};
    node_.name = "p";
    node_.op = "Pair";
    construction_ = std::make_unique<OpKernelConstruction>(&device_, node_, op_,
                                                           types_, nullptr);
    kernel_ = std::make_unique<Kernel>(construction_.get());
  }

  // A context over `a`, `b` with both forwardable.
  std::unique_ptr<OpKernelContext> Context(const Tensor* a, const Tensor* b) {
    inputs_[0] = a;
    inputs_[1] = b;
    params_.device = &device_;
    params_.kernel = kernel_.get();
    params_.inputs = inputs_;
    params_.forwardable_inputs = forwardable_;
    params_.outputs = absl::Span<Tensor>(outputs_, 1);
    return std::make_unique<OpKernelContext>(&params_);
  }

  CpuDevice device_;
  OpDef op_;
  NodeDef node_;
  NodeTypes types_;
  std::unique_ptr<OpKernelConstruction> construction_;
  std::unique_ptr<Kernel> kernel_;
  const Tensor* inputs_[2] = {nullptr, nullptr};
  bool forwardable_[2] = {true, true};
  Tensor outputs_[1];
  OpKernelContext::Params params_;
};

TEST_F(ForwardingTest, ReshapesWhenElementCountsMatch) {
  Tensor a = FloatTensor({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor b(DT_INT32, TensorShape({6}));
  auto ctx = Context(&a, &b);
  Tensor* out = nullptr;
  ASSERT_TRUE(
      ctx->forward_input_to_output_with_shape(0, 0, TensorShape({6}), &out));
  EXPECT_EQ(out, &outputs_[0]);
  EXPECT_EQ(out->shape(), TensorShape({6}));
  EXPECT_TRUE(out->SharesBufferWith(a));
  // The input stays readable after forwarding.
  EXPECT_EQ(ctx->input(0).shape(), TensorShape({2, 3}));
  // Now shared by the output: a second forward of the same input fails.
  Tensor* again = nullptr;
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(0, 0, TensorShape({6}), &again));
}

TEST_F(ForwardingTest, RefusesOtherElementCountDtypeOrIndex) {
  Tensor a = FloatTensor({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor b(DT_INT32, TensorShape({2, 3}));
  auto ctx = Context(&a, &b);
  Tensor* out = nullptr;
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(0, 0, TensorShape({5}), &out));
  // Input 1 is int32; the output is float.
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(1, 0, TensorShape({2, 3}), &out));
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(2, 0, TensorShape({6}), &out));
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(0, 1, TensorShape({6}), &out));
  EXPECT_EQ(out, nullptr);
  EXPECT_FALSE(outputs_[0].IsInitialized());
}

TEST_F(ForwardingTest, SameSlotReadTwiceIsNotForwarded) {
  // Pair(x, x) through one slot: both inputs point at the same tensor.
  types_ = Types({DT_FLOAT, DT_FLOAT}, {DT_FLOAT});
  construction_ = std::make_unique<OpKernelConstruction>(&device_, node_, op_,
                                                         types_, nullptr);
  kernel_ = std::make_unique<Kernel>(construction_.get());
  Tensor x = FloatTensor({1, 2}, TensorShape({2}));
  auto ctx = Context(&x, &x);
  Tensor* out = nullptr;
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(0, 0, TensorShape({2}), &out));
  EXPECT_FALSE(
      ctx->forward_input_to_output_with_shape(1, 0, TensorShape({2}), &out));
}

TEST_F(ForwardingTest, ForwardOrAllocateTriesCandidatesInOrder) {
  Tensor a = FloatTensor({1, 2}, TensorShape({2}));
  Tensor a_copy = a;  // makes input 0 shared
  Tensor b(DT_INT32, TensorShape({2}));
  auto ctx = Context(&a, &b);
  Tensor* out = nullptr;
  int forwarded = 99;
  ASSERT_TRUE(ctx->forward_input_or_allocate_output({0, 1}, 0, TensorShape({2}),
                                                    &out, &forwarded)
                  .ok());
  EXPECT_EQ(forwarded, -1);
  EXPECT_FALSE(out->SharesBufferWith(a));
  EXPECT_EQ(out->dtype(), DT_FLOAT);
  a_copy = Tensor();
  outputs_[0] = Tensor();
  ASSERT_TRUE(ctx->forward_input_or_allocate_output({1, 0}, 0, TensorShape({2}),
                                                    &out, &forwarded)
                  .ok());
  EXPECT_EQ(forwarded, 0);
  EXPECT_TRUE(out->SharesBufferWith(a));
}

TEST_F(ForwardingTest, InputsByArgName) {
  Tensor a = FloatTensor({1}, TensorShape({1}));
  Tensor b(DT_INT32, TensorShape({}));
  auto ctx = Context(&a, &b);
  const Tensor* t = nullptr;
  ASSERT_TRUE(ctx->input("b", &t).ok());
  EXPECT_EQ(t, &b);
  absl::Span<const Tensor* const> list;
  ASSERT_TRUE(ctx->input_list("a", &list).ok());
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0], &a);
  Status s = ctx->input("c", &t);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "node 'p' (Pair): op 'Pair' has no input named 'c'; its inputs "
            "are [a, b]");
  int start = 0;
  int stop = 0;
  ASSERT_TRUE(kernel_->OutputRange("out", &start, &stop).ok());
  EXPECT_EQ(start, 0);
  EXPECT_EQ(stop, 1);
  EXPECT_EQ(kernel_->OutputRange("a", &start, &stop).message(),
            "node 'p' (Pair): op 'Pair' has no output named 'a'; its outputs "
            "are [out]");
}

TEST_F(ForwardingTest, SetOutputChecksTheDtype) {
  Tensor a = FloatTensor({1}, TensorShape({1}));
  Tensor b(DT_INT32, TensorShape({}));
  auto ctx = Context(&a, &b);
  ctx->set_output(0, b);
  EXPECT_EQ(ctx->status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(ctx->status().message(),
            "node 'p' (Pair): set_output: output 0 is declared float but the "
            "kernel produced int32");
  EXPECT_FALSE(outputs_[0].IsInitialized());
  auto ctx2 = Context(&a, &b);
  ctx2->set_output(0, a);
  EXPECT_TRUE(ctx2->status().ok());
  EXPECT_TRUE(outputs_[0].SharesBufferWith(a));
  EXPECT_EQ(ctx2->mutable_output(0), &outputs_[0]);
}

TEST_F(ForwardingTest, AllocateOutputIndexOutOfRange) {
  Tensor a = FloatTensor({1}, TensorShape({1}));
  Tensor b(DT_INT32, TensorShape({}));
  auto ctx = Context(&a, &b);
  Tensor* out = nullptr;
  Status s = ctx->allocate_output(1, TensorShape({1}), &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(s.message(),
            "node 'p' (Pair): allocate_output: output 1 out of range; the "
            "node has 1 outputs");
}

TEST_F(ForwardingTest, AllocateTempUsesTheDevice) {
  Tensor a = FloatTensor({1}, TensorShape({1}));
  Tensor b(DT_INT32, TensorShape({}));
  auto ctx = Context(&a, &b);
  Tensor temp;
  ASSERT_TRUE(ctx->allocate_temp(DT_DOUBLE, TensorShape({4}), &temp).ok());
  EXPECT_EQ(temp.dtype(), DT_DOUBLE);
  EXPECT_EQ(temp.NumElements(), 4);
}

// Hands out at most `capacity` bytes.
class LimitedAllocator final : public Allocator {
 public:
  explicit LimitedAllocator(int64_t capacity) : capacity_(capacity) {}
  std::string Name() const override { return "limited"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  void* AllocateRaw(size_t alignment, size_t n) override {
    if (inner_.GetStats().bytes_in_use + static_cast<int64_t>(n) > capacity_) {
      return nullptr;
    }
    return inner_.AllocateRaw(alignment, n);
  }
  void DeallocateRaw(void* p, size_t n) override { inner_.DeallocateRaw(p, n); }
  AllocatorStats GetStats() const override { return inner_.GetStats(); }

 private:
  const int64_t capacity_;
  CpuAllocator inner_;
};

TEST(OpKernelTest, AllocationFailureIsResourceExhaustedNamingTheNode) {
  LimitedAllocator allocator(64);
  CpuDevice device("cpu:0", nullptr, &allocator);
  ScaleHarness h(&device);
  Tensor in = FloatTensor(std::vector<float>(100, 1.0f), TensorShape({4, 25}));
  Tensor out;
  Status s = h.Run(&device, &in, /*forwardable=*/false, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(),
            "node 'net/scale' (Scale): out of memory allocating output 0 "
            "(float [4,25], 400 bytes) in host memory of device cpu:0; "
            "allocator 'limited' has 0 bytes in use");
  EXPECT_FALSE(out.IsInitialized());
}

TEST(OpKernelTest, ParallelForPassesThroughToTheDevice) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  ScaleHarness h(&device);
  Tensor in = FloatTensor({1}, TensorShape({1}));
  const Tensor* inputs[] = {&in};
  Tensor out;
  OpKernelContext::Params params;
  params.device = &device;
  params.kernel = &h.kernel();
  params.inputs = inputs;
  params.outputs = absl::Span<Tensor>(&out, 1);
  OpKernelContext ctx(&params);
  EXPECT_EQ(ctx.device(), &device);
  EXPECT_EQ(ctx.op_device_context(), nullptr);
  std::vector<std::atomic<int>> seen(5000);
  ctx.ParallelFor(5000, 100000, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) seen[i].fetch_add(1);
  });
  for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
}

// ---------------------------------------------------------------------------
// Asynchronous kernels

// A stream: a worker thread running enqueued closures in order, the way a
// GPU stream runs kernels after the host has moved on.
class FakeStream final : public DeviceContext {
 public:
  FakeStream() : worker_([this] { Loop(); }) {}
  ~FakeStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  void Enqueue(std::function<void()> fn) const {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(fn));
    }
    cv_.notify_all();
  }

  void* stream() const override { return const_cast<FakeStream*>(this); }
  void CopyHostToDevice(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override {
    Enqueue([src, dst, done = std::move(done)] {
      std::memcpy(dst->raw_data(), src.raw_data(), src.TotalBytes());
      done(Status());
    });
  }
  void CopyDeviceToHost(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override {
    CopyHostToDevice(src, dst, std::move(done));
  }
  void ThenExecute(std::function<void(Status)> fn) const override {
    Enqueue([fn = std::move(fn)] { fn(Status()); });
  }

 private:
  void Loop() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
  }

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread worker_;
};

class FakeAsyncDevice final : public Device {
 public:
  FakeAsyncDevice() : Device("fake:0", "FAKE") {}
  Allocator* allocator() const override { return DefaultCpuAllocator(); }
  bool is_async() const override { return true; }
  DeviceContext* device_context() const override { return &stream_; }
  Status Sync() override {
    Notification n;
    stream_.ThenExecute([&n](Status) { n.Notify(); });
    n.WaitForNotification();
    return Status();
  }
  int num_threads() const override { return 0; }
  void ParallelFor(
      int64_t n, int64_t,
      const std::function<void(int64_t, int64_t)>& fn) const override {
    if (n > 0) fn(0, n);
  }

 private:
  mutable FakeStream stream_;
};

// Scale again, but the arithmetic runs on the stream and `done` fires from
// the stream once it has.
class AsyncScaleOp : public AsyncOpKernel {
 public:
  explicit AsyncScaleOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("factor", &factor_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) const override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_ASYNC(ctx, x.NumElements() > 0,
                      errors::InvalidArgument("empty input"), done);
    Tensor* y = nullptr;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, x.shape(), &y), done);
    auto* stream = static_cast<const FakeStream*>(ctx->op_device_context());
    const float factor = factor_;
    stream->Enqueue([x, y, factor] {
      for (int64_t i = 0; i < x.NumElements(); ++i) {
        y->data<float>()[i] = x.data<float>()[i] * factor;
      }
    });
    ctx->op_device_context()->ThenExecute(
        [ctx, done = std::move(done)](Status s) {
          if (!s.ok()) ctx->SetStatus(s);
          done();
        });
  }

 private:
  float factor_ = 0;
};

class AsyncKernelTest : public ::testing::Test {
 protected:
  AsyncKernelTest()
      : op_(ScaleOpDef()),
        node_(ScaleNode(10.0f)),
        types_(Types({DT_FLOAT}, {DT_FLOAT})),
        construction_(&device_, node_, op_, types_, nullptr),
        kernel_(&construction_) {}

  OpKernelContext::Params Params(const Tensor** inputs, Tensor* output) {
    OpKernelContext::Params p;
    p.device = &device_;
    p.device_context = device_.device_context();
    p.kernel = &kernel_;
    p.inputs = absl::Span<const Tensor* const>(inputs, 1);
    p.outputs = absl::Span<Tensor>(output, 1);
    return p;
  }

  FakeAsyncDevice device_;
  OpDef op_;
  NodeDef node_;
  NodeTypes types_;
  OpKernelConstruction construction_;
  AsyncScaleOp kernel_;
};

TEST_F(AsyncKernelTest, DoneRunsOnceAfterTheWork) {
  ASSERT_TRUE(construction_.status().ok());
  EXPECT_EQ(kernel_.AsAsync(), &kernel_);
  EXPECT_TRUE(device_.is_async());
  Tensor in = FloatTensor({1, 2, 3}, TensorShape({3}));
  const Tensor* inputs[] = {&in};
  Tensor out;
  OpKernelContext::Params params = Params(inputs, &out);
  OpKernelContext ctx(&params);
  std::atomic<int> done_calls{0};
  std::vector<float> seen_in_done;
  Notification finished;
  kernel_.ComputeAsync(&ctx, [&] {
    // The outputs are complete when done runs.
    seen_in_done = Values(out);
    done_calls.fetch_add(1);
    finished.Notify();
  });
  finished.WaitForNotification();
  ASSERT_TRUE(device_.Sync().ok());
  EXPECT_EQ(done_calls.load(), 1);
  EXPECT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(seen_in_done, (std::vector<float>{10, 20, 30}));
}

TEST_F(AsyncKernelTest, SynchronousComputeWaitsForDone) {
  Tensor in = FloatTensor({0.5f, -1}, TensorShape({2}));
  const Tensor* inputs[] = {&in};
  Tensor out;
  OpKernelContext::Params params = Params(inputs, &out);
  OpKernelContext ctx(&params);
  const OpKernel& as_sync = kernel_;
  as_sync.Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_EQ(Values(out), (std::vector<float>{5, -10}));
}

TEST_F(AsyncKernelTest, ErrorPathStillCallsDone) {
  Tensor in(DT_FLOAT, TensorShape({0}));
  const Tensor* inputs[] = {&in};
  Tensor out;
  OpKernelContext::Params params = Params(inputs, &out);
  OpKernelContext ctx(&params);
  int done_calls = 0;
  kernel_.ComputeAsync(&ctx, [&] { ++done_calls; });
  EXPECT_EQ(done_calls, 1);
  EXPECT_EQ(ctx.status().message(), "node 'net/scale' (Scale): empty input");
}

TEST_F(AsyncKernelTest, StreamCopiesComplete) {
  Tensor host = FloatTensor({7, 8}, TensorShape({2}));
  Tensor dev(DT_FLOAT, TensorShape({2}));
  Notification copied;
  Status copy_status = errors::Internal("not run");
  device_.device_context()->CopyHostToDevice(host, &dev, [&](Status s) {
    copy_status = s;
    copied.Notify();
  });
  copied.WaitForNotification();
  EXPECT_TRUE(copy_status.ok());
  EXPECT_EQ(Values(dev), (std::vector<float>{7, 8}));
}

}  // namespace op_kernel_test
}  // namespace weft
