// weft.Graph: a graph file imported, validated and shape-inferred once, and
// the bindings that expose it to Python.
#ifndef WEFT_PYTHON_GRAPH_BINDING_H_
#define WEFT_PYTHON_GRAPH_BINDING_H_

#include "nb_casters.h"

#include <memory>
#include <string>

#include "graph/graph.h"
#include "graph/graph_signature.h"

namespace weft::python {

struct PyGraph {
  std::shared_ptr<const Graph> graph;
  // The file it came from; prefixes errors.
  std::string source;
  GraphSignature signature;
};

// The dtype the graph gives tensor `name` ("node" or "node:i"), or
// DT_INVALID when it names no tensor of the graph (the session reports that).
DataType TensorDtype(const PyGraph& graph, const std::string& name);

void BindGraph(nanobind::module_& m);

}  // namespace weft::python

#endif  // WEFT_PYTHON_GRAPH_BINDING_H_
