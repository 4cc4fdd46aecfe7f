// A float buffer that the math layer's kernels (conv2d.h's chunks and
// bands, the Winograd convolution's blocks) reuse on a thread call after
// call: a fresh allocation per unit of work would be, at the sizes they use
// (hundreds of KiB), an mmap and its page faults every time.
#ifndef WEFT_KERNELS_CPU_SCRATCH_LEASE_H_
#define WEFT_KERNELS_CPU_SCRATCH_LEASE_H_

#include <cstdint>
#include <memory>

namespace weft {

// At least `count` floats (uninitialized) for the lease's life: the calling
// thread's buffer number `slot`, grown when too small and kept for the
// thread's life. A kernel that holds a buffer for a whole call while its
// units lease their own on the same threads (the calling thread runs units
// too) uses a second slot for it. A nested lease of a busy slot (a TBB
// thread that runs another kernel while it waits inside a ParallelFor)
// gets a buffer of its own, freed with the lease. No locks.
class ScratchLease {
 public:
  static constexpr int kSlots = 2;
  explicit ScratchLease(int64_t count, int slot = 0);
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  float* data() const { return data_; }

  struct Slot;  // a thread's buffer (scratch_lease.cc)

 private:
  Slot* slot_ = nullptr;  // the thread's buffer, when leased
  std::unique_ptr<float[]> own_;
  float* data_ = nullptr;
};

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_SCRATCH_LEASE_H_
