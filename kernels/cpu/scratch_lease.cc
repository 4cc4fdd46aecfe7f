#include "kernels/cpu/scratch_lease.h"

namespace weft {

struct ScratchLease::Slot {
  std::unique_ptr<float[]> data;
  int64_t capacity = 0;
  bool busy = false;
};

namespace {
thread_local ScratchLease::Slot tls_slots[ScratchLease::kSlots];
}  // namespace

ScratchLease::ScratchLease(int64_t count, int slot_index) {
  Slot& slot = tls_slots[slot_index];
  if (slot.busy) {
    own_.reset(new float[count]);
    data_ = own_.get();
    return;
  }
  if (slot.capacity < count) {
    slot.data.reset(new float[count]);
    slot.capacity = count;
  }
  slot.busy = true;
  slot_ = &slot;
  data_ = slot.data.get();
}

ScratchLease::~ScratchLease() {
  if (slot_ != nullptr) slot_->busy = false;
}

}  // namespace weft
