#include "core/slab_allocator.h"

#include <algorithm>
#include <cstdlib>

namespace weft {

SlabAllocator* SlabAllocator::Create(size_t capacity, Allocator* fallback) {
  char* base = nullptr;
  if (capacity > 0) {
    base = static_cast<char*>(AlignedHostAlloc(kTensorAlignment, capacity));
  }
  return new SlabAllocator(base, base != nullptr ? capacity : 0, fallback);
}

size_t SlabAllocator::Footprint(size_t bytes) {
  return (std::max<size_t>(bytes, 1) + kTensorAlignment - 1) /
         kTensorAlignment * kTensorAlignment;
}

SlabAllocator::~SlabAllocator() { std::free(base_); }

void SlabAllocator::Release() { Unref(); }

void SlabAllocator::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void* SlabAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  const size_t size = Footprint(num_bytes);
  if (alignment <= kTensorAlignment && size <= capacity_ - used_) {
    void* p = base_ + used_;
    used_ += size;
    ++num_allocs_;
    refs_.fetch_add(1, std::memory_order_relaxed);
    return p;
  }
  return fallback_->AllocateRaw(alignment, num_bytes);
}

void SlabAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  char* p = static_cast<char*>(ptr);
  if (base_ != nullptr && p >= base_ && p < base_ + capacity_) {
    Unref();
  } else {
    fallback_->DeallocateRaw(ptr, num_bytes);
  }
}

AllocatorStats SlabAllocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_;
  s.bytes_in_use = static_cast<int64_t>(used_);
  s.peak_bytes_in_use = static_cast<int64_t>(used_);
  s.bytes_reserved = static_cast<int64_t>(capacity_);
  s.peak_bytes_reserved = static_cast<int64_t>(capacity_);
  return s;
}

}  // namespace weft
