#include "device/bfc_allocator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * 1024;

// Host memory with a count of what is outstanding, shared with the test so
// that it can still be read after the allocator (which owns this) is gone.
struct BackendCounts {
  std::atomic<int64_t> live_blocks{0};
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> total_allocs{0};
  std::atomic<bool> fail{false};
};

class CountingBackend final : public SubAllocator {
 public:
  explicit CountingBackend(std::shared_ptr<BackendCounts> counts)
      : counts_(std::move(counts)) {}
  void* Alloc(size_t alignment, size_t num_bytes) override {
    if (counts_->fail) return nullptr;
    void* p = host_.Alloc(alignment, num_bytes);
    if (p != nullptr) {
      counts_->live_blocks++;
      counts_->live_bytes += static_cast<int64_t>(num_bytes);
      counts_->total_allocs++;
    }
    return p;
  }
  void Free(void* ptr, size_t num_bytes) override {
    counts_->live_blocks--;
    counts_->live_bytes -= static_cast<int64_t>(num_bytes);
    host_.Free(ptr, num_bytes);
  }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }

 private:
  std::shared_ptr<BackendCounts> counts_;
  HostSubAllocator host_;
};

class BfcAllocatorTest : public ::testing::Test {
 protected:
  std::unique_ptr<BfcAllocator> Make(BfcAllocator::Options options = {}) {
    return std::make_unique<BfcAllocator>(
        std::make_unique<CountingBackend>(counts_), std::move(options));
  }
  std::shared_ptr<BackendCounts> counts_ = std::make_shared<BackendCounts>();
};

bool Aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST_F(BfcAllocatorTest, ReturnsAlignedDistinctWritableBlocks) {
  auto a = Make();
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t n : {1, 7, 63, 64, 65, 100, 1000, 4096, 12345, 1 << 20}) {
    void* p = a->AllocateRaw(kTensorAlignment, n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_TRUE(Aligned(p, kTensorAlignment)) << n;
    std::memset(p, 0xab, n);
    blocks.emplace_back(p, n);
  }
  // No two blocks overlap.
  std::sort(blocks.begin(), blocks.end());
  for (size_t i = 1; i < blocks.size(); ++i) {
    EXPECT_GE(static_cast<char*>(blocks[i].first),
              static_cast<char*>(blocks[i - 1].first) + blocks[i - 1].second);
  }
  for (auto [p, n] : blocks) a->DeallocateRaw(p, n);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
}

TEST_F(BfcAllocatorTest, RejectsAlignmentAboveTheGranule) {
  auto a = Make();
  EXPECT_EQ(a->AllocateRaw(4096, 100), nullptr);
}

TEST_F(BfcAllocatorTest, ZeroByteAllocationsAreUnique) {
  auto a = Make();
  void* p = a->AllocateRaw(kTensorAlignment, 0);
  void* q = a->AllocateRaw(kTensorAlignment, 0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  a->DeallocateRaw(p, 0);
  a->DeallocateRaw(q, 0);
}

TEST_F(BfcAllocatorTest, ZeroByteAllocationsOnTheSmallPath) {
  BfcAllocator::Options options;
  options.small_size_threshold = 256;
  auto a = Make(options);
  void* p = a->AllocateRaw(kTensorAlignment, 0);
  void* q = a->AllocateRaw(kTensorAlignment, 0);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(p, q);
  EXPECT_TRUE(Aligned(p, kTensorAlignment));
  EXPECT_EQ(a->num_regions(), 0);  // malloc served them
  a->DeallocateRaw(p, 0);
  a->DeallocateRaw(q, 0);
  EXPECT_EQ(a->GetStats().bytes_reserved, 0);
}

TEST_F(BfcAllocatorTest, AbsurdSizesFailWithoutCrashing) {
  auto a = Make();
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, SIZE_MAX), nullptr);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, SIZE_MAX / 2), nullptr);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, SIZE_MAX - 63), nullptr);
  // 2^50 bytes passes the early check and is refused by the system.
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, size_t{1} << 50), nullptr);
  // Still usable afterwards.
  void* p = a->AllocateRaw(kTensorAlignment, 1000);
  ASSERT_NE(p, nullptr);
  a->DeallocateRaw(p, 1000);
}

