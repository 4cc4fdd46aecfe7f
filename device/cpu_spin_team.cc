#include "device/cpu_spin_team.h"

#include <algorithm>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "core/tsan_annotations.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

thread_local CpuSpinTeam* t_team = nullptr;

// One step of a spin wait: a pause (the sibling hyperthread runs, the loop
// does not flood the memory system), and every 4096th step a yield, so that
// a thread waiting for one the OS descheduled lets it run.
void SpinStep(uint32_t* steps) {
  if ((++*steps & 4095) == 0) {
    std::this_thread::yield();
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

constexpr uint64_t kBlockMask = 0xffff;

uint64_t JobWord(uint32_t generation, uint64_t blocks, uint64_t next) {
  return (uint64_t{generation} << 32) | (blocks << 16) | next;
}
uint64_t NextBlock(uint64_t word) { return word & kBlockMask; }
uint64_t NumBlocks(uint64_t word) { return (word >> 16) & kBlockMask; }
uint32_t Generation(uint64_t word) { return static_cast<uint32_t>(word >> 32); }

uint64_t UnitsWord(uint32_t generation, int64_t first, int64_t end) {
  return (uint64_t{generation} << 32) | (static_cast<uint64_t>(first) << 16) |
         static_cast<uint64_t>(end);
}
int64_t FirstUnit(uint64_t word) {
  return static_cast<int64_t>((word >> 16) & kBlockMask);
}
int64_t EndUnit(uint64_t word) {
  return static_cast<int64_t>(word & kBlockMask);
}

// Block b of `blocks` near-equal blocks of [0, n), without n * b
// overflowing.
void BlockRange(int64_t n, int64_t blocks, int64_t b, int64_t* begin,
                int64_t* end) {
  const int64_t size = n / blocks, extra = n % blocks;
  *begin = b * size + std::min(b, extra);
  *end = *begin + size + (b < extra ? 1 : 0);
}

}  // namespace

CpuSpinTeam::CpuSpinTeam(tbb::task_arena* arena)
    : arena_(arena),
      max_helpers_(std::max(0, arena->max_concurrency() - 1)),
      units_(new Units[max_helpers_ + 1]) {}

CpuSpinTeam::~CpuSpinTeam() {
  ending_.store(true, std::memory_order_release);
  // A helper enqueued but not yet started still counts: oneTBB runs it (a
  // worker is free, no run being active), and it leaves at once.
  uint32_t steps = 0;
  while (alive_.load(std::memory_order_acquire) > 0) SpinStep(&steps);
}

CpuSpinTeam* CpuSpinTeam::Current() { return t_team; }

// Counted whether or not helpers are about now: one that starts after a
// look at alive_ would otherwise keep this caller out while work lasts.
CpuSpinTeam::Entering::Entering(CpuSpinTeam* team) : team_(team) {
  if (team_ != nullptr) {
    team_->entering_.fetch_add(1, std::memory_order_relaxed);
  }
}
void CpuSpinTeam::Entering::Entered() {
  if (team_ == nullptr) return;
  team_->entering_.fetch_sub(1, std::memory_order_relaxed);
  team_ = nullptr;
}

CpuSpinTeam::Scope::Scope(CpuSpinTeam* team) : saved_(t_team) { t_team = team; }
CpuSpinTeam::Scope::~Scope() { t_team = saved_; }

void CpuSpinTeam::StartHelpers() {
  int alive = alive_.load(std::memory_order_relaxed);
  while (alive < max_helpers_ && !ending_.load(std::memory_order_relaxed) &&
         entering_.load(std::memory_order_relaxed) == 0) {
    if (alive_.compare_exchange_weak(alive, alive + 1,
                                     std::memory_order_relaxed)) {
      // tsan::HandOff: ThreadSanitizer sees the hand-off inside libtbb
      // (core/tsan_annotations.h). Its closing release names the arena,
      // which outlives the team: the team may be gone by then (its
      // destructor waits on alive_, which TSan sees itself).
      arena_->enqueue(tsan::HandOff(arena_, [this] { Helper(); }));
      ++alive;
    }
  }
}

bool CpuSpinTeam::ParallelFor(int64_t n, int64_t grain, bool share,
                              const std::function<void(int64_t, int64_t)>& fn) {
  if (job_owned_.exchange(true, std::memory_order_acquire)) return false;
  // As many blocks as threads, none below `grain` (but at least two: the
  // caller only asks for work above one grain).
  const int64_t blocks = std::max<int64_t>(
      2, std::min<int64_t>(
             max_helpers_ + 1,
             std::min<int64_t>(n / std::max<int64_t>(grain, 1), kBlockMask)));
  fn_ = &fn;
  n_ = n;
  shared_ = share && n <= kMaxSharedUnits && n >= kMinSharedUnits * blocks;
  done_.store(0, std::memory_order_relaxed);
  ++generation_;
  if (shared_) {
    for (int64_t b = 0; b < blocks; ++b) {
      int64_t begin, end;
      BlockRange(n, blocks, b, &begin, &end);
      units_[b].word.store(UnitsWord(generation_, begin, end),
                           std::memory_order_relaxed);
    }
  }
  job_.store(JobWord(generation_, static_cast<uint64_t>(blocks), 0),
             std::memory_order_release);
  StartHelpers();
  RunBlocks();
  uint32_t steps = 0;
  while (done_.load(std::memory_order_acquire) < n) SpinStep(&steps);
  job_owned_.store(false, std::memory_order_release);
  return true;
}

bool CpuSpinTeam::TakeUnits(int b, uint32_t generation, bool back,
                            int64_t* begin, int64_t* end) {
  uint64_t word = units_[b].word.load(std::memory_order_acquire);
  for (;;) {
    const int64_t first = FirstUnit(word), last = EndUnit(word);
    if (Generation(word) != generation || first >= last) return false;
    const int64_t take = back ? std::max<int64_t>(1, (last - first) / 2)
                              : (last - first + 1) / 2;
    const uint64_t next = back ? UnitsWord(generation, first, last - take)
                               : UnitsWord(generation, first + take, last);
    if (units_[b].word.compare_exchange_weak(
            word, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
      *begin = back ? last - take : first;
      *end = back ? last : first + take;
      return true;
    }
  }
}

void CpuSpinTeam::RunUnits(int64_t begin, int64_t end) {
  (*fn_)(begin, end);
  // The last touch of the job: its owner may return once this lands.
  done_.fetch_add(end - begin, std::memory_order_release);
}

bool CpuSpinTeam::RunBlocks() {
  bool ran = false;
  uint64_t word = job_.load(std::memory_order_acquire);
  while (NextBlock(word) < NumBlocks(word)) {
    if (!job_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                    std::memory_order_acquire)) {
      continue;  // `word` reloaded: another claim, or a new job
    }
    // The claim holds the job open (its units are not done), so fn_, n_
    // and shared_ are this job's.
    const int b = static_cast<int>(NextBlock(word));
    int64_t begin, end;
    if (shared_) {
      while (TakeUnits(b, Generation(word), false, &begin, &end)) {
        RunUnits(begin, end);
      }
    } else {
      BlockRange(n_, static_cast<int64_t>(NumBlocks(word)), b, &begin, &end);
      RunUnits(begin, end);
    }
    ran = true;
    word = job_.load(std::memory_order_acquire);
  }
  // Every block claimed: in a shared job, help with the fullest block. A
  // units word of this generation with units left means the job is not
  // done, so it (and fn_) lives until the units taken here are counted.
  const uint32_t generation = Generation(word);
  const int blocks = static_cast<int>(NumBlocks(word));
  for (;;) {
    int fullest = -1;
    int64_t most = 0;
    for (int b = 0; b < blocks; ++b) {
      const uint64_t units = units_[b].word.load(std::memory_order_relaxed);
      const int64_t left = EndUnit(units) - FirstUnit(units);
      if (Generation(units) == generation && left > most) {
        most = left;
        fullest = b;
      }
    }
    if (fullest < 0) break;
    int64_t begin, end;
    if (!TakeUnits(fullest, generation, true, &begin, &end)) continue;
    RunUnits(begin, end);
    ran = true;
  }
  return ran;
}

void CpuSpinTeam::Push(RunTask run, void* context, int task,
                       std::atomic<int>* pending) {
  pending->fetch_add(1, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(Task{run, context, task, pending});
    queued_.fetch_add(1, std::memory_order_relaxed);
  }
  StartHelpers();
}

bool CpuSpinTeam::RunQueued() {
  // queued_ changes only under the lock: reading 0 without it just means
  // looking again later.
  if (queued_.load(std::memory_order_relaxed) == 0) return false;
  Task t;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    if (queue_head_ == queue_.size()) return false;
    t = queue_[queue_head_++];
    if (queue_head_ == queue_.size()) {
      queue_.clear();
      queue_head_ = 0;
    }
    queued_.fetch_sub(1, std::memory_order_relaxed);
  }
  t.run(t.context, t.task);
  // The last touch of the task: its run may end as soon as this lands.
  t.pending->fetch_sub(1, std::memory_order_release);
  return true;
}

void CpuSpinTeam::Helper() {
  Scope scope(this);
  Clock::time_point last_work = Clock::now();
  uint32_t steps = 0;
  while (!ending_.load(std::memory_order_acquire)) {
    if (RunQueued() || RunBlocks()) {
      last_work = Clock::now();
      steps = 0;
      continue;
    }
    if (entering_.load(std::memory_order_relaxed) > 0) break;
    if ((steps & 63) == 63 && Clock::now() - last_work > kSpinLimit) break;
    SpinStep(&steps);
  }
  alive_.fetch_sub(1, std::memory_order_release);
}

void CpuSpinTeam::Finish(const std::atomic<int>* pending) {
  uint32_t steps = 0;
  while (pending->load(std::memory_order_acquire) > 0) {
    if (RunQueued() || RunBlocks()) {
      steps = 0;
      continue;
    }
    SpinStep(&steps);
  }
}

}  // namespace weft
