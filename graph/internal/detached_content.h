// Large tensor payloads cut out of a binary GraphDef before protobuf parses
// it.
//
// A frozen graph is mostly Const nodes' tensor_content. Parsed as it stands,
// protobuf copies each payload into a std::string, and the loader copies it
// again into a 64-byte-aligned Tensor: two writes of every weight byte, and
// the pages of the first copy are faulted in only to be freed. Cut out
// first, each payload is copied once, from the file's bytes into its Tensor.
//
// Internal to graph/.
#ifndef WEFT_GRAPH_INTERNAL_DETACHED_CONTENT_H_
#define WEFT_GRAPH_INTERNAL_DETACHED_CONTENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/allocator.h"

namespace weft::graph_internal {

// The tensor_content of GraphDef.node[node].attr[entry].value.tensor (the
// entry counted among the node's attr entries in file order).
struct DetachedContent {
  int node;
  int entry;
  absl::string_view bytes;  // in the bytes given to DetachTensorContents
  // Where the tensor's buffer comes from (the loader's slab,
  // core/slab_allocator.h); null: the default CPU allocator.
  Allocator* allocator = nullptr;
};

// Payloads below this stay in place: cutting them out saves little.
inline constexpr size_t kMinDetachedContentBytes = 4096;

// Writes `graph_def` (binary wire format) to `rest` without the tensor_content
// fields of at least `min_bytes` bytes along node[].attr[].value.tensor, and
// lists those payloads in `detached`, ordered by (node, entry). Parsing
// `rest` gives the same messages as parsing `graph_def` except that those
// TensorProtos have no tensor_content.
//
// A payload is cut out only where protobuf's reading is unambiguous: the
// attr entry holds one value, the AttrValue holds only that tensor, the
// TensorProto one tensor_content. Returns false, leaving the outputs empty,
// when nothing qualifies or the bytes on that path are not well-formed wire
// format; the caller then parses `graph_def` itself (and protobuf reports any
// error).
bool DetachTensorContents(absl::string_view graph_def, size_t min_bytes,
                          std::string* rest,
                          std::vector<DetachedContent>* detached);

// The payloads of one node, in entry order: a cursor the attr conversion
// advances as it walks the node's entries.
class NodeDetachedContents {
 public:
  NodeDetachedContents() = default;
  explicit NodeDetachedContents(absl::Span<const DetachedContent> node)
      : node_(node) {}
  // The payload cut out of entry `entry`, or nullptr; entries are asked for
  // in increasing order.
  const DetachedContent* Take(int entry) {
    while (!node_.empty() && node_.front().entry < entry) {
      node_.remove_prefix(1);
    }
    return !node_.empty() && node_.front().entry == entry ? &node_.front()
                                                          : nullptr;
  }

 private:
  absl::Span<const DetachedContent> node_;
};

// The payloads of node `node` within `all` (as DetachTensorContents ordered
// them), starting the search at `*cursor` and leaving it past them.
NodeDetachedContents DetachedContentsOf(absl::Span<const DetachedContent> all,
                                        int node, size_t* cursor);

}  // namespace weft::graph_internal

#endif  // WEFT_GRAPH_INTERNAL_DETACHED_CONTENT_H_