TEST_F(BfcAllocatorTest, ReusesAFreedBlockOfTheSameSize) {
  auto a = Make();
  void* keep = a->AllocateRaw(kTensorAlignment, 1000);
  void* p = a->AllocateRaw(kTensorAlignment, 100 * kKiB);
  a->DeallocateRaw(p, 100 * kKiB);
  void* q = a->AllocateRaw(kTensorAlignment, 100 * kKiB);
  EXPECT_EQ(p, q);
  a->DeallocateRaw(q, 100 * kKiB);
  a->DeallocateRaw(keep, 1000);
  EXPECT_EQ(counts_->total_allocs, 1);
}

TEST_F(BfcAllocatorTest, LargeBlocksAreReusedWithoutNewRegions) {
  auto a = Make();
  for (int run = 0; run < 5; ++run) {
    void* p = a->AllocateRaw(kTensorAlignment, 64 * kMiB);
    ASSERT_NE(p, nullptr);
    a->DeallocateRaw(p, 64 * kMiB);
  }
  EXPECT_EQ(counts_->total_allocs, 1);
  EXPECT_EQ(a->num_regions(), 1);
}

TEST_F(BfcAllocatorTest, CoalescesFreedNeighbours) {
  auto a = Make();
  const size_t n = 256 * kKiB;
  void* x = a->AllocateRaw(kTensorAlignment, n);
  void* y = a->AllocateRaw(kTensorAlignment, n);
  // Holds the rest of the region so that only x and y can make room.
  const size_t rest = 2 * kMiB - 2 * n;
  void* z = a->AllocateRaw(kTensorAlignment, rest);
  ASSERT_EQ(static_cast<char*>(y), static_cast<char*>(x) + n);
  ASSERT_EQ(static_cast<char*>(z), static_cast<char*>(y) + n);
  ASSERT_EQ(a->num_regions(), 1);
  a->DeallocateRaw(y, n);
  a->DeallocateRaw(x, n);
  void* both = a->AllocateRaw(kTensorAlignment, 2 * n);
  EXPECT_EQ(both, x);
  EXPECT_EQ(a->num_regions(), 1);
  EXPECT_EQ(counts_->total_allocs, 1);
  a->DeallocateRaw(both, 2 * n);
  a->DeallocateRaw(z, rest);
  // Everything merged back into one chunk covering the region.
  EXPECT_EQ(a->ReleaseCached(), 2 * kMiB);
}

// A freed chunk of up to 4 KiB is kept whole for the next request of its
// size: the same block comes back, another size does not take it, and the
// statistics count it as free.
TEST_F(BfcAllocatorTest, SmallChunksAreKeptForTheNextRequestOfTheirSize) {
  auto a = Make();
  void* x = a->AllocateRaw(kTensorAlignment, 512);
  void* y = a->AllocateRaw(kTensorAlignment, 512);
  void* z = a->AllocateRaw(kTensorAlignment, 4096);
  a->DeallocateRaw(x, 512);
  a->DeallocateRaw(z, 4096);
  EXPECT_EQ(a->GetStats().bytes_in_use, 512);
  // 500 bytes round to the same 512: x again. 1000 bytes do not take it.
  void* other = a->AllocateRaw(kTensorAlignment, 1000);
  EXPECT_NE(other, x);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 500), x);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 4096), z);
  EXPECT_EQ(a->GetStats().bytes_in_use, 500 + 512 + 1000 + 4096);
  a->DeallocateRaw(x, 500);
  a->DeallocateRaw(y, 512);
  a->DeallocateRaw(z, 4096);
  a->DeallocateRaw(other, 1000);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  // Kept chunks go back to the region before it is released.
  EXPECT_EQ(a->ReleaseCached(), 2 * kMiB);
  EXPECT_EQ(a->num_regions(), 0);
}

