// The C API's SavedModel entry points (include/weft/c_api.h): loading one
// signature of a directory as a weft_graph, and listing what a directory
// offers. Like every C entry point, nothing here lets an exception out.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "api/c_api_graph.h"
#include "api/c_status.h"
#include "savedmodel/saved_model.h"
#include "weft/c_api.h"

struct weft_saved_model_info {
  std::vector<std::string> signatures;
};

namespace weft {
namespace {

// NULL or "" is the default ("serve").
std::vector<std::string> Tags(const char* tags) {
  if (tags == nullptr || *tags == '\0') return {"serve"};
  return absl::StrSplit(tags, ',', absl::SkipEmpty());
}

}  // namespace
}  // namespace weft

extern "C" {

weft_graph* weft_graph_load_saved_model(const char* dir, const char* tags,
                                        const char* signature,
                                        const weft_graph_options* options,
                                        weft_status* status) {
  weft_graph* result = nullptr;
  weft::Guard(status, "weft_graph_load_saved_model", [&] {
    if (dir == nullptr) {
      return weft::SetCStatus(status,
                              weft::errors::InvalidArgument(
                                  "weft_graph_load_saved_model: dir is NULL"));
    }
    weft::SavedModelLoadOptions load;
    load.tags = weft::Tags(tags);
    if (signature != nullptr && *signature != '\0') load.signature = signature;
    const std::string source = dir;
    auto loaded = weft::LoadSavedModel(source, load);
    if (!loaded.ok()) return weft::SetCStatus(status, loaded.status());
    auto imported = weft::ImportSavedModel(*std::move(loaded), source);
    if (!imported.ok()) return weft::SetCStatus(status, imported.status());
    auto graph = weft::InferCGraphShapes(*std::move(imported), source, options);
    if (!graph.ok()) return weft::SetCStatus(status, graph.status());
    result = weft::NewCGraph(*std::move(graph), source).release();
    weft::Ok(status);
  });
  return result;
}

weft_saved_model_info* weft_saved_model_info_read(const char* dir,
                                                  const char* tags,
                                                  weft_status* status) {
  weft_saved_model_info* result = nullptr;
  weft::Guard(status, "weft_saved_model_info_read", [&] {
    if (dir == nullptr) {
      return weft::SetCStatus(status,
                              weft::errors::InvalidArgument(
                                  "weft_saved_model_info_read: dir is NULL"));
    }
    auto model = weft::ReadSavedModel(dir);
    if (!model.ok()) return weft::SetCStatus(status, model.status());
    auto meta = weft::FindMetaGraph(*model, weft::Tags(tags), dir);
    if (!meta.ok()) return weft::SetCStatus(status, meta.status());
    auto info = std::make_unique<weft_saved_model_info>();
    info->signatures = weft::RunnableSignatures(**meta);
    result = info.release();
    weft::Ok(status);
  });
  return result;
}

void weft_saved_model_info_delete(weft_saved_model_info* info) { delete info; }

int weft_saved_model_info_num_signatures(const weft_saved_model_info* info) {
  return info == nullptr ? 0 : static_cast<int>(info->signatures.size());
}

const char* weft_saved_model_info_signature(const weft_saved_model_info* info,
                                            int index) {
  if (info == nullptr || index < 0 ||
      index >= static_cast<int>(info->signatures.size())) {
    return nullptr;
  }
  return info->signatures[index].c_str();
}

}  // extern "C"
