// What a selective build of weft needs to run a set of graphs, and the
// ops_to_register.h that tells the build (see ops/op_registry.h and
// kernels/kernel_registry.h for how the registration macros read it):
//
//   weft ops --used-by model.pb other.pbtxt --header > ops_to_register.h
//   cmake -DWEFT_SELECTIVE_REGISTRATION=$PWD/ops_to_register.h ...
//
// For each graph it collects:
//  - the op of every node, in the graph and in the bodies of its function
//    library (a node calling a library function counts as its body);
//  - the kernel classes those nodes select, on every device type that has
//    kernels registered for the op in the weft that runs this (so a header
//    made by a CPU-only weft lists no CUDA kernels); a function-body node
//    whose attrs are placeholders ("$T") takes every kernel of its op;
//  - what the graph optimizer makes of the graph: it is run, as a session
//    would run it, on the signature that feeds every Placeholder and fetches
//    every output nobody consumes, and the ops and kernels of the optimized
//    graph (`_FusedConv2D`, the Consts that folding creates) are added.
//    The graph's own ops stay too, so the same build also runs the graph
//    with the optimizer off, or with signatures that fuse less.
//  - for every float32 fusion head (Conv2D, DepthwiseConv2dNative, MatMul)
//    whose output feeds a node the fusion rules can absorb (IsFusionLink in
//    executor/graph_optimizer.h), the fused op and its float kernels,
//    whether or not that signature fused it: another signature (fewer
//    fetches, so a tensor has one consumer left) may.
//
// Graph files (.pb, .pbtxt) and SavedModel directories (every runnable
// signature of the serve meta graph, variables frozen). Function calls are
// inlined at import, so their bodies' fusions are predicted too.
#ifndef WEFT_TOOLS_OPS_TO_REGISTER_H_
#define WEFT_TOOLS_OPS_TO_REGISTER_H_

#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "graph/graph_def.h"

namespace weft::cli {

struct OpsToRegister {
  std::set<std::string> ops;
  // As KernelRegistration::kernel_class_name spells them ("MatMulOp<float>").
  std::set<std::string> kernel_classes;
  // The graphs added, in order, for the header's comment.
  std::vector<std::string> sources;
  // Things the user should know (a graph whose fusions were not predicted),
  // one a line.
  std::vector<std::string> notes;
};

// Adds what `graph_def` needs, looking ops and kernels up in the global
// registries. Errors name `source` and the node: an op this weft does not
// know (a build cannot register what it lacks), a node that does not
// validate against its op, a graph that does not import.
Status AddGraphDef(const GraphDef& graph_def, absl::string_view source,
                   OpsToRegister* out);

// Loads the GraphDef file at `path` (binary or text) and adds it. A
// directory (a SavedModel) is refused with a message saying so.
Status AddGraphFile(const std::string& path, OpsToRegister* out);

// The header: ShouldRegisterOp and ShouldRegisterOpKernel as constexpr
// functions over sorted name lists, with a comment naming the graphs.
std::string OpsToRegisterHeader(const OpsToRegister& selection);

}  // namespace weft::cli

#endif  // WEFT_TOOLS_OPS_TO_REGISTER_H_
