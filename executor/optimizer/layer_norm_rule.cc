#include "executor/optimizer/layer_norm_rule.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

bool IsAdd(const Node* n) {
  return (n->op() == "AddV2" || n->op() == "Add") && n->num_inputs() == 2;
}
bool IsMul(const Node* n) { return n->op() == "Mul" && n->num_inputs() == 2; }

// The matched pattern.
struct LayerNorm {
  NodeOutput x;
  Tensor gamma, beta;  // [D]
  float epsilon = 0;
  std::vector<const Node*> nodes;  // absorbed, the final AddV2 last
};

class Matcher {
 public:
  Matcher(const RewriteContext& ctx, LayerNorm* out) : ctx_(ctx), out_(out) {}

  bool Match(const Node* final_add) {
    for (int s = 0; s < 2; ++s) {
      LayerNorm saved = *out_;
      if (MatchSum(final_add, s)) return true;
      *out_ = saved;
    }
    return false;
  }

 private:
  void Add(const Node* n) { out_->nodes.push_back(n); }

  // Input `i` of `n` as a float constant of `d` elements, all dimensions
  // but the last 1 (or a scalar when d is 0): into *t as [d] (or the
  // scalar).
  bool Constant(const Node* n, int i, int64_t d, Tensor* t) const {
    const Tensor* c = ctx_.ConstInput(n, i);
    if (c == nullptr || c->dtype() != DT_FLOAT) return false;
    if (d == 0) {
      if (c->NumElements() != 1) return false;
      *t = *c;
      return true;
    }
    if (c->dims() < 1 || c->NumElements() != d ||
        c->dim_size(c->dims() - 1) != d) {
      return false;
    }
    Tensor flat(DT_FLOAT, TensorShape({d}));
    std::copy(c->data<float>(), c->data<float>() + d, flat.data<float>());
    *t = std::move(flat);
    return true;
  }

  // A Mean of `src` over the last axis with keep_dims.
  bool LastAxisMean(const Node* n, NodeOutput* src) const {
    if (n->op() != "Mean" || n->num_inputs() != 2) return false;
    bool keep = false;
    if (!GetNodeAttr(n->attrs(), "keep_dims", &keep).ok() || !keep) {
      return false;
    }
    std::vector<int64_t> axis;
    if (!ConstInts(ctx_.ConstInput(n, 1), &axis) || axis.size() != 1) {
      return false;
    }
    const int64_t a = axis[0];
    *src = InputOf(n, 0);
    const int rank = rank_;
    return a == -1 || (rank > 0 && a == rank - 1);
  }

  // out = y1 + b2, y1 = x * s in operand `s` of the sum.
  bool MatchSum(const Node* sum, int y_slot) {
    const Node* y1 = InputOf(sum, y_slot).node;
    const Node* b2 = InputOf(sum, 1 - y_slot).node;
    if (!IsMul(y1) || InputOf(sum, y_slot).index != 0 ||
        InputOf(sum, 1 - y_slot).index != 0) {
      return false;
    }
    // y1 = x * s: s is the Mul of Rsqrt and gamma.
    for (int xs = 0; xs < 2; ++xs) {
      const Node* s = InputOf(y1, 1 - xs).node;
      if (!IsMul(s) || InputOf(y1, 1 - xs).index != 0) continue;
      const NodeOutput x = InputOf(y1, xs);
      const PartialTensorShape& shape =
          ctx_.graph().output_shape(x.node, x.index);
      if (shape.unknown_rank() || shape.dims() < 1 ||
          shape.dim_size(shape.dims() - 1) <= 0) {
        continue;
      }
      rank_ = shape.dims();
      const int64_t d = shape.dim_size(shape.dims() - 1);
      LayerNorm saved = *out_;
      if (MatchScale(s, d) && MatchShift(b2, s, x, d)) {
        out_->x = x;
        Add(y1);
        Add(s);
        Add(b2);
        Add(sum);
        return true;
      }
      *out_ = saved;
    }
    return false;
  }

  // s = Rsqrt(var + eps) * gamma; var = Mean(SquaredDifference(x, mean)).
  bool MatchScale(const Node* s, int64_t d) {
    for (int g = 0; g < 2; ++g) {
      const Node* rsqrt = InputOf(s, 1 - g).node;
      if (rsqrt->op() != "Rsqrt" || InputOf(s, 1 - g).index != 0 ||
          !Constant(s, g, d, &out_->gamma)) {
        continue;
      }
      const Node* add = InputOf(rsqrt, 0).node;
      if (!IsAdd(add) || InputOf(rsqrt, 0).index != 0) return false;
      for (int e = 0; e < 2; ++e) {
        Tensor eps;
        const Node* var = InputOf(add, 1 - e).node;
        if (!Constant(add, e, 0, &eps) || InputOf(add, 1 - e).index != 0) {
          continue;
        }
        NodeOutput sq_src;
        if (!LastAxisMean(var, &sq_src) || sq_src.index != 0) return false;
        const Node* sq = sq_src.node;
        if (sq->op() != "SquaredDifference" || sq->num_inputs() != 2) {
          return false;
        }
        out_->epsilon = eps.data<float>()[0];
        sq_ = sq;
        Add(rsqrt);
        Add(add);
        Add(var);
        Add(sq);
        return true;
      }
      return false;
    }
    return false;
  }

