// CpuSpinTeam: the helper threads of one run, spinning between the run's
// fork-joins and taking the nodes the executor hands out.
//
// Why: a fork-join through oneTBB inside the arena costs 1.7-1.9 us over the
// work (the scheduler reaching the other thread), a thread spinning on a
// shared word 0.6 us; a batch-1 network at 2 threads splits 60+ nodes of
// 5-25 us per run (bench/RESULTS.md sections 29 and 30). A team keeps up to
// `max_helpers` of the arena's other threads in the run while it lasts: each
// helper is a task of the run's task group, so the thread count stays the
// arena's and the run waits for its helpers as for any task.
//
// Contract:
// - One team per run in an arena of 2 or more threads. The executor marks
//   the threads working for the run with a Scope, gives node tasks to Push
//   (never to oneTBB directly while the team lasts: a spinning helper takes
//   no oneTBB task), calls Finish on the run's own thread when its ready
//   nodes are done, and then waits for the helpers (task_group::wait).
// - `start_helper(context)` must run Helper() on another thread of the arena
//   later (task_group::run); `run_task(context, task)` runs a pushed task.
// - Every pushed task runs exactly once, on a helper or in Finish; no helper
//   is needed for progress (Finish runs what helpers did not take).
// - ParallelFor's blocks each run once; it returns when all have finished.
// - Helpers leave after kSpinLimit without work, and at once after Finish.
#ifndef WEFT_DEVICE_CPU_SPIN_TEAM_H_
#define WEFT_DEVICE_CPU_SPIN_TEAM_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

#include <oneapi/tbb/task_arena.h>

#include "absl/container/inlined_vector.h"

namespace weft {

class CpuSpinTeam {
 public:
  using RunTask = void (*)(void* context, int task);
  using StartHelper = void (*)(void* context);

  // How long a helper spins without work before it leaves the run: several
  // small nodes' time, so that a run's serial stretches keep it, and short
  // enough that an idle helper soon hands its thread back to oneTBB. Runs
  // at 2 threads took the same time with 20, 50, 200 and 1000 us
  // (bench/RESULTS.md section 30).
  static constexpr std::chrono::microseconds kSpinLimit{100};

  CpuSpinTeam(const tbb::task_arena* arena, int max_helpers, void* context,
              RunTask run_task, StartHelper start_helper);
  CpuSpinTeam(const CpuSpinTeam&) = delete;
  CpuSpinTeam& operator=(const CpuSpinTeam&) = delete;

  // The arena whose threads the helpers are.
  const tbb::task_arena* arena() const { return arena_; }

  // Runs fn over [0, n) cut into at most max_helpers + 1 blocks of at least
  // `grain` units (n > grain), on this thread and the helpers; false, with
  // nothing run, when a fork-join of this team is already in flight (a
  // nested or concurrent call): the caller splits the work another way.
  bool ParallelFor(int64_t n, int64_t grain,
                   const std::function<void(int64_t, int64_t)>& fn);

  // Queues a task for a helper, starting helpers up to max_helpers.
  void Push(int task);

  // A helper's body (see StartHelper).
  void Helper();

  // Runs queued tasks and fork-join blocks on this thread until no pushed
  // task is queued or running, then tells the helpers to leave.
  void Finish();

  // The team of the run this thread works for, or null.
  static CpuSpinTeam* Current();

  // Makes `team` (null for none) this thread's Current() for a scope.
  class Scope {
   public:
    explicit Scope(CpuSpinTeam* team);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CpuSpinTeam* const saved_;
  };

 private:
  // Starts helpers until max_helpers are in the run (none after Finish).
  void StartHelpers();
  // Runs unclaimed blocks of the posted fork-join; whether it ran any.
  bool RunBlocks();
  bool Pop(int* task);
  // Runs one queued task; whether there was one.
  bool RunQueued();

  const tbb::task_arena* const arena_;
  const int max_helpers_;
  void* const context_;
  const RunTask run_task_;
  const StartHelper start_helper_;

  // Helpers started and not yet left.
  std::atomic<int> alive_{0};
  std::atomic<bool> finishing_{false};

  // The fork-join: `job_` packs a generation (high 32 bits), the number of
  // blocks (16 bits) and the next unclaimed block (low 16 bits), so that a
  // claim is one compare-exchange that fails for a finished job's word.
  // fn_, n_ are written by the job's owner before it publishes `job_`, and
  // not again before every claimed block has finished (done_).
  std::atomic<bool> job_owned_{false};
  std::atomic<uint64_t> job_{0};
  std::atomic<int> done_{0};
  uint32_t generation_ = 0;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;

  // Pushed tasks not yet finished (queued or running), and the queue.
  std::atomic<int> pending_{0};
  std::atomic<int> queued_{0};
  std::mutex queue_mu_;
  absl::InlinedVector<int, 16> queue_;
  size_t queue_head_ = 0;
};

}  // namespace weft

#endif  // WEFT_DEVICE_CPU_SPIN_TEAM_H_
