// Allocator: where tensor buffers come from. Every device owns one; the CPU
// allocator hands out 64-byte-aligned host memory and keeps statistics.
#ifndef WEFT_CORE_ALLOCATOR_H_
#define WEFT_CORE_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace weft {

// Alignment of every tensor buffer: a cache line, and enough for AVX-512.
inline constexpr size_t kTensorAlignment = 64;

// Where a buffer lives. Host buffers may be read by the CPU directly; device
// buffers (a GPU's memory) may not.
enum class MemorySpace : uint8_t { kHost = 0, kDevice = 1 };

struct AllocatorStats {
  int64_t num_allocs = 0;
  // Bytes requested by the allocations not yet deallocated.
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t largest_alloc_size = 0;
  // Bytes held from the system, in use or cached for reuse; 0 for an
  // allocator that caches nothing.
  int64_t bytes_reserved = 0;
  int64_t peak_bytes_reserved = 0;
  // The most the allocator may reserve; 0 when unlimited.
  int64_t bytes_limit = 0;
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  virtual std::string Name() const = 0;
  virtual MemorySpace memory_space() const = 0;

  // Returns nullptr when the memory cannot be had; never throws. A request of
  // 0 bytes returns a valid, unique pointer.
  virtual void* AllocateRaw(size_t alignment, size_t num_bytes) = 0;
  // `num_bytes` is the size given to AllocateRaw.
  virtual void DeallocateRaw(void* ptr, size_t num_bytes) = 0;

  virtual AllocatorStats GetStats() const = 0;
};

// Host memory from aligned_alloc, with statistics kept in atomics so that
// concurrent runs do not serialize on a lock. A request larger than the
// machine's physical memory gets nullptr without reaching aligned_alloc.
// Memory from AlignedHostAlloc (huge pages for large requests).
class CpuAllocator final : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

// The process-wide host allocator used when no device allocator is given.
Allocator* DefaultCpuAllocator();

// Host buffers of at least this many bytes (weights, their packed copies, a
// graph file read whole, batch-8 activations) are aligned to 2 MiB and
// backed by transparent huge pages where the kernel offers them on request
// (Linux's "madvise" mode, this project's machines' setting, or "always"):
// one page fault instead of 512 when the buffer is first written, and far
// fewer TLB misses when a kernel streams through it; except where
// core/huge_pages.h decides against them (a VM that hands free memory back
// to its host, or WEFT_HUGE_PAGES=0). Smaller buffers are left alone:
// rounding them to whole huge pages would waste memory.
inline constexpr size_t kHugePageMinBytes = size_t{4} << 20;
inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Asks for huge pages over the 2 MiB-aligned part of [ptr, ptr + num_bytes)
// where HugePagesAdvised() (core/huge_pages.h), and asks for none there
// otherwise (so that a kernel set to give them always does not); nothing
// where the platform has no such request. Call it before the buffer is
// first written. Only a hint: the memory works the same whether the kernel
// grants it or not (off, or no huge page free).
void AdviseHugePages(void* ptr, size_t num_bytes);

// aligned_alloc(alignment, num_bytes) under the policy above: requests of at
// least kHugePageMinBytes 2 MiB-aligned, rounded to whole huge pages and
// advised to them; the size rounded up to a multiple of the alignment as
// aligned_alloc requires, 0 bytes giving a real pointer. Free with
// std::free. nullptr when the memory cannot be had or the size wraps.
void* AlignedHostAlloc(size_t alignment, size_t num_bytes);

}  // namespace weft

#endif  // WEFT_CORE_ALLOCATOR_H_