// When no free chunk fits, the kept ones are merged back first: a region
// filled with 4 KiB blocks, all freed, serves one request as large as all
// of them together without a second region.
TEST_F(BfcAllocatorTest, KeptChunksCoalesceBeforeANewRegion) {
  auto a = Make();
  const size_t n = 4096;
  std::vector<void*> blocks;
  for (size_t used = 0; used < 2 * kMiB; used += n) {
    blocks.push_back(a->AllocateRaw(kTensorAlignment, n));
  }
  ASSERT_EQ(a->num_regions(), 1);
  for (void* b : blocks) a->DeallocateRaw(b, n);
  void* all = a->AllocateRaw(kTensorAlignment, 2 * kMiB);
  EXPECT_EQ(all, blocks.front());
  EXPECT_EQ(a->num_regions(), 1);
  EXPECT_EQ(counts_->total_allocs, 1);
  a->DeallocateRaw(all, 2 * kMiB);
}

TEST_F(BfcAllocatorTest, FreeingAKeptChunkAgainDies) {
  auto a = Make();
  void* x = a->AllocateRaw(kTensorAlignment, 256);
  a->DeallocateRaw(x, 256);
  EXPECT_DEATH(a->DeallocateRaw(x, 256), "deallocated twice");
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 256), x);
  a->DeallocateRaw(x, 256);
}

TEST_F(BfcAllocatorTest, PicksTheSmallestFreeChunkThatFits) {
  auto a = Make();
  // Free holes of 8, 32 and 16 KiB, kept apart by live separators.
  std::vector<void*> holes;
  std::vector<void*> separators;
  for (size_t kib : {8, 32, 16}) {
    holes.push_back(a->AllocateRaw(kTensorAlignment, kib * kKiB));
    separators.push_back(a->AllocateRaw(kTensorAlignment, 1 * kKiB));
  }
  a->DeallocateRaw(holes[0], 8 * kKiB);
  a->DeallocateRaw(holes[1], 32 * kKiB);
  a->DeallocateRaw(holes[2], 16 * kKiB);
  // 12 KiB fits the 32 and 16 KiB holes and the region's tail: 16 is best.
  void* p = a->AllocateRaw(kTensorAlignment, 12 * kKiB);
  EXPECT_EQ(p, holes[2]);
  // 20 KiB fits only the 32 KiB hole and the tail.
  void* q = a->AllocateRaw(kTensorAlignment, 20 * kKiB);
  EXPECT_EQ(q, holes[1]);
  // 8 KiB exactly.
  void* r = a->AllocateRaw(kTensorAlignment, 8 * kKiB);
  EXPECT_EQ(r, holes[0]);
  a->DeallocateRaw(p, 12 * kKiB);
  a->DeallocateRaw(q, 20 * kKiB);
  a->DeallocateRaw(r, 8 * kKiB);
  for (void* s : separators) a->DeallocateRaw(s, 1 * kKiB);
}

TEST_F(BfcAllocatorTest, RegionsGrowByDoubling) {
  BfcAllocator::Options options;
  options.initial_region_bytes = 2 * kMiB;
  options.max_region_bytes = 8 * kMiB;
  auto a = Make(options);
  std::vector<void*> blocks;
  // 1.5 MiB blocks: one per 2 MiB region, two per 4 MiB region, ...
  for (int i = 0; i < 12; ++i) {
    blocks.push_back(a->AllocateRaw(kTensorAlignment, 1536 * kKiB));
  }
  // 2 + 4 + 8 + 8 MiB hold 1 + 2 + 5 + 5 blocks.
  EXPECT_EQ(a->num_regions(), 4);
  EXPECT_EQ(a->GetStats().bytes_reserved, static_cast<int64_t>(22 * kMiB));
  for (void* p : blocks) a->DeallocateRaw(p, 1536 * kKiB);
}

