#include "device/cpu_device.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "core/allocator.h"
#include "core/tensor.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

// Records every range a ParallelFor hands out and the thread it ran on.
class RangeRecorder {
 public:
  explicit RangeRecorder(int64_t n) : counts_(n) {}

  void Record(int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      counts_[i].fetch_add(1, std::memory_order_relaxed);
    }
    std::lock_guard<std::mutex> lock(mu_);
    ranges_.emplace_back(begin, end);
    threads_.insert(std::this_thread::get_id());
    const int index = tbb::this_task_arena::current_thread_index();
    max_arena_index_ = std::max(max_arena_index_, index);
  }

  // Every index seen exactly once.
  bool CoveredOnce() const {
    for (const auto& c : counts_) {
      if (c.load() != 1) return false;
    }
    return true;
  }
  const std::vector<std::pair<int64_t, int64_t>>& ranges() const {
    return ranges_;
  }
  const std::set<std::thread::id>& threads() const { return threads_; }
  int max_arena_index() const { return max_arena_index_; }

 private:
  std::vector<std::atomic<int>> counts_;
  std::mutex mu_;
  std::vector<std::pair<int64_t, int64_t>> ranges_;
  std::set<std::thread::id> threads_;
  int max_arena_index_ = -1;
};

TEST(CpuDeviceTest, DescribesItself) {
  CpuDevice device("cpu:0", nullptr);
  EXPECT_EQ(device.name(), "cpu:0");
  EXPECT_EQ(device.device_type(), "CPU");
  EXPECT_EQ(device.device_type(), DEVICE_CPU);
  EXPECT_FALSE(device.is_async());
  EXPECT_EQ(device.device_context(), nullptr);
  EXPECT_TRUE(device.Sync().ok());
  EXPECT_EQ(device.num_threads(), 0);
  EXPECT_EQ(device.arena(), nullptr);
  // Without an allocator of its own it uses the process-wide one, and host
  // and device memory are the same.
  EXPECT_EQ(device.allocator(), DefaultCpuAllocator());
  EXPECT_EQ(device.host_allocator(), device.allocator());
  EXPECT_EQ(device.GetAllocator(MemorySpace::kHost), device.allocator());
  EXPECT_EQ(device.GetAllocator(MemorySpace::kDevice), device.allocator());
  EXPECT_EQ(device.allocator()->memory_space(), MemorySpace::kHost);
}

TEST(CpuDeviceTest, NumThreadsIsTheArenaConcurrency) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  EXPECT_EQ(device.num_threads(), 2);
  EXPECT_EQ(device.arena(), &arena);
}

TEST(CpuDeviceTest, ParallelForWithoutArenaRunsInlineAsOneCall) {
  CpuDevice device("cpu:0", nullptr);
  RangeRecorder rec(1000);
  // Even very expensive work stays on the calling thread: 0 threads means
  // no thread besides the caller's.
  device.ParallelFor(1000, 1000000,
                     [&](int64_t b, int64_t e) { rec.Record(b, e); });
  EXPECT_TRUE(rec.CoveredOnce());
  ASSERT_EQ(rec.ranges().size(), 1u);
  EXPECT_EQ(rec.ranges()[0], std::make_pair(int64_t{0}, int64_t{1000}));
  ASSERT_EQ(rec.threads().size(), 1u);
  EXPECT_EQ(*rec.threads().begin(), std::this_thread::get_id());
}

TEST(CpuDeviceTest, ParallelForInArenaCoversEveryIndexOnce) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  const int64_t n = 10007;  // prime: no range split lines up evenly
  RangeRecorder rec(n);
  device.ParallelFor(n, 100000, [&](int64_t b, int64_t e) {
    EXPECT_LT(b, e);
    EXPECT_GE(b, 0);
    EXPECT_LE(e, n);
    rec.Record(b, e);
  });
  EXPECT_TRUE(rec.CoveredOnce());
  // The cost makes every unit worth a block, so the range is split.
  EXPECT_GT(rec.ranges().size(), 1u);
  // Only the arena's two slots ever run the work: the caller (which joins
  // the arena) and at most one worker.
  EXPECT_LE(rec.threads().size(), 2u);
  EXPECT_GE(rec.max_arena_index(), 0);
  EXPECT_LT(rec.max_arena_index(), 2);
}

TEST(CpuDeviceTest, ParallelForSplitsNoFinerThanTheCostAllows) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  // 100 cycles per unit: a block must hold at least 10000 / 100 = 100
  // units. The partitioner splits ranges no smaller than half a grain.
  const int64_t n = 100000;
  RangeRecorder rec(n);
  device.ParallelFor(n, 100, [&](int64_t b, int64_t e) { rec.Record(b, e); });
  EXPECT_TRUE(rec.CoveredOnce());
  for (const auto& [b, e] : rec.ranges()) EXPECT_GE(e - b, 50);
}

