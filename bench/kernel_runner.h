// What the kernel microbenchmarks share: one op's registered CPU kernel run
// outside any session, the way the executor runs it, and the bookkeeping
// that turns a run into a line of the "fraction of reference" summary.
//
//   if (TimeRuns(state, KernelRunner::Create("MatMul", attrs, {a, b},
//                                            /*threads=*/2))) {
//     SetGflops(state, 2.0 * n * n * n);
//   }
//
// The kernel is looked up in the global KernelRegistry and built once; each
// Run is one Compute inside the device's arena with fresh output slots, so an
// output is allocated per run as in a session. Inputs are never forwarded:
// the benchmark keeps them for the next run, as a graph keeps a tensor that
// several nodes read.
//
// The device allocates from a BfcAllocator configured as a session's (see
// SessionOptions::cache_host_memory), so that a run reuses the pages the
// previous run's output had: weft's plain allocator (aligned_alloc) hands out
// fresh pages for every large buffer (glibc maps them anew, or cannot reuse a
// freed aligned chunk of the same size), and a 64M-element op would then time
// 65,536 page faults rather than the kernel. SetUseDefaultAllocator(true)
// measures with the plain default allocator instead.
//
// Kernels are being added op by op; a benchmark whose op has no CPU kernel
// for its dtype yet is skipped with "no kernel yet: <the registry's
// message>" so that the binary always runs to the end.
#ifndef WEFT_BENCH_KERNEL_RUNNER_H_
#define WEFT_BENCH_KERNEL_RUNNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "benchmark/benchmark.h"
#include "core/allocator.h"
#include "core/status.h"
#include "core/tensor.h"
#include "device/bfc_allocator.h"
#include "device/cpu_device.h"
#include "kernels/op_kernel.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"

namespace weft::bench {

// Whether runners created from now on allocate from weft's default
// allocator rather than a caching BfcAllocator of their own (default false).
void SetUseDefaultAllocator(bool use_default);

class KernelRunner {
 public:
  // `attrs` must hold every attr the op has no default for (type attrs
  // included: nothing is inferred). `threads` = 0 runs on the calling thread
  // without an arena; k > 0 gives the device a tbb::task_arena of k threads
  // and runs Compute inside it, as a session with threads = k does.
  // NotFound when the registry has no kernel for the node.
  static StatusOr<std::unique_ptr<KernelRunner>> Create(
      const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
      int threads);
  ~KernelRunner();

  // One Compute; the previous outputs are released first so that their
  // memory can be reused, as the executor releases a consumed tensor.
  Status Run();
  const std::vector<Tensor>& outputs() const { return outputs_; }

 private:
  KernelRunner() = default;

  std::unique_ptr<tbb::task_arena> arena_;
  std::unique_ptr<BfcAllocator> allocator_;
  std::unique_ptr<CpuDevice> device_;
  NodeDef node_;
  std::unique_ptr<OpKernel> kernel_;
  std::vector<Tensor> inputs_;
  std::vector<const Tensor*> input_ptrs_;
  std::vector<Tensor> outputs_;
};

// Runs `body` `threads`-wide the way a kernel would: inside a task_arena of
// `threads` (none for 0), splitting [0, n) with tbb::parallel_for into
// blocks of at least `grain`. For the reference loops.
class ReferenceArena {
 public:
  explicit ReferenceArena(int threads);
  ~ReferenceArena();
  void ParallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)>& body);

 private:
  std::unique_ptr<tbb::task_arena> arena_;
};

// A float32 tensor of `shape` with values uniform in [-1, 1) from a fixed
// seed (xorshift, so every platform gets the same values).
Tensor RandomFloatTensor(const TensorShape& shape, uint64_t seed);
// An int32 vector tensor: axes, permutations.
Tensor Int32Vector(const std::vector<int32_t>& values);

// Skips the benchmark: "no kernel yet: ..." for a missing kernel, the
// status message otherwise.
void SkipWithStatus(benchmark::State& state, const Status& status);

// The timing loop of a kernel benchmark: skips when `runner` is an error;
// otherwise runs once untimed (the first run maps the output's pages and
// warms the caches) and then once per iteration, skipping on a failed run.
// Returns whether the loop ran to the end, so that counters are set only
// then.
bool TimeRuns(benchmark::State& state,
              StatusOr<std::unique_ptr<KernelRunner>> runner);

// The rate counters the summary reads. Both are decimal (1e9) per second of
// real time; register benchmarks with UseRealTime().
void SetGflops(benchmark::State& state, double flops_per_iteration);
void SetGBps(benchmark::State& state, double bytes_per_iteration);

inline constexpr char kGflops[] = "GFLOP/s";
inline constexpr char kGBps[] = "GB/s";

// A weft benchmark and the reference it is judged against in the summary:
// both names are full benchmark names as registered, compared on `counter`.
struct ReferencePair {
  std::string weft;
  std::string reference;
  std::string counter;
};
// Pairs registered so far, in registration order.
std::vector<ReferencePair>& ReferencePairs();

// Registers `fn` as benchmark `name`, timed in real time (kernels run on
// the arena's threads, not only the caller's), and returns it.
benchmark::internal::Benchmark* Register(
    const std::string& name, std::function<void(benchmark::State&)> fn,
    benchmark::TimeUnit unit = benchmark::kMicrosecond);

// Queues an OpenBLAS reference; RegisterQueuedBlasReferences registers the
// queue after everything else. OpenBLAS's worker threads keep spinning for
// a while after each call (its THREAD_TIMEOUT), which would take a core from
// whichever benchmark ran next, so they run last.
void QueueBlasReference(const std::string& name,
                        std::function<void(benchmark::State&)> fn,
                        benchmark::TimeUnit unit = benchmark::kMicrosecond);
void RegisterQueuedBlasReferences();

// The names of the memory-bandwidth references (bandwidth_bench.cc) for `n`
// float32 elements on `threads` threads, registered on first request:
// Copy reads n and writes n, Triad reads 2n and writes n, Read reads n.
std::string CopyReference(int64_t n, int threads);
std::string TriadReference(int64_t n, int threads);
std::string ReadReference(int64_t n, int threads);

// The name of the FMA-peak reference (fma_peak_bench.cc) on the active CPU
// path for `threads` threads, registered on first request: products and
// convolutions are paired with it for their fraction of the machine's peak.
std::string FmaPeakReference(int threads);

// Each family's registration (one per *_bench.cc), called by main.
void RegisterMatMulBenchmarks();
void RegisterConvBenchmarks();
void RegisterCwiseBenchmarks();
void RegisterReduceBenchmarks();

}  // namespace weft::bench

#endif  // WEFT_BENCH_KERNEL_RUNNER_H_
