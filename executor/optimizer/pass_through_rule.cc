#include "executor/optimizer/pass_through_rule.h"

namespace weft {

bool IsPassThroughOp(absl::string_view op) {
  return op == "Identity" || op == "StopGradient" || op == "Snapshot" ||
         op == "PreventGradient";
}

void PassThroughRule::Visit(const Node* n, RewriteContext* ctx) const {
  if (!IsPassThroughOp(n->op()) || n->num_inputs() != 1 ||
      n->num_outputs() != 1 || !ctx->IsLive(n) || !ctx->IsKept(n) ||
      ctx->IsFed(n) || ctx->IsTarget(n) || ctx->IsFolded(n) ||
      ctx->IsAbsorbed(n) || ctx->IsReplaced(n) || !ctx->stand_in(n).empty() ||
      ctx->HasKeptControlInputs(n) || ctx->HasKeptControlOutputs(n)) {
    return;
  }
  const NodeOutput src = InputOf(n, 0);
  // Across devices the node is where the value moves; the plan's copy
  // steps are placed by who reads what, so it stays.
  if (!ctx->PlacedAlike(n, src.node)) return;
  ctx->RecordPassThrough(n, src);
}

}  // namespace weft
