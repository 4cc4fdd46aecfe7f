// Reading a serialized message's fields one by one without parsing it, for
// the loaders that look into a file's bytes before (or instead of) protobuf:
// the SavedModel reader's scan for called functions, the GraphDef reader's
// cut of large tensor payloads (detached_content.h).
//
// Internal to graph/.
#ifndef WEFT_GRAPH_INTERNAL_WIRE_FIELDS_H_
#define WEFT_GRAPH_INTERNAL_WIRE_FIELDS_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace weft::graph_internal {

// One field on the wire: its whole encoding (tag to end) and, when
// length-delimited, its payload. Both view the bytes being read.
struct WireField {
  uint32_t number = 0;
  google::protobuf::internal::WireFormatLite::WireType type =
      google::protobuf::internal::WireFormatLite::WIRETYPE_VARINT;
  absl::string_view whole;
  absl::string_view payload;

  bool IsLengthDelimited() const {
    return type == google::protobuf::internal::WireFormatLite::
                       WIRETYPE_LENGTH_DELIMITED;
  }
  // A length-delimited field `n`: a message, string or bytes field.
  bool Is(uint32_t n) const { return number == n && IsLengthDelimited(); }
};

// The fields of one message, in order. Next stops at the end, or at bytes
// that are not a field (a bad tag, a truncated value, an unmatched group
// end); malformed() then says which. Groups are skipped whole, as protobuf
// keeps them as unknown fields.
class WireFieldReader {
 public:
  explicit WireFieldReader(absl::string_view bytes);

  bool Next(WireField* field);
  bool malformed() const { return malformed_; }

 private:
  bool Fail() {
    malformed_ = true;
    return false;
  }

  absl::string_view bytes_;
  google::protobuf::io::CodedInputStream in_;
  bool malformed_ = false;
};

// Appends length-delimited field `number` holding `payload`.
void AppendLengthDelimited(uint32_t number, absl::string_view payload,
                           std::string* out);

}  // namespace weft::graph_internal

#endif  // WEFT_GRAPH_INTERNAL_WIRE_FIELDS_H_
