#include "executor/optimizer/constant_folding_rule.h"

#include <utility>
#include <vector>

#include "executor/optimizer/rewrite_context.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Ops that look foldable but must not be: a Const is already one, and a
// placeholder may be fed by another signature of the same session.
bool IsNeverFolded(absl::string_view op) {
  return op == "Const" || op == "Placeholder" || op == "PlaceholderWithDefault";
}

bool CanFold(const Node* n, const RewriteContext& ctx) {
  // A duplicate (RewriteContext::Canonical) reads as its canonical node.
  if (!ctx.IsLive(n) || ctx.IsFed(n) || ctx.IsAbsorbed(n)) return false;
  if (n->num_inputs() == 0 || n->num_outputs() == 0) return false;
  // Stateful ops (variables, random numbers, queues) must run every time.
  if (IsNeverFolded(n->op()) || n->op_def().is_stateful) return false;
  // Variant values (TensorLists) are not folded: they would become
  // constants no graph file can hold, and each run builds its own lists.
  for (int o = 0; o < n->num_outputs(); ++o) {
    if (n->output_type(o) == DT_VARIANT) return false;
  }
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (ctx.ConstInput(n, i) == nullptr) return false;
  }
  // A control input that stays orders the node after a side effect; the
  // others are dropped from the optimized graph anyway.
  for (const Node* c : n->control_inputs()) {
    if (ctx.KeepsControlEdgesFrom(c) && !ctx.IsFolded(c)) return false;
  }
  // Skip evaluating what would be discarded for its size anyway.
  int64_t known_bytes = 0;
  for (int o = 0; o < n->num_outputs(); ++o) {
    const PartialTensorShape& s = ctx.graph().output_shape(n, o);
    if (s.unknown_rank() || !s.IsFullyDefined()) continue;
    int64_t elements = 1;
    for (int64_t d : s.dim_sizes()) elements *= d;
    known_bytes +=
        elements * static_cast<int64_t>(DataTypeSize(n->output_type(o)));
  }
  return known_bytes <= ctx.options().max_folded_bytes;
}

}  // namespace

void ConstantFoldingRule::Visit(const Node* n, RewriteContext* ctx) const {
  Device* cpu = ctx->options().cpu;
  if (cpu == nullptr || !CanFold(n, *ctx)) return;
  // Any failure leaves the node to run: the run then reports it (or the
  // kernel lookup does, when the plan is built) exactly as without folding.
  auto kernel = KernelRegistry::Global()->CreateKernel(n->def(), n->op_def(),
                                                       n->types(), cpu);
  if (!kernel.ok()) return;
  std::vector<const Tensor*> inputs;
  for (int i = 0; i < n->num_inputs(); ++i) {
    inputs.push_back(ctx->ConstInput(n, i));
  }
  std::vector<Tensor> outputs(n->num_outputs());
  OpKernelContext::Params params;
  params.device = cpu;
  params.kernel = kernel->get();
  params.inputs = inputs;
  params.outputs = absl::MakeSpan(outputs);
  // No input is forwardable: constants are shared with the session's graph.
  OpKernelContext op_ctx(&params);
  (*kernel)->Compute(&op_ctx);
  if (!op_ctx.status().ok()) return;
  int64_t bytes = 0;
  for (int o = 0; o < n->num_outputs(); ++o) {
    if (!outputs[o].IsInitialized() ||
        outputs[o].dtype() != n->output_type(o)) {
      return;
    }
    bytes += static_cast<int64_t>(outputs[o].TotalBytes());
  }
  if (bytes > ctx->options().max_folded_bytes) return;
  ctx->RecordFold(n, std::move(outputs));
}

}  // namespace weft
