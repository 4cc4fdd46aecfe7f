#include "savedmodel/saved_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/allocator.h"
#include "core/slab_allocator.h"
#include "graph/file_bytes.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/saved_model_io.h"
#include "savedmodel/freeze_variables.h"
#include "savedmodel/node_ref.h"
#include "savedmodel/restore_map.h"
#include "savedmodel/tensor_bundle.h"

namespace weft {
namespace {

using savedmodel_internal::RefNode;

constexpr absl::string_view kInitSignature = "__saved_model_init_op";
// Where a TF2 checkpoint keeps its own object graph.
constexpr absl::string_view kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool IsDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string Join(const std::string& dir, absl::string_view name) {
  if (!dir.empty() && dir.back() == '/') return absl::StrCat(dir, name);
  return absl::StrCat(dir, "/", name);
}

std::string TagSetText(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  return absl::StrCat("{", absl::StrJoin(tags, ", "), "}");
}

// "10 5 0,5:-": the full shape, then per dimension "start,length" or "-".
Status ParseSliceSpec(absl::string_view spec, std::vector<int64_t>* full,
                      std::vector<std::pair<int64_t, int64_t>>* extents) {
  std::vector<absl::string_view> words =
      absl::StrSplit(spec, ' ', absl::SkipEmpty());
  if (words.empty()) return errors::InvalidArgument("empty slice spec");
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    int64_t d;
    if (!absl::SimpleAtoi(words[i], &d) || d < 0) {
      return errors::InvalidArgument("slice spec '", spec,
                                     "' has a bad dimension");
    }
    full->push_back(d);
  }
  std::vector<absl::string_view> dims = absl::StrSplit(words.back(), ':');
  if (dims.size() != full->size()) {
    return errors::InvalidArgument("slice spec '", spec, "' slices ",
                                   dims.size(), " of ", full->size(),
                                   " dimensions");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == "-") {
      extents->push_back({0, (*full)[i]});
      continue;
    }
    std::vector<absl::string_view> se = absl::StrSplit(dims[i], ',');
    int64_t start, length;
    if (se.size() != 2 || !absl::SimpleAtoi(se[0], &start) ||
        !absl::SimpleAtoi(se[1], &length) || start < 0 || length < 0 ||
        start > (*full)[i] || length > (*full)[i] - start) {
      return errors::InvalidArgument("slice spec '", spec,
                                     "' has a bad extent '", dims[i], "'");
    }
    extents->push_back({start, length});
  }
  return Status();
}

// The block of `full` a slice spec names (a TF1 partitioned variable's
// part).
StatusOr<Tensor> ExtractSlice(const Tensor& full, absl::string_view spec) {
  std::vector<int64_t> full_dims;
  std::vector<std::pair<int64_t, int64_t>> extents;
  WEFT_RETURN_IF_ERROR(ParseSliceSpec(spec, &full_dims, &extents));
  if (full_dims != std::vector<int64_t>(full.shape().dim_sizes().begin(),
                                        full.shape().dim_sizes().end())) {
    return errors::InvalidArgument("slice spec '", spec,
                                   "' is for another shape than the stored ",
                                   full.shape().DebugString());
  }
  const size_t elem = DataTypeSize(full.dtype());
  if (elem == 0) {
    return errors::InvalidArgument("slices of ", DataTypeName(full.dtype()),
                                   " variables are not supported");
  }
  std::vector<int64_t> dims;
  for (const auto& e : extents) dims.push_back(e.second);
  WEFT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  WEFT_ASSIGN_OR_RETURN(
      Tensor out, Tensor::Allocate(DefaultCpuAllocator(), full.dtype(), shape));
  const int rank = static_cast<int>(dims.size());
  if (shape.num_elements() == 0) return out;
  if (rank == 0) {
    std::memcpy(out.raw_data(), full.raw_data(), elem);
    return out;
  }
  // Copy rows of the innermost dimension.
  std::vector<int64_t> stride(rank, 1);
  for (int i = rank - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * full_dims[i + 1];
  std::vector<int64_t> pos(rank, 0);
  const int64_t row = dims[rank - 1];
  const char* src = static_cast<const char*>(full.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  for (int64_t done = 0; done < shape.num_elements(); done += row) {
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i)
      offset += (extents[i].first + pos[i]) * stride[i];
    std::memcpy(dst, src + offset * elem, row * elem);
    dst += row * elem;
    for (int i = rank - 2; i >= 0; --i) {
      if (++pos[i] < dims[i]) break;
      pos[i] = 0;
    }
  }
  return out;
}

// The node a signature tensor name ("x:0", "x") lives on.
}  // namespace

