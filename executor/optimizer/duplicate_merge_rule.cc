#include "executor/optimizer/duplicate_merge_rule.h"

#include "absl/container/flat_hash_set.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

// Ops whose equal copies are not one value: frames and branches of control
// flow, and function calls (whose bodies may hold state).
bool IsFrameOrCall(absl::string_view op) {
  static const auto* ops =
      new absl::flat_hash_set<absl::string_view>{"Enter",
                                                 "Exit",
                                                 "Switch",
                                                 "Merge",
                                                 "NextIteration",
                                                 "LoopCond",
                                                 "RefEnter",
                                                 "RefExit",
                                                 "RefSwitch",
                                                 "RefMerge",
                                                 "RefNextIteration",
                                                 "If",
                                                 "StatelessIf",
                                                 "While",
                                                 "StatelessWhile",
                                                 "Case",
                                                 "StatelessCase",
                                                 "PartitionedCall",
                                                 "StatefulPartitionedCall"};
  return ops->contains(op);
}

bool Mergeable(const Node* n, const RewriteContext& ctx) {
  if (!ctx.IsLive(n) || !ctx.IsKept(n) || ctx.IsFed(n) || ctx.IsProtected(n) ||
      ctx.IsAbsorbed(n) || n->num_inputs() == 0 || n->num_outputs() == 0 ||
      ctx.HasKeptControlInputs(n) || ctx.HasKeptControlOutputs(n) ||
      n->op_def().is_stateful || IsFrameOrCall(n->op())) {
    return false;
  }
  for (int o = 0; o < n->num_outputs(); ++o) {
    if (n->output_type(o) == DT_RESOURCE || n->output_type(o) == DT_VARIANT) {
      return false;
    }
  }
  return true;
}

// Whether `a` and `b` read the same values, after earlier merges.
bool SameInputs(const Node* a, const Node* b, const RewriteContext& ctx) {
  if (a->num_inputs() != b->num_inputs()) return false;
  for (int i = 0; i < a->num_inputs(); ++i) {
    const Endpoint& x = a->input(i);
    const Endpoint& y = b->input(i);
    if (x.index != y.index || ctx.Canonical(x.node) != ctx.Canonical(y.node)) {
      return false;
    }
  }
  return true;
}

// Readers of one value compared at most: a constant read by thousands of
// nodes would otherwise make the pass quadratic.
constexpr int kMaxCandidates = 256;

}  // namespace

void DuplicateMergeRule::Visit(const Node* n, RewriteContext* ctx) const {
  if (!Mergeable(n, *ctx)) return;
  // An equal node reads the same first input: look among its readers (and
  // the readers of the nodes merged into its producer).
  const Endpoint& first = n->input(0);
  const Node* source = ctx->Canonical(first.node);
  int seen = 0;
  for (const Endpoint& r : ctx->KeptReads(source, first.index)) {
    const Node* m = r.node;
    if (++seen > kMaxCandidates) return;
    if (m == n || r.index != 0 || ctx->Position(m) >= ctx->Position(n) ||
        m->op() != n->op() || !Mergeable(m, *ctx) ||
        m->requested_device() != n->requested_device() ||
        m->attrs() != n->attrs() || !SameInputs(m, n, *ctx) ||
        !ctx->PlacedAlike(m, n)) {
      continue;
    }
    ctx->MergeDuplicate(n, m);
    return;
  }
}

}  // namespace weft
