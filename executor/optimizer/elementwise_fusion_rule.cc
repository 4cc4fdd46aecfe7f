#include "executor/optimizer/elementwise_fusion_rule.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"
#include "ops/fused_elementwise_ops.h"

namespace weft {

bool IsElementwiseFusionOp(absl::string_view op) {
  ElementwiseOp unused;
  return ElementwiseOpFromName(op, &unused);
}

namespace {

// How far past the seed, in topological order, the group looks, and how
// many nodes it takes (the kernel's stack buffers hold 32 steps).
constexpr int kWindow = 64;
constexpr int kMaxNodes = 32;

bool Enabled() {
  const char* v = std::getenv("WEFT_ELEMENTWISE_FUSION");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// A node of the vocabulary the group may take, shape aside.
bool Fusible(const Node* n, const RewriteContext& ctx) {
  return IsElementwiseFusionOp(n->op()) && n->num_outputs() == 1 &&
         ctx.IsOpenFloatNode(n) && !ctx.IsProtected(n) &&
         !ctx.HasKeptControlInputs(n) && !ctx.HasKeptControlOutputs(n) &&
         ctx.PlacedOnCpu(n);
}

// A value read from outside the group of shape `shape`: of that shape, or
// one element of no higher rank.
bool FitsShape(const PartialTensorShape& s, const PartialTensorShape& shape) {
  if (s == shape) return true;
  if (!s.IsFullyDefined() || s.dims() > shape.dims()) return false;
  for (int64_t d : s.dim_sizes()) {
    if (d != 1) return false;
  }
  return true;
}

struct Group {
  std::vector<const Node*> nodes;               // in topological order
  absl::flat_hash_map<const Node*, int> index;  // node -> place in `nodes`
};

// Records the group (at least two nodes, connected) as one fused node.
void RecordGroup(const std::vector<const Node*>& nodes, RewriteContext* ctx) {
  absl::flat_hash_map<const Node*, int> reg;  // group node -> register
  std::vector<NodeOutput> inputs;             // the registers below N
  std::vector<std::vector<int>> operands;     // per node, its registers
  for (const Node* n : nodes) {
    std::vector<int> regs;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* src = ctx->Canonical(n->input(i).node);
      auto it = reg.find(src);
      if (it != reg.end()) {
        regs.push_back(it->second);  // fixed up below: a step's register
        continue;
      }
      const NodeOutput v{src, n->input(i).index};
      int r = 0;
      while (r < static_cast<int>(inputs.size()) && !(inputs[r] == v)) ++r;
      if (r == static_cast<int>(inputs.size())) inputs.push_back(v);
      regs.push_back(-1 - r);  // an input, fixed up below
    }
    operands.push_back(std::move(regs));
    const int step = static_cast<int>(reg.size());
    reg[n] = step;
  }
  const int num_inputs = static_cast<int>(inputs.size());
  auto to_register = [num_inputs](int r) {
    return r < 0 ? -1 - r : num_inputs + r;
  };
  std::vector<std::string> ops, names;
  std::vector<int64_t> operand_attr, results;
  std::vector<const Node*> outputs;  // the last node first
  const Node* last = nodes.back();
  outputs.push_back(last);
  for (size_t s = 0; s < nodes.size(); ++s) {
    const Node* n = nodes[s];
    ops.push_back(n->op());
    names.push_back(n->name());
    operand_attr.push_back(to_register(operands[s][0]));
    operand_attr.push_back(operands[s].size() > 1 ? to_register(operands[s][1])
                                                  : -1);
    if (n == last) continue;
    for (const Endpoint& c : ctx->KeptReads(n, 0)) {
      if (!reg.contains(ctx->Canonical(c.node))) {
        outputs.push_back(n);
        break;
      }
    }
  }
  for (const Node* o : outputs) results.push_back(num_inputs + reg[o]);

  const std::string name = ctx->UniqueName(
      absl::StrCat(last->name(), "+", nodes.size() - 1, "_fused"));
  for (size_t s = 0; s + 1 < nodes.size(); ++s) ctx->Absorb(nodes[s]);
  for (size_t o = 0; o < outputs.size(); ++o) {
    ctx->StandIn(outputs[o], o == 0 ? name : absl::StrCat(name, ":", o));
  }
  ctx->Replace(last, [=](const Node*, GraphRebuilder* rebuilder) {
    NodeDef def;
    def.name = name;
    def.op = "_FusedElementwise";
    def.device = last->requested_device();
    for (const NodeOutput& v : inputs) {
      def.input.push_back(rebuilder->InputName(v.node, v.index));
    }
    def.attr["T"] = AttrValue::Type(DT_FLOAT);
    def.attr["N"] = AttrValue::Int(num_inputs);
    def.attr["num_outputs"] = AttrValue::Int(outputs.size());
    def.attr["ops"] = AttrValue::StringList(ops);
    def.attr["operands"] = AttrValue::IntList(operand_attr);
    def.attr["results"] = AttrValue::IntList(results);
    def.attr[kFusedNodesAttr] = AttrValue::StringList(names);
    std::vector<PartialTensorShape> shapes;
    for (const Node* o : outputs) {
      shapes.push_back(rebuilder->context().graph().output_shape(o, 0));
    }
    rebuilder->AddNode(std::move(def), std::move(shapes));
    return Status();
  });
  ++ctx->stats().fused;
  ctx->stats().fused_away += static_cast<int>(nodes.size()) - 1;
}

}  // namespace

void ElementwiseFusionRule::Visit(const Node* seed, RewriteContext* ctx) const {
  static const bool enabled = Enabled();
  if (!enabled || !Fusible(seed, *ctx)) return;
  const Graph& graph = ctx->graph();
  const PartialTensorShape& shape = graph.output_shape(seed, 0);
  if (shape.unknown_rank()) return;
  const int seed_pos = ctx->Position(seed);

  Group group;
  // Whether `n` may join: its shape is the seed's and it reads group nodes
  // and values from before the seed of a fitting shape.
  auto joins = [&](const Node* n) {
    if (!Fusible(n, *ctx) || graph.output_shape(n, 0) != shape ||
        !ctx->PlacedAlike(n, seed)) {
      return false;
    }
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Node* src = ctx->Canonical(n->input(i).node);
      if (group.index.contains(src)) continue;
      if (ctx->Position(src) >= seed_pos || n->input_type(i) != DT_FLOAT ||
          !FitsShape(graph.output_shape(src, n->input(i).index), shape)) {
        return false;
      }
    }
    return true;
  };
  const std::vector<int>& order = ctx->order();
  for (int pos = seed_pos;
       pos < static_cast<int>(order.size()) && pos <= seed_pos + kWindow &&
       static_cast<int>(group.nodes.size()) < kMaxNodes;
       ++pos) {
    const Node* n = graph.node(order[pos]);
    if (!joins(n)) {
      if (n == seed) return;
      continue;
    }
    group.index[n] = static_cast<int>(group.nodes.size());
    group.nodes.push_back(n);
  }

  // Keep the nodes connected to the seed through the group's own edges.
  const int size = static_cast<int>(group.nodes.size());
  std::vector<std::vector<int>> adjacent(size);
  for (int s = 0; s < size; ++s) {
    const Node* n = group.nodes[s];
    for (int i = 0; i < n->num_inputs(); ++i) {
      auto it = group.index.find(ctx->Canonical(n->input(i).node));
      if (it == group.index.end()) continue;
      adjacent[s].push_back(it->second);
      adjacent[it->second].push_back(s);
    }
  }
  std::vector<char> reached(size, 0);
  std::vector<int> stack = {0};
  reached[0] = 1;
  while (!stack.empty()) {
    const int s = stack.back();
    stack.pop_back();
    for (int t : adjacent[s]) {
      if (!reached[t]) {
        reached[t] = 1;
        stack.push_back(t);
      }
    }
  }
  std::vector<const Node*> nodes;
  for (int s = 0; s < size; ++s) {
    if (reached[s]) nodes.push_back(group.nodes[s]);
  }
  if (nodes.size() < 2) return;
  RecordGroup(nodes, ctx);
}

}  // namespace weft