bool IsSavedModelDirectory(const std::string& path) {
  return IsDir(path) && (IsFile(Join(path, "saved_model.pb")) ||
                         IsFile(Join(path, "saved_model.pbtxt")));
}

StatusOr<SavedModelDef> ReadSavedModel(const std::string& dir,
                                       const GraphParseOptions& options,
                                       const SavedModelParseScope& scope) {
  std::string path = Join(dir, "saved_model.pb");
  if (!IsFile(path)) path = Join(dir, "saved_model.pbtxt");
  if (!IsFile(path)) {
    return errors::NotFound(
        dir,
        ": not a SavedModel directory (no saved_model.pb or "
        "saved_model.pbtxt)");
  }
  WEFT_ASSIGN_OR_RETURN(const FileBytes file, FileBytes::Read(path));
  return ParseSavedModel(file.view(), path, options, scope);
}

StatusOr<const SavedMetaGraphDef*> FindMetaGraph(
    const SavedModelDef& model, const std::vector<std::string>& tags,
    absl::string_view context) {
  const std::set<std::string> want(tags.begin(), tags.end());
  std::vector<std::string> have;
  for (const SavedMetaGraphDef& meta : model.meta_graphs) {
    if (std::set<std::string>(meta.tags.begin(), meta.tags.end()) == want) {
      return &meta;
    }
    have.push_back(TagSetText(meta.tags));
  }
  return errors::NotFound(context, ": no meta graph with tags ",
                          TagSetText(tags), "; the model has ",
                          absl::StrJoin(have, ", "));
}

std::vector<std::string> RunnableSignatures(const SavedMetaGraphDef& meta) {
  std::vector<std::string> keys;
  for (const auto& [key, sig] : meta.signatures) {
    if (key != kInitSignature) keys.push_back(key);
  }
  return keys;
}

