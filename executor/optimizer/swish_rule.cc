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
         n->control_outputs().empty() && ctx.KeptConsumers(n, 0) == 1;
}

// The matched pattern: the _Swish node computes x(:x_index) with `beta`.
struct Swish {
  const Node* x = nullptr;
  int x_index = 0;
  float beta = 1.0f;
  // The replaced nodes in order: [beta * x,] Sigmoid, the final Mul.
  std::vector<const Node*> replaced;
};

Status EmitSwish(const Swish& s, GraphRebuilder* rebuilder) {
  NodeDef fused;
  fused.op = "_Swish";
  fused.attr["T"] = AttrValue::Type(DT_FLOAT);
  fused.attr["beta"] = AttrValue::Float(s.beta);
  fused.input.push_back(rebuilder->InputName(s.x, s.x_index));
  rebuilder->AddReplacing(std::move(fused), s.replaced);
  return Status();
}

}  // namespace

void SwishRule::Visit(const Node* mul, RewriteContext* ctx) const {
  if (!IsProduct(mul->op()) || !ctx->IsOpenFloatNode(mul) ||
      mul->num_inputs() != 2) {
    return;
  }
  for (int s = 0; s < 2; ++s) {
    const Node* sig = mul->input(s).node;
    const Node* x = mul->input(1 - s).node;
    const int x_index = mul->input(1 - s).index;
    if (!IsGate(sig->op()) || mul->input(s).index != 0 ||
        !Absorbable(sig, *ctx)) {
      continue;
    }
    std::vector<const Node*> absorbed = {sig};
    float beta = 1.0f;
    const Node* arg = sig->input(0).node;
    if (arg != x || sig->input(0).index != x_index) {
      // Sigmoid(beta * x), beta a constant scalar.
      if (!IsProduct(arg->op()) || sig->input(0).index != 0 ||
          !Absorbable(arg, *ctx)) {
        continue;
      }
      int b = -1;
      for (int i = 0; i < 2; ++i) {
        if (arg->input(1 - i).node == x && arg->input(1 - i).index == x_index) {
          b = i;
        }
      }
      if (b < 0) continue;
      const Tensor* c = ctx->ConstInput(arg, b);
      if (c == nullptr || c->dtype() != DT_FLOAT || c->NumElements() != 1 ||
          c->dims() > 0) {
        continue;
      }
      beta = c->data<float>()[0];
      absorbed.insert(absorbed.begin(), arg);
    }
    // All on the one CPU device: the _Swish kernel is the CPU's, and the
    // pattern's nodes must not have been split across devices.
    if (!ctx->PlacedOnOneCpu(mul, absorbed)) return;
    Swish swish;
    swish.x = x;
    swish.x_index = x_index;
    swish.beta = beta;
    absorbed.push_back(mul);
    swish.replaced = absorbed;
    std::vector<std::string> parts;
    for (const Node* a : absorbed) parts.push_back(a->name());
    ctx->ReplaceByOne(absorbed, absl::StrJoin(parts, "+"),
                      [swish](const Node*, GraphRebuilder* rebuilder) {
                        return EmitSwish(swish, rebuilder);
                      });
    return;
  }
}

}  // namespace weft
