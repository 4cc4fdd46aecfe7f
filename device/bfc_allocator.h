// BfcAllocator: a caching allocator, best fit with coalescing, for tensor
// buffers. It takes large regions from a SubAllocator (the host's mmap; the
// CUDA device has its own stream-ordered pool), carves them into chunks, and
// keeps freed chunks for reuse instead of giving them back, so that a session's
// second run finds the pages its first run touched and pays no page faults or
// system calls.
//
//   BfcAllocator allocator(std::make_unique<HostSubAllocator>(), {});
//   void* p = allocator.AllocateRaw(kTensorAlignment, 1 << 20);
//   allocator.DeallocateRaw(p, 1 << 20);
//
// How it works, in short:
//  * Every region is a list of address-ordered chunks, each either in use or
//    free. An allocation takes the smallest free chunk that fits (best fit),
//    splitting off the tail when enough is left over; a deallocation merges
//    the chunk with free neighbours (coalescing), so that freeing two
//    adjacent buffers gives one chunk as large as both.
//  * Free chunks sit in size bins (four per power of two) with a bitmap of
//    non-empty bins, so a search looks at one or two bins only.
//  * When no free chunk fits, a new region is reserved: at least the
//    request, and otherwise twice the previous region, up to a cap, so the
//    number of regions stays logarithmic in the memory a workload needs.
//  * A freed chunk of up to 64 granules (4 KiB for the host's 64-byte
//    granule) is kept whole, up to 8 per size, for the next request of
//    exactly its size: the tensors of a loop's body or of a batch-1 network
//    come back every iteration at the same sizes, and reusing one skips the
//    search, the split, the coalescing and both hash-map updates. Kept
//    chunks go back to the bins when a request finds no free chunk, and
//    before regions are released.
//  * Requests below `Options::small_size_threshold` (0 by default, see
//    HostCachingAllocatorOptions) can be sent to malloc instead.
//  * Under AddressSanitizer free chunks are poisoned, so reading a freed
//    tensor is still reported although its memory stays mapped.
//
// Thread-safe; one mutex guards the chunk structures. The critical section
// is a bin lookup, a hash-map update and a few pointer writes: an alloc/free
// pair costs about 50 ns on one thread and the same on each of two threads
// hammering it at once (bench/allocator_bench.cc), so no per-thread cache.
#ifndef WEFT_DEVICE_BFC_ALLOCATOR_H_
#define WEFT_DEVICE_BFC_ALLOCATOR_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "core/allocator.h"

namespace weft {

// Where a BfcAllocator's regions come from: a backend that hands out few,
// large blocks and takes them back whole. Implementations must be
// thread-safe only as far as BfcAllocator calls them under its lock, i.e.
// not at all.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;

  // A block of `num_bytes` aligned to at least `alignment` (a power of two no
  // larger than a page), or nullptr when the memory cannot be had.
  virtual void* Alloc(size_t alignment, size_t num_bytes) = 0;
  // Takes back a block from Alloc; `num_bytes` is the size asked for.
  virtual void Free(void* ptr, size_t num_bytes) = 0;

  virtual MemorySpace memory_space() const = 0;
};

// Host memory straight from the kernel with mmap: page-aligned, handed back
// with munmap when a region is released, and never touched by malloc's own
// caching.
class HostSubAllocator final : public SubAllocator {
 public:
  // `huge_pages` aligns blocks of 2 MiB and more to 2 MiB and asks for
  // transparent huge pages (madvise), which makes the first touch of a block
  // up to several times cheaper. Off by default: where the system compacts
  // memory to find huge pages (defrag = madvise), a first touch can stall
  // for hundreds of milliseconds (measured: 376 ms for 64 MiB once, against
  // 50 ms with small pages), and a cached block costs the same either way.
  explicit HostSubAllocator(bool huge_pages = false)
      : huge_pages_(huge_pages) {}
  void* Alloc(size_t alignment, size_t num_bytes) override;
  void Free(void* ptr, size_t num_bytes) override;
  MemorySpace memory_space() const override { return MemorySpace::kHost; }

 private:
  const bool huge_pages_;
};

class BfcAllocator final : public Allocator {
 public:
  struct Options {
    // Name() of the allocator, for messages.
    std::string name = "bfc";
    // The most bytes reserved from the backend (regions) plus bytes of live
    // small allocations; 0 for no limit. An allocation that would go beyond
    // it, even after cached regions are released, returns nullptr.
    int64_t memory_limit = 0;
    // Size of the first region; later ones double up to
    // `max_region_bytes`. A request larger than the region gets a region of
    // its own size (rounded up to 2 MiB).
    size_t initial_region_bytes = size_t{2} << 20;
    size_t max_region_bytes = size_t{1} << 30;
    // Requests smaller than this many bytes are served by malloc (and count
    // in the statistics and against the limit). 0 sends everything through
    // the regions; a device backend must use 0, as its memory is not the
    // host's.
    size_t small_size_threshold = 0;
    // Every chunk starts at a multiple of this (a power of two >= 64, at
    // most a page); AllocateRaw fails for a larger alignment.
    size_t granule = kTensorAlignment;
  };

  BfcAllocator(std::unique_ptr<SubAllocator> backend, Options options);
  // Every allocation must have been deallocated (checked): the memory goes
  // back to the backend here. Owners whose allocations may outlive them use
  // Close() instead.
  ~BfcAllocator() override;

  BfcAllocator(const BfcAllocator&) = delete;
  BfcAllocator& operator=(const BfcAllocator&) = delete;

