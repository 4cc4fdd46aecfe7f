#include "executor/optimizer/elementwise_fusion_rule.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/column_range.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/node_group.h"
#include "executor/optimizer/rewrite_context.h"
#include "ops/attr_value.h"
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

// A register of the fused node's program, before the inputs are counted:
// an input, a step added before the group's (an add read through a view), or
// the step of group node `index`.
struct Ref {
  enum Kind { kInput, kAdded, kGroup } kind;
  int index;
};

// An input of the fused node: a whole tensor, or columns [offset, offset +
// width) of its last axis (width -1: the whole).
struct Operand {
  NodeOutput value;
  int64_t offset = 0;
  int64_t width = -1;
  bool operator==(const Operand& o) const {
    return value == o.value && offset == o.offset && width == o.width;
  }
};

// What the group reads from outside, and the nodes it takes in besides its
// own: column ranges (column_range.h) whose every reader is in the group are
// read in place, and an add of a bias (or of a tensor of its shape) whose
// only readers are such ranges is added part by part, in steps before the
// group's, each element the same one addition the add node made.
class Reads {
 public:
  Reads(const std::vector<const Node*>& nodes, const RewriteContext& ctx)
      : ctx_(ctx), seed_(nodes.front()) {
    for (size_t s = 0; s < nodes.size(); ++s) group_[nodes[s]] = s;
  }

  const absl::flat_hash_map<const Node*, int>& group() const { return group_; }
  const std::vector<Operand>& inputs() const { return inputs_; }
  // Per added step: its two operands (inputs).
  const std::vector<std::pair<int, int>>& added() const { return added_; }
  const std::vector<const Node*>& taken() const { return taken_; }

  // The register input `i` of group node `n` reads.
  Ref Read(const Node* n, int i) {
    const NodeOutput v = ReadThroughIdentities(InputOf(n, i), ctx_);
    const Node* src = v.node;
    auto g = group_.find(src);
    if (g != group_.end()) return {Ref::kGroup, g->second};
    ColumnRange range;
    if (!ColumnsOf(src, v.index, ctx_, &range) || !Takes(src)) {
      return {Ref::kInput, Input({v})};
    }
    range.source.node = ctx_.Canonical(range.source.node);
    const Node* add = range.source.node;
    if (range.source.index == 0 && AddsPartByPart(add)) {
      const std::pair<int, int> step = {Input(Part(InputOf(add, 0), range)),
                                        Input(Part(InputOf(add, 1), range))};
      for (size_t a = 0; a < added_.size(); ++a) {
        if (added_[a] == step) return {Ref::kAdded, static_cast<int>(a)};
      }
      added_.push_back(step);
      return {Ref::kAdded, static_cast<int>(added_.size()) - 1};
    }
    return {Ref::kInput, Input({range.source, range.offset, range.width})};
  }

 private:
  // A node the fused node may take in, who reads it aside: open, not
  // fetched, without control edges that stay, placed with the seed.
  bool Open(const Node* n) const {
    return ctx_.IsOpenFloatNode(n) && !ctx_.IsProtected(n) &&
           !ctx_.HasKeptControlInputs(n) && !ctx_.HasKeptControlOutputs(n) &&
           ctx_.PlacedAlike(n, seed_);
  }
  template <typename Pred>
  bool OnlyReadBy(const Node* n, Pred&& reader) const {
    for (int o = 0; o < n->num_outputs(); ++o) {
      for (const Endpoint& c : ctx_.KeptReads(n, o)) {
        if (!reader(ctx_.Canonical(c.node))) return false;
      }
    }
    return true;
  }

  // Whether the column range node `n` is taken in (recorded in taken_).
  bool Takes(const Node* n) {
    auto it = takes_.find(n);
    if (it != takes_.end()) return it->second;
    const bool takes = Open(n) && OnlyReadBy(n, [this](const Node* r) {
                         return group_.contains(r);
                       });
    takes_[n] = takes;
    if (takes) taken_.push_back(n);
    return takes;
  }

  // Whether `add` (BiasAdd on the last axis, Add or AddV2) is taken in and
  // added part by part: all it computes goes to column ranges taken in, and
  // each operand has its shape, is a vector along its last axis (read in
  // the same columns) or is a single element.
  bool AddsPartByPart(const Node* add) {
    auto it = takes_.find(add);
    if (it != takes_.end()) return it->second;
    bool takes =
        Open(add) && add->num_inputs() == 2 &&
        (add->op() == "BiasAdd" || add->op() == "Add" || add->op() == "AddV2");
    if (takes && add->op() == "BiasAdd") {
      std::string format = "NHWC";
      GetNodeAttr(add->attrs(), "data_format", &format).IgnoreError();
      takes = format == "NHWC";
    }
    const PartialTensorShape& shape = ctx_.graph().output_shape(add, 0);
    for (int i = 0; i < 2 && takes; ++i) {
      const PartialTensorShape& in =
          ctx_.graph().output_shape(add->input(i).node, add->input(i).index);
      takes = add->input_type(i) == DT_FLOAT &&
              (in == shape || Single(in, shape) ||
               (in.dims() == 1 && shape.dims() > 1 && in.dim_size(0) >= 0 &&
                in.dim_size(0) == shape.dim_size(shape.dims() - 1)));
    }
    takes = takes && OnlyReadBy(add, [this, add](const Node* r) {
              ColumnRange range;
              return ColumnsOf(r, 0, ctx_, &range) &&
                     ctx_.Canonical(range.source.node) == add &&
                     range.source.index == 0 && Takes(r);
            });
    takes_[add] = takes;
    if (takes) taken_.push_back(add);
    return takes;
  }

