#include "graph/saved_model_io.h"

#include <algorithm>
#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/arena.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"
#include "graph/internal/wire_fields.h"
#include "graph/proto/weft_saved_model.pb.h"

namespace weft {
namespace {

namespace pb = graph_internal::pb;
using graph_internal::CheckFieldWireTypes;
using graph_internal::DataTypeFromProto;
using graph_internal::Printable;
using graph_internal::ShapeFromProto;
using graph_internal::WireField;
using graph_internal::WireFieldReader;

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

// The functions named by a node: its op (a call by name) and its function
// attrs, alone or in lists, and those nested in their attrs.
void AddCalledFunctions(const pb::NameAttrList& f,
                        std::vector<absl::string_view>* out);
void AddAttrFunctions(
    const google::protobuf::RepeatedPtrField<pb::AttrEntry>& attrs,
    std::vector<absl::string_view>* out) {
  for (const pb::AttrEntry& a : attrs) {
    const pb::AttrValue& v = a.value();
    if (v.value_case() == pb::AttrValue::kFunc) {
      AddCalledFunctions(v.func(), out);
    } else if (v.value_case() == pb::AttrValue::kList) {
      for (const pb::NameAttrList& f : v.list().func()) {
        AddCalledFunctions(f, out);
      }
    }
  }
}
void AddCalledFunctions(const pb::NameAttrList& f,
                        std::vector<absl::string_view>* out) {
  out->push_back(f.name());
  AddAttrFunctions(f.attr(), out);
}

// The node of a tensor or node name: "^n", "n" and "n:1" all name "n".
absl::string_view NodeOfName(absl::string_view name) {
  if (!name.empty() && name[0] == '^') name.remove_prefix(1);
  return name.substr(0, name.find(':'));
}

// A top-level node's name and inputs, read from its serialized NodeDef
// (fields 1 and 3) without parsing it.
struct NodeHeader {
  absl::string_view name;
  std::vector<absl::string_view> inputs;
};

// Per top-level node, whether anything a loader runs can reach it: the
// nodes of every signature's tensors, of the saver's tensors and ops, of
// the assets' tensors and of the node-list collections (TF1 init ops), and
// every node they take an input from, data or control. The rest is never
// run: TF2 SavedModels hold a ReadVariableOp per variable for
// tf.saved_model.load's Python objects, and a VarIsInitializedOp and
// AssignVariableOp per variable, about two thirds of DenseNet121's top
// level. With no root at all every node is kept. The saver's tensors and
// ops are roots only when `saver_roots`; of the signatures, only the one
// keyed `signature` when there is one.
std::vector<bool> ReachableNodes(const pb::MetaGraphDef& p,
                                 const std::vector<NodeHeader>& nodes,
                                 bool saver_roots,
                                 absl::string_view signature) {
  std::vector<absl::string_view> roots;
  const bool one_signature =
      !signature.empty() &&
      std::any_of(
          p.signature_def().begin(), p.signature_def().end(),
          [&](const pb::SignatureEntry& e) { return e.key() == signature; });
  for (const pb::SignatureEntry& e : p.signature_def()) {
    if (one_signature && e.key() != signature) continue;
    for (const auto* map : {&e.value().inputs(), &e.value().outputs()}) {
      for (const pb::TensorInfoEntry& t : *map) {
        roots.push_back(NodeOfName(t.value().name()));
      }
    }
  }
  if (saver_roots && p.has_saver_def()) {
    roots.push_back(NodeOfName(p.saver_def().filename_tensor_name()));
    roots.push_back(NodeOfName(p.saver_def().save_tensor_name()));
    roots.push_back(NodeOfName(p.saver_def().restore_op_name()));
  }
  for (const pb::AssetFileDef& a : p.asset_file_def()) {
    roots.push_back(NodeOfName(a.tensor_info().name()));
  }
  for (const pb::CollectionEntry& e : p.collection_def()) {
    if (e.value().kind_case() != pb::CollectionDef::kNodeList) continue;
    for (const std::string& name : e.value().node_list().value()) {
      roots.push_back(NodeOfName(name));
    }
  }
  std::vector<bool> keep(nodes.size(), roots.empty());
  if (roots.empty()) return keep;
  absl::flat_hash_map<absl::string_view, int> index;
  index.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    index.emplace(nodes[i].name, static_cast<int>(i));
  }
  std::vector<int> pending;
  auto reach = [&](absl::string_view name) {
    auto it = index.find(name);
    if (it != index.end() && !keep[it->second]) {
      keep[it->second] = true;
      pending.push_back(it->second);
    }
  };
  for (absl::string_view root : roots) reach(root);
  while (!pending.empty()) {
    const NodeHeader& n = nodes[pending.back()];
    pending.pop_back();
    for (absl::string_view input : n.inputs) reach(NodeOfName(input));
  }
  return keep;
}

// Calls visit(number, payload) for each length-delimited field of the
// serialized message `bytes`, in order; false when `bytes` does not scan
// as a message (a truncated field, a bad tag).
template <typename Visit>
bool ScanBytesFields(absl::string_view bytes, Visit&& visit) {
  WireFieldReader reader(bytes);
  WireField field;
  while (reader.Next(&field)) {
    if (field.IsLengthDelimited()) visit(field.number, field.payload);
  }
  return !reader.malformed();
}

// The last length-delimited field `number` of `bytes` (what a parse keeps
// of a singular string), or "" when there is none; false as for
// ScanBytesFields.
bool LastBytesField(absl::string_view bytes, int number,
                    absl::string_view* out) {
  *out = absl::string_view();
  return ScanBytesFields(bytes, [&](int field, absl::string_view payload) {
    if (field == number) *out = payload;
  });
}

// The name a serialized FunctionDef's signature gives it (field 1 of field
// 1), read without parsing the function.
StatusOr<std::string> SerializedFunctionName(absl::string_view bytes) {
  absl::string_view signature, name;
  if (!LastBytesField(bytes, 1, &signature) ||
      !LastBytesField(signature, 1, &name)) {
    return errors::InvalidArgument(
        "library: a function does not parse as a FunctionDef");
  }
  return std::string(name);
}

bool IsCallOp(absl::string_view op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall";
}

// Adds to `pending` the functions a serialized function's nodes call: each
// node's op (a call by name), and the function attrs of its call nodes
// (PartitionedCall, StatefulPartitionedCall), which are parsed on `arena`
// for that. `name` is the function's, for errors.
Status AddSerializedCalls(absl::string_view bytes, absl::string_view name,
                          google::protobuf::Arena* arena,
                          std::vector<absl::string_view>* pending) {
  Status status;
  const bool scanned =
      ScanBytesFields(bytes, [&](int field, absl::string_view node) {
        if (field != 3 || !status.ok()) return;
        absl::string_view op;
        if (!LastBytesField(node, 2, &op)) {
          status =
              errors::InvalidArgument("library: function '", Printable(name),
                                      "': a node does not parse");
          return;
        }
        pending->push_back(op);
        if (!IsCallOp(op)) return;
        auto* n = google::protobuf::Arena::CreateMessage<pb::NodeDef>(arena);
        status = graph_internal::ParseBinaryMessage(
            node, absl::StrCat("library: function '", name, "': a node"), n);
        if (status.ok()) AddAttrFunctions(n->attr(), pending);
      });
  if (!scanned) {
    return errors::InvalidArgument("library: function '", Printable(name),
                                   "' does not parse as a FunctionDef");
  }
  return status;
}

// Parses into `library` the functions of `unparsed` that a kept top-level
// node other than the saver's save and restore ops calls, directly or
// through other functions; gives in `restore_only` the bytes of those only
// the restore op calls (outlined by OutlineRestoreFunction); and lists the
// others in `uncalled`, sorted. TF2 SavedModels carry a __traced_save
// function as large as the model (a ReadVariableOp and an Identity per
// variable, then SaveV2), which weft never runs: parsing it was 7% of
// DenseNet121's load (converting it, a third of the conversion, had been
// left out before). The __traced_restore function is as large (a
// RestoreV2, then an Identity and an AssignVariableOp per variable) and is
// only read for which checkpoint entry restores each variable; parsed and
// converted whole it was 12% of NASNetMobile's load. Functions left out
// are neither parsed nor checked.
Status ParseCalledFunctions(const std::vector<absl::string_view>& unparsed,
                            const pb::MetaGraphDef& p,
                            google::protobuf::Arena* arena,
                            pb::FunctionDefLibrary* library,
                            std::vector<absl::string_view>* restore_only,
                            std::vector<std::string>* uncalled) {
  const int count = static_cast<int>(unparsed.size());
  if (count == 0) return Status();
  std::vector<std::string> names(count);
  absl::flat_hash_map<absl::string_view, std::vector<int>> by_name;
  for (int i = 0; i < count; ++i) {
    WEFT_ASSIGN_OR_RETURN(names[i], SerializedFunctionName(unparsed[i]));
    by_name[names[i]].push_back(i);
  }
  const pb::GraphDef& graph = p.graph_def();
  // "" (no saver) names no node.
  const absl::string_view save_node =
      NodeOfName(p.saver_def().save_tensor_name());
  const absl::string_view restore_node =
      NodeOfName(p.saver_def().restore_op_name());
  std::vector<absl::string_view> pending;
  std::vector<absl::string_view> restore_pending;
  for (const pb::NodeDef& n : graph.node()) {
    if (n.name() == save_node) continue;
    auto* into = !restore_node.empty() && n.name() == restore_node
                     ? &restore_pending
                     : &pending;
    into->push_back(n.op());
    AddAttrFunctions(n.attr(), into);
  }
  std::vector<bool> parsed(count, false);
  absl::flat_hash_set<absl::string_view> reached;
  // Takes each function `queue` names that no earlier one reached with
  // take(i), which may queue more.
  auto drain = [&](std::vector<absl::string_view>* queue,
                   auto&& take) -> Status {
    while (!queue->empty()) {
      const absl::string_view name = queue->back();
      queue->pop_back();
      auto it = by_name.find(name);
      if (it == by_name.end() || !reached.insert(name).second) continue;
      for (int i : it->second) {
        parsed[i] = true;
        WEFT_RETURN_IF_ERROR(take(i));
      }
    }
    return Status();
  };
  WEFT_RETURN_IF_ERROR(drain(&pending, [&](int i) -> Status {
    auto* f = google::protobuf::Arena::CreateMessage<pb::FunctionDef>(arena);
    WEFT_RETURN_IF_ERROR(graph_internal::ParseBinaryMessage(
        unparsed[i], absl::StrCat("library: function '", names[i], "'"), f));
    library->mutable_function()->UnsafeArenaAddAllocated(f);
    AddAttrFunctions(f->attr(), &pending);
    for (const pb::NodeDef& n : f->node_def()) {
      pending.push_back(n.op());
      AddAttrFunctions(n.attr(), &pending);
    }
    return Status();
  }));
  // Then what only the restore op reaches, left serialized.
  WEFT_RETURN_IF_ERROR(drain(&restore_pending, [&](int i) {
    restore_only->push_back(unparsed[i]);
    return AddSerializedCalls(unparsed[i], names[i], arena, &restore_pending);
  }));
  for (int i = 0; i < count; ++i) {
    if (!parsed[i]) uncalled->push_back(names[i]);
  }
  std::sort(uncalled->begin(), uncalled->end());
  return Status();
}

// A function only the saver's restore op calls, as savedmodel/restore_map.h
// reads it: its signature, and per node the name, op and inputs, with the
// attrs of Const nodes and calls only (the constant checkpoint keys, the
// functions called); other nodes' attrs, the function's own attrs and its
// returns are left out. Only nodes kept whole are checked as NodeDefs.
StatusOr<FunctionDef> OutlineRestoreFunction(absl::string_view bytes,
                                             const TensorDecodeOptions& options,
                                             google::protobuf::Arena* arena) {
  absl::string_view signature;
  std::vector<absl::string_view> nodes;
  const bool scanned =
      ScanBytesFields(bytes, [&](int field, absl::string_view v) {
        if (field == 1) signature = v;
        if (field == 3) nodes.push_back(v);
      });
  WEFT_ASSIGN_OR_RETURN(const std::string name, SerializedFunctionName(bytes));
  const std::string context =
      absl::StrCat("library: function '", Printable(name), "'");
  if (!scanned) {
    return errors::InvalidArgument(context, " does not parse as a FunctionDef");
  }
  auto* sig = google::protobuf::Arena::CreateMessage<pb::OpDef>(arena);
  WEFT_RETURN_IF_ERROR(graph_internal::ParseBinaryMessage(
      signature, absl::StrCat(context, ": signature"), sig));
  FunctionDef f;
  auto converted = graph_internal::OpDefFromProto(*sig, options);
  if (!converted.ok()) {
    return AddContext(converted.status(), absl::StrCat(context, ": signature"));
  }
  f.signature = *std::move(converted);
  f.node_def.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeDef node;
    absl::string_view op;
    ScanBytesFields(nodes[i], [&](int field, absl::string_view v) {
      if (field == 1) node.name.assign(v.data(), v.size());
      if (field == 2) op = v;
      if (field == 3) node.input.emplace_back(v);
    });
    if (op == "Const" || IsCallOp(op)) {
      auto* n = google::protobuf::Arena::CreateMessage<pb::NodeDef>(arena);
      WEFT_RETURN_IF_ERROR(graph_internal::ParseBinaryMessage(
          nodes[i], absl::StrCat(context, ": node ", i), n));
      auto whole = graph_internal::NodeDefFromProto(*n, options);
      if (!whole.ok()) {
        return AddContext(
            whole.status(),
            absl::StrCat(context, ": node '", Printable(n->name()), "'"));
      }
      node = *std::move(whole);
    } else {
      if (node.name.empty() || op.empty()) {
        return errors::InvalidArgument(context, ": node ", i,
                                       " has no name or no op");
      }
      node.op.assign(op.data(), op.size());
    }
    f.node_def.push_back(std::move(node));
  }
  return f;
}

