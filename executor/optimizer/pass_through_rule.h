// Reading through Identity-like nodes: an Identity, StopGradient, Snapshot
// or PreventGradient hands on its input unchanged, so its readers and
// fetches can read that input instead and the node need not run. Frozen
// TensorFlow graphs are full of them: every function body returns its
// values through Identity nodes that wait for a NoOp, and v1 control flow
// raised into functions adds one per loop variable and edge. In a loop body
// each costs a kernel call per iteration, as much as a small real node.
//
// A node is read through when it runs in the signature, is not fed and not
// a target, has one input on the same device as it, and no control edge
// into or out of it stays (RewriteContext::KeepsControlEdgesFrom: an edge
// that orders it after or before a side effect keeps it). A fetch of it
// becomes a fetch of its input, under the name the caller gave.
//
// Last in the pipeline: until then the node still counts as a reader of
// its input, so no other rule has to know about it.
#ifndef WEFT_EXECUTOR_OPTIMIZER_PASS_THROUGH_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_PASS_THROUGH_RULE_H_

#include "executor/optimizer/rewrite_context.h"
#include "executor/optimizer/rewrite_rule.h"

namespace weft {

// Identity, StopGradient, Snapshot, PreventGradient: one input, output 0
// equal to it.
bool IsPassThroughOp(absl::string_view op);

class PassThroughRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "pass_through"; }
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_PASS_THROUGH_RULE_H_