TEST_F(BfcAllocatorTest, LimitMakesAllocationsFail) {
  BfcAllocator::Options options;
  options.memory_limit = 8 * kMiB;
  auto a = Make(options);
  void* p = a->AllocateRaw(kTensorAlignment, 6 * kMiB);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 3 * kMiB), nullptr);
  EXPECT_LE(a->GetStats().bytes_reserved, static_cast<int64_t>(8 * kMiB));
  void* q = a->AllocateRaw(kTensorAlignment, 2 * kMiB);
  EXPECT_NE(q, nullptr);
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 9 * kMiB), nullptr);
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.bytes_limit, static_cast<int64_t>(8 * kMiB));
  EXPECT_LE(s.peak_bytes_reserved, static_cast<int64_t>(8 * kMiB));
  a->DeallocateRaw(p, 6 * kMiB);
  a->DeallocateRaw(q, 2 * kMiB);
}

TEST_F(BfcAllocatorTest, LimitReleasesCachedRegionsBeforeFailing) {
  BfcAllocator::Options options;
  options.memory_limit = 8 * kMiB;
  auto a = Make(options);
  // Two regions, both idle after the frees.
  void* p = a->AllocateRaw(kTensorAlignment, 2 * kMiB);
  void* q = a->AllocateRaw(kTensorAlignment, 4 * kMiB);
  a->DeallocateRaw(p, 2 * kMiB);
  a->DeallocateRaw(q, 4 * kMiB);
  // 7 MiB fits in neither cached region, but does once they are released.
  void* r = a->AllocateRaw(kTensorAlignment, 7 * kMiB);
  EXPECT_NE(r, nullptr);
  EXPECT_EQ(a->num_regions(), 1);
  a->DeallocateRaw(r, 7 * kMiB);
}

TEST_F(BfcAllocatorTest, LimitCountsSmallAllocations) {
  BfcAllocator::Options options;
  options.memory_limit = 4 * kKiB;
  options.small_size_threshold = 1024;
  auto a = Make(options);
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    void* p = a->AllocateRaw(kTensorAlignment, 512);
    if (p == nullptr) break;
    blocks.push_back(p);
  }
  EXPECT_EQ(blocks.size(), 8u);
  for (void* p : blocks) a->DeallocateRaw(p, 512);
}

TEST_F(BfcAllocatorTest, ReleaseCachedReturnsOnlyIdleRegions) {
  BfcAllocator::Options options;
  options.initial_region_bytes = 2 * kMiB;
  auto a = Make(options);
  void* p = a->AllocateRaw(kTensorAlignment, 1 * kMiB);  // region 1
  void* q = a->AllocateRaw(kTensorAlignment, 3 * kMiB);  // region 2 (4 MiB)
  ASSERT_EQ(a->num_regions(), 2);
  a->DeallocateRaw(q, 3 * kMiB);
  EXPECT_EQ(a->ReleaseCached(), 4 * kMiB);
  EXPECT_EQ(a->num_regions(), 1);
  EXPECT_EQ(counts_->live_blocks, 1);
  EXPECT_EQ(a->GetStats().bytes_reserved, static_cast<int64_t>(2 * kMiB));
  // The remaining region still serves.
  std::memset(p, 1, 1 * kMiB);
  a->DeallocateRaw(p, 1 * kMiB);
  EXPECT_EQ(a->ReleaseCached(), 2 * kMiB);
  EXPECT_EQ(counts_->live_bytes, 0);
}

