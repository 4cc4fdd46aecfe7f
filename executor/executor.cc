#include "executor/executor.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <new>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "core/tsan_annotations.h"
#include "device/cpu_spin_team.h"
#include "executor/control_flow.h"
#include "executor/device_graph.h"
#include "kernels/op_kernel.h"
#include "oneapi/tbb/task_arena.h"
#include "oneapi/tbb/task_group.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

// Ready nodes found while finishing one node. Small: most nodes make at most
// a few successors ready.
using ReadyList = absl::InlinedVector<int, 8>;

// How a thread draining ready nodes hands expensive ones to other threads:
// not at all (no arena, or the calling thread serving device callbacks), as
// tasks of the run's spin team or, without one, of its task group (inside
// RunInArena), or enqueued into the arena (work a device callback made ready,
// which may come after the group has been waited for; WaitForAsync waits for it
// instead).
enum class Spawn { kNone, kGroup, kEnqueue };

// The arena whose nodes this thread is running (null outside any run), so
// that a run started from inside a kernel (a loop's body, a branch) knows
// it already holds a thread of that arena.
thread_local tbb::task_arena* t_running_arena = nullptr;

// Marks this thread as running nodes of `arena` for a scope (nested runs
// restore the outer value).
class RunningInArena {
 public:
  explicit RunningInArena(tbb::task_arena* arena) : saved_(t_running_arena) {
    t_running_arena = arena;
  }
  ~RunningInArena() { t_running_arena = saved_; }
  RunningInArena(const RunningInArena&) = delete;
  RunningInArena& operator=(const RunningInArena&) = delete;

 private:
  tbb::task_arena* const saved_;
};

// A run's per-slot or per-node array: inside the RunState up to N elements,
// so that the sub-runs of a small loop body allocate nothing, on the heap
// beyond. Only the n elements in use are constructed (default-initialized)
// and destroyed, so that N can cover a loop step (an LSTM cell's step has
// about 25 input slots) without every small run paying for N.
template <typename T, size_t N>
class RunArray {
 public:
  explicit RunArray(size_t n)
      : n_(n),
        heap_(n > N ? new T[n] : nullptr),
        data_(n > N ? heap_.get() : reinterpret_cast<T*>(local_)) {
    if (n <= N) {
      for (size_t i = 0; i < n; ++i) new (data_ + i) T;
    }
  }
  ~RunArray() {
    if (n_ <= N) {
      for (size_t i = 0; i < n_; ++i) data_[i].~T();
    }
  }
  RunArray(const RunArray&) = delete;
  RunArray& operator=(const RunArray&) = delete;

  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* data() const { return data_; }

 private:
  const size_t n_;
  alignas(T) unsigned char local_[N * sizeof(T)];
  std::unique_ptr<T[]> heap_;
  T* const data_;
};

class RunState {
 public:
  RunState(const Plan& plan, tbb::task_arena* arena, const RunOptions& options,
           std::vector<Tensor>* outputs, bool trace)
      : plan_(plan),
        arena_(arena),
        options_(options),
        outputs_(outputs),
        slots_(plan.num_input_slots()),
        inputs_(plan.num_input_slots()),
        pending_(plan.nodes().size()),
        has_deadline_(options.deadline != Clock::time_point::max()) {
    for (size_t i = 0; i < plan.nodes().size(); ++i) {
      pending_[i].store(plan.nodes()[i].initial_pending,
                        std::memory_order_relaxed);
    }
    if (trace) {
      traces_.resize(plan.nodes().size());
      start_ = Clock::now();
    }
  }

  // The spin team that serves this run in its arena (RunInArena).
  void SetTeam(CpuSpinTeam* team) { team_ = team; }

  // Recording mode (RecordPlan): copy steps hand over tensors instead of
  // copying; `inputs` is indexed by plan node.
  void SetRecording(const std::vector<Tensor>* inputs) {
    recording_inputs_ = inputs;
  }

