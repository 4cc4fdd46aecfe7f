#include "graph/graph_def_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/slab_allocator.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/unknown_field_set.h"
#include "graph/file_bytes.h"
#include "graph/internal/detached_content.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"

namespace weft {
namespace {

namespace pb = graph_internal::pb;

Status EmptyInput(absl::string_view source_name) {
  return errors::InvalidArgument(source_name,
                                 ": is empty (0 bytes); expected a GraphDef");
}

// A binary parse succeeds on many byte strings that are not GraphDefs: the
// parser keeps fields it does not know. When nothing GraphDef-shaped came
// out, say what the bytes look like instead. (Known field numbers with the
// wrong wire type are left to CheckFieldWireTypes, which names the field.)
Status CheckLooksLikeGraphDef(const pb::GraphDef& proto,
                              absl::string_view source_name) {
  const google::protobuf::UnknownFieldSet& unknown =
      proto.GetReflection()->GetUnknownFields(proto);
  if (unknown.empty() || proto.node_size() > 0 || proto.has_library() ||
      proto.has_versions()) {
    return Status();
  }
  bool known_number = false;
  std::vector<int> numbers;  // the first five distinct ones
  bool more_numbers = false;
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& f = unknown.field(i);
    known_number |=
        pb::GraphDef::descriptor()->FindFieldByNumber(f.number()) != nullptr;
    if (std::find(numbers.begin(), numbers.end(), f.number()) ==
        numbers.end()) {
      if (numbers.size() < 5) {
        numbers.push_back(f.number());
      } else {
        more_numbers = true;
      }
    }
  }
  if (known_number) return Status();
  return errors::InvalidArgument(
      source_name, ": not a GraphDef: it holds no GraphDef fields, only ",
      unknown.field_count(), " unrecognized ",
      unknown.field_count() == 1 ? "one" : "ones", " (field numbers ",
      absl::StrJoin(numbers, ", "), more_numbers ? ", ..." : "", ")");
}

// A SavedModel (saved_model.pb) starts with saved_model_schema_version
// (field 1, a varint) and then meta_graphs (field 2, length-delimited). No
// GraphDef starts with a varint field 1, so this never misfires on one.
bool LooksLikeSavedModel(absl::string_view bytes) {
  if (bytes.size() < 3 || bytes[0] != 0x08) return false;
  size_t i = 1;
  while (i < bytes.size() && i < 11 &&
         (static_cast<unsigned char>(bytes[i]) & 0x80) != 0) {
    ++i;
  }
  ++i;
  return i < bytes.size() && bytes[i] == 0x12;
}

StatusOr<GraphDef> ParseAs(GraphFormat format, absl::string_view bytes,
                           absl::string_view source_name,
                           const GraphParseOptions& options) {
  return format == GraphFormat::kBinary
             ? ParseBinaryGraphDef(bytes, source_name, options)
             : ParseTextGraphDef(bytes, source_name, options);
}

}  // namespace

absl::string_view GraphFormatName(GraphFormat format) {
  return format == GraphFormat::kBinary ? "binary" : "text";
}

std::optional<GraphFormat> GraphFormatFromPath(absl::string_view path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == absl::string_view::npos ||
      (slash != absl::string_view::npos && dot < slash)) {
    return std::nullopt;
  }
  const std::string ext = absl::AsciiStrToLower(path.substr(dot + 1));
  if (ext == "pbtxt" || ext == "pbtext" || ext == "txt" || ext == "textproto") {
    return GraphFormat::kText;
  }
  if (ext == "pb" || ext == "graphdef" || ext == "bin") {
    return GraphFormat::kBinary;
  }
  return std::nullopt;
}

GraphFormat DetectGraphFormat(absl::string_view bytes) {
  if (bytes.empty()) return GraphFormat::kBinary;
  const size_t n = std::min<size_t>(bytes.size(), 4096);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    const bool space =
        c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if ((c < 0x20 && !space) || c == 0x7F) return GraphFormat::kBinary;
  }
  return GraphFormat::kText;
}

