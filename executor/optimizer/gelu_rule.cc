#include "executor/optimizer/gelu_rule.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

// The pattern's constants as a float graph holds them: the float rounding
// of 1/2, 1/sqrt(2), sqrt(2), sqrt(2/pi), 0.044715, 1 and 3.
constexpr float kHalf = 0.5f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kSqrt2 = 1.4142135623730951f;
constexpr float kTanhScale = 0.7978845608028654f;
constexpr float kCubic = 0.044715f;

bool OneOf(absl::string_view op, std::initializer_list<absl::string_view> ops) {
  for (absl::string_view o : ops) {
    if (op == o) return true;
  }
  return false;
}

// One attempt at the pattern: the nodes it would absorb so far. A failed
// attempt is dropped whole, so alternatives start from a copy.
class Match {
 public:
  explicit Match(const RewriteContext& ctx) : ctx_(&ctx) {}

  // `n` is one of `ops` with `arity` inputs and may be absorbed: its value
  // goes only to the next node of the pattern. Records it.
  bool Take(const Node* n, std::initializer_list<absl::string_view> ops,
            int arity) {
    if (!OneOf(n->op(), ops) || n->num_inputs() != arity ||
        !ctx_->IsUnrewrittenFloatNode(n) || ctx_->IsProtected(n) ||
        ctx_->HasKeptControlOutputs(n) || ctx_->KeptConsumers(n, 0) != 1) {
      return false;
    }
    nodes_.push_back(n);
    return true;
  }

  // Input `i` of `n` is a float scalar constant equal to `c`.
  bool IsScalar(const Node* n, int i, float c) const {
    const Tensor* t = ctx_->ConstInput(n, i);
    return t != nullptr && t->dtype() == DT_FLOAT && t->dims() == 0 &&
           t->data<float>()[0] == c;
  }

  // `n`, a binary `ops` node taken above, has the scalar `c` as an operand;
  // *other is the other one. `either` lets c be either operand.
  bool WithScalar(const Node* n, std::initializer_list<absl::string_view> ops,
                  float c, NodeOutput* other, bool either = true) {
    if (!Take(n, ops, 2)) return false;
    for (int s = 1; s >= (either ? 0 : 1); --s) {
      if (IsScalar(n, s, c)) {
        *other = InputOf(n, 1 - s);
        return true;
      }
    }
    return false;
  }

  const std::vector<const Node*>& nodes() const { return nodes_; }

 private:
  const RewriteContext* ctx_;
  std::vector<const Node*> nodes_;
};

// x * 1/sqrt(2) (or x / sqrt(2)) from `n`; *x is x.
bool ScaledX(const Node* n, Match* m, NodeOutput* x) {
  Match scaled = *m;
  if (scaled.WithScalar(n, {"Mul"}, kInvSqrt2, x)) {
    *m = scaled;
    return true;
  }
  return m->WithScalar(n, {"RealDiv"}, kSqrt2, x, /*either=*/false);
}

// -x / sqrt(2) from `n`: Neg(x) * c, x * -c or Neg(x * c).
bool NegScaledX(const Node* n, Match* m, NodeOutput* x) {
  Match neg_first = *m;
  NodeOutput neg;
  if (neg_first.WithScalar(n, {"Mul"}, kInvSqrt2, &neg) &&
      neg_first.Take(neg.node, {"Neg"}, 1) && neg.index == 0) {
    *x = InputOf(neg.node, 0);
    *m = neg_first;
    return true;
  }
  Match negated_constant = *m;
  if (negated_constant.WithScalar(n, {"Mul"}, -kInvSqrt2, x)) {
    *m = negated_constant;
    return true;
  }
  return m->Take(n, {"Neg"}, 1) && InputOf(n, 0).index == 0 &&
         ScaledX(InputOf(n, 0).node, m, x);
}

// x^3 from `n`: Pow(x, 3), x * (x * x) or (x * x) * x.
bool CubeOf(const Node* n, Match* m, NodeOutput* x) {
  Match pow = *m;
  if (pow.Take(n, {"Pow"}, 2) && pow.IsScalar(n, 1, 3.0f)) {
    *x = InputOf(n, 0);
    *m = pow;
    return true;
  }
  if (!m->Take(n, {"Mul"}, 2)) return false;
  for (int s = 0; s < 2; ++s) {
    Match square = *m;
    const NodeOutput sq = InputOf(n, s);
    const NodeOutput base = InputOf(n, 1 - s);
    if (sq.index == 0 && square.Take(sq.node, {"Mul"}, 2) &&
        InputOf(sq.node, 0) == base && InputOf(sq.node, 1) == base) {
      *x = base;
      *m = square;
      return true;
    }
  }
  return false;
}

