// The C API's graph introspection (include/weft/c_api.h, "what a graph
// takes and gives") over DescribeGraph and DescribeGraphTensor. Like every
// C entry point, nothing here lets an exception out.
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/c_api_graph.h"
#include "api/c_status.h"
#include "graph/graph_signature.h"
#include "weft/c_api.h"

namespace weft {

std::unique_ptr<weft_graph> NewCGraph(std::shared_ptr<const Graph> graph,
                                      std::string source_name) {
  auto g = std::make_unique<weft_graph>();
  GraphSignature sig = DescribeGraph(*graph);
  g->inputs.reserve(sig.inputs.size());
  for (auto& in : sig.inputs) g->inputs.push_back({std::move(in)});
  g->outputs.reserve(sig.outputs.size());
  for (auto& out : sig.outputs) g->outputs.push_back({std::move(out)});
  g->graph = std::move(graph);
  g->source_name = std::move(source_name);
  return g;
}

namespace {

const weft_tensor_info* At(const std::vector<weft_tensor_info>& v, int index) {
  if (index < 0 || static_cast<size_t>(index) >= v.size()) return nullptr;
  return &v[static_cast<size_t>(index)];
}

}  // namespace
}  // namespace weft

extern "C" {

int weft_graph_num_inputs(const weft_graph* graph) {
  return graph == nullptr ? 0 : static_cast<int>(graph->inputs.size());
}

const weft_tensor_info* weft_graph_input(const weft_graph* graph, int index) {
  return graph == nullptr ? nullptr : weft::At(graph->inputs, index);
}

int weft_graph_num_outputs(const weft_graph* graph) {
  return graph == nullptr ? 0 : static_cast<int>(graph->outputs.size());
}

const weft_tensor_info* weft_graph_output(const weft_graph* graph, int index) {
  return graph == nullptr ? nullptr : weft::At(graph->outputs, index);
}

const weft_tensor_info* weft_graph_find_tensor(const weft_graph* graph,
                                               const char* name,
                                               weft_status* status) {
  const weft_tensor_info* result = nullptr;
  try {
    if (graph == nullptr || name == nullptr) {
      weft::SetCStatus(status,
                       weft::errors::InvalidArgument(
                           "weft_graph_find_tensor: ",
                           graph == nullptr ? "graph" : "name", " is NULL"));
      return nullptr;
    }
    const weft_graph* g = graph;
    std::lock_guard<std::mutex> lock(g->lookups_mu);
    auto it = g->lookups.find(name);
    if (it == g->lookups.end()) {
      auto info = weft::DescribeGraphTensor(*g->graph, name, g->source_name);
      if (!info.ok()) {
        weft::SetCStatus(status, info.status());
        return nullptr;
      }
      it = g->lookups
               .emplace(name, std::make_unique<weft_tensor_info>(
                                  weft_tensor_info{*std::move(info)}))
               .first;
    }
    result = it->second.get();
    weft::SetCStatus(status, weft::Status());
  } catch (const std::bad_alloc&) {
    weft::SetCStatus(status, WEFT_RESOURCE_EXHAUSTED,
                     "weft_graph_find_tensor: out of memory");
  } catch (const std::exception& e) {
    weft::SetCStatus(status, WEFT_INTERNAL,
                     std::string("weft_graph_find_tensor: unexpected "
                                 "exception: ") +
                         e.what());
  } catch (...) {
    weft::SetCStatus(status, WEFT_INTERNAL,
                     "weft_graph_find_tensor: unexpected exception");
  }
  return result;
}

const char* weft_tensor_info_name(const weft_tensor_info* info) {
  return info == nullptr ? "" : info->info.name.c_str();
}

const char* weft_tensor_info_op(const weft_tensor_info* info) {
  return info == nullptr ? "" : info->info.op.c_str();
}

weft_dtype weft_tensor_info_dtype(const weft_tensor_info* info) {
  return info == nullptr ? WEFT_INVALID
                         : static_cast<weft_dtype>(info->info.dtype);
}

int weft_tensor_info_num_dims(const weft_tensor_info* info) {
  return info == nullptr ? -1 : info->info.shape.dims();
}

int64_t weft_tensor_info_dim(const weft_tensor_info* info, int index) {
  if (info == nullptr || index < 0 || index >= info->info.shape.dims()) {
    return -1;
  }
  return info->info.shape.dim_size(index);
}

int weft_tensor_info_has_default(const weft_tensor_info* info) {
  return info != nullptr && info->info.has_default ? 1 : 0;
}

}  // extern "C"