// One meta graph of a binary SavedModel, split while walking the file: its
// top-level nodes and library functions, serialized (nearly all of the
// file), as views of its bytes; the rest, small (signatures, the object
// graph, versions, gradients), re-encoded in `rest` for protobuf to parse
// as a MetaGraphDefShallow whose node and function lists stay empty.
// Parsed whole into the shallow messages, every node and function was
// first copied into a string of its own: 6-10 ms and 2,700 page faults of
// NASNetMobile's 9.4 MB saved_model.pb, against 1 ms and 108 faults for
// the walk.
struct MetaGraphBytes {
  std::string rest;
  std::vector<absl::string_view> nodes;
  std::vector<absl::string_view> functions;
};

// Field numbers of SavedModel, MetaGraphDef, GraphDef and
// FunctionDefLibrary.
constexpr uint32_t kSavedModelMetaGraphs = 2;
constexpr uint32_t kMetaGraphGraphDef = 2;
constexpr uint32_t kGraphNode = 1;
constexpr uint32_t kGraphLibrary = 2;
constexpr uint32_t kLibraryFunction = 1;

// Walks message `bytes`: each length-delimited field `bulk` goes to
// `views`; the payloads of the length-delimited fields `nested` go to
// `split_nested`, which appends what it leaves of each to one string, and
// that string is re-encoded as a single `nested` field after the others
// (protobuf merges the occurrences of a message field, so one merged
// occurrence reads the same, wherever it stands); every other field is
// copied to `rest` as it is, a field of a bulk or nested number with
// another wire type included (protobuf keeps it as an unknown field, which
// CheckFieldWireTypes rejects). False when the bytes do not scan.
template <typename SplitNested>
bool SplitFields(absl::string_view bytes, uint32_t bulk,
                 std::vector<absl::string_view>* views, uint32_t nested,
                 SplitNested&& split_nested, std::string* rest) {
  WireFieldReader reader(bytes);
  WireField field;
  std::string nested_rest;
  bool has_nested = false;
  while (reader.Next(&field)) {
    if (views != nullptr && field.Is(bulk)) {
      views->push_back(field.payload);
    } else if (field.Is(nested)) {
      has_nested = true;
      if (!split_nested(field.payload, &nested_rest)) return false;
    } else {
      rest->append(field.whole.data(), field.whole.size());
    }
  }
  if (reader.malformed()) return false;
  if (has_nested) {
    graph_internal::AppendLengthDelimited(nested, nested_rest, rest);
  }
  return true;
}