  // Points every input slot at its tensor: the slot itself, or a preset
  // read in place (the session's constant, or the caller's feed, so `feeds`
  // must outlive the run); fetches of presets get their tensors now.
  // `taken` (null unless the run takes its feeds; then &feeds): a feed
  // with a sole slot (Plan::feed_sole_slot) moves into that slot instead,
  // forwardable as a computed tensor is.
  void Preset(const std::vector<Tensor>& feeds, std::vector<Tensor>* taken) {
    if (taken != nullptr) forwardable_ = plan_.slot_forwardable_taking_feeds();
    const std::vector<int>& slot_preset = plan_.slot_preset();
    for (size_t slot = 0; slot < slot_preset.size(); ++slot) {
      const int p = slot_preset[slot];
      if (p < 0) {
        inputs_[slot] = &slots_[slot];
        continue;
      }
      const PresetTensor& preset = plan_.presets()[p];
      if (taken != nullptr && preset.feed_index >= 0 &&
          plan_.feed_sole_slot()[preset.feed_index] == static_cast<int>(slot)) {
        slots_[slot] = std::move((*taken)[preset.feed_index]);
        inputs_[slot] = &slots_[slot];
        continue;
      }
      inputs_[slot] =
          preset.value != nullptr ? preset.value : &feeds[preset.feed_index];
    }
    for (const PresetTensor& p : plan_.presets()) {
      if (p.fetches.empty()) continue;
      const Tensor& t = p.value ? *p.value : feeds[p.feed_index];
      for (int f : p.fetches) (*outputs_)[f] = t;
    }
  }

  // Runs the ready nodes on this thread until none is left, without oneTBB.
  void RunInline() {
    ReadyList ready(plan_.initial_ready().rbegin(),
                    plan_.initial_ready().rend());
    Drain(&ready, Spawn::kNone);
    WaitForAsync();
  }

  // Runs inside the arena; the calling thread works too, starting with the
  // cheap initially ready nodes and one expensive one, while the other
  // expensive ones go to other threads (as Drain does). Every functor
  // handed to oneTBB is wrapped in tsan::HandOff and every wait followed by
  // tsan::Acquire, so that ThreadSanitizer sees the hand-offs that happen
  // inside libtbb (core/tsan_annotations.h; nothing outside TSan builds).
  //
  // With a spin team (see ExecutePlan) the run's spawned nodes go to its
  // helpers, and the calling thread runs what is left (Finish).
  void RunInArena(CpuSpinTeam::Entering* entering) {
    arena_->execute(tsan::HandOff(this, [this, entering] {
      entering->Entered();
      tbb::task_group group;
      group_ = &group;
      {
        RunningInArena running(arena_);
        CpuSpinTeam::Scope scope(team_);
        ReadyList ready(plan_.initial_ready().rbegin(),
                        plan_.initial_ready().rend());
        Distribute(&ready, Spawn::kGroup);
        Drain(&ready, Spawn::kGroup);
        if (team_ != nullptr) team_->Finish(&team_pending_);
      }
      tsan::EnteringWait();
      group.wait();
      tsan::Acquire(this);
      group_ = nullptr;
    }));
    tsan::Acquire(this);
    WaitForAsync();
  }

  Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

