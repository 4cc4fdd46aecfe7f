// SlabAllocator: buffers carved from one block at kTensorAlignment
// boundaries, requests beyond it served by the fallback, and the block kept
// until both its owner and every buffer carved from it have let go (the
// sanitizer suite sees a buffer used after its slab went, or a slab never
// freed).
#include "core/slab_allocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "counting_allocator_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

Tensor Floats(Allocator* a, int64_t n) {
  auto t = Tensor::Allocate(a, DT_FLOAT, TensorShape({n}));
  EXPECT_TRUE(t.ok()) << t.status();
  return *std::move(t);
}

TEST(SlabAllocatorTest, CarvesAlignedBuffersInOrderThenFallsBack) {
  CountingAllocator fallback;
  // 3 floats take one 64-byte step, 20 floats two, nothing takes none.
  EXPECT_EQ(SlabAllocator::Footprint(12), 64u);
  EXPECT_EQ(SlabAllocator::Footprint(80), 128u);
  EXPECT_EQ(SlabAllocator::Footprint(64), 64u);
  EXPECT_EQ(SlabAllocator::Footprint(0), 64u);
  SlabAllocator* slab = SlabAllocator::Create(64 + 128, &fallback);
  std::vector<Tensor> kept;
  kept.push_back(Floats(slab, 3));
  kept.push_back(Floats(slab, 20));
  EXPECT_EQ(slab->used(), 192u);
  const char* first = static_cast<const char*>(kept[0].raw_data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kTensorAlignment, 0u);
  EXPECT_EQ(static_cast<const char*>(kept[1].raw_data()), first + 64);
  EXPECT_EQ(fallback.allocs, 0);
  // Full: the next comes from the fallback, and goes back to it.
  kept.push_back(Floats(slab, 1));
  EXPECT_EQ(fallback.allocs, 1);
  EXPECT_EQ(slab->used(), 192u);
  for (Tensor& t : kept) {
    std::memset(t.raw_data(), 0x5a, t.TotalBytes());
  }
  kept.pop_back();
  EXPECT_EQ(fallback.frees, 1);
  slab->Release();
  kept.clear();
  EXPECT_EQ(fallback.frees, 1);
}

// Buffers outlive the owner's Release, and may go on other threads; the
// last one frees the slab.
TEST(SlabAllocatorTest, BuffersOutliveTheOwner) {
  SlabAllocator* slab = SlabAllocator::Create(64 * 8);
  std::vector<Tensor> kept;
  for (int i = 0; i < 8; ++i) kept.push_back(Floats(slab, 16));
  slab->Release();
  for (Tensor& t : kept) {
    for (int64_t k = 0; k < 16; ++k) t.data<float>()[k] = static_cast<float>(k);
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([t = std::move(kept[i])]() mutable {
      EXPECT_EQ(t.data<float>()[15], 15.0f);
      t = Tensor();
    });
  }
  for (std::thread& t : threads) t.join();
}

// A slab released before anything was carved goes at once; one of 0 bytes
// serves everything from the fallback; strings are constructed and
// destroyed in place.
TEST(SlabAllocatorTest, EmptySlabsAndStrings) {
  SlabAllocator::Create(1024)->Release();
  CountingAllocator fallback;
  SlabAllocator* none = SlabAllocator::Create(0, &fallback);
  {
    Tensor t = Floats(none, 4);
    EXPECT_EQ(fallback.allocs, 1);
  }
  EXPECT_EQ(fallback.frees, 1);
  none->Release();

  SlabAllocator* slab = SlabAllocator::Create(4096);
  auto s = Tensor::Allocate(slab, DT_STRING, TensorShape({3}));
  ASSERT_TRUE(s.ok());
  slab->Release();
  std::string* v = static_cast<std::string*>(s->raw_data());
  v[2] = std::string(100, 'x');  // on the heap, freed with the tensor
  EXPECT_EQ(v[0], "");
  EXPECT_EQ(v[2].size(), 100u);
}

}  // namespace
}  // namespace weft
