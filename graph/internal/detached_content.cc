#include "graph/internal/detached_content.h"

#include <climits>
#include <cstdint>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace weft::graph_internal {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// The schema's field numbers along the path to a tensor's payload.
constexpr uint32_t kGraphDefNode = 1;
constexpr uint32_t kNodeDefAttr = 5;
constexpr uint32_t kAttrEntryValue = 2;
constexpr uint32_t kAttrValueTensor = 8;
constexpr uint32_t kTensorProtoContent = 4;

// One field on the wire: its whole encoding and, when length-delimited, its
// payload.
struct Field {
  uint32_t number = 0;
  WireFormatLite::WireType type = WireFormatLite::WIRETYPE_VARINT;
  absl::string_view whole;
  absl::string_view payload;

  bool IsMessage(uint32_t n) const {
    return number == n && type == WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
  }
};

// Walks a message's fields in order. Stops at the end, or at bytes that are
// not a field (malformed() then says so). Groups count as malformed: no
// graph writer emits them, and protobuf still parses such a file itself.
class FieldReader {
 public:
  explicit FieldReader(absl::string_view bytes)
      : bytes_(bytes),
        in_(reinterpret_cast<const uint8_t*>(bytes.data()),
            static_cast<int>(bytes.size())) {}

  bool Next(Field* field) {
    const int start = in_.CurrentPosition();
    if (static_cast<size_t>(start) == bytes_.size()) return false;
    const uint32_t tag = in_.ReadTag();
    if (WireFormatLite::GetTagFieldNumber(tag) == 0) return Fail();
    field->number = WireFormatLite::GetTagFieldNumber(tag);
    field->type = WireFormatLite::GetTagWireType(tag);
    field->payload = absl::string_view();
    switch (field->type) {
      case WireFormatLite::WIRETYPE_VARINT: {
        uint64_t v;
        if (!in_.ReadVarint64(&v)) return Fail();
        break;
      }
      case WireFormatLite::WIRETYPE_FIXED64:
        if (!in_.Skip(8)) return Fail();
        break;
      case WireFormatLite::WIRETYPE_FIXED32:
        if (!in_.Skip(4)) return Fail();
        break;
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        uint32_t length;
        if (!in_.ReadVarint32(&length) || length > INT_MAX) return Fail();
        const int at = in_.CurrentPosition();
        if (!in_.Skip(static_cast<int>(length))) return Fail();
        field->payload = bytes_.substr(at, length);
        break;
      }
      default:
        return Fail();
    }
    field->whole = bytes_.substr(start, in_.CurrentPosition() - start);
    return true;
  }

  bool malformed() const { return malformed_; }

 private:
  bool Fail() {
    malformed_ = true;
    return false;
  }

  absl::string_view bytes_;
  CodedInputStream in_;
  bool malformed_ = false;
};

void AppendMessageField(uint32_t number, absl::string_view payload,
                        std::string* out) {
  uint8_t head[10];
  uint8_t* end = CodedOutputStream::WriteVarint32ToArray(
      WireFormatLite::MakeTag(number,
                              WireFormatLite::WIRETYPE_LENGTH_DELIMITED),
      head);
  end = CodedOutputStream::WriteVarint32ToArray(
      static_cast<uint32_t>(payload.size()), end);
  out->append(reinterpret_cast<const char*>(head), end - head);
  out->append(payload.data(), payload.size());
}

// The one field of `message` that `pick` accepts, when exactly one does and
// the message is well-formed; nullptr otherwise.
template <typename Pick>
bool SoleField(absl::string_view message, Pick pick, Field* found) {
  FieldReader reader(message);
  Field f;
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
void CopyExcept(absl::string_view message, const Field& cut,
                const absl::string_view* replacement, std::string* out) {
  FieldReader reader(message);
  Field f;
  while (reader.Next(&f)) {
    if (f.whole.data() != cut.whole.data()) {
      out->append(f.whole.data(), f.whole.size());
    } else if (replacement != nullptr) {
      AppendMessageField(f.number, *replacement, out);
    }
  }
}

// An attr entry whose value is only a tensor with one large tensor_content:
// writes the entry without the payload to `out` and returns the payload.
bool CutEntry(absl::string_view entry, size_t min_bytes, std::string* out,
              absl::string_view* payload) {
  Field value, tensor, content;
  if (!SoleField(
          entry, [](const Field& f) { return f.number == kAttrEntryValue; },
          &value) ||
      value.type != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
    return false;
  }
  // An AttrValue is a oneof: a tensor alone, or the last member wins.
  if (!SoleField(
          value.payload, [](const Field&) { return true; }, &tensor) ||
      !tensor.IsMessage(kAttrValueTensor)) {
    return false;
  }
  if (!SoleField(
          tensor.payload,
          [](const Field& f) { return f.number == kTensorProtoContent; },
          &content) ||
      !content.IsMessage(kTensorProtoContent) ||
      content.payload.size() < min_bytes) {
    return false;
  }
  std::string rest_of_tensor;
  CopyExcept(tensor.payload, content, nullptr, &rest_of_tensor);
  std::string rest_of_value;
  AppendMessageField(kAttrValueTensor, rest_of_tensor, &rest_of_value);
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
  FieldReader reader(node);
  Field f;
  int entry = 0;
  std::string rewritten;
  while (reader.Next(&f)) {
    absl::string_view payload;
    rewritten.clear();
    if (f.IsMessage(kNodeDefAttr) &&
        CutEntry(f.payload, min_bytes, &rewritten, &payload)) {
      AppendMessageField(kNodeDefAttr, rewritten, out);
      detached->push_back({index, entry, payload});
    } else {
      out->append(f.whole.data(), f.whole.size());
    }
    if (f.IsMessage(kNodeDefAttr)) ++entry;
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
  if (graph_def.size() > static_cast<size_t>(INT_MAX)) return false;
  FieldReader reader(graph_def);
  Field f;
  int node = 0;
  std::string rewritten;
  while (reader.Next(&f)) {
    rewritten.clear();
    if (f.IsMessage(kGraphDefNode) &&
        CutNode(f.payload, node, min_bytes, &rewritten, detached)) {
      AppendMessageField(kGraphDefNode, rewritten, rest);
    } else {
      rest->append(f.whole.data(), f.whole.size());
    }
    if (f.IsMessage(kGraphDefNode)) ++node;
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
