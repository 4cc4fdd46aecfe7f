// Freezing: a SavedModel signature's graph with every variable it reads
// turned into a constant, as TensorFlow's convert_variables_to_constants
// does, so that the optimizer folds and fuses weights exactly as in a frozen
// GraphDef and no variable state exists at run time.
//
// Variables are the top-level VarHandleOp nodes (TF2 resource variables) and
// VariableV2 / Variable nodes (TF1). A VariableV2 node becomes a Const of the
// same name. A resource handle is followed wherever it flows, including into
// the functions of the library (signature functions, If/Case branches, While
// conditions and bodies, nested calls): each function that receives a handle
// is specialized with that argument removed, and inside it
//  - ReadVariableOp becomes a Const holding the value,
//  - ResourceGather becomes GatherV2 of that Const (embedding lookups),
//  - VariableShape becomes a Const shape, VarIsInitializedOp true,
//  - Identity of a handle aliases it, DisableCopyOnRead is dropped,
//  - a While loop variable that carries a handle is removed from the loop.
// A node that writes a variable (AssignVariableOp, Assign, AssignAdd...) or
// uses a handle any other way is refused, naming the node, the function it
// sits in and the variable.
#ifndef WEFT_SAVEDMODEL_FREEZE_VARIABLES_H_
#define WEFT_SAVEDMODEL_FREEZE_VARIABLES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph_def.h"

namespace weft {

struct FreezeVariablesOptions {
  // Nodes the result must keep: the signature's inputs and outputs. Every
  // other node is kept only when one of these needs it (data or control).
  std::vector<std::string> keep_nodes;
  // Starts every error, e.g. "model/: signature 'serving_default'".
  std::string context;
};

// `values`: variable node name -> its value. A kept variable node without a
// value is an error naming it. The result holds the kept nodes, rewritten,
// and only the library functions they call (directly or through If, Case and
// While attrs).
StatusOr<GraphDef> FreezeVariables(
    const GraphDef& graph_def,
    const absl::flat_hash_map<std::string, Tensor>& values,
    const FreezeVariablesOptions& options);
// The same result, consuming `graph_def`: its kept nodes and functions move
// into the result, and a function whose one call binds variables is
// rewritten in place of a copy. `graph_def` is left valid but unspecified.
StatusOr<GraphDef> FreezeVariables(
    GraphDef&& graph_def,
    const absl::flat_hash_map<std::string, Tensor>& values,
    const FreezeVariablesOptions& options);

// The nodes of `graph_def` that `roots` need, themselves included, through
// data and control inputs. Errors (starting with `context`) name a root or
// an input that is no node of the graph.
StatusOr<absl::flat_hash_set<std::string>> NodesNeededBy(
    const GraphDef& graph_def, const std::vector<std::string>& roots,
    absl::string_view context);

// Whether `op` creates a variable (VarHandleOp, VariableV2, Variable).
bool IsVariableOp(absl::string_view op);

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_FREEZE_VARIABLES_H_
