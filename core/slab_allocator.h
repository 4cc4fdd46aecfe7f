// SlabAllocator: many tensor buffers carved out of one block of host
// memory, for the constants a load reads (a checkpoint's variables).
//
// Each buffer of its own costs a page fault per 4 KiB when first written
// (most weights are under kHugePageMinBytes, so they get no huge pages); one
// block for all of them is large enough for huge pages: NASNetMobile's 21 MB
// of variables took 5,000 faults and 8.7 ms to read into their own buffers,
// 5.7 ms into one block. The block is freed when its owner has let go and
// the last buffer carved from it is deallocated, so buffers outlive the
// load that made them.
#ifndef WEFT_CORE_SLAB_ALLOCATOR_H_
#define WEFT_CORE_SLAB_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/allocator.h"

namespace weft {

class SlabAllocator final : public Allocator {
 public:
  // A slab of `capacity` bytes (buffers are placed at kTensorAlignment
  // boundaries: plan each request rounded up to it). The caller owns the
  // result until Release. Requests that do not fit, or a slab whose memory
  // cannot be had, get buffers of their own from `fallback`.
  static SlabAllocator* Create(size_t capacity,
                               Allocator* fallback = DefaultCpuAllocator());

  // The owner lets go: no more allocations; the slab goes when its last
  // buffer does (at once when none is left).
  void Release();

  // The bytes a buffer of `bytes` takes in a slab.
  static size_t Footprint(size_t bytes);

  // Release as a unique_ptr deleter, for an owner that may return early.
  struct Releaser {
    void operator()(SlabAllocator* slab) const { slab->Release(); }
  };

  std::string Name() const override { return "cpu slab"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  // Not thread-safe against other AllocateRaw calls (one loader fills a
  // slab); DeallocateRaw may run on any thread.
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;

  // Bytes carved so far (buffers deallocated included).
  size_t used() const { return used_; }

 private:
  SlabAllocator(char* base, size_t capacity, Allocator* fallback)
      : base_(base), capacity_(capacity), fallback_(fallback) {}
  ~SlabAllocator() override;
  // Drops one reference (a live buffer, or the owner's); the last deletes.
  void Unref();

  char* const base_;  // null when the block could not be had
  const size_t capacity_;
  Allocator* const fallback_;
  size_t used_ = 0;
  int64_t num_allocs_ = 0;
  // Buffers carved and not yet deallocated, plus 1 until Release.
  std::atomic<int64_t> refs_{1};
};

}  // namespace weft

#endif  // WEFT_CORE_SLAB_ALLOCATOR_H_