namespace {

// The checkpoint values of the variables among `needed` that `slots` maps
// (nodes by name in `by_name`), checked against the dtype and shape their
// nodes declare. Errors name the directory `dir` and the variable.
StatusOr<absl::flat_hash_map<std::string, Tensor>> ReadVariableValues(
    const TensorBundleReader& reader,
    const absl::flat_hash_map<std::string, CheckpointSlot>& slots,
    const absl::flat_hash_map<std::string, const NodeDef*>& by_name,
    const absl::flat_hash_set<std::string>& needed, const std::string& dir) {
  // The values read whole share one slab (core/slab_allocator.h).
  size_t slab_bytes = 0;
  for (const auto& [var, slot] : slots) {
    const BundleEntry* entry = slot.slice_spec.empty() && needed.contains(var)
                                   ? reader.Find(slot.key)
                                   : nullptr;
    if (entry != nullptr && DataTypeIsPod(entry->dtype)) {
      slab_bytes += SlabAllocator::Footprint(static_cast<size_t>(
          entry->shape.num_elements() * DataTypeSize(entry->dtype)));
    }
  }
  const std::unique_ptr<SlabAllocator, SlabAllocator::Releaser> slab(
      SlabAllocator::Create(slab_bytes));
  absl::flat_hash_map<std::string, Tensor> values;
  for (const auto& [var, slot] : slots) {
    auto it = by_name.find(var);
    if (it == by_name.end() || !needed.contains(var)) continue;
    const NodeDef& node = *it->second;
    auto value = reader.Read(slot.key, slot.slice_spec.empty()
                                           ? static_cast<Allocator*>(slab.get())
                                           : DefaultCpuAllocator());
    if (!value.ok()) {
      return AddContext(value.status(),
                        absl::StrCat(dir, ": variable '", var, "'"));
    }
    Tensor t = *std::move(value);
    if (!slot.slice_spec.empty()) {
      auto part = ExtractSlice(t, slot.slice_spec);
      if (!part.ok()) {
        return AddContext(part.status(), absl::StrCat(dir, ": variable '", var,
                                                      "' (", slot.key, ")"));
      }
      t = *std::move(part);
    }
    // What the graph declares must match what the file holds.
    auto dt = node.attr.find("dtype");
    if (dt != node.attr.end() && dt->second.kind == AttrValue::Kind::kType &&
        dt->second.type != t.dtype()) {
      return errors::InvalidArgument(dir, ": variable '", var, "' is declared ",
                                     DataTypeName(dt->second.type),
                                     " but the checkpoint entry '", slot.key,
                                     "' holds ", DataTypeName(t.dtype()));
    }
    auto sh = node.attr.find("shape");
    if (sh != node.attr.end() && sh->second.kind == AttrValue::Kind::kShape &&
        !sh->second.shape.IsCompatibleWith(t.shape())) {
      return errors::InvalidArgument(
          dir, ": variable '", var, "' is declared with shape ",
          sh->second.shape.DebugString(), " but the checkpoint entry '",
          slot.key, "' has shape ", t.shape().DebugString());
    }
    values[var] = std::move(t);
  }
  return values;
}

// LoadSavedModel on a parse with `saver_ops`; nullopt when that parse left
// the saver's ops out and the object graph does not give every variable the
// signature reads.
StatusOr<std::optional<LoadedSavedModel>> LoadParsedWith(
    const std::string& dir, const SavedModelLoadOptions& options,
    SaverOps saver_ops) {
  SavedModelParseScope scope;
  scope.saver_ops = saver_ops;
  scope.signature = options.signature;
  WEFT_ASSIGN_OR_RETURN(SavedModelDef model,
                        ReadSavedModel(dir, options.parse, scope));
  WEFT_ASSIGN_OR_RETURN(const SavedMetaGraphDef* meta,
                        FindMetaGraph(model, options.tags, dir));
  const std::vector<std::string> runnable = RunnableSignatures(*meta);
  std::string key = options.signature;
  if (meta->signatures.count(key) == 0 || key == kInitSignature) {
    if (runnable.size() == 1 && options.signature == "serving_default") {
      key = runnable[0];
    } else {
      return errors::NotFound(
          dir, ": no signature '", options.signature, "'; the model has ",
          runnable.empty() ? "none" : absl::StrJoin(runnable, ", "));
    }
  }
  const SavedSignatureDef& sig = meta->signatures.at(key);
  const std::string context = absl::StrCat(dir, ": signature '", key, "'");

  LoadedSavedModel loaded;
  loaded.read_restore_op = meta->saver_ops_read && meta->has_saver_def;
  loaded.signature_key = key;
  loaded.method_name = sig.method_name;
  loaded.tags = meta->tags;
  std::vector<std::string> keep;
  auto add = [&](const auto& entries, std::vector<SignatureTensor>* out,
                 absl::string_view what) -> Status {
    for (const auto& [k, info] : entries) {
      if (!info.is_dense) {
        return errors::Unimplemented(context, ": ", what, " '", k,
                                     "' is a sparse or composite tensor; "
                                     "weft runs dense tensors only");
      }
      out->push_back({k, info.name, info.dtype, info.shape});
      keep.emplace_back(RefNode(info.name));
    }
    return Status();
  };
  WEFT_RETURN_IF_ERROR(add(sig.inputs, &loaded.inputs, "input"));
  WEFT_RETURN_IF_ERROR(add(sig.outputs, &loaded.outputs, "output"));
  // The top-level nodes the signature's inputs and outputs need (data or
  // control), which is what freezing keeps.
  WEFT_ASSIGN_OR_RETURN(const absl::flat_hash_set<std::string> needed,
                        NodesNeededBy(meta->graph_def, keep, context));
  if (!meta->uncalled_functions.empty()) {
    // The parse left the save op's functions out (graph/saved_model_def.h).
    const std::string save(RefNode(meta->saver_def.save_tensor_name));
    if (needed.contains(save)) {
      return errors::Unimplemented(
          context, ": it needs node '", save,
          "', the saver's save op, which writes a checkpoint; weft does not "
          "run it");
    }
  }

  // Which checkpoint entry restores each variable, and the values of those
  // the signature can reach.
  absl::flat_hash_map<std::string, CheckpointSlot> slots;
  if (meta->saver_ops_read) {
    WEFT_ASSIGN_OR_RETURN(slots, MapVariablesToCheckpoint(*meta, dir));
  }
  absl::flat_hash_map<std::string, Tensor> values;
  if (!slots.empty() || !meta->captured_objects.empty()) {
    const std::string prefix = Join(Join(dir, "variables"), "variables");
    absl::flat_hash_map<std::string, const NodeDef*> by_name;
    for (const NodeDef& n : meta->graph_def.node) by_name[n.name] = &n;
    // Only the variables the signature reads (`needed`). Other signatures'
    // variables, optimizer slots and the like are neither read nor counted.
    // Variables the restore op does not assign, through the object graph.
    bool unassigned = false;
    for (const std::string& name : needed) {
      auto it = by_name.find(name);
      unassigned |= it != by_name.end() && it->second->op == "VarHandleOp" &&
                    !slots.contains(name);
    }
    const bool any_variable =
        std::any_of(needed.begin(), needed.end(), [&](const std::string& name) {
          auto it = by_name.find(name);
          return it != by_name.end() && IsVariableOp(it->second->op);
        });
    std::unique_ptr<TensorBundleReader> reader;
    if (any_variable) {
      WEFT_ASSIGN_OR_RETURN(reader, TensorBundleReader::Open(prefix));
    }
    if (unassigned && reader != nullptr &&
        reader->Find(kObjectGraphKey) != nullptr) {
      WEFT_ASSIGN_OR_RETURN(Tensor graph, reader->Read(kObjectGraphKey));
      if (graph.dtype() != DT_STRING || graph.NumElements() != 1) {
        return errors::InvalidArgument(prefix, ": '", kObjectGraphKey,
                                       "' is not a string scalar");
      }
      auto objects = ParseTrackableObjectGraph(
          static_cast<const std::string*>(graph.raw_data())[0]);
      if (!objects.ok()) return AddContext(objects.status(), prefix);
      std::vector<std::string> nodes(needed.begin(), needed.end());
      WEFT_RETURN_IF_ERROR(
          AddCapturedVariables(*meta, *objects, nodes, context, &slots));
    }
    if (!meta->saver_ops_read) {
      for (const std::string& name : needed) {
        auto it = by_name.find(name);
        if (it != by_name.end() && IsVariableOp(it->second->op) &&
            !slots.contains(name)) {
          return std::nullopt;  // the restore op may assign it
        }
      }
    }
    if (reader != nullptr) {
      WEFT_ASSIGN_OR_RETURN(
          values, ReadVariableValues(*reader, slots, by_name, needed, dir));
    }
  }

  FreezeVariablesOptions freeze;
  freeze.keep_nodes = keep;
  freeze.context = context;
  // The last use of the parsed graph: freezing may take it apart.
  GraphDef& parsed =
      model.meta_graphs[meta - model.meta_graphs.data()].graph_def;
  WEFT_ASSIGN_OR_RETURN(loaded.graph_def,
                        FreezeVariables(std::move(parsed), values, freeze));
  for (const auto& [var, value] : values) {
    ++loaded.num_variables;
    loaded.variable_bytes += static_cast<int64_t>(value.TotalBytes());
  }
  return loaded;
}

}  // namespace