// For SplitFields on a level with no nested field to split (0 is no field
// number).
bool NoNestedField(absl::string_view, std::string*) { return false; }

bool SplitMetaGraph(absl::string_view bytes, MetaGraphBytes* out) {
  auto library = [out](absl::string_view b, std::string* rest) {
    return SplitFields(b, kLibraryFunction, &out->functions, /*nested=*/0,
                       NoNestedField, rest);
  };
  auto graph = [out, &library](absl::string_view b, std::string* rest) {
    return SplitFields(b, kGraphNode, &out->nodes, kGraphLibrary, library,
                       rest);
  };
  return SplitFields(bytes, /*bulk=*/0, nullptr, kMetaGraphGraphDef, graph,
                     &out->rest);
}

// `shallow` (parsed from `bytes.rest`) as a MetaGraphDef on its arena, its
// parts moved, not copied, with only the top-level nodes of `bytes`
// ReachableNodes keeps (the others counted in `unreachable`; the saver's
// roots followed when `saver_roots`, the signatures as `scope` says) and
// the functions ParseCalledFunctions keeps (the others listed in
// `uncalled`). Nodes and functions left out are neither parsed nor checked
// beyond their names and inputs.
StatusOr<pb::MetaGraphDef*> ParseMetaGraph(
    pb::MetaGraphDefShallow* shallow, const MetaGraphBytes& bytes,
    bool saver_roots, const SavedModelParseScope& scope,
    google::protobuf::Arena* arena, int64_t* unreachable,
    std::vector<absl::string_view>* restore_only,
    std::vector<std::string>* uncalled) {
  auto* p = google::protobuf::Arena::CreateMessage<pb::MetaGraphDef>(arena);
  // Singular messages only where the file has them (has_saver_def matters).
  if (shallow->has_meta_info_def()) {
    p->mutable_meta_info_def()->Swap(shallow->mutable_meta_info_def());
  }
  if (shallow->has_saver_def()) {
    p->mutable_saver_def()->Swap(shallow->mutable_saver_def());
  }
  if (shallow->has_object_graph_def()) {
    p->mutable_object_graph_def()->Swap(shallow->mutable_object_graph_def());
  }
  p->mutable_collection_def()->Swap(shallow->mutable_collection_def());
  p->mutable_signature_def()->Swap(shallow->mutable_signature_def());
  p->mutable_asset_file_def()->Swap(shallow->mutable_asset_file_def());
  pb::GraphDefShallow* g = shallow->mutable_graph_def();
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*g), "graph_def");
  pb::GraphDef* graph = p->mutable_graph_def();
  graph->mutable_versions()->Swap(g->mutable_versions());

  const std::vector<absl::string_view>& nodes = bytes.nodes;
  std::vector<NodeHeader> headers(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeHeader& h = headers[i];
    const bool scanned =
        ScanBytesFields(nodes[i], [&h](int field, absl::string_view v) {
          if (field == 1) h.name = v;
          if (field == 3) h.inputs.push_back(v);
        });
    if (!scanned) {
      return errors::InvalidArgument("graph_def: node ", i,
                                     " does not parse as a NodeDef");
    }
  }
  const std::vector<bool> keep =
      ReachableNodes(*p, headers, saver_roots, scope.signature);
  graph->mutable_node()->Reserve(
      static_cast<int>(std::count(keep.begin(), keep.end(), true)));
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!keep[i]) {
      ++*unreachable;
      continue;
    }
    auto* n = google::protobuf::Arena::CreateMessage<pb::NodeDef>(arena);
    // Named, and the failure diagnosed, only when the parse fails.
    if (!n->ParseFromArray(nodes[i].data(),
                           static_cast<int>(nodes[i].size()))) {
      WEFT_RETURN_IF_ERROR(graph_internal::ParseBinaryMessage(
          nodes[i],
          absl::StrCat("graph_def: node '", Printable(headers[i].name), "'"),
          n));
    }
    graph->mutable_node()->UnsafeArenaAddAllocated(n);
  }

  pb::FunctionDefLibraryShallow* lib = g->mutable_library();
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*lib), "graph_def: library");
  pb::FunctionDefLibrary* library = graph->mutable_library();
  library->mutable_gradient()->Swap(lib->mutable_gradient());
  library->mutable_registered_gradients()->Swap(
      lib->mutable_registered_gradients());
  WEFT_RETURN_IF_ERROR_CTX(
      ParseCalledFunctions(bytes.functions, *p, arena, library, restore_only,
                           uncalled),
      "graph_def");
  return p;
}