  void CollectTraces(RunMetadata* metadata) {
    metadata->node_traces.clear();
    metadata->run_start_unix_us =
        std::chrono::duration_cast<std::chrono::microseconds>(
            std::chrono::system_clock::now().time_since_epoch())
            .count() -
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() -
                                                              start_)
            .count();
    for (NodeTrace& t : traces_) {
      if (t.node != nullptr) metadata->node_traces.push_back(std::move(t));
    }
  }

 private:
  // A node pushed to the spin team runs as a spawned one does.
  static void RunTeamTask(void* state, int id) {
    static_cast<RunState*>(state)->ProcessFrom(id, Spawn::kGroup);
  }

  // A task's body: runs `id` and then what it makes ready (Drain).
  void ProcessFrom(int id, Spawn spawn) {
    RunningInArena running(arena_);
    ReadyList ready;
    ready.push_back(id);
    Drain(&ready, spawn);
  }

  // The one loop that runs nodes: pops a ready node, processes it, and
  // (unless `spawn` is kNone) keeps the cheap successors and one expensive
  // one for this thread while the other expensive ones go to other threads.
  void Drain(ReadyList* ready, Spawn spawn) {
    while (!ready->empty()) {
      const int id = ready->back();
      ready->pop_back();
      Process(id, ready);
      if (spawn != Spawn::kNone) Distribute(ready, spawn);
    }
  }

  // Runs `id` and what it makes ready on another thread of the arena.
  void SpawnOne(int id, Spawn spawn) {
    if (spawn == Spawn::kGroup) {
      if (team_ != nullptr) {
        team_->Push(&RunState::RunTeamTask, this, id, &team_pending_);
        return;
      }
      group_->run(
          tsan::HandOff(this, [this, id] { ProcessFrom(id, Spawn::kGroup); }));
      return;
    }
    async_outstanding_.fetch_add(1, std::memory_order_relaxed);
    arena_->enqueue(tsan::HandOff(this, [this, id] {
      ProcessFrom(id, Spawn::kEnqueue);
      AsyncDone();
    }));
  }

  // Keeps on `ready` the cheap nodes and at most one expensive node (run
  // last, on this thread); spawns the rest.
  void Distribute(ReadyList* ready, Spawn spawn) {
    if (ready->size() <= 1) return;
    int kept_expensive = -1;
    size_t out = 0;
    for (size_t i = 0; i < ready->size(); ++i) {
      int id = (*ready)[i];
      if (!plan_.nodes()[id].expensive) {
        (*ready)[out++] = id;
      } else if (kept_expensive < 0) {
        kept_expensive = id;
      } else {
        SpawnOne(id, spawn);
      }
    }
    ready->resize(out);
    // The stack pops from the back: cheap nodes first, the kept expensive
    // node after them.
    if (kept_expensive >= 0) ready->insert(ready->begin(), kept_expensive);
  }

  bool ShouldStop() {
    if (aborted_.load(std::memory_order_relaxed)) return true;
    if (options_.cancellation != nullptr &&
        options_.cancellation->IsCancelled()) {
      Fail(absl::CancelledError("run cancelled"));
      return true;
    }
    if (has_deadline_ && Clock::now() >= options_.deadline) {
      Fail(absl::DeadlineExceededError("run deadline exceeded"));
      return true;
    }
    return false;
  }

  void Fail(const Status& s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = s;
    aborted_.store(true, std::memory_order_relaxed);
  }

  // The tensors `pn` reads, in input order (see Preset).
  absl::Span<const Tensor* const> NodeInputs(const PlanNode& pn) const {
    return absl::MakeConstSpan(inputs_.data() + pn.input_base, pn.num_inputs);
  }

  void Process(int id, ReadyList* ready) {
    if (ShouldStop()) return;
    const PlanNode& pn = plan_.nodes()[id];
    if (pn.step != PlanStep::kKernel) {
      if (pn.step == PlanStep::kControlFlow) {
        RunControlFlow(id, ready);
      } else {
        RunCopy(id, ready);
      }
      return;
    }
    absl::InlinedVector<Tensor, 4> outs(pn.num_outputs);

    OpKernelContext::Params params;
    params.device = pn.device;
    params.device_context = pn.device->device_context();
    params.kernel = pn.kernel;
    params.inputs = NodeInputs(pn);
    // Every input a producer wrote may be forwarded (the kernel also checks
    // that nobody else holds the buffer), and feeds the run took; other
    // presets never are.
    params.forwardable_inputs =
        forwardable_.subspan(pn.input_base, pn.num_inputs);
    params.outputs = absl::MakeSpan(outs);

    if (pn.is_async) {
      RunAsync(id, &params, std::move(outs));
      return;
    }
    Clock::time_point t0;
    if (!traces_.empty()) t0 = Clock::now();
    OpKernelContext ctx(&params);
    pn.kernel->Compute(&ctx);
    if (!traces_.empty()) Record(id, t0);
    if (!ctx.status().ok()) {
      Fail(ctx.status());
      return;
    }
    Finish(id, absl::MakeSpan(outs), ready);
  }

  // If, Case and While: their kernel runs sub-plans with this run's options
  // (cancellation, deadline).
  void RunControlFlow(int id, ReadyList* ready) {
    const PlanNode& pn = plan_.nodes()[id];
    absl::InlinedVector<Tensor, 4> outs(pn.num_outputs);
    Clock::time_point t0;
    if (!traces_.empty()) t0 = Clock::now();
    Status s = static_cast<const ControlFlowKernel*>(pn.kernel)->Run(
        NodeInputs(pn), absl::MakeSpan(outs), options_);
    if (!traces_.empty()) Record(id, t0);
    if (!s.ok()) {
      Fail(s);
      return;
    }
    Finish(id, absl::MakeSpan(outs), ready);
  }

  // Moves outputs to their consumers and fetches, frees this node's inputs,
  // and appends the successors that became ready.
  void Finish(int id, absl::Span<Tensor> outs, ReadyList* ready) {
    const PlanNode& pn = plan_.nodes()[id];
    for (int i = 0; i < pn.num_inputs; ++i) {
      Tensor& in = slots_[pn.input_base + i];
      if (!in.IsInitialized()) continue;
      // An input forwarded (or passed through, as Identity does) shares its
      // buffer with an output, and this thread holds both references.
      const Tensor* keeper = nullptr;
      for (const Tensor& out : outs) {
        if (out.SharesBufferWith(in)) keeper = &out;
      }
      if (keeper != nullptr) {
        in.ReleaseSharedWith(*keeper);
      } else {
        in = Tensor();
      }
    }
    for (int o = 0; o < pn.num_outputs; ++o) {
      int begin = plan_.out_begin()[pn.out_base + o];
      int end = plan_.out_begin()[pn.out_base + o + 1];
      if (begin == end) continue;
      if (!outs[o].IsInitialized()) {
        Fail(errors::Internal("node ", pn.node->DebugName(),
                              " did not set output ", o));
        return;
      }
      for (int e = begin; e < end; ++e) {
        const PlanEdge& edge = plan_.edges()[e];
        Tensor* dst = edge.dst_node >= 0 ? &slots_[edge.dst_slot]
                                         : &(*outputs_)[edge.dst_slot];
        if (e + 1 == end) {
          *dst = std::move(outs[o]);
        } else {
          *dst = outs[o];
        }
      }
    }
    // Release successors only after every slot is written, so a successor
    // never sees a half-filled input list.
    for (int o = 0; o < pn.num_outputs; ++o) {
      for (int e = plan_.out_begin()[pn.out_base + o],
               end = plan_.out_begin()[pn.out_base + o + 1];
           e < end; ++e) {
        int dst = plan_.edges()[e].dst_node;
        if (dst >= 0 && Decrement(dst)) ready->push_back(dst);
      }
    }
    for (int c = pn.ctrl_begin; c < pn.ctrl_end; ++c) {
      int dst = plan_.control_edges()[c];
      if (Decrement(dst)) ready->push_back(dst);
    }
  }

  // Whether `node`'s last producer has finished. A node with one producer
  // is released by it alone: no atomic operation (a locked instruction
  // costs a full fence) and nothing to synchronize with.
  bool Decrement(int node) {
    if (plan_.nodes()[node].initial_pending == 1) return true;
    return pending_[node].fetch_sub(1, std::memory_order_acq_rel) == 1;
  }

  void Record(int id, Clock::time_point t0) {
    Clock::time_point t1 = Clock::now();
    NodeTrace& t = traces_[id];
    t.node_id = plan_.nodes()[id].node->id();
    t.node = plan_.nodes()[id].node;
    t.device = plan_.nodes()[id].device->name();
    static thread_local const uint64_t tid =
        static_cast<uint64_t>(::syscall(SYS_gettid));
    t.thread = tid;
    t.start_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - start_)
            .count();
    t.duration_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
  }

  // An async kernel returns at once and calls `done` when its device has
  // finished; the successors are then scheduled from that callback.
  struct AsyncCall {
    OpKernelContext::Params params;
    absl::InlinedVector<const Tensor*, 4> inputs;
    absl::InlinedVector<bool, 4> forwardable;
    absl::InlinedVector<Tensor, 4> outs;
    std::unique_ptr<OpKernelContext> ctx;
    Clock::time_point t0;
  };

  void RunAsync(int id, const OpKernelContext::Params* params,
                absl::InlinedVector<Tensor, 4> outs) {
    auto call = std::make_shared<AsyncCall>();
    call->inputs.assign(params->inputs.begin(), params->inputs.end());
    call->forwardable.assign(params->forwardable_inputs.begin(),
                             params->forwardable_inputs.end());
    call->outs = std::move(outs);
    call->params = *params;
    call->params.inputs = absl::MakeConstSpan(call->inputs);
    call->params.forwardable_inputs = absl::MakeConstSpan(call->forwardable);
    call->params.outputs = absl::MakeSpan(call->outs);
    call->ctx = std::make_unique<OpKernelContext>(&call->params);
    if (!traces_.empty()) call->t0 = Clock::now();
    async_outstanding_.fetch_add(1, std::memory_order_relaxed);
    const PlanNode& pn = plan_.nodes()[id];
    pn.kernel->AsAsync()->ComputeAsync(call->ctx.get(), [this, id, call] {
      if (!traces_.empty()) Record(id, call->t0);
      if (!call->ctx->status().ok()) {
        Fail(call->ctx->status());
      } else {
        ReadyList ready;
        Finish(id, absl::MakeSpan(call->outs), &ready);
        ScheduleFromCallback(ready);
      }
      AsyncDone();
    });
  }

  // One callback or task the run waited for has ended. The count drops
  // under async_mu_, where WaitForAsync reads it: otherwise the run could
  // see zero, return and destroy async_mu_ and async_cv_ (this RunState)
  // while this thread is still about to notify through them.
  void AsyncDone() {
    std::lock_guard<std::mutex> lock(async_mu_);
    if (async_outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      async_cv_.notify_all();
    }
  }

  // A copy step (executor/plan.h) through its device's context. To a
  // device: the consumers, device kernels that enqueue behind the copy, are
  // released at once (DeviceContext's ordering), and the copy's outcome
  // only fails the run. To the host: the consumers and fetches wait for the
  // copy to complete, since they read it on the host.
  void RunCopy(int id, ReadyList* ready) {
    const PlanNode& pn = plan_.nodes()[id];
    const bool to_host = pn.step == PlanStep::kCopyToHost;
    const Tensor& src = *inputs_[pn.input_base];
    if (recording_inputs_ != nullptr) {
      // The device tensor itself goes to the fetch; an upload's consumers
      // read the buffer the replay uploads the feed into.
      Tensor handed = to_host ? src : (*recording_inputs_)[id];
      Finish(id, absl::MakeSpan(&handed, 1), ready);
      return;
    }
    StatusOr<Tensor> dst = Tensor::Allocate(
        to_host ? plan_.host_allocator() : pn.device->allocator(), src.dtype(),
        src.shape());
    if (!dst.ok()) {
      Fail(AddContext(dst.status(), CopyLabel(pn)));
      return;
    }
    // Owns the destination until the copy is done (a host destination's
    // buffer must outlive it).
    auto out = std::make_shared<Tensor>(std::move(*dst));
    DeviceContext* context = pn.device->device_context();
    async_outstanding_.fetch_add(1, std::memory_order_relaxed);
    if (!to_host) {
      Tensor consumed = *out;
      context->CopyHostToDevice(src, out.get(), [this, id, out](Status s) {
        if (!s.ok()) Fail(AddContext(s, CopyLabel(plan_.nodes()[id])));
        AsyncDone();
      });
      Finish(id, absl::MakeSpan(&consumed, 1), ready);
      return;
    }
    context->CopyDeviceToHost(src, out.get(), [this, id, out](Status s) {
      if (!s.ok()) {
        Fail(AddContext(s, CopyLabel(plan_.nodes()[id])));
      } else {
        ReadyList now_ready;
        Finish(id, absl::MakeSpan(out.get(), 1), &now_ready);
        ScheduleFromCallback(now_ready);
      }
      AsyncDone();
    });
  }

  static std::string CopyLabel(const PlanNode& pn) {
    return absl::StrCat("copying output ", pn.copy_output, " of node ",
                        pn.node->DebugName(),
                        pn.step == PlanStep::kCopyToHost ? " from " : " to ",
                        pn.device->name());
  }

 public:
  // Waits until the streams of the plan's async devices have finished what
  // this run enqueued, so that no work of it is left when Run returns. An
  // asynchronous device error (a kernel that faulted after its node
  // finished on the host) fails the run here, naming the device: outputs
  // computed on it cannot be trusted.
  void SyncDevices() {
    if (plan_.async_devices().empty()) return;
    for (Device* d : plan_.async_devices()) {
      async_outstanding_.fetch_add(1, std::memory_order_relaxed);
      d->device_context()->ThenExecute([this, d](Status s) {
        if (!s.ok()) {
          Fail(AddContext(s, absl::StrCat("device ", d->name(),
                                          ", after this run's work")));
        }
        AsyncDone();
      });
    }
    WaitForAsync();
  }

 private:
  // Successors made ready by a device callback (a foreign thread): into the
  // arena when there is one, else queued for the calling thread.
  void ScheduleFromCallback(const ReadyList& ready) {
    if (ready.empty()) return;
    if (arena_ != nullptr) {
      for (int id : ready) SpawnOne(id, Spawn::kEnqueue);
      return;
    }
    std::lock_guard<std::mutex> lock(async_mu_);
    for (int id : ready) handoff_.push_back(id);
    async_cv_.notify_all();
  }

  // Waits for device callbacks; with no arena, runs what they made ready on
  // this (the calling) thread.
  void WaitForAsync() {
    std::unique_lock<std::mutex> lock(async_mu_);
    while (true) {
      if (!handoff_.empty()) {
        ReadyList ready(handoff_.begin(), handoff_.end());
        handoff_.clear();
        lock.unlock();
        Drain(&ready, Spawn::kNone);
        lock.lock();
        continue;
      }
      if (async_outstanding_.load(std::memory_order_acquire) == 0) break;
      async_cv_.wait(lock);
    }
  }

  const Plan& plan_;
  tbb::task_arena* const arena_;
  const RunOptions& options_;
  std::vector<Tensor>* const outputs_;
  RunArray<Tensor, 32> slots_;
  // Per input slot, the tensor kernels read (Preset).
  RunArray<const Tensor*, 32> inputs_;
  RunArray<std::atomic<int>, 32> pending_;
  // Per input slot, whether its kernel may forward it (see Preset).
  absl::Span<const bool> forwardable_ = plan_.slot_forwardable();
  const bool has_deadline_;
  tbb::task_group* group_ = nullptr;
  // The spin team serving the run (null without one) and the run's nodes
  // pushed to it and not yet finished.
  CpuSpinTeam* team_ = nullptr;
  std::atomic<int> team_pending_{0};

  // std::mutex rather than absl::Mutex: ThreadSanitizer sees pthread
  // mutexes, so the executor's own synchronization stays checkable.
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  Status status_;

  std::vector<NodeTrace> traces_;
  Clock::time_point start_;

  const std::vector<Tensor>* recording_inputs_ = nullptr;
  std::atomic<int> async_outstanding_{0};
  std::mutex async_mu_;
  std::condition_variable async_cv_;
  std::vector<int> handoff_;
};

}  // namespace