StatusOr<LoadedSavedModel> LoadSavedModel(
    const std::string& dir, const SavedModelLoadOptions& options) {
  // The object graph first (see SaverOps); the restore op only for what it
  // leaves out.
  WEFT_ASSIGN_OR_RETURN(
      std::optional<LoadedSavedModel> loaded,
      LoadParsedWith(dir, options, SaverOps::kSkipWhenCaptured));
  if (!loaded.has_value()) {
    WEFT_ASSIGN_OR_RETURN(loaded,
                          LoadParsedWith(dir, options, SaverOps::kRead));
  }
  return *std::move(loaded);
}

GraphAliases SignatureAliases(const LoadedSavedModel& loaded) {
  GraphAliases aliases;
  aliases.signature = loaded.signature_key;
  for (const SignatureTensor& t : loaded.inputs) {
    aliases.inputs.push_back({t.key, t.tensor});
  }
  for (const SignatureTensor& t : loaded.outputs) {
    aliases.outputs.push_back({t.key, t.tensor});
  }
  return aliases;
}

namespace {

// The imported graph, given the signature's keys (ImportSavedModel).
StatusOr<std::unique_ptr<Graph>> WithSignatureAliases(
    std::unique_ptr<Graph> graph, const LoadedSavedModel& loaded,
    const std::string& source_name) {
  GraphAliases aliases = SignatureAliases(loaded);
  // Every tensor a key names must exist (the import may have renamed
  // nothing, but a signature can name a tensor that is not there).
  for (const auto* list : {&aliases.inputs, &aliases.outputs}) {
    for (const TensorAlias& a : *list) {
      const std::string node(RefNode(a.tensor));
      const Node* n = graph->FindNode(node);
      if (n == nullptr) {
        return errors::InvalidArgument(source_name, ": signature '",
                                       loaded.signature_key, "': key '", a.key,
                                       "' names tensor '", a.tensor,
                                       "', which the graph does not have");
      }
    }
  }
  graph->set_aliases(std::move(aliases));
  return graph;
}

ImportOptions ImportOptionsFor(const std::string& source_name) {
  ImportOptions import_options;
  import_options.source_name = source_name;
  return import_options;
}

}  // namespace

StatusOr<std::unique_ptr<Graph>> ImportSavedModel(
    const LoadedSavedModel& loaded, const std::string& source_name) {
  WEFT_ASSIGN_OR_RETURN(
      std::unique_ptr<Graph> graph,
      ImportGraphDef(loaded.graph_def, ImportOptionsFor(source_name)));
  return WithSignatureAliases(std::move(graph), loaded, source_name);
}

StatusOr<std::unique_ptr<Graph>> ImportSavedModel(
    LoadedSavedModel&& loaded, const std::string& source_name) {
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(std::move(loaded.graph_def),
                                       ImportOptionsFor(source_name)));
  return WithSignatureAliases(std::move(graph), loaded, source_name);
}

}  // namespace weft
