#include "executor/optimizer/swish_rule.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

// The vocabulary: the pattern's product (both the final x * Sigmoid and
// beta * x) and its gate.
bool IsProduct(absl::string_view op) { return op == "Mul"; }
bool IsGate(absl::string_view op) { return op == "Sigmoid"; }

// A node whose value goes only to the next node of the pattern.
bool Absorbable(const Node* n, const RewriteContext& ctx) {
  return ctx.IsUnrewrittenFloatNode(n) && !ctx.IsProtected(n) &&
         !ctx.HasKeptControlOutputs(n) && ctx.KeptConsumers(n, 0) == 1;
}

Status EmitSwish(const SwishPattern& s, GraphRebuilder* rebuilder) {
  NodeDef fused;
  fused.op = "_Swish";
  fused.attr["T"] = AttrValue::Type(DT_FLOAT);
  fused.attr["beta"] = AttrValue::Float(s.beta);
  fused.input.push_back(rebuilder->InputName(s.x.node, s.x.index));
  rebuilder->AddReplacing(std::move(fused), s.nodes);
  return Status();
}

}  // namespace

bool MatchSwish(const Node* mul, const RewriteContext& ctx,
                SwishPattern* pattern) {
  if (!IsProduct(mul->op()) || !ctx.IsOpenFloatNode(mul) ||
      mul->num_inputs() != 2) {
    return false;
  }
  for (int s = 0; s < 2; ++s) {
    const Node* sig = mul->input(s).node;
    const NodeOutput x = InputOf(mul, 1 - s);
    if (!IsGate(sig->op()) || mul->input(s).index != 0 ||
        !Absorbable(sig, ctx)) {
      continue;
    }
    std::vector<const Node*> nodes = {sig};
    float beta = 1.0f;
    const Node* arg = sig->input(0).node;
    if (!(InputOf(sig, 0) == x)) {
      // Sigmoid(beta * x), beta a constant scalar.
      if (!IsProduct(arg->op()) || sig->input(0).index != 0 ||
          !Absorbable(arg, ctx)) {
        continue;
      }
      int b = -1;
      for (int i = 0; i < 2; ++i) {
        if (InputOf(arg, 1 - i) == x) b = i;
      }
      if (b < 0) continue;
      const Tensor* c = ctx.ConstInput(arg, b);
      if (c == nullptr || c->dtype() != DT_FLOAT || c->NumElements() != 1 ||
          c->dims() > 0) {
        continue;
      }
      beta = c->data<float>()[0];
      nodes.insert(nodes.begin(), arg);
    }
    // All on the one CPU device: the kernels are the CPU's, and the
    // pattern's nodes must not have been split across devices.
    if (!ctx.PlacedOnOneCpu(mul, nodes)) return false;
    nodes.push_back(mul);
    pattern->x = x;
    pattern->beta = beta;
    pattern->nodes = std::move(nodes);
    return true;
  }
  return false;
}

void SwishRule::Visit(const Node* mul, RewriteContext* ctx) const {
  SwishPattern swish;
  if (!MatchSwish(mul, *ctx, &swish)) return;
  std::vector<std::string> parts;
  for (const Node* n : swish.nodes) parts.push_back(n->name());
  ctx->ReplaceByOne(swish.nodes, absl::StrJoin(parts, "+"),
                    [swish](const Node*, GraphRebuilder* rebuilder) {
                      return EmitSwish(swish, rebuilder);
                    });
}

}  // namespace weft
