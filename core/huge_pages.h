// Whether weft asks for transparent huge pages for its large host buffers
// (core/allocator.h's AdviseHugePages), decided once per process.
//
// A huge page makes a large buffer's first touch one page fault per 2 MiB
// instead of 512 and spares kernels that stream weights TLB misses. But a
// virtual machine whose balloon device reports free memory to its host
// (virtio free page reporting, VIRTIO_BALLOON_F_REPORTING) hands every free
// 2 MiB block back a few seconds after it is freed, the host discards it,
// and the next touch of such a block faults on the host too. Huge pages are
// made of exactly those blocks, while small pages come first from
// fragments the guest never reported. On such a VM (bench/RESULTS.md
// section 34) a 340 MB model loaded in 0.80-0.91 s on huge pages after 20 s
// idle and in 0.24-0.28 s on small ones, ResNet50's frozen graph (load, a
// first run, exit) in 0.75-0.76 s against 0.30-0.35, while steady runs
// differed by 0-2%.
//
// The decision: WEFT_HUGE_PAGES in the environment when it says 0 or 1
// (also off/on, false/true); otherwise off where a balloon device reports
// free pages, on elsewhere.
#ifndef WEFT_CORE_HUGE_PAGES_H_
#define WEFT_CORE_HUGE_PAGES_H_

#include <string>

namespace weft {

// The decision above, made at the first call (reads the environment and,
// on Linux, a few files under /sys). Thread-safe.
bool HugePagesAdvised();

// Why, for `weft devices`: "WEFT_HUGE_PAGES=0", "virtio free page
// reporting: ...", "the default".
std::string HugePagesReason();

namespace internal {

// Whether a virtio balloon device under `sysfs` (normally "/sys")
// negotiated free page reporting: bit 5 of the `features` file of a
// sysfs/bus/virtio/drivers/virtio_balloon/virtio* device (one '0' or '1'
// per feature bit, bit 0 first). False where there is no such device or
// its files cannot be read.
bool BalloonReportsFreePages(const std::string& sysfs);

// The decision from WEFT_HUGE_PAGES's value (null when unset) and whether
// the machine reports free pages; `reason` (may be null) gets why.
bool HugePagesWanted(const char* env, bool reports_free_pages,
                     std::string* reason);

}  // namespace internal
}  // namespace weft

#endif  // WEFT_CORE_HUGE_PAGES_H_