TEST_F(BfcAllocatorTest, KeepsStatistics) {
  auto a = Make();
  void* p = a->AllocateRaw(kTensorAlignment, 1000);
  void* q = a->AllocateRaw(kTensorAlignment, 3 * kMiB);
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, static_cast<int64_t>(1000 + 3 * kMiB));
  EXPECT_EQ(s.largest_alloc_size, static_cast<int64_t>(3 * kMiB));
  EXPECT_EQ(s.bytes_reserved, counts_->live_bytes.load());
  EXPECT_GE(s.bytes_reserved, static_cast<int64_t>(3 * kMiB + 1000));
  EXPECT_EQ(s.bytes_limit, 0);
  a->DeallocateRaw(q, 3 * kMiB);
  s = a->GetStats();
  EXPECT_EQ(s.bytes_in_use, 1000);
  EXPECT_EQ(s.peak_bytes_in_use, static_cast<int64_t>(1000 + 3 * kMiB));
  // Freed memory stays reserved for reuse.
  EXPECT_EQ(s.bytes_reserved, counts_->live_bytes.load());
  EXPECT_EQ(s.peak_bytes_reserved, s.bytes_reserved);
  a->DeallocateRaw(p, 1000);
}

TEST_F(BfcAllocatorTest, BackendFailureReturnsNull) {
  auto a = Make();
  counts_->fail = true;
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, 1000), nullptr);
  counts_->fail = false;
  void* p = a->AllocateRaw(kTensorAlignment, 1000);
  EXPECT_NE(p, nullptr);
  a->DeallocateRaw(p, 1000);
}

TEST_F(BfcAllocatorTest, DestructorReturnsEverything) {
  {
    auto a = Make();
    for (size_t n : {1 * kKiB, 3 * kMiB, 40 * kMiB}) {
      void* p = a->AllocateRaw(kTensorAlignment, n);
      a->DeallocateRaw(p, n);
    }
    EXPECT_GT(counts_->live_blocks, 0);
  }
  EXPECT_EQ(counts_->live_blocks, 0);
  EXPECT_EQ(counts_->live_bytes, 0);
}

TEST_F(BfcAllocatorTest, CloseKeepsLiveBlocksUntilTheirLastFree) {
  auto* a = new BfcAllocator(std::make_unique<CountingBackend>(counts_), {});
  // Two regions: the first (2 MiB) holds `live`, `idle` needs a second.
  void* live = a->AllocateRaw(kTensorAlignment, 1 * kKiB);
  void* idle = a->AllocateRaw(kTensorAlignment, 3 * kMiB);
  std::memset(live, 7, 1 * kKiB);
  a->DeallocateRaw(idle, 3 * kMiB);
  ASSERT_EQ(counts_->live_blocks, 2);
  a->Close();
  // The idle region went back at once; the live block is still good.
  EXPECT_EQ(counts_->live_blocks, 1);
  EXPECT_EQ(static_cast<unsigned char*>(live)[1023], 7);
  a->DeallocateRaw(live, 1 * kKiB);  // the allocator deletes itself here
  EXPECT_EQ(counts_->live_blocks, 0);
}

TEST_F(BfcAllocatorTest, CloseWithNothingLiveDeletesAtOnce) {
  auto* a = new BfcAllocator(std::make_unique<CountingBackend>(counts_), {});
  void* p = a->AllocateRaw(kTensorAlignment, 1000);
  a->DeallocateRaw(p, 1000);
  a->Close();
  EXPECT_EQ(counts_->live_blocks, 0);
}

TEST_F(BfcAllocatorTest, TensorsOutliveAClosedAllocator) {
  auto* a = new BfcAllocator(std::make_unique<CountingBackend>(counts_), {});
  auto t = Tensor::Allocate(a, DT_FLOAT, TensorShape({1000}));
  ASSERT_TRUE(t.ok());
  for (int i = 0; i < 1000; ++i) t->data<float>()[i] = static_cast<float>(i);
  Tensor copy = *t;
  a->Close();
  t = Tensor();
  EXPECT_EQ(copy.data<float>()[999], 999.0f);
  EXPECT_EQ(copy.memory_space(), MemorySpace::kHost);
  copy = Tensor();
  EXPECT_EQ(counts_->live_blocks, 0);
}

