// Reading and writing graph files in TensorFlow's GraphDef wire format, binary
// (.pb) or text (.pbtxt), with no TensorFlow installed.
//
// Every error names its source first ("model.pb: node 'c' (Const): attr
// 'value': ..."), and text syntax errors give line and column
// ("model.pbtxt:12:5: ..."). Malformed input of any kind yields an error,
// never a crash or an allocation the file's own bytes do not justify.
#ifndef WEFT_GRAPH_GRAPH_DEF_IO_H_
#define WEFT_GRAPH_GRAPH_DEF_IO_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "graph/graph_def.h"
#include "graph/tensor_proto.h"

namespace weft {

enum class GraphFormat { kBinary, kText };

// "binary" or "text".
absl::string_view GraphFormatName(GraphFormat format);

struct GraphParseOptions {
  // Limits on decoding the tensors in the file (Const values and other
  // tensor attrs); see graph/tensor_proto.h.
  TensorDecodeOptions tensor;
};

// The format a file name implies: .pbtxt, .pbtext, .txt and .textproto are
// text; .pb, .graphdef and .bin are binary; anything else is nullopt.
std::optional<GraphFormat> GraphFormatFromPath(absl::string_view path);

// Guesses the format from the content: text when the leading bytes are all
// printable characters or whitespace (a binary GraphDef has control bytes
// among its first few: field tags and lengths), binary otherwise.
GraphFormat DetectGraphFormat(absl::string_view bytes);

// Reads and parses a graph file. The extension picks the format; when the
// content parses only as the other format (a text graph named .pb), that one
// is used. Unknown extensions are sniffed with DetectGraphFormat. Files up to
// protobuf's 2 GiB message limit load; an empty file is an error.
StatusOr<GraphDef> LoadGraphDef(const std::string& path,
                                const GraphParseOptions& options = {});

// Parses an in-memory graph in either format (DetectGraphFormat decides).
// `source_name` starts every error message (a file name, "<memory>", ...).
StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes,
                                 absl::string_view source_name,
                                 const GraphParseOptions& options = {});
StatusOr<GraphDef> ParseBinaryGraphDef(absl::string_view bytes,
                                       absl::string_view source_name,
                                       const GraphParseOptions& options = {});
StatusOr<GraphDef> ParseTextGraphDef(absl::string_view text,
                                     absl::string_view source_name,
                                     const GraphParseOptions& options = {});

// Writes `graph` in `format`. Output is deterministic (map entries sorted), so
// equal graphs serialize to equal bytes. Fails when a tensor cannot be
// encoded (device memory, an uninitialized tensor) or the binary encoding
// would pass protobuf's 2 GiB limit.
StatusOr<std::string> SerializeGraphDef(const GraphDef& graph,
                                        GraphFormat format);
Status SaveGraphDef(const GraphDef& graph, const std::string& path,
                    GraphFormat format);

}  // namespace weft

#endif  // WEFT_GRAPH_GRAPH_DEF_IO_H_
