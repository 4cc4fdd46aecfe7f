#include "graph/internal/proto_io.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/unknown_field_set.h"
#include "google/protobuf/wire_format_lite.h"

namespace weft::graph_internal {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Protobuf's parser refuses messages nested deeper than this; the diagnosis
// below stops at the same depth.
constexpr int kMaxNesting = 100;

std::string WireTypeName(int wire_type) {
  switch (wire_type) {
    case WireFormatLite::WIRETYPE_VARINT:
      return "varint";
    case WireFormatLite::WIRETYPE_FIXED64:
      return "64-bit";
    case WireFormatLite::WIRETYPE_LENGTH_DELIMITED:
      return "length-delimited";
    case WireFormatLite::WIRETYPE_START_GROUP:
      return "start-group";
    case WireFormatLite::WIRETYPE_END_GROUP:
      return "end-group";
    case WireFormatLite::WIRETYPE_FIXED32:
      return "32-bit";
    default:
      return absl::StrCat("invalid (", wire_type, ")");
  }
}

// Walks wire-format bytes against the schema `desc` (null for bytes of an
// unknown field, which are not descended into) and describes the first
// structural problem it meets: a bad tag or varint, a length running past its
// enclosing message, nesting past protobuf's limit. Returns false with
// `problem` set when it finds one.
class WireDiagnoser {
 public:
  explicit WireDiagnoser(absl::string_view bytes)
      : in_(reinterpret_cast<const uint8_t*>(bytes.data()),
            static_cast<int>(bytes.size())) {
    in_.SetTotalBytesLimit(INT_MAX);
    in_.SetRecursionLimit(INT_MAX);
    // A limit at the end makes BytesUntilLimit() meaningful at top level.
    in_.PushLimit(static_cast<int>(bytes.size()));
  }

  bool Check(const Descriptor* desc, const std::string& path, int depth,
             std::string* problem) {
    if (depth > kMaxNesting) {
      return Fail(path,
                  absl::StrCat("messages are nested more than ", kMaxNesting,
                               " levels deep"),
                  problem);
    }
    std::map<int, int> seen;  // field number -> occurrences, for paths
    while (true) {
      const int at = in_.CurrentPosition();
      uint32_t tag = in_.ReadTag();
      if (tag == 0) {
        if (in_.BytesUntilLimit() == 0 || in_.ConsumedEntireMessage()) {
          return true;
        }
        return Fail(path, absl::StrCat("invalid field tag at byte ", at),
                    problem);
      }
      const int number = static_cast<int>(tag >> 3);
      const int wire_type = static_cast<int>(tag & 7);
      const FieldDescriptor* field =
          desc != nullptr ? desc->FindFieldByNumber(number) : nullptr;
      const std::string name =
          field != nullptr
              ? absl::StrCat("field '", field->name(), "' (", number, ")")
              : absl::StrCat("field ", number);
      if (number == 0) {
        return Fail(path, absl::StrCat("field number 0 at byte ", at), problem);
      }
      switch (wire_type) {
        case WireFormatLite::WIRETYPE_VARINT: {
          uint64_t v;
          if (!in_.ReadVarint64(&v)) {
            return Fail(path,
                        absl::StrCat(name, " at byte ", at,
                                     ": truncated or overlong varint"),
                        problem);
          }
          break;
        }
        case WireFormatLite::WIRETYPE_FIXED64: {
          uint64_t v;
          if (!in_.ReadLittleEndian64(&v)) {
            return Fail(
                path,
                absl::StrCat(name, " at byte ", at, ": truncated 64-bit value"),
                problem);
          }
          break;
        }
        case WireFormatLite::WIRETYPE_FIXED32: {
          uint32_t v;
          if (!in_.ReadLittleEndian32(&v)) {
            return Fail(
                path,
                absl::StrCat(name, " at byte ", at, ": truncated 32-bit value"),
                problem);
          }
          break;
        }
        case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
          uint32_t length;
          if (!in_.ReadVarint32(&length)) {
            return Fail(
                path, absl::StrCat(name, " at byte ", at, ": truncated length"),
                problem);
          }
          const int remaining = in_.BytesUntilLimit();
          if (static_cast<int64_t>(length) > remaining) {
            return Fail(path,
                        absl::StrCat(name, " at byte ", at, " needs ", length,
                                     " bytes but only ", remaining,
                                     " remain (truncated?)"),
                        problem);
          }
          const bool is_message =
              field != nullptr &&
              field->type() == FieldDescriptor::TYPE_MESSAGE;
          if (is_message) {
            int index = seen[number]++;
            std::string sub = path.empty()
                                  ? field->name()
                                  : absl::StrCat(path, ".", field->name());
            if (field->is_repeated()) absl::StrAppend(&sub, "[", index, "]");
            auto limit = in_.PushLimit(static_cast<int>(length));
            if (!Check(field->message_type(), sub, depth + 1, problem)) {
              return false;
            }
            in_.PopLimit(limit);
          } else if (field != nullptr && field->is_packable()) {
            auto limit = in_.PushLimit(static_cast<int>(length));
            const bool ok = CheckPacked(field, length);
            in_.PopLimit(limit);
            if (!ok) {
              return Fail(path,
                          absl::StrCat("packed ", name, " at byte ", at,
                                       " holds a malformed element"),
                          problem);
            }
          } else {
            in_.Skip(static_cast<int>(length));
          }
          break;
        }
        case WireFormatLite::WIRETYPE_START_GROUP:
        case WireFormatLite::WIRETYPE_END_GROUP:
          if (!WireFormatLite::SkipField(&in_, tag)) {
            return Fail(path,
                        absl::StrCat(name, " at byte ", at,
                                     ": unterminated or stray group"),
                        problem);
          }
          break;
        default:
          return Fail(path,
                      absl::StrCat(name, " at byte ", at, " has ",
                                   WireTypeName(wire_type), " wire type"),
                      problem);
      }
    }
  }