  // Operand `v` of an add taken in, as the part `range` reads: the same
  // columns, or the whole of a single element.
  Operand Part(NodeOutput v, const ColumnRange& range) const {
    v.node = ctx_.Canonical(v.node);
    const PartialTensorShape& in = ctx_.graph().output_shape(v.node, v.index);
    const PartialTensorShape& shape =
        ctx_.graph().output_shape(range.source.node, 0);
    if (in != shape && Single(in, shape)) return {v};
    return {v, range.offset, range.width};
  }

  static bool Single(const PartialTensorShape& s,
                     const PartialTensorShape& shape) {
    if (!s.IsFullyDefined() || shape.unknown_rank() ||
        s.dims() > shape.dims()) {
      return false;
    }
    for (int64_t d : s.dim_sizes()) {
      if (d != 1) return false;
    }
    return true;
  }

  int Input(const Operand& o) {
    for (size_t r = 0; r < inputs_.size(); ++r) {
      if (inputs_[r] == o) return static_cast<int>(r);
    }
    inputs_.push_back(o);
    return static_cast<int>(inputs_.size()) - 1;
  }

  const RewriteContext& ctx_;
  const Node* seed_;
  absl::flat_hash_map<const Node*, int> group_;
  absl::flat_hash_map<const Node*, bool> takes_;
  std::vector<const Node*> taken_;
  std::vector<Operand> inputs_;
  std::vector<std::pair<int, int>> added_;
};

// Records the group (at least two nodes, connected) as one fused node.
void RecordGroup(const std::vector<const Node*>& nodes, RewriteContext* ctx) {
  Reads reads(nodes, *ctx);
  std::vector<std::vector<Ref>> operands;  // per node, its registers
  for (const Node* n : nodes) {
    std::vector<Ref> regs;
    for (int i = 0; i < n->num_inputs(); ++i) regs.push_back(reads.Read(n, i));
    operands.push_back(std::move(regs));
  }
  const int num_inputs = static_cast<int>(reads.inputs().size());
  const int num_added = static_cast<int>(reads.added().size());
  auto to_register = [&](const Ref& r) {
    switch (r.kind) {
      case Ref::kInput:
        return r.index;
      case Ref::kAdded:
        return num_inputs + r.index;
      default:
        return num_inputs + num_added + r.index;
    }
  };
  std::vector<std::string> ops, names;
  std::vector<int64_t> operand_attr, results, slices;
  for (const auto& [a, b] : reads.added()) {
    ops.push_back("AddV2");
    operand_attr.push_back(a);
    operand_attr.push_back(b);
  }
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
      if (!reads.group().contains(ctx->Canonical(c.node))) {
        outputs.push_back(n);
        break;
      }
    }
  }
  for (const Node* o : outputs) {
    results.push_back(num_inputs + num_added + reads.group().at(o));
  }
  bool sliced = false;
  for (const Operand& o : reads.inputs()) {
    slices.push_back(o.offset);
    slices.push_back(o.width);
    sliced = sliced || o.width >= 0;
  }
  for (const Node* t : reads.taken()) names.push_back(t->name());

  const std::string name = ctx->UniqueName(
      absl::StrCat(last->name(), "+", names.size() - 1, "_fused"));
  for (size_t s = 0; s + 1 < nodes.size(); ++s) ctx->Absorb(nodes[s]);
  for (const Node* t : reads.taken()) ctx->Absorb(t);
  for (size_t o = 0; o < outputs.size(); ++o) {
    ctx->StandIn(outputs[o], o == 0 ? name : absl::StrCat(name, ":", o));
  }
  std::vector<NodeOutput> inputs;
  for (const Operand& o : reads.inputs()) inputs.push_back(o.value);
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
    if (sliced) def.attr["slices"] = AttrValue::IntList(slices);
    def.attr[kFusedNodesAttr] = AttrValue::StringList(names);
    std::vector<PartialTensorShape> shapes;
    for (const Node* o : outputs) {
      shapes.push_back(rebuilder->context().graph().output_shape(o, 0));
    }
    rebuilder->AddNode(std::move(def), std::move(shapes));
    return Status();
  });
  ++ctx->stats().fused;
  ctx->stats().fused_away += static_cast<int>(names.size()) - 1;
}

}  // namespace

void ElementwiseFusionRule::Visit(const Node* seed, RewriteContext* ctx) const {
  static const bool enabled = Enabled();
  if (!enabled || !Fusible(seed, *ctx)) return;
  const Graph& graph = ctx->graph();
  const PartialTensorShape& shape = graph.output_shape(seed, 0);
  if (shape.unknown_rank()) return;
  // Nodes of the seed's shape reading values of a fitting shape.
  NodeGroupSpec spec;
  spec.window = kWindow;
  spec.max_nodes = kMaxNodes;
  spec.member = [&](const Node* n) {
    return Fusible(n, *ctx) && graph.output_shape(n, 0) == shape &&
           ctx->PlacedAlike(n, seed);
  };
  spec.outside_input = [&](const Node* n, int i) {
    const NodeOutput v = ReadThroughIdentities(InputOf(n, i), *ctx);
    return n->input_type(i) == DT_FLOAT &&
           FitsShape(graph.output_shape(v.node, v.index), shape);
  };
  const std::vector<const Node*> nodes = GrowNodeGroup(seed, *ctx, spec);
  if (!nodes.empty()) RecordGroup(nodes, ctx);
}

}  // namespace weft
