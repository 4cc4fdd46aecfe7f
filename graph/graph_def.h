// GraphDef: a graph file's content as plain C++ values, field for field what
// TensorFlow's GraphDef message holds (nodes, versions, function library), so
// that the rest of weft reads graph files without seeing protobuf. Parsing and
// writing live in graph/graph_def_io.h; validation against registered ops is
// the importer's job, not this layer's.
#ifndef WEFT_GRAPH_GRAPH_DEF_H_
#define WEFT_GRAPH_GRAPH_DEF_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ops/attr_value.h"
#include "ops/node_def.h"
#include "ops/op_def.h"

namespace weft {

// Who wrote the graph and which readers it excludes (TensorFlow's GraphDef
// version numbers; weft records them and does not enforce them here).
struct VersionDef {
  int producer = 0;
  int min_consumer = 0;
  std::vector<int> bad_consumers;
};

// A function of the graph's library: a signature, a body of nodes whose
// inputs use the function-body form ("arg", "node:out_arg:k") and whose attrs
// may be placeholders, and the mapping from output names to body outputs.
struct FunctionDef {
  OpDef signature;
  // Names of the signature's control outputs (TensorFlow's
  // OpDef.control_output; weft::OpDef has no such field, so it lives here).
  std::vector<std::string> control_output;
  AttrMap attr;
  // Attrs of the function's arguments, by argument index.
  std::map<uint32_t, AttrMap> arg_attr;
  // Resource arguments that alias each other share an id, by argument index.
  std::map<uint32_t, uint32_t> resource_arg_unique_id;
  std::vector<NodeDef> node_def;
  // Output arg name -> body output ("node:out_arg:k" or an input arg name).
  std::map<std::string, std::string> ret;
  // Control output name -> body node name.
  std::map<std::string, std::string> control_ret;
};

struct FunctionLibrary {
  std::vector<FunctionDef> function;
  // (function name, name of its gradient function).
  std::vector<std::pair<std::string, std::string>> gradient;
  // (gradient function name, op type it is registered for): TensorFlow's
  // RegisteredGradient entries.
  std::vector<std::pair<std::string, std::string>> registered_gradients;
};

struct GraphDef {
  std::vector<NodeDef> node;
  VersionDef versions;
  FunctionLibrary library;
};

}  // namespace weft

#endif  // WEFT_GRAPH_GRAPH_DEF_H_
