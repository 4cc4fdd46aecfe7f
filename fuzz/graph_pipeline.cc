#include "fuzz/graph_pipeline.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"

namespace weft::fuzz {
namespace {

// A broken invariant: say which and stop, so that libFuzzer keeps the input.
[[noreturn]] void Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "weft fuzz: %s: %s\n", what, s.ToString().c_str());
  std::abort();
}

// What weft writes, it must read back.
void CheckRoundTrip(const GraphDef& def, GraphFormat format) {
  StatusOr<std::string> bytes = SerializeGraphDef(def, format);
  if (!bytes.ok()) return;  // e.g. past protobuf's 2 GiB: refused, fine
  StatusOr<GraphDef> again = format == GraphFormat::kBinary
                                 ? ParseBinaryGraphDef(*bytes, "fuzz-roundtrip")
                                 : ParseTextGraphDef(*bytes, "fuzz-roundtrip");
  if (!again.ok())
    Fail("a serialized graph does not parse back", again.status());
}

}  // namespace

void RunGraphPipeline(const GraphDef& def) {
  ImportOptions io;
  io.source_name = "fuzz";
  (void)DiagnoseGraphDef(def, io);
  StatusOr<std::unique_ptr<Graph>> graph = ImportGraphDef(def, io);
  if (graph.ok()) {
    ShapeInferenceOptions so;
    so.source_name = "fuzz";
    (void)InferShapes(graph->get(), so);
  }
  CheckRoundTrip(def, GraphFormat::kBinary);
  CheckRoundTrip(def, GraphFormat::kText);
}

}  // namespace weft::fuzz
