// Graph: the validated IR a GraphDef imports into. Every node carries its op's
// registration, its attrs with defaults filled, and its resolved input and
// output dtypes; data edges connect (producer, output) to (consumer, input),
// control edges order nodes without data. Nodes are owned by the graph and
// addressed by dense ids, so passes and the executor can keep per-node state
// in plain vectors.
#ifndef WEFT_GRAPH_GRAPH_H_
#define WEFT_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "graph/graph_def.h"
#include "ops/node_def.h"
#include "ops/op_def.h"
#include "ops/op_def_util.h"

namespace weft {

class Node;

// One end of a data edge: a node and an output (or input) slot.
struct Endpoint {
  Node* node = nullptr;
  int index = 0;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name; }
  const std::string& op() const { return def_.op; }
  const NodeDef& def() const { return def_; }
  const AttrMap& attrs() const { return def_.attr; }
  const std::string& requested_device() const { return def_.device; }
  const OpRegistrationData& op_registration() const { return *op_reg_; }
  const OpDef& op_def() const { return op_reg_->op_def; }
  const NodeTypes& types() const { return types_; }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  DataType input_type(int i) const { return types_.input_types[i]; }
  DataType output_type(int i) const { return types_.output_types[i]; }

  // The producer feeding data input `i`.
  const Endpoint& input(int i) const { return inputs_[i]; }
  const std::vector<Endpoint>& inputs() const { return inputs_; }
  // The consumers of output `i`, as (consumer, input slot).
  const std::vector<Endpoint>& consumers(int i) const { return outputs_[i]; }
  const std::vector<Node*>& control_inputs() const { return control_in_; }
  const std::vector<Node*>& control_outputs() const { return control_out_; }

  // "'name' (Op)", the form every message names a node in.
  std::string DebugName() const;

 private:
  friend class Graph;
  int id_ = -1;
  NodeDef def_;
  const OpRegistrationData* op_reg_ = nullptr;
  NodeTypes types_;
  std::vector<Endpoint> inputs_;
  std::vector<std::vector<Endpoint>> outputs_;
  std::vector<Node*> control_in_;
  std::vector<Node*> control_out_;
};

// Names a SavedModel signature gives some of the graph's tensors. A run may
// feed or fetch a key ("x") as well as the tensor it names
// ("serving_default_x:0"); a key shadows a node of the same name.
struct TensorAlias {
  std::string key;
  std::string tensor;
};
struct GraphAliases {
  std::string signature;  // the signature's key, e.g. "serving_default"
  std::vector<TensorAlias> inputs;
  std::vector<TensorAlias> outputs;
  bool empty() const { return inputs.empty() && outputs.empty(); }
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node whose def is already validated against `op_reg` (attrs
  // defaulted, `types` from ValidateNode). Edges are added separately.
  StatusOr<Node*> AddNode(NodeDef def, const OpRegistrationData* op_reg,
                          NodeTypes types);
  // Connects `src`'s output `src_index` to `dst`'s input `dst_index`. The
  // caller has checked the slots and dtypes.
  void AddEdge(Node* src, int src_index, Node* dst, int dst_index);
  void AddControlEdge(Node* src, Node* dst);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  Node* FindNode(absl::string_view name) const;

  // Node ids in an order where every node follows its data and control
  // inputs. FailedPrecondition naming the nodes of one cycle when there is
  // none.
  StatusOr<std::vector<int>> TopologicalOrder() const;

  // The node defs back in node order, with inputs re-spelled from the edges
  // ("src", "src:1", "^ctrl").
  GraphDef ToGraphDef() const;

  VersionDef& versions() { return versions_; }
  const VersionDef& versions() const { return versions_; }
  FunctionLibrary& library() { return library_; }
  const FunctionLibrary& library() const { return library_; }

  // The signature's keys, when the graph came from a SavedModel.
  void set_aliases(GraphAliases aliases);
  const GraphAliases& aliases() const { return aliases_; }
  // The tensor `name` stands for: the tensor of a key, else `name` itself.
  const std::string& ResolveAlias(const std::string& name) const;

  // Output shapes per node and output, as shape inference left them
  // (unknown rank until it runs).
  const PartialTensorShape& output_shape(const Node* n, int i) const {
    return shapes_[n->id()][i];
  }
  void set_output_shape(const Node* n, int i, PartialTensorShape s) {
    shapes_[n->id()][i] = std::move(s);
  }

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
  absl::flat_hash_map<std::string, Node*> by_name_;
  std::vector<std::vector<PartialTensorShape>> shapes_;
  VersionDef versions_;
  FunctionLibrary library_;
  GraphAliases aliases_;
  absl::flat_hash_map<std::string, std::string> alias_map_;
};

}  // namespace weft

#endif  // WEFT_GRAPH_GRAPH_H_
