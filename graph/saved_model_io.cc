#include "graph/saved_model_io.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"
#include "graph/proto/weft_saved_model.pb.h"

namespace weft {
namespace {

namespace pb = graph_internal::pb;
using graph_internal::CheckFieldWireTypes;
using graph_internal::DataTypeFromProto;
using graph_internal::Printable;
using graph_internal::ShapeFromProto;

StatusOr<SavedTensorInfo> TensorInfoFromProto(const pb::TensorInfo& p) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  SavedTensorInfo info;
  info.is_dense = p.encoding_case() == pb::TensorInfo::kName;
  info.name = p.name();
  // Composite tensors and TF2's "__saved_model_init_op" (a NoOp) leave
  // dtype unset.
  auto dtype = DataTypeFromProto(p.dtype(), /*allow_invalid=*/true);
  if (!dtype.ok()) return dtype.status();
  info.dtype = *dtype;
  if (p.has_tensor_shape()) {
    WEFT_ASSIGN_OR_RETURN(info.shape, ShapeFromProto(p.tensor_shape()));
  }
  return info;
}

Status TensorInfoMapFromProto(
    const google::protobuf::RepeatedPtrField<pb::TensorInfoEntry>& entries,
    absl::string_view what, std::map<std::string, SavedTensorInfo>* out) {
  for (const pb::TensorInfoEntry& e : entries) {
    WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(e));
    auto info = TensorInfoFromProto(e.value());
    if (!info.ok()) {
      return AddContext(info.status(),
                        absl::StrCat(what, " '", Printable(e.key()), "'"));
    }
    (*out)[e.key()] = *std::move(info);
  }
  return Status();
}

StatusOr<SavedSignatureDef> SignatureFromProto(const pb::SignatureDef& p) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  SavedSignatureDef sig;
  sig.method_name = p.method_name();
  WEFT_RETURN_IF_ERROR(
      TensorInfoMapFromProto(p.inputs(), "input", &sig.inputs));
  WEFT_RETURN_IF_ERROR(
      TensorInfoMapFromProto(p.outputs(), "output", &sig.outputs));
  return sig;
}

StatusOr<SavedMetaGraphDef> MetaGraphFromProto(
    const pb::MetaGraphDef& p, const GraphParseOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  SavedMetaGraphDef meta;
  const auto& info = p.meta_info_def();
  meta.tags.assign(info.tags().begin(), info.tags().end());
  meta.tensorflow_version = info.tensorflow_version();
  auto graph = graph_internal::GraphDefFromProto(p.graph_def(), options.tensor);
  if (!graph.ok()) return AddContext(graph.status(), "graph_def");
  meta.graph_def = *std::move(graph);
  if (p.has_saver_def()) {
    meta.has_saver_def = true;
    meta.saver_def.filename_tensor_name = p.saver_def().filename_tensor_name();
    meta.saver_def.restore_op_name = p.saver_def().restore_op_name();
    meta.saver_def.version = p.saver_def().version();
  }
  for (const pb::SignatureEntry& e : p.signature_def()) {
    WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(e));
    auto sig = SignatureFromProto(e.value());
    if (!sig.ok()) {
      return AddContext(sig.status(),
                        absl::StrCat("signature '", Printable(e.key()), "'"));
    }
    meta.signatures[e.key()] = *std::move(sig);
  }
  for (const pb::AssetFileDef& a : p.asset_file_def()) {
    meta.assets.push_back({a.tensor_info().name(), a.filename()});
  }
  meta.num_objects = p.object_graph_def().nodes_size();
  for (const pb::ConcreteFunctionEntry& e :
       p.object_graph_def().concrete_functions()) {
    const auto& ids = e.value().bound_inputs();
    meta.captured_objects[e.key()].assign(ids.begin(), ids.end());
  }
  for (const pb::CollectionEntry& e : p.collection_def()) {
    if (e.value().kind_case() != pb::CollectionDef::kNodeList) continue;
    const auto& v = e.value().node_list().value();
    meta.node_collections[e.key()].assign(v.begin(), v.end());
  }
  return meta;
}

}  // namespace

