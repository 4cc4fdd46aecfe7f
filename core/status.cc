#include "core/status.h"

namespace weft {

Status AddContext(const Status& status, absl::string_view context) {
  if (status.ok() || context.empty()) return status;
  Status out(status.code(), absl::StrCat(context, ": ", status.message()));
  status.ForEachPayload([&out](absl::string_view url, const absl::Cord& p) {
    out.SetPayload(url, p);
  });
  return out;
}

}  // namespace weft