TEST(CpuDeviceTest, SmallWorkInArenaRunsInlineOnTheCaller) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  RangeRecorder rec(500);
  // 500 units at 1 cycle each is below one block's worth.
  device.ParallelFor(500, 1, [&](int64_t b, int64_t e) { rec.Record(b, e); });
  EXPECT_TRUE(rec.CoveredOnce());
  ASSERT_EQ(rec.ranges().size(), 1u);
  EXPECT_EQ(*rec.threads().begin(), std::this_thread::get_id());
}

TEST(CpuDeviceTest, SingleThreadArenaRunsInline) {
  tbb::task_arena arena(1);
  CpuDevice device("cpu:0", &arena);
  RangeRecorder rec(100);
  device.ParallelFor(100, 1000000,
                     [&](int64_t b, int64_t e) { rec.Record(b, e); });
  EXPECT_TRUE(rec.CoveredOnce());
  EXPECT_EQ(rec.ranges().size(), 1u);
}

TEST(CpuDeviceTest, ParallelForOfNothingCallsNothing) {
  tbb::task_arena arena(2);
  CpuDevice with_arena("cpu:0", &arena);
  CpuDevice without_arena("cpu:1", nullptr);
  int calls = 0;
  auto fn = [&](int64_t, int64_t) { ++calls; };
  with_arena.ParallelFor(0, 100, fn);
  with_arena.ParallelFor(-5, 100, fn);
  without_arena.ParallelFor(0, 100, fn);
  EXPECT_EQ(calls, 0);
}

TEST(CpuDeviceTest, NestedParallelForCompletes) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  const int64_t outer = 16;
  const int64_t inner = 1000;
  RangeRecorder rec(outer * inner);
  device.ParallelFor(outer, 1000000, [&](int64_t ob, int64_t oe) {
    for (int64_t o = ob; o < oe; ++o) {
      device.ParallelFor(inner, 1000, [&](int64_t b, int64_t e) {
        rec.Record(o * inner + b, o * inner + e);
      });
    }
  });
  EXPECT_TRUE(rec.CoveredOnce());
  EXPECT_LE(rec.threads().size(), 2u);
}

TEST(CpuDeviceTest, ConcurrentCallersShareTheArena) {
  tbb::task_arena arena(2);
  CpuDevice device("cpu:0", &arena);
  const int64_t n = 20000;
  RangeRecorder a(n);
  RangeRecorder b(n);
  std::thread t1([&] {
    device.ParallelFor(n, 10000, [&](int64_t s, int64_t e) { a.Record(s, e); });
  });
  std::thread t2([&] {
    device.ParallelFor(n, 10000, [&](int64_t s, int64_t e) { b.Record(s, e); });
  });
  t1.join();
  t2.join();
  EXPECT_TRUE(a.CoveredOnce());
  EXPECT_TRUE(b.CoveredOnce());
}

TEST(CpuDeviceTest, OwnAllocatorKeepsStatistics) {
  CpuAllocator allocator;
  CpuDevice device("cpu:0", nullptr, &allocator);
  ASSERT_EQ(device.allocator(), &allocator);
  {
    StatusOr<Tensor> small =
        Tensor::Allocate(device.allocator(), DT_FLOAT, TensorShape({10}));
    ASSERT_TRUE(small.ok()) << small.status();
    AllocatorStats s = allocator.GetStats();
    EXPECT_EQ(s.num_allocs, 1);
    EXPECT_EQ(s.bytes_in_use, 40);
    EXPECT_EQ(s.peak_bytes_in_use, 40);
    EXPECT_EQ(s.largest_alloc_size, 40);
    {
      StatusOr<Tensor> big =
          Tensor::Allocate(device.allocator(), DT_DOUBLE, TensorShape({10, 5}));
      ASSERT_TRUE(big.ok()) << big.status();
      s = allocator.GetStats();
      EXPECT_EQ(s.num_allocs, 2);
      EXPECT_EQ(s.bytes_in_use, 40 + 400);
      EXPECT_EQ(s.peak_bytes_in_use, 440);
      EXPECT_EQ(s.largest_alloc_size, 400);
    }
    // Freeing the larger one leaves the smaller; the peak stays.
    s = allocator.GetStats();
    EXPECT_EQ(s.bytes_in_use, 40);
    EXPECT_EQ(s.peak_bytes_in_use, 440);
  }
  AllocatorStats s = allocator.GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.peak_bytes_in_use, 440);
}

}  // namespace
}  // namespace weft