 private:
  // Reads the elements of a packed repeated scalar field (the stream is
  // limited to its `length` bytes).
  bool CheckPacked(const FieldDescriptor* field, uint32_t length) {
    const WireFormatLite::WireType element_wire_type =
        WireFormatLite::WireTypeForFieldType(
            static_cast<WireFormatLite::FieldType>(field->type()));
    if (element_wire_type == WireFormatLite::WIRETYPE_FIXED32) {
      return length % 4 == 0 && in_.Skip(static_cast<int>(length));
    }
    if (element_wire_type == WireFormatLite::WIRETYPE_FIXED64) {
      return length % 8 == 0 && in_.Skip(static_cast<int>(length));
    }
    while (in_.BytesUntilLimit() > 0) {
      uint64_t v;
      if (!in_.ReadVarint64(&v)) return false;
    }
    return true;
  }

  static bool Fail(const std::string& path, const std::string& what,
                   std::string* problem) {
    *problem = path.empty() ? what : absl::StrCat("in ", path, ": ", what);
    return false;
  }

  CodedInputStream in_;
};

// Keeps the first error the text parser reports, with 1-based positions.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      line_ = line + 1;
      column_ = column + 1;
      message_ = message;
    }
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber,
                  const std::string&) override {}

  bool has_error() const { return has_error_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

}  // namespace

std::string Printable(absl::string_view s) { return absl::CHexEscape(s); }

