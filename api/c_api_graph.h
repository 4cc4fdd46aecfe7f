// The C API's graph handle (weft_graph in include/weft/c_api.h), shared by
// the files that implement the C API: c_api.cc loads graphs and makes
// sessions from them, c_api_graph_info.cc answers what a graph takes and
// gives.
#ifndef WEFT_API_C_API_GRAPH_H_
#define WEFT_API_C_API_GRAPH_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "graph/graph.h"
#include "graph/graph_signature.h"

// What weft_graph_input and the others hand out. Owned by its weft_graph,
// never moved once made, so the strings it gives stay valid while the graph
// lives.
struct weft_tensor_info {
  weft::GraphTensorInfo info;
};

struct weft_graph {
  std::shared_ptr<const weft::Graph> graph;
  std::string source_name;
  // DescribeGraph's answer, made when the graph loads (one pass).
  std::vector<weft_tensor_info> inputs;
  std::vector<weft_tensor_info> outputs;
  // Tensors asked for by name, kept so that what weft_graph_find_tensor
  // returned stays valid. A graph is shared between threads (it is
  // otherwise immutable), hence the lock.
  mutable std::mutex lookups_mu;
  mutable absl::flat_hash_map<std::string, std::unique_ptr<weft_tensor_info>>
      lookups;
};

struct weft_graph_options {
  // Kept as given; checked when a graph loads, where errors can be reported.
  struct InputShape {
    std::string name;
    std::vector<int64_t> dims;
    bool unknown_rank = false;
  };
  std::vector<InputShape> input_shapes;
};

namespace weft {

// Shape inference with the input shapes `options` gives (may be null), the
// last step of every load.
StatusOr<std::shared_ptr<const Graph>> InferCGraphShapes(
    std::unique_ptr<Graph> graph, const std::string& source,
    const weft_graph_options* options);

// A handle for a loaded graph, with its inputs and outputs described.
std::unique_ptr<weft_graph> NewCGraph(std::shared_ptr<const Graph> graph,
                                      std::string source_name);

}  // namespace weft

#endif  // WEFT_API_C_API_GRAPH_H_