Status RecordPlan(const Plan& plan, const std::vector<Tensor>& feeds,
                  const std::vector<Tensor>& device_inputs,
                  std::vector<Tensor>* outputs) {
  outputs->assign(plan.num_fetches(), Tensor());
  const RunOptions options;  // RunState keeps a reference
  RunState state(plan, /*arena=*/nullptr, options, outputs, /*trace=*/false);
  state.SetRecording(&device_inputs);
  state.Preset(feeds, nullptr);
  state.RunInline();
  Status s = state.status();
  if (!s.ok()) outputs->clear();
  return s;
}

namespace {

// ExecutePlan and ExecutePlanTakingFeeds: `taken` is null, or &feeds.
Status Execute(const Plan& plan, tbb::task_arena* arena, CpuSpinTeam* team,
               const std::vector<Tensor>& feeds, std::vector<Tensor>* taken,
               std::vector<Tensor>* outputs, const RunOptions& options,
               RunMetadata* metadata) {
  if (plan.device_graph() != nullptr && !options.trace) {
    bool replayed = false;
    Status s =
        plan.device_graph()->Run(plan, feeds, outputs, options, &replayed);
    if (replayed) return s;
  }
  outputs->assign(plan.num_fetches(), Tensor());
  const bool trace = options.trace && metadata != nullptr;
  // A run started from a kernel of a run in the same arena (a loop's body
  // or cond, a branch) already holds one of the arena's threads: it runs
  // inline, without entering the arena, a task group or spawned tasks. Its
  // kernels still split their work through the outer run's spin team
  // (CpuDevice::ParallelFor); what it gives up is running independent
  // nodes of the body side by side, which for the small nodes of loop
  // bodies cost more in hand-offs than it gained: an LSTM(128) at batch 1
  // ran 1.4x slower on two threads than on one, each iteration's body and
  // cond handing nodes to the other thread and spinning until they came
  // back (bench/RESULTS.md section 51).
  const bool run_inline = arena == nullptr || arena == t_running_arena;
  RunState state(plan, run_inline ? nullptr : arena, options, outputs, trace);
  state.Preset(feeds, taken);
  if (run_inline) {
    state.RunInline();
  } else {
    // A run started on a thread that serves a spin team of this arena
    // outside that team's run's nodes (which run theirs inline, above) is
    // served by that team.
    CpuSpinTeam* outer = CpuSpinTeam::Current();
    const bool nested = outer != nullptr && outer->arena() == arena;
    state.SetTeam(nested ? outer : team);
    CpuSpinTeam::Entering entering(nested ? nullptr : team);
    state.RunInArena(&entering);
  }
  state.SyncDevices();
  Status s = state.status();
  if (trace) state.CollectTraces(metadata);
  if (!s.ok()) outputs->clear();
  return s;
}

}  // namespace

Status ExecutePlan(const Plan& plan, tbb::task_arena* arena, CpuSpinTeam* team,
                   const std::vector<Tensor>& feeds,
                   std::vector<Tensor>* outputs, const RunOptions& options,
                   RunMetadata* metadata) {
  return Execute(plan, arena, team, feeds, nullptr, outputs, options, metadata);
}

Status ExecutePlanTakingFeeds(const Plan& plan, tbb::task_arena* arena,
                              CpuSpinTeam* team, std::vector<Tensor>* feeds,
                              std::vector<Tensor>* outputs,
                              const RunOptions& options,
                              RunMetadata* metadata) {
  return Execute(plan, arena, team, *feeds, feeds, outputs, options, metadata);
}

}  // namespace weft