StatusOr<SavedMetaGraphDef> MetaGraphFromProto(
    const pb::MetaGraphDef& p, const GraphParseOptions& options,
    int64_t num_unreachable_nodes,
    std::vector<std::string> uncalled_functions) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  SavedMetaGraphDef meta;
  const auto& info = p.meta_info_def();
  meta.tags.assign(info.tags().begin(), info.tags().end());
  meta.tensorflow_version = info.tensorflow_version();
  auto graph = graph_internal::GraphDefFromProto(p.graph_def(), options.tensor);
  if (!graph.ok()) return AddContext(graph.status(), "graph_def");
  meta.graph_def = *std::move(graph);
  meta.num_unreachable_nodes = num_unreachable_nodes;
  meta.uncalled_functions = std::move(uncalled_functions);
  if (p.has_saver_def()) {
    meta.has_saver_def = true;
    meta.saver_def.filename_tensor_name = p.saver_def().filename_tensor_name();
    meta.saver_def.save_tensor_name = p.saver_def().save_tensor_name();
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
                                        const GraphParseOptions& options,
                                        const SavedModelParseScope& scope) {
  if (bytes.empty()) {
    return errors::InvalidArgument(
        source_name, ": is empty (0 bytes); expected a SavedModel");
  }
  google::protobuf::Arena arena;
  std::string binary;  // a text SavedModel's binary form
  if (DetectGraphFormat(bytes) == GraphFormat::kText) {
    // Text SavedModels are rare and small: parsed whole, then read through
    // the binary form like the others.
    auto* text = google::protobuf::Arena::CreateMessage<pb::SavedModel>(&arena);
    WEFT_RETURN_IF_ERROR(graph_internal::ParseTextMessage(
        bytes, source_name, text, /*skip_unknown_fields=*/true));
    WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*text), source_name);
    binary = text->SerializeAsString();
    bytes = binary;
  }
  auto* proto =
      google::protobuf::Arena::CreateMessage<pb::SavedModelShallow>(&arena);
  // A part that does not read is diagnosed by protobuf on the whole file
  // (which also rejects one over 2 GiB): the walk and protobuf read the same
  // levels alike, so `what` is only said if protobuf accepts it.
  auto diagnose = [&](absl::string_view what) -> Status {
    WEFT_RETURN_IF_ERROR(
        graph_internal::ParseBinaryMessage(bytes, source_name, proto));
    return errors::InvalidArgument(what, ": not a valid binary SavedModel");
  };
  // The file's own fields but the meta graphs (its schema version), and
  // each meta graph split.
  std::string rest;
  std::vector<absl::string_view> meta_graphs;
  bool split = bytes.size() <= static_cast<size_t>(INT_MAX) &&
               SplitFields(bytes, kSavedModelMetaGraphs, &meta_graphs,
                           /*nested=*/0, NoNestedField, &rest);
  std::vector<MetaGraphBytes> metas(meta_graphs.size());
  for (size_t i = 0; split && i < metas.size(); ++i) {
    split = SplitMetaGraph(meta_graphs[i], &metas[i]);
  }
  if (!split ||
      !proto->ParseFromArray(rest.data(), static_cast<int>(rest.size()))) {
    return diagnose(source_name);
  }
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*proto), source_name);
  if (metas.empty()) {
    return errors::InvalidArgument(
        source_name, ": not a SavedModel: it holds no meta graph");
  }
  SavedModelDef model;
  model.schema_version = proto->saved_model_schema_version();
  for (size_t i = 0; i < metas.size(); ++i) {
    const std::string where =
        absl::StrCat(source_name, ": meta_graphs[", i, "]");
    auto* shallow =
        google::protobuf::Arena::CreateMessage<pb::MetaGraphDefShallow>(&arena);
    const std::string& meta_rest = metas[i].rest;
    if (!shallow->ParseFromArray(meta_rest.data(),
                                 static_cast<int>(meta_rest.size()))) {
      return diagnose(where);
    }
    WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(*shallow), where);
    int64_t unreachable = 0;
    std::vector<std::string> uncalled;
    std::vector<absl::string_view> restore_only;
    const bool read_saver =
        scope.saver_ops == SaverOps::kRead ||
        shallow->object_graph_def().concrete_functions().empty();
    auto p = ParseMetaGraph(shallow, metas[i], read_saver, scope, &arena,
                            &unreachable, &restore_only, &uncalled);
    if (!p.ok()) return AddContext(p.status(), where);
    auto meta =
        MetaGraphFromProto(**p, options, unreachable, std::move(uncalled));
    if (!meta.ok()) return AddContext(meta.status(), where);
    meta->saver_ops_read = read_saver;
    for (absl::string_view function : restore_only) {
      auto f = OutlineRestoreFunction(function, options.tensor, &arena);
      if (!f.ok())
        return AddContext(f.status(), absl::StrCat(where, ": graph_def"));
      meta->restore_functions.function.push_back(*std::move(f));
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
