// Fuzz target: a text GraphDef (.pbtxt) through parsing, import, shape
// inference and serialization (fuzz/graph_pipeline.h).
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_options.h"
#include "fuzz/graph_pipeline.h"
#include "graph/graph_def_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text(reinterpret_cast<const char*>(data), size);
  weft::StatusOr<weft::GraphDef> def = weft::ParseTextGraphDef(
      text, "fuzz.pbtxt", weft::fuzz::FuzzParseOptions());
  if (def.ok()) weft::fuzz::RunGraphPipeline(*def);
  return 0;
}
