// Session: runs a Graph. Everything that can be done once is done when the
// session is created or a callable is prepared: pruning to what the fetches
// need, placement, kernel selection and construction, Const evaluation, and an
// execution plan of flat arrays (successors, pending counts, input slots).
// Run() only moves tensors and calls kernels.
//
//   auto session = Session::Create(graph, options);
//   auto outputs = (*session)->Run({{"x", x}}, {"probs"});
//
// For the lowest per-call overhead, prepare a Callable once and run it with
// positional feeds; Run(feeds by name, ...) looks its callable up in a cache.
//
// Run is const and safe to call from many threads at once on one session;
// each call has its own state.
#ifndef WEFT_EXECUTOR_SESSION_H_
#define WEFT_EXECUTOR_SESSION_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph.h"

// oneTBB's task_arena, declared as oneTBB does so this header stays light.
namespace tbb {
namespace detail {
namespace d1 {
class task_arena;
}  // namespace d1
}  // namespace detail
inline namespace v1 {
using detail::d1::task_arena;
}  // namespace v1
}  // namespace tbb

namespace weft {

class Device;
class SessionImpl;
class Plan;

struct SessionOptions {
  // Threads that run kernels, the calling thread included. 0 runs everything
  // on the thread that calls Run and creates no thread; -1 means one per
  // core. Ignored when `arena` is given. With 2 or more, the other threads
  // join a run as it splits work and spin while it lasts, and up to 100 us
  // after, for its next fork-join or the next run (ONNX Runtime's pool
  // spins likewise); they leave at once when another caller waits to enter
  // the arena (device/cpu_spin_team.h).
  int threads = -1;
  // A oneTBB arena owned by the host application, for sharing its threads;
  // it must outlive the session. Inter-op scheduling and intra-op
  // parallelism both use it.
  tbb::task_arena* arena = nullptr;
  // Prefixes errors, usually the graph file's path.
  std::string source_name = "graph";
  // Where nodes run: "cpu", "cuda", "cuda:N" or "auto" (a GPU when one is
  // usable, else the CPU). Create() fails when "cuda[:N]" names no usable
  // GPU, with discovery's reason (executor/device_selection.h). With a GPU,
  // placement is decided once per prepared signature: a node runs on the GPU
  // when a GPU kernel is registered for its op and dtypes, else on the CPU
  // ("cuda" as well as "auto": ops without a GPU kernel still run); a node's
  // own device field naming the CPU keeps it there, one naming a device the
  // session lacks is ignored. Copies between host and GPU memory are
  // inserted where needed, once per tensor and destination; constants read
  // on the GPU are uploaded once; fetches are copied back before Run
  // returns. Fusion applies to CPU nodes only.
  std::string device = "cpu";
  // Optimize each prepared signature's graph once, when it is prepared
  // (executor/graph_optimizer.h): constant subgraphs are folded into
  // constants, and float32 Conv2D / DepthwiseConv2dNative / MatMul nodes
  // absorb the bias, batch-norm and activation nodes after them. Fetched and
  // fed tensors keep their values; traces name a fused node after the nodes
  // it replaces ("conv/Conv2D+BiasAdd+Relu"). false runs the graph's nodes
  // as they are.
  bool optimize = true;
  // When non-empty, Create() prepares the callable for these fetches (and
  // targets) at once, so that missing kernels and unfed placeholders are
  // reported by Create(). The session keeps it: Prepare, and Run by name,
  // with the same feeds, fetches and targets get it without optimizing the
  // graph or packing weights a second time.
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::vector<std::string> feeds;
  // Host tensors come from a caching allocator of the session's own, which
  // keeps freed buffers for the next run instead of returning their pages
  // (see device/bfc_allocator.h); false allocates each buffer from the
  // process-wide plain allocator. Cached memory goes back when the session is
  // destroyed; fetched tensors stay valid after that, holding only their own
  // region until they are released.
  bool cache_host_memory = true;
  // With cache_host_memory, the most host memory in bytes the session's
  // allocator holds, cached or in use; 0 for no limit. A node whose output
  // would pass it fails with ResourceExhausted.
  int64_t host_memory_limit_bytes = 0;

