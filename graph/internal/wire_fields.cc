#include "graph/internal/wire_fields.h"

#include <climits>

namespace weft::graph_internal {

using google::protobuf::internal::WireFormatLite;

WireFieldReader::WireFieldReader(absl::string_view bytes)
    : bytes_(bytes),
      in_(reinterpret_cast<const uint8_t*>(bytes.data()),
          static_cast<int>(std::min<size_t>(bytes.size(), INT_MAX))) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) malformed_ = true;
}

bool WireFieldReader::Next(WireField* field) {
  if (malformed_) return false;
  const int start = in_.CurrentPosition();
  if (static_cast<size_t>(start) == bytes_.size()) return false;
  const uint32_t tag = in_.ReadTag();
  if (WireFormatLite::GetTagFieldNumber(tag) == 0) return Fail();
  field->number = WireFormatLite::GetTagFieldNumber(tag);
  field->type = WireFormatLite::GetTagWireType(tag);
  field->payload = absl::string_view();
  if (field->IsLengthDelimited()) {
    uint32_t length = 0;
    if (!in_.ReadVarint32(&length)) return Fail();
    const int at = in_.CurrentPosition();
    if (length > bytes_.size() - static_cast<size_t>(at)) return Fail();
    if (!in_.Skip(static_cast<int>(length))) return Fail();
    field->payload = bytes_.substr(at, length);
  } else if (!WireFormatLite::SkipField(&in_, tag)) {
    return Fail();
  }
  field->whole = bytes_.substr(start, in_.CurrentPosition() - start);
  return true;
}

void AppendLengthDelimited(uint32_t number, absl::string_view payload,
                           std::string* out) {
  using google::protobuf::io::CodedOutputStream;
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

}  // namespace weft::graph_internal
