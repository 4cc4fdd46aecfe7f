#include "bench/kernel_runner.h"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <atomic>
#include <utility>

#include "absl/strings/str_cat.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"

namespace weft::bench {

namespace {
std::atomic<bool> g_use_default_allocator{false};
}  // namespace

void SetUseDefaultAllocator(bool use_default) {
  g_use_default_allocator.store(use_default);
}

KernelRunner::~KernelRunner() {
  // Outputs and the kernel go before the device and allocator they were
  // made with.
  outputs_.clear();
  kernel_.reset();
  device_.reset();
}

StatusOr<std::unique_ptr<KernelRunner>> KernelRunner::Create(
    const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
    int threads) {
  std::unique_ptr<KernelRunner> r(new KernelRunner);
  if (threads > 0) {
    r->arena_ = std::make_unique<tbb::task_arena>(threads);
    r->arena_->initialize();
  }
  if (!g_use_default_allocator.load()) {
    BfcAllocator::Options options = HostCachingAllocatorOptions();
    options.name = "bench_cpu_bfc";
    r->allocator_ = std::make_unique<BfcAllocator>(
        std::make_unique<HostSubAllocator>(), options);
  }
  r->device_ = std::make_unique<CpuDevice>("cpu:0", r->arena_.get(),
                                           r->allocator_.get());

  WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                        OpRegistry::Global()->LookUp(op));
  r->node_.name = "bench/" + op;
  r->node_.op = op;
  r->node_.attr = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    r->node_.input.push_back(absl::StrCat("input", i));
  }
  WEFT_ASSIGN_OR_RETURN(NodeTypes types, ValidateNode(reg->op_def, &r->node_));
  if (types.input_types.size() != inputs.size()) {
    return errors::InvalidArgument("bench: op '", op, "' takes ",
                                   types.input_types.size(), " inputs, got ",
                                   inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dtype() != types.input_types[i]) {
      return errors::InvalidArgument("bench: op '", op, "' input ", i, " is ",
                                     DataTypeName(inputs[i].dtype()),
                                     " but the node expects ",
                                     DataTypeName(types.input_types[i]));
    }
  }
  WEFT_ASSIGN_OR_RETURN(r->kernel_,
                        KernelRegistry::Global()->CreateKernel(
                            r->node_, reg->op_def, types, r->device_.get()));
  r->inputs_ = std::move(inputs);
  for (const Tensor& t : r->inputs_) r->input_ptrs_.push_back(&t);
  r->outputs_.resize(r->kernel_->num_outputs());
  return r;
}

Status KernelRunner::Run() {
  for (Tensor& t : outputs_) t = Tensor();
  OpKernelContext::Params params;
  params.device = device_.get();
  params.kernel = kernel_.get();
  params.inputs = input_ptrs_;
  params.outputs = absl::MakeSpan(outputs_);
  OpKernelContext ctx(&params);
  if (arena_ != nullptr) {
    arena_->execute([&] { kernel_->Compute(&ctx); });
  } else {
    kernel_->Compute(&ctx);
  }
  return ctx.status();
}

ReferenceArena::ReferenceArena(int threads) {
  if (threads > 0) {
    arena_ = std::make_unique<tbb::task_arena>(threads);
    arena_->initialize();
  }
}

ReferenceArena::~ReferenceArena() = default;

void ReferenceArena::ParallelFor(
    int64_t n, int64_t grain,
    const std::function<void(int64_t, int64_t)>& body) {
  if (arena_ == nullptr || arena_->max_concurrency() <= 1 || n <= grain) {
    body(0, n);
    return;
  }
  arena_->execute([&] {
    tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                      [&body](const tbb::blocked_range<int64_t>& r) {
                        body(r.begin(), r.end());
                      });
  });
}

Tensor RandomFloatTensor(const TensorShape& shape, uint64_t seed) {
  Tensor t(DT_FLOAT, shape);
  float* p = t.data<float>();
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    // The top 24 bits as a fraction of 2^24, mapped to [-1, 1).
    p[i] = static_cast<float>(s >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
  return t;
}

Tensor Int32Vector(const std::vector<int32_t>& values) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<int32_t>()[i] = values[i];
  return t;
}

void SkipWithStatus(benchmark::State& state, const Status& status) {
  std::string message(status.message());
  if (absl::IsNotFound(status)) message = "no kernel yet: " + message;
  state.SkipWithError(message.c_str());
}

bool TimeRuns(benchmark::State& state,
              StatusOr<std::unique_ptr<KernelRunner>> runner) {
  if (!runner.ok()) {
    SkipWithStatus(state, runner.status());
    return false;
  }
  if (Status s = (*runner)->Run(); !s.ok()) {
    SkipWithStatus(state, s);
    return false;
  }
  for (auto _ : state) {
    if (Status s = (*runner)->Run(); !s.ok()) {
      SkipWithStatus(state, s);
      return false;
    }
  }
  return true;
}

void SetGflops(benchmark::State& state, double flops_per_iteration) {
  state.counters[kGflops] =
      benchmark::Counter(flops_per_iteration * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void SetGBps(benchmark::State& state, double bytes_per_iteration) {
  state.counters[kGBps] =
      benchmark::Counter(bytes_per_iteration * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<ReferencePair>& ReferencePairs() {
  static auto* pairs = new std::vector<ReferencePair>;
  return *pairs;
}

benchmark::internal::Benchmark* Register(
    const std::string& name, std::function<void(benchmark::State&)> fn,
    benchmark::TimeUnit unit) {
  return benchmark::RegisterBenchmark(
             name.c_str(),
             [fn = std::move(fn)](benchmark::State& state) { fn(state); })
      ->UseRealTime()
      ->Unit(unit);
}

namespace {

struct QueuedBenchmark {
  std::string name;
  std::function<void(benchmark::State&)> fn;
  benchmark::TimeUnit unit;
};

std::vector<QueuedBenchmark>& BlasQueue() {
  static auto* queue = new std::vector<QueuedBenchmark>;
  return *queue;
}

}  // namespace

void QueueBlasReference(const std::string& name,
                        std::function<void(benchmark::State&)> fn,
                        benchmark::TimeUnit unit) {
  BlasQueue().push_back({name, std::move(fn), unit});
}

void RegisterQueuedBlasReferences() {
  for (QueuedBenchmark& q : BlasQueue()) {
    Register(q.name, std::move(q.fn), q.unit);
  }
  BlasQueue().clear();
}

}  // namespace weft::bench