  // CUDA sessions only; Create() fails with InvalidArgument when one is set
  // and the session runs on the CPU.
  //
  // A cudaStream_t of the host application's: the session runs its GPU
  // kernels on it instead of a stream of its own (its copies still use
  // weft's copy streams, ordered with it by events). The contract:
  //  - a Run's GPU work starts after the work the host enqueued on the
  //    stream before calling Run;
  //  - Run returns once that work has completed (fetches are host tensors),
  //    so what the host enqueues afterwards runs after it;
  //  - concurrent Runs of the session share the stream, so their GPU work
  //    is serialized on it;
  //  - the stream must belong to the session's GPU (Create checks) and stay
  //    valid until the session is destroyed; weft never destroys it, and
  //    destroying the session waits for it.
  void* cuda_stream = nullptr;
  // float32 MatMul / BatchMatMul may use TF32 tensor cores: faster on
  // Ampere and later GPUs, with inputs rounded to a 10-bit mantissa (about
  // 1e-3 relative error instead of float32's 1e-7). Off by default, so that
  // GPU results match the CPU's within float32 tolerance.
  bool allow_tf32 = false;
  // The most GPU memory in bytes the session's tensors may hold; 0 for no
  // limit. A node whose output would pass it fails with ResourceExhausted.
  int64_t device_memory_limit_bytes = 0;
  // Record each prepared signature's device work on its first run (on CUDA,
  // a CUDA Graph) and replay it in later runs: one launch per run instead of
  // one host call per node, for fixed shapes (a run whose feed shapes differ
  // from the recording's records again). Applies where every kernel runs on
  // the accelerator and only feeds and fetches cross to and from the host;
  // elsewhere, and for traced runs, runs go node by node, and
  // Callable::device_graph_status() says why. Runs of one signature are
  // serialized while it is recorded: they share its input buffers.
  bool capture_device_graphs = false;
  // The most iterations one execution of a While loop may run; a loop that
  // would run more fails with ResourceExhausted naming the loop. 0 for no
  // cap (a RunOptions deadline still stops a loop that never ends).
  int64_t max_loop_iterations = 0;
};

// Cancels runs that carry it. Thread-safe; cancelling is sticky.
class CancellationToken {
 public:
  void Cancel() { cancelled_.store(true, std::memory_order_release); }
  bool IsCancelled() const {
    return cancelled_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<bool> cancelled_{false};
};

// One node's execution as recorded by a traced run. Times are nanoseconds
// since the run started.
struct NodeTrace {
  int node_id = -1;
  const Node* node = nullptr;
  std::string device;
  uint64_t thread = 0;
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
};

struct RunMetadata {
  std::vector<NodeTrace> node_traces;
  int64_t run_start_unix_us = 0;
};

struct RunOptions {
  // A run whose token is cancelled stops before its next kernel and returns
  // kCancelled.
  const CancellationToken* cancellation = nullptr;
  // A run still going at this time stops before its next kernel and returns
  // kDeadlineExceeded. The default means no deadline.
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
  // Record per-node timings into RunMetadata.
  bool trace = false;
};

// Writes traced timings as Chrome trace-event JSON (readable in Perfetto and
// chrome://tracing): one complete event per node with its name, op, device
// and thread.
Status WriteChromeTrace(const RunMetadata& metadata, const std::string& path);

// A prepared signature: which tensors are fed (in order), which are fetched
// (in order) and which nodes must run. Made by Session::Prepare.
class Callable {
 public:
  ~Callable();
  const std::vector<std::string>& feeds() const { return feeds_; }
  const std::vector<std::string>& fetches() const { return fetches_; }
  // The dtype and (possibly partial) shape each feed must have.
  DataType feed_dtype(int i) const;
  const PartialTensorShape& feed_shape(int i) const;
  DataType fetch_dtype(int i) const;
  const PartialTensorShape& fetch_shape(int i) const;
  // Kernel nodes a run executes (after optimization), and what the graph
  // optimizer did, e.g. "740 nodes -> 156: 380 folded into constants, 52 fused
  // nodes absorbing 204" (empty when SessionOptions.optimize is false).
  int num_nodes() const;
  std::string optimizer_summary() const;
  // Copies between host and device memory a run performs (0 on the CPU
  // alone), and each kernel node's device as (node name, device name).
  int num_copies() const;
  std::vector<std::pair<std::string, std::string>> placement() const;
  // With SessionOptions.capture_device_graphs: OK when runs replay a
  // recording of the whole run on the accelerator, else why they run node by
  // node ("node 'probs' (Softmax) runs on cpu:0 ..."). FailedPrecondition
  // when the option is off.
  Status device_graph_status() const;

 private:
  friend class Session;
  friend class SessionImpl;
  Callable() = default;
  std::vector<std::string> feeds_;
  std::vector<std::string> fetches_;
  std::unique_ptr<Plan> plan_;
};

class Session {
 public:
  // Takes the graph (after import and shape inference) and prepares the
  // session: devices, kernels for every node the given fetches need, Const
  // values. Errors name the source, node, op, device and dtype.
  static StatusOr<std::unique_ptr<Session>> Create(
      std::shared_ptr<const Graph> graph, const SessionOptions& options);
  ~Session();

  // Tensor names are "node" (output 0) or "node:i"; targets are node names.
  // A feed may name any node output, not only a placeholder: what it feeds
  // replaces what the graph would have computed there. A signature the
  // session has cached (SessionOptions' fetches, Run by name) is handed out
  // as it is; other calls prepare a new callable, which the session does not
  // keep.
  StatusOr<std::shared_ptr<const Callable>> Prepare(
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets = {}) const;

  // Runs `callable` with feeds in its feed order; fills `outputs` in its
  // fetch order. Feed dtypes and shapes are checked against what the graph
  // declares; a mismatch names the feed, the expected and the given.
  Status Run(const Callable& callable, const std::vector<Tensor>& feeds,
             std::vector<Tensor>* outputs, const RunOptions& options = {},
             RunMetadata* metadata = nullptr) const;

  // Run for a caller that gives its feeds up: a feed that one kernel input
  // alone reads moves into the run, and that kernel may write it in place
  // (forward it) when nothing else holds its buffer, as it may a tensor the
  // graph computed. A loop passes its variables from one iteration's run
  // to the next this way, so that TensorListSetItem writes into the list
  // rather than copying it every iteration. `feeds` is left with such
  // tensors moved out.
  Status RunTakingFeeds(const Callable& callable, std::vector<Tensor>* feeds,
                        std::vector<Tensor>* outputs,
                        const RunOptions& options = {},
                        RunMetadata* metadata = nullptr) const;

  // Convenience: prepares (once per distinct signature, cached) and runs.
  StatusOr<std::vector<Tensor>> Run(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets = {},
      const RunOptions& options = {}, RunMetadata* metadata = nullptr) const;

  const Graph& graph() const;
  // The devices the session placed nodes on; the CPU device first.
  std::vector<const Device*> devices() const;
  // Threads that may run kernels (1 when threads = 0: the caller).
  int num_threads() const;

 private:
  Session();
  std::unique_ptr<SessionImpl> impl_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_SESSION_H_
