#include "executor/optimizer/scalar_fusion_rule.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/node_group.h"
#include "executor/optimizer/rewrite_context.h"
#include "ops/fused_scalar_ops.h"

namespace weft {

bool IsScalarFusionOp(absl::string_view op) {
  ScalarOp unused;
  return ScalarOpFromName(op, &unused);
}

namespace {

bool Enabled() {
  const char* v = std::getenv("WEFT_SCALAR_FUSION");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

bool ScalarShape(const PartialTensorShape& s) {
  return !s.unknown_rank() && s.dims() == 0;
}

// A node of the vocabulary the group may take: open, a scalar of a dtype
// its step takes (its inputs' shapes aside).
bool Fusible(const Node* n, const RewriteContext& ctx) {
  ScalarOp op;
  if (!ScalarOpFromName(n->op(), &op) || n->num_outputs() != 1 ||
      n->num_inputs() < 1 || !ctx.IsOpenNode(n) || ctx.IsProtected(n) ||
      ctx.HasKeptControlInputs(n) || ctx.HasKeptControlOutputs(n) ||
      !ctx.PlacedOnCpu(n) || !ScalarShape(ctx.graph().output_shape(n, 0))) {
    return false;
  }
  const DataType in = n->input_type(0);
  for (int i = 1; i < n->num_inputs(); ++i) {
    if (n->input_type(i) != in) return false;
  }
  const DataType out = ScalarStepType(op, in);
  return out != DT_INVALID && out == n->output_type(0) &&
         n->num_inputs() == (op == ScalarOp::kLogicalNot ? 1 : 2);
}

// Records the group as one fused node.
void RecordGroup(const std::vector<const Node*>& nodes, RewriteContext* ctx) {
  absl::flat_hash_map<const Node*, int> step_of;
  for (size_t s = 0; s < nodes.size(); ++s) step_of[nodes[s]] = s;
  std::vector<NodeOutput> inputs;
  std::vector<DataType> tin, tout;
  std::vector<std::string> ops, names;
  // Per step, its operands: an input (>= 0), step s (kStep + s), or none.
  constexpr int64_t kStep = int64_t{1} << 32;
  std::vector<int64_t> operands;
  for (const Node* n : nodes) {
    ops.push_back(n->op());
    names.push_back(n->name());
    for (int i = 0; i < 2; ++i) {
      if (i >= n->num_inputs()) {
        operands.push_back(-1);
        continue;
      }
      const NodeOutput v = ReadThroughIdentities(InputOf(n, i), *ctx);
      auto it = step_of.find(v.node);
      if (it != step_of.end()) {
        operands.push_back(kStep + it->second);
        continue;
      }
      size_t r = 0;
      while (r < inputs.size() && !(inputs[r] == v)) ++r;
      if (r == inputs.size()) {
        inputs.push_back(v);
        tin.push_back(n->input_type(i));
      }
      operands.push_back(static_cast<int64_t>(r));
    }
  }
  // Steps' registers follow the inputs'.
  const int64_t num_inputs = static_cast<int64_t>(inputs.size());
  for (int64_t& r : operands) {
    if (r >= kStep) r = num_inputs + (r - kStep);
  }
  std::vector<const Node*> outputs;  // the last node first
  const Node* last = nodes.back();
  outputs.push_back(last);
  for (const Node* n : nodes) {
    if (n == last) continue;
    for (const Endpoint& c : ctx->KeptReads(n, 0)) {
      if (!step_of.contains(ctx->Canonical(c.node))) {
        outputs.push_back(n);
        break;
      }
    }
  }
  std::vector<int64_t> results;
  for (const Node* o : outputs) {
    results.push_back(num_inputs + step_of.at(o));
    tout.push_back(o->output_type(0));
  }

  const std::string name = ctx->UniqueName(
      absl::StrCat(last->name(), "+", nodes.size() - 1, "_fused"));
  for (size_t s = 0; s + 1 < nodes.size(); ++s) ctx->Absorb(nodes[s]);
  for (size_t o = 0; o < outputs.size(); ++o) {
    ctx->StandIn(outputs[o], o == 0 ? name : absl::StrCat(name, ":", o));
  }
  ctx->Replace(last, [=](const Node*, GraphRebuilder* rebuilder) {
    NodeDef def;
    def.name = name;
    def.op = "_FusedScalars";
    def.device = last->requested_device();
    for (const NodeOutput& v : inputs) {
      def.input.push_back(rebuilder->InputName(v.node, v.index));
    }
    def.attr["Tin"] = AttrValue::TypeList(tin);
    def.attr["Tout"] = AttrValue::TypeList(tout);
    def.attr["ops"] = AttrValue::StringList(ops);
    def.attr["operands"] = AttrValue::IntList(operands);
    def.attr["results"] = AttrValue::IntList(results);
    def.attr[kFusedNodesAttr] = AttrValue::StringList(names);
    rebuilder->AddNode(std::move(def),
                       std::vector<PartialTensorShape>(
                           outputs.size(), PartialTensorShape::Scalar()));
    return Status();
  });
  ++ctx->stats().fused;
  ctx->stats().fused_away += static_cast<int>(nodes.size()) - 1;
}

}  // namespace

void ScalarFusionRule::Visit(const Node* seed, RewriteContext* ctx) const {
  static const bool enabled = Enabled();
  if (!enabled || !Fusible(seed, *ctx)) return;
  NodeGroupSpec spec;
  spec.member = [&](const Node* n) {
    return Fusible(n, *ctx) && ctx->PlacedAlike(n, seed);
  };
  spec.outside_input = [&](const Node* n, int i) {
    const NodeOutput v = ReadThroughIdentities(InputOf(n, i), *ctx);
    return ScalarShape(ctx->graph().output_shape(v.node, v.index));
  };
  const std::vector<const Node*> nodes = GrowNodeGroup(seed, *ctx, spec);
  if (!nodes.empty()) RecordGroup(nodes, ctx);
}

}  // namespace weft