  // The mean of x behind `src`, through a StopGradient or Identity.
  bool MeanOf(NodeOutput src, const NodeOutput& x, const Node** mean) {
    const Node* n = src.node;
    if (src.index != 0) return false;
    if ((n->op() == "StopGradient" || n->op() == "Identity") &&
        n->num_inputs() == 1) {
      const NodeOutput in = InputOf(n, 0);
      if (in.index != 0) return false;
      Add(n);
      n = in.node;
    }
    NodeOutput in;
    if (!LastAxisMean(n, &in) || !(in == x)) return false;
    *mean = n;
    return true;
  }

  // b2 = Neg(mean) * s + beta, or beta - mean * s; and the
  // SquaredDifference reads x and the same mean.
  bool MatchShift(const Node* b2, const Node* s, const NodeOutput& x,
                  int64_t d) {
    const Node* product = nullptr;
    bool negated = false;
    if (IsAdd(b2)) {
      for (int b = 0; b < 2 && product == nullptr; ++b) {
        if (Constant(b2, b, d, &out_->beta) && InputOf(b2, 1 - b).index == 0) {
          product = InputOf(b2, 1 - b).node;
          negated = true;
        }
      }
    } else if (b2->op() == "Sub" && b2->num_inputs() == 2 &&
               Constant(b2, 0, d, &out_->beta) && InputOf(b2, 1).index == 0) {
      product = InputOf(b2, 1).node;
    }
    if (product == nullptr || !IsMul(product)) return false;
    int si = -1;
    for (int i = 0; i < 2; ++i) {
      if (InputOf(product, i).node == s && InputOf(product, i).index == 0) {
        si = i;
      }
    }
    if (si < 0) return false;
    NodeOutput m = InputOf(product, 1 - si);
    if (negated) {
      if (m.node->op() != "Neg" || m.index != 0) return false;
      Add(m.node);
      m = InputOf(m.node, 0);
    }
    if (m.index != 0) return false;
    const Node* mean = nullptr;
    if (!MeanOf(m, x, &mean)) return false;
    // The SquaredDifference: x and the mean, directly or through the
    // StopGradient.
    bool reads_x = false, reads_mean = false;
    for (int i = 0; i < 2; ++i) {
      const NodeOutput in = InputOf(sq_, i);
      if (in == x) {
        reads_x = true;
      } else {
        const Node* other = nullptr;
        if (MeanOf(in, x, &other) && other == mean) reads_mean = true;
      }
    }
    if (!reads_x || !reads_mean) return false;
    Add(product);
    Add(mean);
    return true;
  }

  const RewriteContext& ctx_;
  LayerNorm* out_;
  const Node* sq_ = nullptr;
  int rank_ = 0;
};

// Every node but the last goes only to nodes of the pattern, and none of
// them can be rewritten away from under it.
bool Absorbable(const LayerNorm& ln, const RewriteContext& ctx) {
  for (size_t i = 0; i < ln.nodes.size(); ++i) {
    const Node* n = ln.nodes[i];
    if (!ctx.IsUnrewrittenFloatNode(n) || ctx.HasKeptControlOutputs(n)) {
      return false;
    }
    if (i + 1 == ln.nodes.size()) break;
    if (ctx.IsProtected(n)) return false;
    for (int o = 0; o < n->num_outputs(); ++o) {
      for (const Endpoint& c : ctx.KeptReads(n, o)) {
        if (o != 0 || std::find(ln.nodes.begin(), ln.nodes.end(), c.node) ==
                          ln.nodes.end()) {
          return false;
        }
      }
    }
  }
  return true;
}

Status EmitLayerNorm(const LayerNorm& ln, const Node* add,
                     GraphRebuilder* rebuilder) {
  NodeDef fused;
  fused.op = "_LayerNorm";
  fused.attr["T"] = AttrValue::Type(DT_FLOAT);
  fused.attr["epsilon"] = AttrValue::Float(ln.epsilon);
  const std::string name = rebuilder->NodeName(add);
  const std::string gamma = rebuilder->UniqueName(name + "/gamma");
  const std::string beta = rebuilder->UniqueName(name + "/beta");
  rebuilder->AddConst(gamma, ln.gamma, add->requested_device());
  rebuilder->AddConst(beta, ln.beta, add->requested_device());
  fused.input = {rebuilder->InputName(ln.x.node, ln.x.index), gamma, beta};
  rebuilder->AddReplacing(std::move(fused), ln.nodes);
  return Status();
}

}  // namespace

void LayerNormRule::Visit(const Node* add, RewriteContext* ctx) const {
  if (!IsAdd(add) || !ctx->IsOpenFloatNode(add)) return;
  LayerNorm ln;
  Matcher matcher(*ctx, &ln);
  if (!matcher.Match(add)) return;
  // Each node once (the mean and s are reached twice), by id, the final
  // AddV2 last.
  std::vector<const Node*> nodes;
  for (const Node* n : ln.nodes) {
    if (n != add && std::find(nodes.begin(), nodes.end(), n) == nodes.end()) {
      nodes.push_back(n);
    }
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const Node* a, const Node* b) { return a->id() < b->id(); });
  nodes.push_back(add);
  ln.nodes = nodes;
  if (!Absorbable(ln, *ctx)) return;
  // All on the one CPU device, as the _LayerNorm kernel is the CPU's.
  if (!ctx->PlacedOnOneCpu(add, ln.nodes)) return;
  ctx->ReplaceByOne(ln.nodes, add->name() + "+LayerNorm",
                    [ln](const Node* n, GraphRebuilder* rebuilder) {
                      return EmitLayerNorm(ln, n, rebuilder);
                    });
}

}  // namespace weft
