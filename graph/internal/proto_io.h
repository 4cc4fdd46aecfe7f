// Parsing generated messages from bytes or text with errors that name their
// source, shared by the graph and tensor entry points. Internal to graph/.
#ifndef WEFT_GRAPH_INTERNAL_PROTO_IO_H_
#define WEFT_GRAPH_INTERNAL_PROTO_IO_H_

#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "google/protobuf/message.h"

namespace weft::graph_internal {

// Parses the binary wire format into `message` (which must be empty). Inputs
// over protobuf's 2 GiB message limit are refused up front. On a parse failure
// the input is walked against the schema to say where it breaks ("at byte
// 1234, in node[3].attr: field 'tensor' (8) needs 500 bytes but 20 remain").
// Messages start with `source_name`.
Status ParseBinaryMessage(absl::string_view bytes,
                          absl::string_view source_name,
                          google::protobuf::Message* message);

// Parses the text format into `message`. Syntax errors give the position:
// "<source_name>:12:5: Expected identifier, got: }". With
// `skip_unknown_fields`, fields and extensions the schema does not declare
// are skipped instead of refused (saved_model.pbtxt carries an object graph
// weft does not read).
Status ParseTextMessage(absl::string_view text, absl::string_view source_name,
                        google::protobuf::Message* message,
                        bool skip_unknown_fields = false);

// Binary encoding with map entries in key order, so equal messages give equal
// bytes. Fails past the 2 GiB limit.
StatusOr<std::string> SerializeBinaryMessage(
    const google::protobuf::Message& message);

// Text encoding (map entries in key order, as the text printer writes them).
StatusOr<std::string> SerializeTextMessage(
    const google::protobuf::Message& message);

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code
// points past U+10FFFF). The schema declares text as `bytes`, so names that
// must be UTF-8 are checked with this after parsing.
bool IsValidUtf8(absl::string_view s);

// `s` with control characters, quotes and non-ASCII bytes escaped (\n,
// \x01, ...), for names from a file quoted in a one-line error message.
std::string Printable(absl::string_view s);

// Protobuf's parser files a field whose wire type does not match the schema
// (a length-delimited `name` sent as a varint) among the unknown fields and
// carries on, which would silently drop data. This reports such fields of
// `message` itself (not of its sub-messages): "field 'name' (1) has wire type
// varint; the schema says length-delimited". Field numbers the schema does
// not know are accepted, for files from newer TensorFlow versions.
Status CheckUnknownFieldWireTypes(const google::protobuf::Message& message);

// The same for a generated message type, whose reflection is looked up
// once per type rather than per message (the lookup cost a few percent of
// a SavedModel's parse); the unknown fields are nearly always none.
template <typename M>
Status CheckFieldWireTypes(const M& message) {
  static const google::protobuf::Reflection* const reflection =
      M::GetReflection();
  if (reflection->GetUnknownFields(message).empty()) return Status();
  return CheckUnknownFieldWireTypes(message);
}

}  // namespace weft::graph_internal

#endif  // WEFT_GRAPH_INTERNAL_PROTO_IO_H_
