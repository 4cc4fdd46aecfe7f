// Limits the fuzz targets parse with. Constant fills (a Const of shape
// [1e6, 1e6] given one value) are allowed 1 GiB by default; the targets
// lower that to 16 MiB so that each input runs in milliseconds and within
// libFuzzer's memory limit. The check itself, that a declared size is held
// against a bound before anything is allocated, is what they exercise.
#ifndef WEFT_FUZZ_FUZZ_OPTIONS_H_
#define WEFT_FUZZ_FUZZ_OPTIONS_H_

#include <cstdint>

#include "graph/graph_def_io.h"

namespace weft::fuzz {

inline GraphParseOptions FuzzParseOptions() {
  GraphParseOptions options;
  options.tensor.max_filled_bytes = int64_t{16} << 20;
  return options;
}

}  // namespace weft::fuzz

#endif  // WEFT_FUZZ_FUZZ_OPTIONS_H_
