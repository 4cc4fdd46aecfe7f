#include "core/huge_pages.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace weft {
namespace {

// VIRTIO_BALLOON_F_REPORTING in the virtio specification.
constexpr size_t kFreePageReportingBit = 5;

struct Decision {
  bool advised;
  std::string reason;
};

const Decision& ProcessDecision() {
  static const Decision decision = [] {
    Decision d;
#if defined(__linux__)
    const bool reports = internal::BalloonReportsFreePages("/sys");
#else
    const bool reports = false;
#endif
    d.advised = internal::HugePagesWanted(std::getenv("WEFT_HUGE_PAGES"),
                                          reports, &d.reason);
    return d;
  }();
  return decision;
}

}  // namespace

bool HugePagesAdvised() { return ProcessDecision().advised; }

std::string HugePagesReason() { return ProcessDecision().reason; }

namespace internal {

bool BalloonReportsFreePages(const std::string& sysfs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path driver =
      fs::path(sysfs) / "bus" / "virtio" / "drivers" / "virtio_balloon";
  fs::directory_iterator it(driver, ec);
  if (ec) return false;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return false;
    if (it->path().filename().string().rfind("virtio", 0) != 0) continue;
    std::ifstream in(it->path() / "features");
    std::string bits;
    if (in >> bits && bits.size() > kFreePageReportingBit &&
        bits[kFreePageReportingBit] == '1') {
      return true;
    }
  }
  return false;
}

bool HugePagesWanted(const char* env, bool reports_free_pages,
                     std::string* reason) {
  std::string why;
  bool wanted;
  const std::string v = env != nullptr ? env : "";
  if (v == "0" || v == "off" || v == "false") {
    wanted = false;
    why = "WEFT_HUGE_PAGES=" + v;
  } else if (v == "1" || v == "on" || v == "true") {
    wanted = true;
    why = "WEFT_HUGE_PAGES=" + v;
  } else if (reports_free_pages) {
    wanted = false;
    why =
        "virtio free page reporting: the hypervisor takes back free "
        "memory, and fresh huge pages fault on the host";
  } else {
    wanted = true;
    why = "the default";
  }
  if (reason != nullptr) *reason = why;
  return wanted;
}

}  // namespace internal
}  // namespace weft
