// Precompiled for every C++ source of libweft (WEFT_PRECOMPILE_HEADERS).
// Third-party and standard headers only, the ones nearly every source pulls
// in through core/: parsing Eigen/Core, absl and the standard library took
// about 1 s of each source's compile, more than the code of most of them.
// No weft header goes here: a source must still include what it uses, and a
// build with WEFT_PRECOMPILE_HEADERS=OFF checks that it does.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