bool IsValidUtf8(absl::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int extra;
    uint32_t cp;
    if (c < 0x80) {
      // Names are ASCII nearly always: eight bytes at a time while none has
      // its top bit set.
      ++i;
      uint64_t word;
      while (i + sizeof(word) <= s.size()) {
        std::memcpy(&word, s.data() + i, sizeof(word));
        if ((word & 0x8080808080808080ull) != 0) break;
        i += sizeof(word);
      }
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (s.size() - i <= static_cast<size_t>(extra)) return false;
    for (int k = 1; k <= extra; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are invalid.
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

Status ParseBinaryMessage(absl::string_view bytes,
                          absl::string_view source_name,
                          google::protobuf::Message* message) {
  const std::string& type = message->GetDescriptor()->name();
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return errors::InvalidArgument(
        source_name, ": ", bytes.size(), " bytes is more than a binary ", type,
        " can hold (protobuf messages are limited to 2 GiB)");
  }
  if (message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Status();
  }
  WireDiagnoser diagnoser(bytes);
  std::string problem;
  if (diagnoser.Check(message->GetDescriptor(), "", 0, &problem)) {
    problem = "the protobuf parser rejected it";
  }
  return errors::InvalidArgument(source_name, ": not a valid binary ", type,
                                 ": ", problem);
}

Status ParseTextMessage(absl::string_view text, absl::string_view source_name,
                        google::protobuf::Message* message,
                        bool skip_unknown_fields) {
  const std::string& type = message->GetDescriptor()->name();
  if (text.size() > static_cast<size_t>(INT_MAX)) {
    return errors::InvalidArgument(source_name, ": ", text.size(),
                                   " bytes is more than a text ", type,
                                   " can hold (2 GiB)");
  }
  google::protobuf::io::ArrayInputStream stream(text.data(),
                                                static_cast<int>(text.size()));
  FirstErrorCollector collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  // The text parser recurses without bound by default; a file of nested
  // braces would overflow the stack. Use the binary parser's limit.
  parser.SetRecursionLimit(kMaxNesting);
  parser.AllowUnknownField(skip_unknown_fields);
  parser.AllowUnknownExtension(skip_unknown_fields);
  if (parser.Parse(&stream, message)) return Status();
  if (collector.has_error()) {
    return errors::InvalidArgument(source_name, ":", collector.line(), ":",
                                   collector.column(), ": invalid text ", type,
                                   ": ", collector.message());
  }
  return errors::InvalidArgument(source_name, ": invalid text ", type);
}

StatusOr<std::string> SerializeBinaryMessage(
    const google::protobuf::Message& message) {
  const size_t size = message.ByteSizeLong();
  if (size > static_cast<size_t>(INT_MAX)) {
    return errors::InvalidArgument(
        "the binary ", message.GetDescriptor()->name(), " would be ", size,
        " bytes; protobuf messages are limited to 2 GiB");
  }
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeWithCachedSizes(&coded);
    if (coded.HadError()) {
      return errors::Internal("serializing a ", message.GetDescriptor()->name(),
                              " failed");
    }
  }
  return out;
}

StatusOr<std::string> SerializeTextMessage(
    const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::TextFormat::Printer printer;
  if (!printer.PrintToString(message, &out)) {
    return errors::Internal("printing a ", message.GetDescriptor()->name(),
                            " as text failed");
  }
  return out;
}

Status CheckUnknownFieldWireTypes(const google::protobuf::Message& message) {
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  if (unknown.empty()) return Status();
  const Descriptor* desc = message.GetDescriptor();
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& f = unknown.field(i);
    const FieldDescriptor* field = desc->FindFieldByNumber(f.number());
    if (field == nullptr) continue;
    int found;
    switch (f.type()) {
      case google::protobuf::UnknownField::TYPE_VARINT:
        found = WireFormatLite::WIRETYPE_VARINT;
        break;
      case google::protobuf::UnknownField::TYPE_FIXED32:
        found = WireFormatLite::WIRETYPE_FIXED32;
        break;
      case google::protobuf::UnknownField::TYPE_FIXED64:
        found = WireFormatLite::WIRETYPE_FIXED64;
        break;
      case google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED:
        found = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
        break;
      default:
        found = WireFormatLite::WIRETYPE_START_GROUP;
        break;
    }
    const int expected = WireFormatLite::WireTypeForFieldType(
        static_cast<WireFormatLite::FieldType>(field->type()));
    return errors::InvalidArgument(desc->name(), " field '", field->name(),
                                   "' (", f.number(), ") has wire type ",
                                   WireTypeName(found), "; the schema says ",
                                   WireTypeName(expected));
  }
  return Status();
}

}  // namespace weft::graph_internal
