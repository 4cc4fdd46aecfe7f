#include "graph/internal/detached_content.h"

#include <cstdint>

#include "graph/internal/wire_fields.h"

namespace weft::graph_internal {
namespace {

// The schema's field numbers along the path to a tensor's payload.
constexpr uint32_t kGraphDefNode = 1;
constexpr uint32_t kNodeDefAttr = 5;
constexpr uint32_t kAttrEntryValue = 2;
constexpr uint32_t kAttrValueTensor = 8;
constexpr uint32_t kTensorProtoContent = 4;

// The one field of `message` that `pick` accepts, when exactly one does and
// the message is well-formed.
template <typename Pick>
bool SoleField(absl::string_view message, Pick pick, WireField* found) {
  WireFieldReader reader(message);
  WireField f;
  int count = 0;
  while (reader.Next(&f)) {
    if (pick(f)) {
      *found = f;
      ++count;
    }
  }
  return !reader.malformed() && count == 1;
}

// `message` with its field `cut` (one of its own, by position) left out and,
// when `replacement` is given, that message field in its place.
void CopyExcept(absl::string_view message, const WireField& cut,
                const absl::string_view* replacement, std::string* out) {
  WireFieldReader reader(message);
  WireField f;
  while (reader.Next(&f)) {
    if (f.whole.data() != cut.whole.data()) {
      out->append(f.whole.data(), f.whole.size());
    } else if (replacement != nullptr) {
      AppendLengthDelimited(f.number, *replacement, out);
    }
  }
}

// An attr entry whose value is only a tensor with one large tensor_content:
// writes the entry without the payload to `out` and returns the payload.
bool CutEntry(absl::string_view entry, size_t min_bytes, std::string* out,
              absl::string_view* payload) {
  WireField value, tensor, content;
  if (!SoleField(
          entry, [](const WireField& f) { return f.number == kAttrEntryValue; },
          &value) ||
      !value.IsLengthDelimited()) {
    return false;
  }
  // An AttrValue is a oneof: a tensor alone, or the last member wins.
  if (!SoleField(
          value.payload, [](const WireField&) { return true; }, &tensor) ||
      !tensor.Is(kAttrValueTensor)) {
    return false;
  }
  if (!SoleField(
          tensor.payload,
          [](const WireField& f) { return f.number == kTensorProtoContent; },
          &content) ||
      !content.Is(kTensorProtoContent) || content.payload.size() < min_bytes) {
    return false;
  }
  std::string rest_of_tensor;
  CopyExcept(tensor.payload, content, nullptr, &rest_of_tensor);
  std::string rest_of_value;
  AppendLengthDelimited(kAttrValueTensor, rest_of_tensor, &rest_of_value);
  const absl::string_view rewritten(rest_of_value);
  CopyExcept(entry, value, &rewritten, out);
  *payload = content.payload;
  return true;
}

// Writes node `index` to `out` with its large payloads cut out, listing them
// in `detached`. False (and nothing listed) when nothing was cut or the node
// is malformed: the caller copies it as it is.
bool CutNode(absl::string_view node, int index, size_t min_bytes,
             std::string* out, std::vector<DetachedContent>* detached) {
  const size_t listed = detached->size();
  WireFieldReader reader(node);
  WireField f;
  int entry = 0;
  std::string rewritten;
  while (reader.Next(&f)) {
    absl::string_view payload;
    rewritten.clear();
    if (f.Is(kNodeDefAttr) &&
        CutEntry(f.payload, min_bytes, &rewritten, &payload)) {
      AppendLengthDelimited(kNodeDefAttr, rewritten, out);
      detached->push_back({index, entry, payload});
    } else {
      out->append(f.whole.data(), f.whole.size());
    }
    if (f.Is(kNodeDefAttr)) ++entry;
  }
  if (reader.malformed() || detached->size() == listed) {
    detached->resize(listed);
    return false;
  }
  return true;
}

}  // namespace

bool DetachTensorContents(absl::string_view graph_def, size_t min_bytes,
                          std::string* rest,
                          std::vector<DetachedContent>* detached) {
  rest->clear();
  detached->clear();
  WireFieldReader reader(graph_def);
  WireField f;
  int node = 0;
  std::string rewritten;
  while (reader.Next(&f)) {
    rewritten.clear();
    if (f.Is(kGraphDefNode) &&
        CutNode(f.payload, node, min_bytes, &rewritten, detached)) {
      AppendLengthDelimited(kGraphDefNode, rewritten, rest);
    } else {
      rest->append(f.whole.data(), f.whole.size());
    }
    if (f.Is(kGraphDefNode)) ++node;
  }
  if (reader.malformed() || detached->empty()) {
    rest->clear();
    detached->clear();
    return false;
  }
  return true;
}

NodeDetachedContents DetachedContentsOf(absl::Span<const DetachedContent> all,
                                        int node, size_t* cursor) {
  size_t begin = *cursor;
  while (begin < all.size() && all[begin].node < node) ++begin;
  size_t end = begin;
  while (end < all.size() && all[end].node == node) ++end;
  *cursor = end;
  return NodeDetachedContents(all.subspan(begin, end - begin));
}

}  // namespace weft::graph_internal
