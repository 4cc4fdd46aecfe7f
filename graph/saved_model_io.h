// Parsing saved_model.pb / saved_model.pbtxt and TensorBundle index values,
// with no TensorFlow installed. Errors start with `source_name` and name
// what is wrong ("saved_model.pb: meta_graphs[0]: signature
// 'serving_default': input 'x': dtype 99 is not a known TensorFlow
// DataType"); malformed bytes give an error, never a crash.
#ifndef WEFT_GRAPH_SAVED_MODEL_IO_H_
#define WEFT_GRAPH_SAVED_MODEL_IO_H_

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "graph/graph_def_io.h"
#include "graph/saved_model_def.h"

namespace weft {

// A SavedModel in either format: text when DetectGraphFormat says so (a
// saved_model.pbtxt), else binary. Fields weft does not read (the object
// graph, Any payloads) are skipped in both formats.
StatusOr<SavedModelDef> ParseSavedModel(absl::string_view bytes,
                                        absl::string_view source_name,
                                        const GraphParseOptions& options = {},
                                        const SavedModelParseScope& scope = {});

// The serialized TrackableObjectGraph a TF2 checkpoint stores under
// "_CHECKPOINTABLE_OBJECT_GRAPH".
StatusOr<TrackableObjects> ParseTrackableObjectGraph(absl::string_view bytes);

// The value stored under the index's empty key.
StatusOr<BundleHeader> ParseBundleHeader(absl::string_view bytes);

// The value stored under a tensor's key. The shape must be fully known and
// its element count fit TensorShape's limits; offset and size must not be
// negative. Errors say what is wrong without naming the key (the caller
// does).
StatusOr<BundleEntry> ParseBundleEntry(absl::string_view bytes);

}  // namespace weft

#endif  // WEFT_GRAPH_SAVED_MODEL_IO_H_