// Threads allocate blocks of mixed sizes, fill each with a pattern of their
// own, and check the pattern before freeing: any overlap between live
// blocks, or a block handed out twice, breaks some pattern.
void Stress(BfcAllocator* a, int threads, int iterations) {
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([a, t, iterations, &failures] {
      std::mt19937 rng(1234 + t);
      std::uniform_int_distribution<size_t> size_dist(0, 64 * 1024);
      struct Block {
        uint32_t* p;
        size_t bytes;
        uint32_t tag;
      };
      std::vector<Block> live;
      auto check_and_free = [&](const Block& b) {
        for (size_t i = 0; i < b.bytes / 4; ++i) {
          if (b.p[i] != b.tag + static_cast<uint32_t>(i)) {
            failures++;
            break;
          }
        }
        a->DeallocateRaw(b.p, b.bytes);
      };
      for (int i = 0; i < iterations; ++i) {
        size_t bytes = size_dist(rng);
        if (rng() % 16 == 0) bytes *= 32;  // some up to 2 MiB
        auto* p =
            static_cast<uint32_t*>(a->AllocateRaw(kTensorAlignment, bytes));
        if (p == nullptr || !Aligned(p, kTensorAlignment)) {
          failures++;
          continue;
        }
        const uint32_t tag = (static_cast<uint32_t>(t) << 28) ^
                             static_cast<uint32_t>(i) * 2654435761u;
        for (size_t k = 0; k < bytes / 4; ++k)
          p[k] = tag + static_cast<uint32_t>(k);
        live.push_back({p, bytes, tag});
        if (live.size() > 24 || rng() % 3 == 0) {
          size_t victim = rng() % live.size();
          check_and_free(live[victim]);
          live[victim] = live.back();
          live.pop_back();
        }
      }
      for (const Block& b : live) check_and_free(b);
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(BfcAllocatorTest, ConcurrentAllocationsKeepTheirData) {
  auto a = Make();
  Stress(a.get(), 4, 2000);
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.num_allocs, 4 * 2000);
  // All of it coalesced back: every region is idle.
  a->ReleaseCached();
  EXPECT_EQ(a->num_regions(), 0);
  EXPECT_EQ(counts_->live_bytes, 0);
}

TEST_F(BfcAllocatorTest, ConcurrentAllocationsWithTheSmallPath) {
  BfcAllocator::Options options;
  options.small_size_threshold = 4096;
  auto a = Make(options);
  Stress(a.get(), 4, 2000);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  EXPECT_EQ(a->GetStats().bytes_reserved, counts_->live_bytes.load());
}

#if defined(__SANITIZE_ADDRESS__)
#define WEFT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_TEST_ASAN 1
#endif
#endif

#ifdef WEFT_TEST_ASAN
// The cache keeps freed memory mapped; poisoning still makes a read of a
// freed block an error.
TEST_F(BfcAllocatorTest, ReadingAFreedBlockIsReportedUnderAsan) {
  auto a = Make();
  void* keep = a->AllocateRaw(kTensorAlignment, 1000);
  auto* p = static_cast<volatile char*>(a->AllocateRaw(kTensorAlignment, 4096));
  p[0] = 1;
  a->DeallocateRaw(const_cast<char*>(p), 4096);
  EXPECT_DEATH(p[10] = p[0] + 1, "use-after-poison");
  // Past the requested size, inside the rounding, is poisoned as well.
  auto* q = static_cast<volatile char*>(a->AllocateRaw(kTensorAlignment, 100));
  EXPECT_DEATH(q[100] = 1, "use-after-poison");
  a->DeallocateRaw(const_cast<char*>(q), 100);
  a->DeallocateRaw(keep, 1000);
}
#endif

}  // namespace
}  // namespace weft
