// The graph's function library made runnable: a FunctionDef's body turned
// into ordinary graph nodes, either spliced into the caller's graph in place
// of a call (InlineFunctionCalls, which import runs before validation) or
// made a graph of its own whose arguments are placeholders
// (FunctionBodyGraph, what the executor prepares the bodies of If, Case and
// While from).
//
// Body nodes are renamed "<call>/<body node>", so an error in a body names
// the node and the call or loop it sits in, and a nested call nests the
// prefix ("outer/inner/MatMul"). Placeholder attrs ("$T") in a body take the
// call's values (PartitionedCall's `f` attrs, or a direct call's own attrs);
// attrs starting with '_' (`_read_only_resource_inputs`, `_XlaMustCompile`)
// are annotations and carried along unread.
#ifndef WEFT_GRAPH_FUNCTION_LIBRARY_H_
#define WEFT_GRAPH_FUNCTION_LIBRARY_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "graph/graph_def.h"
#include "ops/op_registry.h"

namespace weft {

// The library function `name`, or null.
const FunctionDef* FindFunction(const FunctionLibrary& library,
                                absl::string_view name);

// The function a node calls: PartitionedCall and StatefulPartitionedCall
// name it in attr `f`; a node whose op is a library function calls it with
// its own attrs. False when the node is no call.
StatusOr<bool> GetFunctionCall(const FunctionLibrary& library,
                               const NodeDef& node, NameAttrList* f);

// Whether a node of `graph_def` calls a function (see GetFunctionCall).
bool HasFunctionCalls(const GraphDef& graph_def);

// A function body as graph nodes.
struct InstantiatedFunction {
  std::vector<NodeDef> nodes;
  // The flat signature under the call's attrs.
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  // Per flat output: the tensor ("node", "node:i", or one of `inputs`)
  // that holds it.
  std::vector<std::string> outputs;
  // The nodes named by the function's control outputs.
  std::vector<std::string> control_outputs;
};

// Instantiates `f` with its nodes renamed `prefix` + name (prefix usually
// ends in '/'), the function's flat input i read from the tensor `inputs[i]`
// (a tensor name of the graph the nodes go into). Errors name the function
// and the body node. Nested calls stay calls.
StatusOr<InstantiatedFunction> InstantiateFunction(
    const FunctionLibrary& library, const NameAttrList& f,
    absl::string_view prefix, const std::vector<std::string>& inputs,
    const OpRegistry* registry);

// Replaces every function call in `graph_def` (nested calls too) with the
// callee's body: body nodes are named "<call>/<node>", the call's name is
// kept by an IdentityN of the body's outputs (so "call:1" still reads
// output 1) that also waits for the function's control outputs, and a call's
// control inputs gate every body node. Recursion is refused. The library is
// kept, for If, Case and While bodies. Errors are prefixed with
// `source_name`.
StatusOr<GraphDef> InlineFunctionCalls(const GraphDef& graph_def,
                                       const OpRegistry* registry,
                                       absl::string_view source_name);
// The same, consuming `graph_def`: its nodes and library move into the
// result rather than being copied.
StatusOr<GraphDef> InlineFunctionCalls(GraphDef&& graph_def,
                                       const OpRegistry* registry,
                                       absl::string_view source_name);

// A function body as a graph of its own, for the executor to prepare: one
// Placeholder per flat input (shape `input_shapes[i]` when given, else
// unknown), the body nodes renamed `prefix` + name, and the library. Feeds
// and fetches are tensor names of that graph in signature order; targets are
// the control outputs.
struct FunctionGraph {
  GraphDef graph_def;
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
};
StatusOr<FunctionGraph> FunctionBodyGraph(
    const FunctionLibrary& library, const NameAttrList& f,
    absl::string_view prefix,
    const std::vector<PartialTensorShape>& input_shapes,
    const OpRegistry* registry);

// For each flat input i of `fn`: whether output i is input i itself, read
// directly or through Identity nodes (a loop body's pass-through of a loop
// variable that never changes, such as the weights a Keras RNN's loop
// captures). False where fn has fewer outputs than inputs.
std::vector<bool> PassedThroughInputs(const FunctionGraph& fn);

// A While's iteration as one graph: `body`, then `cond` on the body's
// results, so that a loop runs one graph per iteration instead of two.
// Feeds, targets and input types are the body's (plus cond's targets);
// fetches are the body's results and then cond's predicate. Cond's
// placeholders become Identity nodes of the body's results; node names do
// not clash as long as the two were instantiated under different prefixes.
FunctionGraph LoopStepGraph(const FunctionGraph& body,
                            const FunctionGraph& cond);

}  // namespace weft

#endif  // WEFT_GRAPH_FUNCTION_LIBRARY_H_