StatusOr<SavedModelDef> ParseSavedModel(absl::string_view bytes,
                                        absl::string_view source_name,
                                        const GraphParseOptions& options) {
  if (bytes.empty()) {
    return errors::InvalidArgument(
        source_name, ": is empty (0 bytes); expected a SavedModel");
  }
  google::protobuf::Arena arena;
  auto* proto = google::protobuf::Arena::CreateMessage<pb::SavedModel>(&arena);
  if (DetectGraphFormat(bytes) == GraphFormat::kText) {
    WEFT_RETURN_IF_ERROR(graph_internal::ParseTextMessage(
        bytes, source_name, proto, /*skip_unknown_fields=*/true));
  } else {
    WEFT_RETURN_IF_ERROR(
        graph_internal::ParseBinaryMessage(bytes, source_name, proto));
  }
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*proto), source_name);
  if (proto->meta_graphs_size() == 0) {
    return errors::InvalidArgument(
        source_name, ": not a SavedModel: it holds no meta graph");
  }
  SavedModelDef model;
  model.schema_version = proto->saved_model_schema_version();
  for (int i = 0; i < proto->meta_graphs_size(); ++i) {
    auto meta = MetaGraphFromProto(proto->meta_graphs(i), options);
    if (!meta.ok()) {
      return AddContext(meta.status(),
                        absl::StrCat(source_name, ": meta_graphs[", i, "]"));
    }
    model.meta_graphs.push_back(*std::move(meta));
  }
  return model;
}

StatusOr<TrackableObjects> ParseTrackableObjectGraph(absl::string_view bytes) {
  pb::TrackableObjectGraph p;
  if (bytes.size() > (1u << 30) ||
      !p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return errors::InvalidArgument(
        "the checkpoint's object graph does not parse");
  }
  TrackableObjects objects(p.nodes_size());
  for (int i = 0; i < p.nodes_size(); ++i) {
    for (const auto& a : p.nodes(i).attributes()) {
      objects[i][a.name()] = a.checkpoint_key();
    }
  }
  return objects;
}

StatusOr<BundleHeader> ParseBundleHeader(absl::string_view bytes) {
  pb::BundleHeaderProto p;
  if (!p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return errors::InvalidArgument("the bundle header does not parse");
  }
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  BundleHeader header;
  header.num_shards = p.num_shards();
  header.big_endian = p.endianness() == pb::BundleHeaderProto::BIG;
  header.version_producer = p.version().producer();
  if (header.num_shards < 0) {
    return errors::InvalidArgument("the bundle header gives ",
                                   header.num_shards, " shards");
  }
  return header;
}

StatusOr<BundleEntry> ParseBundleEntry(absl::string_view bytes) {
  pb::BundleEntryProto p;
  if (bytes.size() > (1u << 30) ||
      !p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return errors::InvalidArgument(
        "the entry does not parse as a BundleEntryProto");
  }
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  BundleEntry entry;
  auto dtype = DataTypeFromProto(p.dtype());
  if (!dtype.ok()) return AddContext(dtype.status(), "entry");
  entry.dtype = *dtype;
  WEFT_ASSIGN_OR_RETURN(PartialTensorShape shape, ShapeFromProto(p.shape()));
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument("entry shape ", shape.DebugString(),
                                   " is not fully known");
  }
  WEFT_ASSIGN_OR_RETURN(entry.shape, shape.ToTensorShape());
  entry.shard_id = p.shard_id();
  entry.offset = p.offset();
  entry.size = p.size();
  entry.crc32c = p.crc32c();
  if (entry.shard_id < 0 || entry.offset < 0 || entry.size < 0) {
    return errors::InvalidArgument("entry has shard ", entry.shard_id,
                                   ", offset ", entry.offset, ", size ",
                                   entry.size, "; none may be negative");
  }
  for (const pb::TensorSliceProto& s : p.slices()) {
    std::vector<BundleSliceExtent> extents;
    for (const auto& e : s.extent()) {
      BundleSliceExtent x;
      x.start = e.start();
      x.length = e.has_length_case() == pb::TensorSliceProto::Extent::kLength
                     ? e.length()
                     : -1;
      if (x.start < 0 || (x.length < 0 && x.length != -1)) {
        return errors::InvalidArgument("entry has a slice with start ", x.start,
                                       " and length ", x.length);
      }
      extents.push_back(x);
    }
    entry.slices.push_back(std::move(extents));
  }
  return entry;
}

}  // namespace weft