// 2 Phi(x) from `n`, the factor that multiplies x / 2: Erfc(-x / sqrt(2)),
// 1 + Erf(x / sqrt(2)), or (approximate) 1 + Tanh(sqrt(2/pi) (x + 0.044715
// x^3)).
bool TwoPhi(const Node* n, Match* m, NodeOutput* x, bool* approximate) {
  Match erfc = *m;
  if (erfc.Take(n, {"Erfc"}, 1) && InputOf(n, 0).index == 0 &&
      NegScaledX(InputOf(n, 0).node, &erfc, x)) {
    *approximate = false;
    *m = erfc;
    return true;
  }
  NodeOutput g;
  if (!m->WithScalar(n, {"AddV2", "Add"}, 1.0f, &g) || g.index != 0) {
    return false;
  }
  Match erf = *m;
  if (erf.Take(g.node, {"Erf"}, 1) && InputOf(g.node, 0).index == 0 &&
      ScaledX(InputOf(g.node, 0).node, &erf, x)) {
    *approximate = false;
    *m = erf;
    return true;
  }
  NodeOutput inner;
  if (!m->Take(g.node, {"Tanh"}, 1) || InputOf(g.node, 0).index != 0 ||
      !m->WithScalar(InputOf(g.node, 0).node, {"Mul"}, kTanhScale, &inner) ||
      inner.index != 0 || !m->Take(inner.node, {"AddV2", "Add"}, 2)) {
    return false;
  }
  // inner = x + 0.044715 * x^3, either operand order.
  for (int s = 0; s < 2; ++s) {
    Match cubic = *m;
    const NodeOutput term = InputOf(inner.node, s);
    NodeOutput cube, base;
    if (term.index == 0 &&
        cubic.WithScalar(term.node, {"Mul"}, kCubic, &cube) &&
        cube.index == 0 && CubeOf(cube.node, &cubic, &base) &&
        base == InputOf(inner.node, 1 - s)) {
      *x = base;
      *approximate = true;
      *m = cubic;
      return true;
    }
  }
  return false;
}

struct Gelu {
  NodeOutput x;
  bool approximate = false;
  // The replaced nodes, the final Mul last.
  std::vector<const Node*> replaced;
};

// The final Mul's operands as (x / 2) * 2 Phi(x) or x * (2 Phi(x) / 2), in
// either order.
bool MatchProduct(const Node* mul, const RewriteContext& ctx, Gelu* gelu) {
  for (int s = 0; s < 2; ++s) {
    const NodeOutput p = InputOf(mul, s);
    const NodeOutput q = InputOf(mul, 1 - s);
    if (q.index != 0) continue;
    Match m(ctx);
    NodeOutput x, x2;
    bool approximate = false;
    if (p.index == 0 && m.WithScalar(p.node, {"Mul"}, kHalf, &x) &&
        TwoPhi(q.node, &m, &x2, &approximate) && x == x2) {
      gelu->x = x;
      gelu->approximate = approximate;
      gelu->replaced = m.nodes();
      return true;
    }
    Match halved(ctx);
    NodeOutput two_phi;
    if (halved.WithScalar(q.node, {"Mul"}, kHalf, &two_phi) &&
        two_phi.index == 0 &&
        TwoPhi(two_phi.node, &halved, &x2, &approximate) && x2 == p) {
      gelu->x = p;
      gelu->approximate = approximate;
      gelu->replaced = halved.nodes();
      return true;
    }
  }
  return false;
}

Status EmitGelu(const Gelu& g, GraphRebuilder* rebuilder) {
  NodeDef fused;
  fused.op = "_Gelu";
  fused.attr["T"] = AttrValue::Type(DT_FLOAT);
  fused.attr["approximate"] = AttrValue::Bool(g.approximate);
  fused.input.push_back(rebuilder->InputName(g.x.node, g.x.index));
  rebuilder->AddReplacing(std::move(fused), g.replaced);
  return Status();
}

}  // namespace

void GeluRule::Visit(const Node* mul, RewriteContext* ctx) const {
  if (mul->op() != "Mul" || !ctx->IsOpenFloatNode(mul) ||
      mul->num_inputs() != 2) {
    return;
  }
  Gelu gelu;
  if (!MatchProduct(mul, *ctx, &gelu)) return;
  // All on the one CPU device: the _Gelu kernel is the CPU's, and the
  // pattern's nodes must not have been split across devices.
  if (!ctx->PlacedOnOneCpu(mul, gelu.replaced)) return;
  // Listed by node id (the order the graph was written in), the final Mul
  // last.
  std::vector<const Node*> replaced = gelu.replaced;
  std::sort(replaced.begin(), replaced.end(),
            [](const Node* a, const Node* b) { return a->id() < b->id(); });
  replaced.push_back(mul);
  gelu.replaced = replaced;
  std::vector<std::string> parts;
  for (const Node* a : replaced) parts.push_back(a->name());
  ctx->ReplaceByOne(replaced, absl::StrJoin(parts, "+"),
                    [gelu](const Node*, GraphRebuilder* rebuilder) {
                      return EmitGelu(gelu, rebuilder);
                    });
}

}  // namespace weft
