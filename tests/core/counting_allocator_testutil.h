// An allocator for tests that need to see when buffers come and go: host
// memory from AlignedHostAlloc, each allocation and free counted.
#ifndef WEFT_TESTS_CORE_COUNTING_ALLOCATOR_TESTUTIL_H_
#define WEFT_TESTS_CORE_COUNTING_ALLOCATOR_TESTUTIL_H_

#include <cstdlib>
#include <string>

#include "core/allocator.h"

namespace weft {

class CountingAllocator final : public Allocator {
 public:
  std::string Name() const override { return "counting"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    ++allocs;
    return AlignedHostAlloc(alignment, num_bytes);
  }
  void DeallocateRaw(void* ptr, size_t) override {
    ++frees;
    std::free(ptr);
  }
  AllocatorStats GetStats() const override { return AllocatorStats(); }

  int allocs = 0;
  int frees = 0;
};

}  // namespace weft

#endif  // WEFT_TESTS_CORE_COUNTING_ALLOCATOR_TESTUTIL_H_
