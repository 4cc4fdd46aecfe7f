#include "tools/saved_model_summary.h"

#include <sys/stat.h>

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "savedmodel/saved_model.h"
#include "savedmodel/tensor_bundle.h"
#include "tools/cli.h"

namespace weft::cli {
namespace {

// The checkpoint's description of itself, not a variable.
constexpr absl::string_view kObjectGraphKey = "_CHECKPOINTABLE_OBJECT_GRAPH";

std::string DtypeText(DataType dt) {
  return dt == DT_INVALID ? "-" : std::string(DataTypeName(dt));
}

void AppendJsonTensors(std::string* out,
                       const std::map<std::string, SavedTensorInfo>& tensors) {
  *out += "[";
  bool first = true;
  for (const auto& [key, t] : tensors) {
    if (!first) *out += ", ";
    first = false;
    *out += "{\"key\": ";
    AppendJsonString(out, key);
    *out += ", \"tensor\": ";
    AppendJsonString(out, t.name);
    *out += ", \"dtype\": ";
    AppendJsonString(out, DtypeText(t.dtype));
    *out += ", \"shape\": ";
    AppendJsonString(out, t.shape.DebugString());
    absl::StrAppend(out, ", \"dense\": ", t.is_dense ? "true" : "false", "}");
  }
  *out += "]";
}

}  // namespace

StatusOr<SavedModelSummary> SummarizeSavedModel(const std::string& dir) {
  SavedModelSummary s;
  s.dir = dir;
  WEFT_ASSIGN_OR_RETURN(s.model, ReadSavedModel(dir));
  const std::string prefix = absl::StrCat(dir, "/variables/variables");
  struct stat st;
  if (::stat(absl::StrCat(prefix, ".index").c_str(), &st) == 0) {
    WEFT_ASSIGN_OR_RETURN(std::unique_ptr<TensorBundleReader> reader,
                          TensorBundleReader::Open(prefix));
    for (const std::string& key : reader->keys()) {
      if (key == kObjectGraphKey) continue;
      const BundleEntry* e = reader->Find(key);
      if (e == nullptr || !e->slices.empty()) continue;
      ++s.num_checkpoint_tensors;
      s.checkpoint_bytes += e->size;
    }
  }
  return s;
}

std::string SavedModelText(const SavedModelSummary& s) {
  std::string out =
      absl::StrCat(s.dir, ": SavedModel, ", s.model.meta_graphs.size(),
                   " meta graph", s.model.meta_graphs.size() == 1 ? "" : "s",
                   ", ", s.num_checkpoint_tensors, " checkpoint tensors (",
                   s.checkpoint_bytes, " bytes)\n");
  for (const SavedMetaGraphDef& meta : s.model.meta_graphs) {
    absl::StrAppend(&out, "meta graph with tags {",
                    absl::StrJoin(meta.tags, ", "), "}");
    if (!meta.tensorflow_version.empty()) {
      absl::StrAppend(&out, " (TensorFlow ", meta.tensorflow_version, ")");
    }
    absl::StrAppend(&out, ":\n");
    for (const auto& [key, sig] : meta.signatures) {
      absl::StrAppend(&out, "  signature '", key, "'",
                      sig.method_name.empty() ? "" : " (", sig.method_name,
                      sig.method_name.empty() ? "" : ")", ":\n");
      for (const auto* list : {&sig.inputs, &sig.outputs}) {
        absl::StrAppend(
            &out, list == &sig.inputs ? "    inputs:\n" : "    outputs:\n");
        for (const auto& [k, t] : *list) {
          absl::StrAppend(&out, "      ", k, ": ", DtypeText(t.dtype), " ",
                          t.shape.DebugString(), " (",
                          t.is_dense ? t.name : "sparse or composite", ")\n");
        }
      }
    }
    if (!meta.assets.empty()) {
      absl::StrAppend(&out, "  assets:");
      for (const SavedAssetFile& a : meta.assets) {
        absl::StrAppend(&out, " ", a.filename);
      }
      absl::StrAppend(&out, "\n");
    }
  }
  return out;
}

std::string SavedModelJson(const SavedModelSummary& s) {
  std::string out = "{\"directory\": ";
  AppendJsonString(&out, s.dir);
  absl::StrAppend(&out, ", \"checkpoint_tensors\": ", s.num_checkpoint_tensors,
                  ", \"checkpoint_bytes\": ", s.checkpoint_bytes,
                  ", \"meta_graphs\": [");
  for (size_t m = 0; m < s.model.meta_graphs.size(); ++m) {
    const SavedMetaGraphDef& meta = s.model.meta_graphs[m];
    if (m > 0) out += ", ";
    out += "{\"tags\": [";
    for (size_t t = 0; t < meta.tags.size(); ++t) {
      if (t > 0) out += ", ";
      AppendJsonString(&out, meta.tags[t]);
    }
    out += "], \"signatures\": {";
    bool first = true;
    for (const auto& [key, sig] : meta.signatures) {
      if (!first) out += ", ";
      first = false;
      AppendJsonString(&out, key);
      out += ": {\"method\": ";
      AppendJsonString(&out, sig.method_name);
      out += ", \"inputs\": ";
      AppendJsonTensors(&out, sig.inputs);
      out += ", \"outputs\": ";
      AppendJsonTensors(&out, sig.outputs);
      out += "}";
    }
    out += "}, \"assets\": [";
    for (size_t a = 0; a < meta.assets.size(); ++a) {
      if (a > 0) out += ", ";
      AppendJsonString(&out, meta.assets[a].filename);
    }
    out += "]}";
  }
  out += "]";
  if (!s.signature.empty()) {
    out += ", \"signature\": ";
    AppendJsonString(&out, s.signature);
    absl::StrAppend(
        &out, ", \"signature_variables\": ", s.signature_variables,
        ", \"signature_variable_bytes\": ", s.signature_variable_bytes);
  }
  out += "}";
  return out;
}

}  // namespace weft::cli
