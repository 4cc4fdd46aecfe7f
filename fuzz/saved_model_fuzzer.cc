// Fuzz target: a saved_model.pb or saved_model.pbtxt (graph/saved_model_io.h)
// and, when it parses, what LoadSavedModel does with it that needs no files:
// for every meta graph, the restore op read for the checkpoint slots
// (savedmodel/restore_map.h, captured variables through a stand-in object
// graph too) and, for every signature, the graph frozen with a zero value
// for each variable whose dtype and shape attrs give one
// (savedmodel/freeze_variables.h); a frozen graph goes through import and
// shape inference (fuzz/graph_pipeline.h). The bytes are also parsed as
// LoadSavedModel first parses them (the saver's ops left out where the
// object graph captures, one signature's nodes). The checkpoint itself is
// the tensor_bundle_index target's.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/tensor.h"
#include "core/types.h"
#include "fuzz/fuzz_options.h"
#include "fuzz/graph_pipeline.h"
#include "graph/saved_model_def.h"
#include "graph/saved_model_io.h"
#include "savedmodel/freeze_variables.h"
#include "savedmodel/restore_map.h"
#include "savedmodel/saved_model.h"

namespace {

// Bounds that keep one input to milliseconds: meta graphs and signatures
// looked at, and the elements of a stand-in variable value.
constexpr size_t kMaxMetaGraphs = 4;
constexpr size_t kMaxSignatures = 4;
constexpr int64_t kMaxValueElements = 1 << 12;

// A zero tensor of the variable's declared dtype and shape, when both are
// given, plain and small.
bool ZeroValue(const weft::NodeDef& node, weft::Tensor* out) {
  auto dt = node.attr.find("dtype");
  auto sh = node.attr.find("shape");
  if (dt == node.attr.end() || sh == node.attr.end() ||
      dt->second.kind != weft::AttrValue::Kind::kType ||
      sh->second.kind != weft::AttrValue::Kind::kShape ||
      !weft::DataTypeIsPod(dt->second.type) ||
      !sh->second.shape.IsFullyDefined()) {
    return false;
  }
  auto shape = sh->second.shape.ToTensorShape();
  if (!shape.ok() || shape->num_elements() > kMaxValueElements) return false;
  auto t = weft::Tensor::Allocate(weft::DefaultCpuAllocator(), dt->second.type,
                                  *shape);
  if (!t.ok()) return false;
  if (t->TotalBytes() > 0) std::memset(t->raw_data(), 0, t->TotalBytes());
  *out = *std::move(t);
  return true;
}

void RunMetaGraph(const weft::SavedMetaGraphDef& meta) {
  weft::RunnableSignatures(meta);
  auto slots = weft::MapVariablesToCheckpoint(meta, "fuzz");
  if (slots.ok()) {
    // An object graph in which object i saves its value under key "i".
    weft::TrackableObjects objects(
        static_cast<size_t>(std::min(meta.num_objects, 1 << 12)));
    for (size_t i = 0; i < objects.size(); ++i) {
      objects[i]["VARIABLE_VALUE"] = std::to_string(i);
    }
    std::vector<std::string> nodes;
    for (const weft::NodeDef& n : meta.graph_def.node) nodes.push_back(n.name);
    weft::AddCapturedVariables(meta, objects, nodes, "fuzz", &*slots)
        .IgnoreError();
  }
  absl::flat_hash_map<std::string, weft::Tensor> values;
  for (const weft::NodeDef& n : meta.graph_def.node) {
    weft::Tensor value;
    if (weft::IsVariableOp(n.op) && ZeroValue(n, &value)) {
      values[n.name] = std::move(value);
    }
  }
  size_t signatures = 0;
  for (const auto& [key, sig] : meta.signatures) {
    if (++signatures > kMaxSignatures) break;
    weft::FreezeVariablesOptions options;
    options.context = "fuzz: signature";
    for (const auto* list : {&sig.inputs, &sig.outputs}) {
      for (const auto& [k, info] : *list) {
        options.keep_nodes.push_back(info.name.substr(0, info.name.find(':')));
      }
    }
    auto frozen = weft::FreezeVariables(meta.graph_def, values, options);
    if (frozen.ok()) weft::fuzz::RunGraphPipeline(*frozen);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  weft::StatusOr<weft::SavedModelDef> model = weft::ParseSavedModel(
      bytes, "fuzz/saved_model.pb", weft::fuzz::FuzzParseOptions());
  weft::SavedModelParseScope scope;
  scope.saver_ops = weft::SaverOps::kSkipWhenCaptured;
  scope.signature = "serving_default";
  weft::ParseSavedModel(bytes, "fuzz/saved_model.pb",
                        weft::fuzz::FuzzParseOptions(), scope)
      .status()
      .IgnoreError();
  if (!model.ok()) return 0;
  weft::FindMetaGraph(*model, {"serve"}, "fuzz").IgnoreError();
  for (size_t i = 0; i < model->meta_graphs.size() && i < kMaxMetaGraphs; ++i) {
    RunMetaGraph(model->meta_graphs[i]);
  }
  return 0;
}
