// CpuSpinTeam: helper threads of a CPU device's arena that spin between
// the fork-joins of the runs they serve and take the nodes runs hand out.
//
// Why: a fork-join through oneTBB inside the arena costs 1.7-1.9 us over the
// work (the scheduler reaching the other thread), a thread spinning on a
// shared word 0.6 us; a batch-1 network at 2 threads splits 60+ nodes of
// 5-25 us per run (bench/RESULTS.md sections 29 and 30). A helper that
// stays a little after a run also spares the next run waking a thread. The
// helpers are tasks enqueued into the arena, so the thread count stays the
// arena's.
//
// Contract:
// - One team per CpuDevice with an arena of 2 or more threads; it must be
//   destroyed before the arena (its destructor waits for its helpers).
// - The executor marks the threads working for a run with a Scope, gives
//   node tasks to Push (not to oneTBB while a team serves the run: a
//   spinning helper takes no oneTBB task), and calls Finish with the run's
//   pending counter when the run's own thread has nothing left.
// - Every pushed task runs exactly once, on a helper or in a Finish; no
//   helper is needed for progress (Finish runs what helpers did not take),
//   and a task's counter is decremented after its last access to `context`.
// - ParallelFor's units each run once; it returns when all have finished.
// - Helpers leave after kSpinLimit without work, when a caller waits to
//   enter the arena and they have no work, or when the team ends.
#ifndef WEFT_DEVICE_CPU_SPIN_TEAM_H_
#define WEFT_DEVICE_CPU_SPIN_TEAM_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include <oneapi/tbb/task_arena.h>

#include "absl/container/inlined_vector.h"

namespace weft {

class CpuSpinTeam {
 public:
  using RunTask = void (*)(void* context, int task);

  // How long a helper spins without work before it leaves: several small
  // nodes' time, so that a run's serial stretches and the gap to the next
  // run keep it, and short enough that an idle helper soon gives its thread
  // back to oneTBB. Runs at 2 threads took the same time with 20, 50, 200
  // and 1000 us (bench/RESULTS.md section 30).
  static constexpr std::chrono::microseconds kSpinLimit{100};

  // Helpers run in `arena` (not owned), at most its concurrency minus one.
  explicit CpuSpinTeam(tbb::task_arena* arena);
  // Tells the helpers to leave and waits until they have.
  ~CpuSpinTeam();
  CpuSpinTeam(const CpuSpinTeam&) = delete;
  CpuSpinTeam& operator=(const CpuSpinTeam&) = delete;

  const tbb::task_arena* arena() const { return arena_; }
  // Helpers started and not yet left (for tests and tracing).
  int num_helpers() const { return alive_.load(std::memory_order_acquire); }

  // Runs fn over [0, n) cut into at most max_helpers + 1 blocks of at least
  // `grain` units (n > grain), on this thread and the helpers; false, with
  // nothing run, when another fork-join of this team is in flight (a
  // nested or concurrent call): the caller splits the work another way.
  // With `share`, when the blocks hold kMinSharedUnits or more units each
  // (and n <= kMaxSharedUnits), a thread runs its block front first in
  // halves (6 units: 3, 2, 1) and, done with it, takes halves from the
  // back of the fullest other block: units move to a thread that is ahead
  // when the threads do not run at the same speed (a VM's vCPUs), for
  // about log2(units) calls of fn per block instead of one.
  bool ParallelFor(int64_t n, int64_t grain, bool share,
                   const std::function<void(int64_t, int64_t)>& fn);
  // Fewer units a block are left whole: each extra call of fn costs some
  // kernels their locality between consecutive units (a separable
  // convolution's bands in a chain: MobileNetV2 at 2 threads, 4 bands, took
  // 1.17 of the time on the AVX2 path with those shared).
  static constexpr int64_t kMinSharedUnits = 4;
  static constexpr int64_t kMaxSharedUnits = 0xffff;

  // Queues run(context, task) for a helper, counted in `*pending` until it
  // has run; starts helpers up to max_helpers.
  void Push(RunTask run, void* context, int task, std::atomic<int>* pending);

  // Runs queued tasks (any run's) and fork-join blocks on this thread until
  // `*pending` is 0.
  void Finish(const std::atomic<int>* pending);

  // A thread about to enter the arena for a run marks it from before it
  // asks for a slot until it has one: idle helpers leave while any is
  // waiting, so that a spinning helper never keeps a caller out (8 callers
  // of one 2-thread session: without this, runs waited up to 1.4 s).
  class Entering {
   public:
    explicit Entering(CpuSpinTeam* team);
    ~Entering() { Entered(); }
    // Called once the thread runs in the arena (idempotent).
    void Entered();
    Entering(const Entering&) = delete;
    Entering& operator=(const Entering&) = delete;

   private:
    CpuSpinTeam* team_;
  };

  // The team serving the run this thread works for, or null.
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
  struct Task {
    RunTask run;
    void* context;
    int task;
    std::atomic<int>* pending;
  };

  // A helper's body.
  void Helper();
  // Starts helpers until max_helpers are in the arena (none once ending or
  // while a caller waits to enter).
  void StartHelpers();
  // Runs unclaimed blocks of the posted fork-join, then, in a shared one,
  // units taken from the back of other blocks; whether it ran any.
  bool RunBlocks();
  // Takes the front half (rounded up) of block b's units left, or with
  // `back` the back half (at least one), of job `generation`; false when
  // none are left or the job is another.
  bool TakeUnits(int b, uint32_t generation, bool back, int64_t* begin,
                 int64_t* end);
  // Runs fn_ over units [begin, end) of the posted job and counts them done.
  void RunUnits(int64_t begin, int64_t end);
  // Runs one queued task; whether there was one.
  bool RunQueued();

  tbb::task_arena* const arena_;
  const int max_helpers_;

  // Helpers started and not yet left.
  std::atomic<int> alive_{0};
  // Threads waiting to enter the arena: on a line of its own, which every
  // run writes twice and spinning helpers read.
  alignas(64) std::atomic<int> entering_{0};
  std::atomic<bool> ending_{false};

  // The fork-join: `job_` packs a generation (high 32 bits), the number of
  // blocks (16 bits) and the next unclaimed block (low 16 bits), so that a
  // claim is one compare-exchange that fails for a finished job's word.
  // fn_, n_, shared_ are written by the job's owner before it publishes
  // `job_`, and not again before every unit has run (done_ counts them).
  alignas(64) std::atomic<bool> job_owned_{false};
  std::atomic<uint64_t> job_{0};
  std::atomic<int64_t> done_{0};
  uint32_t generation_ = 0;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  bool shared_ = false;
  // A shared job's units left in each block: generation (high 32 bits),
  // first and end unit (16 bits each), so that a take is one
  // compare-exchange that fails for another job's word. A line each.
  struct alignas(64) Units {
    std::atomic<uint64_t> word{0};
  };
  std::unique_ptr<Units[]> units_;

  // Pushed tasks not yet taken (`queued_` changes only under the lock).
  std::atomic<int> queued_{0};
  std::mutex queue_mu_;
  absl::InlinedVector<Task, 16> queue_;
  size_t queue_head_ = 0;
};

}  // namespace weft

#endif  // WEFT_DEVICE_CPU_SPIN_TEAM_H_