StatusOr<GraphDef> ParseBinaryGraphDef(absl::string_view bytes,
                                       absl::string_view source_name,
                                       const GraphParseOptions& options) {
  if (bytes.empty()) return EmptyInput(source_name);
  if (LooksLikeSavedModel(bytes)) {
    return errors::InvalidArgument(
        source_name,
        ": looks like a SavedModel (saved_model.pb), not a GraphDef; load "
        "the SavedModel's directory instead (weft run DIR, "
        "weft_graph_load_saved_model)");
  }
  // The weights are cut out first and copied once, into their tensors.
  std::string rest;
  std::vector<graph_internal::DetachedContent> detached;
  const bool cut = graph_internal::DetachTensorContents(
      bytes, graph_internal::kMinDetachedContentBytes, &rest, &detached);
  google::protobuf::Arena arena;
  auto* proto = google::protobuf::Arena::CreateMessage<pb::GraphDef>(&arena);
  Status parsed = graph_internal::ParseBinaryMessage(cut ? rest : bytes,
                                                     source_name, proto);
  if (!parsed.ok() && cut) {
    // The error, with its offsets, is told about the file as it is.
    detached.clear();
    proto->Clear();
    parsed = graph_internal::ParseBinaryMessage(bytes, source_name, proto);
  }
  WEFT_RETURN_IF_ERROR(parsed);
  WEFT_RETURN_IF_ERROR(CheckLooksLikeGraphDef(*proto, source_name));
  // The cut weights share one slab (core/slab_allocator.h): most are under
  // the size from which a buffer of its own gets huge pages.
  size_t slab_bytes = 0;
  for (const graph_internal::DetachedContent& d : detached) {
    slab_bytes += SlabAllocator::Footprint(d.bytes.size());
  }
  const std::unique_ptr<SlabAllocator, SlabAllocator::Releaser> slab(
      SlabAllocator::Create(slab_bytes));
  for (graph_internal::DetachedContent& d : detached) d.allocator = slab.get();
  auto graph = graph_internal::GraphDefFromProto(*proto, options.tensor,
                                                 nullptr, detached);
  if (!graph.ok()) return AddContext(graph.status(), source_name);
  return graph;
}

StatusOr<GraphDef> ParseTextGraphDef(absl::string_view text,
                                     absl::string_view source_name,
                                     const GraphParseOptions& options) {
  if (text.empty()) return EmptyInput(source_name);
  google::protobuf::Arena arena;
  auto* proto = google::protobuf::Arena::CreateMessage<pb::GraphDef>(&arena);
  WEFT_RETURN_IF_ERROR(
      graph_internal::ParseTextMessage(text, source_name, proto));
  auto graph = graph_internal::GraphDefFromProto(*proto, options.tensor);
  if (!graph.ok()) return AddContext(graph.status(), source_name);
  return graph;
}

StatusOr<GraphDef> ParseGraphDef(absl::string_view bytes,
                                 absl::string_view source_name,
                                 const GraphParseOptions& options) {
  return ParseAs(DetectGraphFormat(bytes), bytes, source_name, options);
}

StatusOr<GraphDef> LoadGraphDef(const std::string& path,
                                const GraphParseOptions& options) {
  WEFT_ASSIGN_OR_RETURN(const FileBytes file, FileBytes::Read(path));
  const absl::string_view bytes = file.view();
  if (bytes.empty()) return EmptyInput(path);
  const std::optional<GraphFormat> named = GraphFormatFromPath(path);
  const GraphFormat sniffed = DetectGraphFormat(bytes);
  if (!named.has_value() || *named == sniffed) {
    return ParseAs(sniffed, bytes, path, options);
  }
  // The name and the content disagree (a text graph saved as .pb): trust
  // the name first, then the content. When both fail, the content's reading
  // gives the more useful error.
  auto by_name = ParseAs(*named, bytes, path, options);
  if (by_name.ok()) return by_name;
  return ParseAs(sniffed, bytes, path, options);
}

StatusOr<std::string> SerializeGraphDef(const GraphDef& graph,
                                        GraphFormat format) {
  google::protobuf::Arena arena;
  auto* proto = google::protobuf::Arena::CreateMessage<pb::GraphDef>(&arena);
  WEFT_RETURN_IF_ERROR(graph_internal::GraphDefToProto(graph, proto));
  return format == GraphFormat::kBinary
             ? graph_internal::SerializeBinaryMessage(*proto)
             : graph_internal::SerializeTextMessage(*proto);
}

Status SaveGraphDef(const GraphDef& graph, const std::string& path,
                    GraphFormat format) {
  auto bytes = SerializeGraphDef(graph, format);
  if (!bytes.ok()) return AddContext(bytes.status(), path);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(path.c_str(), "wb"), &std::fclose);
  if (file == nullptr) {
    return errors::InvalidArgument("cannot write graph file '", path,
                                   "': ", std::strerror(errno));
  }
  if (std::fwrite(bytes->data(), 1, bytes->size(), file.get()) !=
      bytes->size()) {
    return errors::InvalidArgument("error writing graph file '", path,
                                   "': ", std::strerror(errno));
  }
  if (std::fclose(file.release()) != 0) {
    return errors::InvalidArgument("error writing graph file '", path,
                                   "': ", std::strerror(errno));
  }
  return Status();
}

}  // namespace weft
