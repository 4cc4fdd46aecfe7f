// Writes the optimized graph from what the rewrite rules recorded in a
// RewriteContext: every kept node in topological order, as a copy (with
// its inputs renamed to what now computes them), as the Consts of its
// folded values, or as what its rule's replacement writes; absorbed nodes
// are left out. Then imports the result and carries over the inferred
// output shapes of the nodes it replaces, so that planning sees the same
// shapes as without the optimizer.
#ifndef WEFT_EXECUTOR_OPTIMIZER_GRAPH_REBUILDER_H_
#define WEFT_EXECUTOR_OPTIMIZER_GRAPH_REBUILDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/rewrite_context.h"
#include "graph/graph.h"
#include "graph/graph_def.h"

namespace weft {

// A Const node holding `value`.
NodeDef ConstNodeDef(const std::string& name, const Tensor& value,
                     const std::string& device);

class GraphRebuilder {
 public:
  // `context` must outlive the rebuilder; Build hands out its names.
  explicit GraphRebuilder(RewriteContext* context) : context_(*context) {}
  GraphRebuilder(const GraphRebuilder&) = delete;
  GraphRebuilder& operator=(const GraphRebuilder&) = delete;

  // The optimized graph, and the signature's fetches and targets spelled
  // for it. Fails only on an internal error: a rule recorded a rewrite the
  // op registry or graph import rejects.
  StatusOr<std::unique_ptr<OptimizedGraph>> Build(
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

  // ---- For replacements (ReplacementFn).

  const RewriteContext& context() const { return context_; }
  // What output `index` of the session graph's node `src` is read as in the
  // optimized graph: its own name, a folded output's Const, the fused node
  // standing in for it, or what it passes through.
  std::string InputName(const Node* src, int index) const;
  // The name the optimized graph gives `n` (as a target or control input).
  std::string NodeName(const Node* n) const;
  // Sets out->input to the first `data_inputs` data inputs of `n` and its
  // control inputs (AppendControlInputs), renamed by InputName and NodeName.
  void CopyInputs(const Node* n, int data_inputs, NodeDef* out) const;
  // Appends to def->input the control inputs of `n` that the optimized
  // graph keeps (RewriteContext::KeepsControlEdgesFrom).
  void AppendControlInputs(const Node* n, NodeDef* def) const;
  // Applies the patches recorded for `n` to `def`, which was made from it.
  void ApplyPatches(const Node* n, NodeDef* def) const;
  // Forwards to RewriteContext::UniqueName.
  std::string UniqueName(const std::string& base);
  // The inferred output shapes of the session graph's `n`.
  std::vector<PartialTensorShape> OriginalShapes(const Node* n) const;
  // Appends `def`, the one node that replaces `nodes` (RewriteContext::
  // ReplaceByOne; the last of them is the one it stands in for), with that
  // node's name, requested device, kept control inputs and output shapes, and
  // the replaced nodes' names in its kFusedNodesAttr.
  void AddReplacing(NodeDef def, const std::vector<const Node*>& nodes);
  // Appends `def` with `shapes` as its outputs' shapes.
  void AddNode(NodeDef def, std::vector<PartialTensorShape> shapes);
  // Appends a Const named `name` (used as given) holding `value`.
  void AddConst(const std::string& name, const Tensor& value,
                const std::string& device);

 private:
  // Appends the copy of a pruned IdentityN (RewriteContext::
  // PrunedOutputIndex): its read outputs' inputs and types only.
  void AddPrunedCopy(const Node* n);

  RewriteContext& context_;
  GraphDef def_;
  // The output shapes of the written nodes, by name.
  absl::flat_hash_map<std::string, std::vector<PartialTensorShape>> shapes_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_GRAPH_REBUILDER_H_