  std::string Name() const override { return options_.name; }
  MemorySpace memory_space() const override { return backend_->memory_space(); }
  // nullptr when `alignment` exceeds the granule, when the size cannot be
  // had from the backend, or when it would pass the memory limit. A request
  // of 0 bytes returns a unique pointer.
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;

  // Gives every region with no allocation in it back to the backend and
  // returns the bytes released. Memory in use stays where it is.
  size_t ReleaseCached();

  // Ends the owner's use of a heap-allocated allocator: cached regions go
  // back to the backend now, the others as soon as their last allocation is
  // deallocated, and the allocator deletes itself once nothing allocated
  // from it is left (at once when nothing is). Tensors allocated from it
  // therefore stay valid after their session is gone. No allocation may be
  // made after Close().
  void Close();

  // Regions currently reserved from the backend.
  int num_regions() const;

 private:
  struct Region;
  struct Chunk {
    char* ptr = nullptr;
    size_t size = 0;       // a multiple of the granule
    size_t requested = 0;  // what AllocateRaw was asked for; 0 when free
    bool in_use = false;   // true too while kept for reuse
    bool reused = false;   // kept for reuse (in reuse_, linked by bin_next)
    int bin = -1;          // the bin holding it while free, else -1
    Region* region = nullptr;
    // Address neighbours within the region.
    Chunk* prev = nullptr;
    Chunk* next = nullptr;
    // Links in the free list of its bin, or in the spare list.
    Chunk* bin_prev = nullptr;
    Chunk* bin_next = nullptr;
  };
  struct Region {
    char* base = nullptr;
    size_t size = 0;
    Chunk* first = nullptr;
  };

  // Four bins per power of two from the granule up: sizes in bin b differ
  // by less than 25%, so best fit within a bin is a short scan.
  static constexpr int kNumBins = 4 * 64;

  int BinIndex(size_t size) const;
  void InsertFree(Chunk* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemoveFree(Chunk* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Chunk* FindBestFit(size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Takes free chunk `c` out of its bin for an allocation of `size` bytes,
  // splitting off the tail when enough is left over.
  void TakeFree(Chunk* c, size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Makes allocated chunk `c` (no longer in in_use_) free: merged with
  // free neighbours and binned, or its region freed after Close().
  void Release(Chunk* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Releases every chunk kept for reuse; returns how many there were.
  size_t FlushReuseLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Grow(size_t size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FreeRegion(Region* region) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  size_t ReleaseCachedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Chunk* NewChunk() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DeleteChunk(Chunk* c) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void* AllocateSmall(size_t num_bytes);
  void DeallocateSmall(void* ptr, size_t num_bytes);
  // Bytes held from the system: regions and live small allocations. What
  // the limit is checked against.
  int64_t ReservedBytes() const;
  // Drops one reference (an allocation or the owner's); the last deletes.
  void Unref();

  const std::unique_ptr<SubAllocator> backend_;
  const Options options_;

  // std::mutex rather than absl::Mutex: Debian's abseil is built with
  // deadlock detection, which made absl::Mutex 60% of an allocation.
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Region>> regions_ ABSL_GUARDED_BY(mu_);
  std::array<Chunk*, kNumBins> bins_ ABSL_GUARDED_BY(mu_) = {};
  // Bit b set when bins_[b] is non-empty.
  std::array<uint64_t, kNumBins / 64> nonempty_ ABSL_GUARDED_BY(mu_) = {};
  absl::flat_hash_map<const void*, Chunk*> in_use_ ABSL_GUARDED_BY(mu_);
  Chunk* spare_chunks_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Freed chunks kept whole for reuse, by size in granules (index 0 is
  // never used); at most kReusePerSize each.
  static constexpr size_t kReuseSizes = 65;  // up to 64 granules
  static constexpr int kReusePerSize = 8;
  std::array<Chunk*, kReuseSizes> reuse_ ABSL_GUARDED_BY(mu_) = {};
  std::array<uint8_t, kReuseSizes> reuse_count_ ABSL_GUARDED_BY(mu_) = {};
  size_t next_region_bytes_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // Statistics of the region path, kept under the lock it holds anyway:
  // atomics would add read-modify-writes to every allocation.
  int64_t num_allocs_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t bytes_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t peak_bytes_in_use_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t largest_alloc_size_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t peak_bytes_reserved_ ABSL_GUARDED_BY(mu_) = 0;
  // Copies of region_bytes and bytes_in_use_ for the small path, which
  // reads them without the lock; stored (not incremented) under mu_.
  std::atomic<int64_t> region_bytes_{0};
  std::atomic<int64_t> region_in_use_{0};

  // The small path takes no lock: its statistics are atomics that GetStats
  // merges with the others. Each path's peaks count the other path's bytes
  // as they stand when the peak is updated.
  std::atomic<int64_t> small_num_allocs_{0};
  std::atomic<int64_t> small_in_use_{0};  // bytes requested
  std::atomic<int64_t> small_bytes_{0};   // bytes taken from malloc
  std::atomic<int64_t> small_peak_in_use_{0};
  std::atomic<int64_t> small_peak_reserved_{0};
  std::atomic<int64_t> small_largest_{0};
  // One per live allocation, plus one for an owner that has not closed.
  std::atomic<int64_t> refs_{1};
};

// The options of the host allocator a session makes for its CPU device
// (SessionOptions::cache_host_memory), before the session sets its name and
// limit; the kernel benchmarks use the same so that they time what a session
// does.
BfcAllocator::Options HostCachingAllocatorOptions();

}  // namespace weft

#endif  // WEFT_DEVICE_BFC_ALLOCATOR_H_
