#include "core/allocator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "core/huge_pages.h"

namespace weft {
namespace {

void UpdateMax(std::atomic<int64_t>& target, int64_t value) {
  int64_t prev = target.load(std::memory_order_relaxed);
  while (prev < value && !target.compare_exchange_weak(
                             prev, value, std::memory_order_relaxed)) {
  }
}

// The largest single request worth passing on: the machine's physical
// memory. Absurd sizes (a malformed graph's declared shape, an attr of 2^30)
// then fail here with nullptr, which callers turn into an error naming the
// node; passed on, they would reach aligned_alloc, which under
// AddressSanitizer aborts the process instead of returning null.
size_t MaxRequestBytes() {
  static const size_t max_bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return SIZE_MAX;
    return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
  }();
  return max_bytes;
}

}  // namespace

void* CpuAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  if (num_bytes > MaxRequestBytes()) return nullptr;
  void* ptr = AlignedHostAlloc(alignment, num_bytes);
  if (ptr == nullptr) return nullptr;
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  int64_t in_use = bytes_in_use_.fetch_add(static_cast<int64_t>(num_bytes),
                                           std::memory_order_relaxed) +
                   static_cast<int64_t>(num_bytes);
  UpdateMax(peak_bytes_in_use_, in_use);
  UpdateMax(largest_alloc_size_, static_cast<int64_t>(num_bytes));
  return ptr;
}

void CpuAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  bytes_in_use_.fetch_sub(static_cast<int64_t>(num_bytes),
                          std::memory_order_relaxed);
  std::free(ptr);
}

AllocatorStats CpuAllocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_alloc_size_.load(std::memory_order_relaxed);
  return s;
}

void AdviseHugePages(void* ptr, size_t num_bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (ptr == nullptr) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(ptr);
  const uintptr_t first =
      (begin + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  const uintptr_t last = (begin + num_bytes) / kHugePageBytes * kHugePageBytes;
  // The result is ignored on purpose: a kernel without transparent huge
  // pages (or with them off) refuses, and the buffer is as good as before.
  if (first < last) {
    (void)madvise(reinterpret_cast<void*>(first), last - first,
                  HugePagesAdvised() ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  }
#else
  (void)ptr;
  (void)num_bytes;
#endif
}

void* AlignedHostAlloc(size_t alignment, size_t num_bytes) {
  alignment = std::max(alignment, sizeof(void*));
  const bool huge = num_bytes >= kHugePageMinBytes;
  if (huge) alignment = std::max(alignment, kHugePageBytes);
  const size_t rounded =
      (std::max<size_t>(num_bytes, 1) + alignment - 1) / alignment * alignment;
  if (rounded < num_bytes) return nullptr;  // wrapped around
  void* ptr = std::aligned_alloc(alignment, rounded);
  if (ptr != nullptr && huge) AdviseHugePages(ptr, rounded);
  return ptr;
}

Allocator* DefaultCpuAllocator() {
  static CpuAllocator* allocator = new CpuAllocator;
  return allocator;
}

}  // namespace weft
