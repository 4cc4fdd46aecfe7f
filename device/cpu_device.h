// CpuDevice: the host as a device. Kernels run synchronously on the thread
// that calls them; intra-op parallelism (ParallelFor) runs inside the oneTBB
// arena the session owns or the host handed in, so that inter-op scheduling
// and intra-op work share one pool and weft never runs more threads than the
// user allowed. Without an arena everything runs on the calling thread.
#ifndef WEFT_DEVICE_CPU_DEVICE_H_
#define WEFT_DEVICE_CPU_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include "core/allocator.h"
#include "device/device.h"

namespace weft {

// ThreadSanitizer builds only: an observer of `arena` that has TSan ignore
// each worker thread in oneTBB code from when it joins the arena, before
// its first task body (core/tsan_annotations.h), as every CpuDevice has on
// its arena; null in other builds. For code that runs tasks in an arena of
// its own, without a CpuDevice (the spin team's tests). Keep it while the
// arena runs tasks.
std::unique_ptr<tbb::task_scheduler_observer> ObserveWorkersForTsan(
    tbb::task_arena* arena);

class CpuSpinTeam;

class CpuDevice final : public Device {
 public:
  // Total cost (in cost_per_unit's cycles) below which ParallelFor does not
  // split: a few microseconds, well above the cost of spawning a TBB task.
  static constexpr int64_t kMinCostPerBlock = 10000;
  // Total cost from which a fork-join served by the spin team lets a thread
  // done with its block take units from the back of another's
  // (CpuSpinTeam::ParallelFor's `share`; its rule of 4 units a block
  // applies too): about 100 us, so that the extra calls of fn stay a small
  // part of the work. A VM's vCPUs can run at different speeds for seconds
  // (bench/RESULTS.md section 43: 10-20% apart), and an equal split then
  // waits on the slower one.
  static constexpr int64_t kShareMinCost = int64_t{1} << 18;

  // `arena` and `allocator` are not owned and must outlive the device and,
  // for the allocator, every tensor allocated through it. A null `arena`
  // runs all work on the calling thread; a null `allocator` uses
  // DefaultCpuAllocator(), which lives for the whole process.
  CpuDevice(std::string name, tbb::task_arena* arena,
            Allocator* allocator = nullptr);
  ~CpuDevice() override;

  Allocator* allocator() const override { return allocator_; }
  // The arena's concurrency (the calling thread included once it joins);
  // 0 without an arena.
  int num_threads() const override { return num_threads_; }
  void ParallelFor(
      int64_t n, int64_t cost_per_unit,
      const std::function<void(int64_t begin, int64_t end)>& fn) const override;

  tbb::task_arena* arena() const { return arena_; }
  // The helpers that serve runs in the arena (device/cpu_spin_team.h); null
  // without an arena of 2 or more threads.
  CpuSpinTeam* spin_team() const { return spin_team_.get(); }

 private:
  tbb::task_arena* const arena_;
  Allocator* const allocator_;
  const int num_threads_;
  // ThreadSanitizer builds only: has TSan ignore the arena's worker threads
  // in oneTBB code from when they join it (core/tsan_annotations.h). Null
  // otherwise.
  std::unique_ptr<tbb::task_scheduler_observer> tsan_workers_;
  // Declared last, so destroyed first: its helpers leave before the rest
  // of the device goes.
  std::unique_ptr<CpuSpinTeam> spin_team_;
};

}  // namespace weft

#endif  // WEFT_DEVICE_CPU_DEVICE_H_
