#include "device/cpu_device.h"

#include <algorithm>
#include <utility>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include "core/tsan_annotations.h"
#include "device/cpu_spin_team.h"

namespace weft {
namespace {

#ifdef WEFT_TSAN
// Tells TSan to ignore a worker thread in oneTBB code from the moment it
// joins the arena, before its first task body (see tsan::EnteringTbb).
class TsanWorkerObserver final : public tbb::task_scheduler_observer {
 public:
  explicit TsanWorkerObserver(tbb::task_arena* arena)
      : tbb::task_scheduler_observer(*arena) {
    observe(true);
  }
  ~TsanWorkerObserver() override { observe(false); }
  void on_scheduler_entry(bool is_worker) override {
    if (is_worker) tsan::EnteringTbb();
  }
};
#endif

}  // namespace

std::unique_ptr<tbb::task_scheduler_observer> ObserveWorkersForTsan(
    tbb::task_arena* arena) {
#ifdef WEFT_TSAN
  if (arena != nullptr) return std::make_unique<TsanWorkerObserver>(arena);
#else
  (void)arena;
#endif
  return nullptr;
}

CpuDevice::CpuDevice(std::string name, tbb::task_arena* arena,
                     Allocator* allocator)
    : Device(std::move(name), DEVICE_CPU),
      arena_(arena),
      allocator_(allocator != nullptr ? allocator : DefaultCpuAllocator()),
      num_threads_(arena != nullptr ? arena->max_concurrency() : 0) {
  tsan_workers_ = ObserveWorkersForTsan(arena_);
  if (num_threads_ > 1) spin_team_ = std::make_unique<CpuSpinTeam>(arena_);
}

CpuDevice::~CpuDevice() = default;

void CpuDevice::ParallelFor(
    int64_t n, int64_t cost_per_unit,
    const std::function<void(int64_t begin, int64_t end)>& fn) const {
  if (n <= 0) return;
  const int64_t cost = std::max<int64_t>(cost_per_unit, 1);
  // Units per block so that a block costs at least kMinCostPerBlock; work
  // that fits in one block gains nothing from a task and runs inline.
  const int64_t grain = std::max<int64_t>(1, kMinCostPerBlock / cost);
  if (num_threads_ <= 1 || n <= grain) {
    fn(0, n);
    return;
  }
  // Inside a run served by a spin team of this arena (this device's or,
  // for a nested run, another session's on the same arena), its helpers
  // take the blocks (device/cpu_spin_team.h); a nested or concurrent
  // fork-join goes through oneTBB below.
  CpuSpinTeam* team = CpuSpinTeam::Current();
  if (team != nullptr && team->arena() == arena_ &&
      team->ParallelFor(n, grain, n >= (kShareMinCost + cost - 1) / cost, fn)) {
    return;
  }
  // execute() joins the arena (running directly when this thread already
  // works in it), so the split work only ever runs on the arena's threads.
  // The static partitioner cuts the range once, into one piece per thread
  // (never below `grain`), each spawned with an affinity to its thread; a
  // piece its thread is too busy to take is run by the caller while it
  // waits. The auto partitioner's splitting on demand cost more than it
  // balanced on the small kernels of batch-1 networks (2 threads, new/old:
  // MobileNet 0.95, Keras MobileNetV2 0.96, EfficientNetB0 0.96, ResNet50
  // and InceptionV3 1.00; bench/RESULTS.md section 20).
  // tsan::HandOff and tsan::Acquire tell ThreadSanitizer about the
  // hand-offs inside libtbb (core/tsan_annotations.h; nothing outside TSan
  // builds): the caller's writes reach every block, and every block's
  // writes reach the caller when ParallelFor returns.
  arena_->execute(tsan::HandOff(&fn, [&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, n, grain),
        tsan::HandOff(&fn,
                      [&fn](const tbb::blocked_range<int64_t>& r) {
                        fn(r.begin(), r.end());
                      }),
        tbb::static_partitioner());
    tsan::Acquire(&fn);
  }));
  tsan::Acquire(&fn);
}

}  // namespace weft
