#include "executor/lstm_loop.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor_list.h"
#include "core/variant.h"
#include "executor/function_graph_index.h"
#include "kernels/cpu/lstm_recurrence.h"

namespace weft {

namespace {

// An int32 operand of cond's Less: loop variable `var`, or `value`.
struct IntOperand {
  int var = -1;
  int64_t value = 0;
};

struct Counter {
  int var = -1;
  int64_t step = 0;
};

// An iteration runs while every term's a < b.
struct LessTerm {
  IntOperand a, b;
};

// Steps run per call of the recurrence: between calls the loop checks
// cancellation and the deadline, and a call's scratch (its inputs and their
// product with W) stays a few MiB however long the sequence.
constexpr int64_t kScratchFloats = int64_t{1} << 20;

constexpr const char* kBodyOps[] = {"Placeholder",
                                    "Const",
                                    "Identity",
                                    "NoOp",
                                    "MatMul",
                                    "Add",
                                    "AddV2",
                                    "BiasAdd",
                                    "Split",
                                    "Mul",
                                    "Sigmoid",
                                    "Tanh",
                                    "SelectV2",
                                    "Tile",
                                    "TensorListGetItem",
                                    "TensorListSetItem"};
constexpr const char* kCondOps[] = {"Placeholder", "Const", "Identity",
                                    "NoOp",        "Less",  "LogicalAnd"};

template <size_t N>
bool OnlyOps(const GraphDef& g, const char* const (&ops)[N]) {
  for (const NodeDef& n : g.node) {
    if (std::none_of(ops, ops + N,
                     [&](const char* op) { return n.op == op; })) {
      return false;
    }
  }
  return true;
}

// The value of an int32 scalar, or false.
bool IntScalar(const Tensor* t, int64_t* value) {
  if (t == nullptr || t->dtype() != DT_INT32 || t->dims() != 0) return false;
  *value = *t->data<int32_t>();
  return true;
}

// Reads one function graph: its loop variables and its constants.
class Reader {
 public:
  Reader(const FunctionGraph& fn, const std::vector<Tensor>& constants)
      : fn_(fn), index_(fn.graph_def), constants_(constants) {}

  NodeOutput Input(const NodeDef& n, int slot) const {
    return index_.Input(n, slot);
  }
  NodeOutput Result(size_t i) const { return index_.Resolve(fn_.fetches[i]); }

  // The loop variable `o` is, or -1.
  int Var(NodeOutput o) const {
    return o.node != nullptr && o.index == 0 ? FeedIndex(fn_, o.node) : -1;
  }

  // The constant `o` is: a Const's value, or a loop variable's session
  // constant; null when neither.
  const Tensor* Constant(NodeOutput o) const {
    if (o.node == nullptr || o.index != 0) return nullptr;
    if (const Tensor* t = ConstValue(o.node)) return t;
    const int v = Var(o);
    if (v >= 0 && v < static_cast<int>(constants_.size()) &&
        constants_[v].IsInitialized()) {
      return &constants_[v];
    }
    return nullptr;
  }

  // The node `o` is output `index` of, when its op is one of `ops` and it
  // has `inputs` data inputs of type attr T `type` (DT_INVALID: any);
  // else null.
  const NodeDef* Op(NodeOutput o, std::initializer_list<const char*> ops,
                    size_t inputs, DataType type, int index = 0) const {
    if (o.node == nullptr || o.index != index ||
        DataInputs(*o.node) != inputs ||
        (type != DT_INVALID && !AttrIs(*o.node, "T", type))) {
      return nullptr;
    }
    for (const char* op : ops) {
      if (o.node->op == op) return o.node;
    }
    return nullptr;
  }

  // Whether match(input 0, input 1) or match(input 1, input 0) holds for
  // the two-input node `n`: a commutative op's operands in either order.
  template <typename F>
  bool EitherOrder(const NodeDef& n, F match) const {
    const NodeOutput a = Input(n, 0);
    const NodeOutput b = Input(n, 1);
    return match(a, b) || match(b, a);
  }

 private:
  const FunctionGraph& fn_;
  const FunctionGraphIndex index_;
  const std::vector<Tensor>& constants_;
};

}  // namespace

struct LstmLoop::Roles {
  int num_vars = 0;
  int h = -1;
  int c = -1;
  int input_list = -1;
  int time = -1;  // the loop variable the input list is read at
  int output_list = -1;
  IntOperand write_index;  // where h is written in the output list
  // A masked LSTM's: the list of [batch, 1] bools read at t, and the loop
  // variable holding the last output (Keras 3; -1 in tf.keras 2, which has
  // none); both -1 when the loop has no mask.
  int mask_list = -1;
  int output = -1;
  // What a masked row writes: `output` itself (the last output carried
  // on) or a loop variable passed through (zeros: a Bidirectional layer's
  // sequences, tf.keras 2).
  int output_kept = -1;
  std::vector<Counter> counters;
  std::vector<LessTerm> cond;
  // The int32 loop variables the iterations depend on (the counters, cond's
  // operands, t, the write index), each once: what Run reads to plan them.
  std::vector<int> int_vars;
  std::unique_ptr<LstmRecurrence> recurrence;
};

namespace {

// The body's gate split: Split(1 or -1, z) four ways, z as in lstm_loop.h.
// Fills the roles the product reads (h, the input list, t) and W, U, b.
struct Gates {
  const NodeDef* split = nullptr;
  const Tensor* w = nullptr;
  const Tensor* u = nullptr;
  const Tensor* b = nullptr;  // null: no bias
};

bool MatchGates(const Reader& r, const NodeDef* split, LstmLoop::Roles* roles,
                Gates* gates) {
  if (split == nullptr || split->op != "Split" || DataInputs(*split) != 2 ||
      !AttrIs(*split, "T", DT_FLOAT)) {
    return false;
  }
  auto num = split->attr.find("num_split");
  int64_t dim = 0;
  if (num == split->attr.end() || num->second.kind != AttrValue::Kind::kInt ||
      num->second.i != 4 || !IntScalar(r.Constant(r.Input(*split, 0)), &dim) ||
      (dim != 1 && dim != -1)) {
    return false;
  }
  // z = b + (x W + h U), as BiasAdd(sum, b) or Add(sum, b).
  const NodeOutput z = r.Input(*split, 1);
  const NodeDef* sum = nullptr;
  if (const NodeDef* bias_add = r.Op(z, {"BiasAdd"}, 2, DT_FLOAT)) {
    auto format = bias_add->attr.find("data_format");
    if (format != bias_add->attr.end() &&
        format->second.kind == AttrValue::Kind::kString &&
        format->second.s != "NHWC") {
      return false;
    }
    sum = r.Op(r.Input(*bias_add, 0), {"Add", "AddV2"}, 2, DT_FLOAT);
    gates->b = r.Constant(r.Input(*bias_add, 1));
  } else if (const NodeDef* add = r.Op(z, {"Add", "AddV2"}, 2, DT_FLOAT)) {
    r.EitherOrder(*add, [&](NodeOutput a, NodeOutput b) {
      const NodeDef* s = r.Op(a, {"Add", "AddV2"}, 2, DT_FLOAT);
      const Tensor* bias = r.Constant(b);
      if (s == nullptr || bias == nullptr) return false;
      sum = s;
      gates->b = bias;
      return true;
    });
  }
  // Without a bias (use_bias=False): z is the sum itself.
  if (sum == nullptr) {
    sum = r.Op(z, {"Add", "AddV2"}, 2, DT_FLOAT);
    gates->b = nullptr;
  }
  if (sum == nullptr) return false;
  auto plain_product = [&](NodeOutput o) -> const NodeDef* {
    const NodeDef* m = r.Op(o, {"MatMul"}, 2, DT_FLOAT);
    return m != nullptr && !BoolAttr(*m, "transpose_a") &&
                   !BoolAttr(*m, "transpose_b")
               ? m
               : nullptr;
  };
  const bool products = r.EitherOrder(*sum, [&](NodeOutput a, NodeOutput b) {
    const NodeDef* xw = plain_product(a);
    const NodeDef* hu = plain_product(b);
    if (xw == nullptr || hu == nullptr) return false;
    const NodeDef* get =
        r.Op(r.Input(*xw, 0), {"TensorListGetItem"}, 3, DT_INVALID);
    if (get == nullptr || !AttrIs(*get, "element_dtype", DT_FLOAT)) {
      return false;
    }
    roles->input_list = r.Var(r.Input(*get, 0));
    roles->time = r.Var(r.Input(*get, 1));
    roles->h = r.Var(r.Input(*hu, 0));
    gates->w = r.Constant(r.Input(*xw, 1));
    gates->u = r.Constant(r.Input(*hu, 1));
    return roles->input_list >= 0 && roles->time >= 0 && roles->h >= 0 &&
           gates->w != nullptr && gates->u != nullptr;
  });
  if (!products) return false;
  gates->split = split;
  // The shapes: W [features, 4 units], U [units, 4 units], b [4 units].
  const Tensor& w = *gates->w;
  const Tensor& u = *gates->u;
  const Tensor* b = gates->b;
  if (w.dtype() != DT_FLOAT || u.dtype() != DT_FLOAT || w.dims() != 2 ||
      u.dims() != 2) {
    return false;
  }
  const int64_t units = u.dim_size(0);
  return units > 0 && w.dim_size(0) > 0 && u.dim_size(1) == 4 * units &&
         w.dim_size(1) == 4 * units &&
         (b == nullptr || (b->dtype() == DT_FLOAT && b->dims() == 1 &&
                           b->dim_size(0) == 4 * units));
}

// Whether `o` is Sigmoid or Tanh (`op`) of output `part` of `split`.
bool GateOf(const Reader& r, NodeOutput o, const char* op, const NodeDef* split,
            int part) {
  const NodeDef* n = r.Op(o, {op}, 1, DT_FLOAT);
  if (n == nullptr) return false;
  const NodeOutput in = r.Input(*n, 0);
  return in.node == split && in.index == part;
}

// h = Mul(Sigmoid(z:3), Tanh(c_new)): fills the split, W, U, b and the
// roles the product reads; *c_new is c's node.
bool MatchH(const Reader& r, NodeOutput h, LstmLoop::Roles* roles, Gates* gates,
            const NodeDef** c_new) {
  const NodeDef* mul = r.Op(h, {"Mul"}, 2, DT_FLOAT);
  if (mul == nullptr) return false;
  return r.EitherOrder(*mul, [&](NodeOutput o, NodeOutput t) {
    const NodeDef* sigmoid = r.Op(o, {"Sigmoid"}, 1, DT_FLOAT);
    const NodeDef* tanh = r.Op(t, {"Tanh"}, 1, DT_FLOAT);
    if (sigmoid == nullptr || tanh == nullptr) return false;
    const NodeOutput split = r.Input(*sigmoid, 0);
    if (split.index != 3 || !MatchGates(r, split.node, roles, gates)) {
      return false;
    }
    const NodeOutput c = r.Input(*tanh, 0);
    *c_new = c.index == 0 ? c.node : nullptr;
    return *c_new != nullptr;
  });
}

// c_new = Add(Mul(Sigmoid(z:1), c_prev), Mul(Sigmoid(z:0), Tanh(z:2))):
// fills roles->c, c_prev's loop variable.
bool MatchC(const Reader& r, const NodeDef* c_new, const NodeDef* split,
            LstmLoop::Roles* roles) {
  if (c_new == nullptr) return false;
  const NodeDef* add =
      r.Op(NodeOutput{c_new, 0}, {"Add", "AddV2"}, 2, DT_FLOAT);
  if (add == nullptr) return false;
  return r.EitherOrder(*add, [&](NodeOutput kept, NodeOutput added) {
    const NodeDef* kept_mul = r.Op(kept, {"Mul"}, 2, DT_FLOAT);
    const NodeDef* added_mul = r.Op(added, {"Mul"}, 2, DT_FLOAT);
    if (kept_mul == nullptr || added_mul == nullptr) return false;
    const bool input_gate =
        r.EitherOrder(*added_mul, [&](NodeOutput i, NodeOutput g) {
          return GateOf(r, i, "Sigmoid", split, 0) &&
                 GateOf(r, g, "Tanh", split, 2);
        });
    return input_gate &&
           r.EitherOrder(*kept_mul, [&](NodeOutput f, NodeOutput c_prev) {
             if (!GateOf(r, f, "Sigmoid", split, 1)) return false;
             roles->c = r.Var(c_prev);
             return roles->c >= 0;
           });
  });
}

// The values of an int32 or int64 vector, or false.
bool IntVector(const Tensor* t, std::vector<int64_t>* out) {
  if (t == nullptr || t->dims() != 1) return false;
  out->clear();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    if (t->dtype() == DT_INT32) {
      out->push_back(t->data<int32_t>()[i]);
    } else if (t->dtype() == DT_INT64) {
      out->push_back(t->data<int64_t>()[i]);
    } else {
      return false;
    }
  }
  return true;
}

// SelectV2(m, chosen, kept) on a mask m that is item t of a list of bools
// (loop variables), as [batch, 1] (broadcast) or through Tile by
// `multiples`.
struct Select {
  NodeOutput chosen, kept;
  int mask_list = -1;
  int mask_time = -1;
  std::vector<int64_t> multiples;  // empty: no Tile

  bool SameMask(const Select& o) const {
    return mask_list == o.mask_list && mask_time == o.mask_time &&
           multiples == o.multiples;
  }
};

bool MatchSelect(const Reader& r, NodeOutput o, Select* out) {
  const NodeDef* select = r.Op(o, {"SelectV2"}, 3, DT_FLOAT);
  if (select == nullptr) return false;
  NodeOutput mask = r.Input(*select, 0);
  out->multiples.clear();
  if (const NodeDef* tile = r.Op(mask, {"Tile"}, 2, DT_BOOL)) {
    if (!IntVector(r.Constant(r.Input(*tile, 1)), &out->multiples) ||
        out->multiples.empty()) {
      return false;
    }
    mask = r.Input(*tile, 0);
  }
  const NodeDef* get = r.Op(mask, {"TensorListGetItem"}, 3, DT_INVALID);
  if (get == nullptr || !AttrIs(*get, "element_dtype", DT_BOOL)) return false;
  out->mask_list = r.Var(r.Input(*get, 0));
  out->mask_time = r.Var(r.Input(*get, 1));
  out->chosen = r.Input(*select, 1);
  out->kept = r.Input(*select, 2);
  return out->mask_list >= 0 && out->mask_time >= 0;
}

// Whether Tile's `multiples` (empty: no Tile) keep a [batch, 1] mask one
// value a row: [1, units] makes it [batch, units]; [1, 1] (what Keras
// writes) leaves it to SelectV2's broadcast, as no Tile does.
bool TilesToUnits(const std::vector<int64_t>& multiples, int64_t units) {
  return multiples.empty() || multiples == std::vector<int64_t>{1, 1} ||
         multiples == std::vector<int64_t>{1, units};
}

// An int32 operand of cond: a Const scalar or a loop variable.
bool MatchOperand(const Reader& r, NodeOutput o, IntOperand* out) {
  int64_t value = 0;
  if (o.node != nullptr && o.node->op == "Const" &&
      IntScalar(r.Constant(o), &value)) {
    *out = {-1, value};
    return true;
  }
  out->var = r.Var(o);
  return out->var >= 0;
}

// cond's predicate as Less terms, through LogicalAnd.
bool MatchCond(const Reader& r, NodeOutput o, std::vector<LessTerm>* terms) {
  if (const NodeDef* both = r.Op(o, {"LogicalAnd"}, 2, DT_INVALID)) {
    return MatchCond(r, r.Input(*both, 0), terms) &&
           MatchCond(r, r.Input(*both, 1), terms);
  }
  const NodeDef* less = r.Op(o, {"Less"}, 2, DT_INT32);
  if (less == nullptr) return false;
  LessTerm term;
  if (!MatchOperand(r, r.Input(*less, 0), &term.a) ||
      !MatchOperand(r, r.Input(*less, 1), &term.b)) {
    return false;
  }
  terms->push_back(term);
  return true;
}

// The list a loop-variable tensor holds, or null.
const TensorList* ListOf(const Tensor& t) {
  if (t.dtype() != DT_VARIANT || t.dims() != 0) return nullptr;
  return VariantElements(t)[0].get<TensorList>();
}

}  // namespace

LstmLoop::LstmLoop(std::unique_ptr<Roles> roles) : roles_(std::move(roles)) {}
LstmLoop::~LstmLoop() = default;

std::unique_ptr<LstmLoop> LstmLoop::Find(
    const FunctionGraph& cond, const FunctionGraph& body,
    const std::vector<bool>& passed_through,
    const std::vector<Tensor>& constants) {
  const size_t vars = body.feeds.size();
  if (body.fetches.size() != vars || cond.feeds.size() != vars ||
      cond.fetches.size() != 1 || passed_through.size() != vars ||
      !OnlyOps(body.graph_def, kBodyOps) ||
      !OnlyOps(cond.graph_def, kCondOps)) {
    return nullptr;
  }
  auto roles = std::make_unique<Roles>();
  roles->num_vars = static_cast<int>(vars);
  const Reader r(body, constants);

  // h: the one result that is Mul(Sigmoid(z:3), Tanh(c)), or with a mask
  // SelectV2(mask, that, h).
  Gates gates;
  const NodeDef* c_new = nullptr;
  const NodeDef* h_new = nullptr;
  bool masked = false;
  Select mask;
  for (size_t i = 0; i < vars && h_new == nullptr; ++i) {
    if (passed_through[i]) continue;
    Roles found;
    Gates g;
    const NodeDef* c = nullptr;
    Select select;
    const bool is_select = MatchSelect(r, r.Result(i), &select);
    const NodeOutput h = is_select ? select.chosen : r.Result(i);
    if (MatchH(r, h, &found, &g, &c) && found.h == static_cast<int>(i) &&
        (!is_select || r.Var(select.kept) == found.h)) {
      h_new = h.node;
      roles->h = found.h;
      roles->input_list = found.input_list;
      roles->time = found.time;
      gates = g;
      c_new = c;
      masked = is_select;
      mask = select;
    }
  }
  if (h_new == nullptr || !MatchC(r, c_new, gates.split, roles.get())) {
    return nullptr;
  }
  // The same masks: one list read at t, tiled (or not) to the units.
  auto same_mask = [&](const Select& s) {
    return masked && s.SameMask(mask) && s.chosen.index == 0;
  };
  NodeOutput c_result = r.Result(roles->c);
  if (masked) {
    Select select;
    if (!MatchSelect(r, c_result, &select) || !same_mask(select) ||
        r.Var(select.kept) != roles->c) {
      return nullptr;
    }
    c_result = select.chosen;
  }
  if (c_result.node != c_new || c_result.index != 0) return nullptr;
  if (!passed_through[roles->input_list] ||
      body.input_types[roles->time] != DT_INT32) {
    return nullptr;
  }

  // Every other result: passed through, a counter, the output list, or
  // with a mask the last output: SelectV2(mask, h, itself or a variable
  // passed through).
  int written_kept = -1;  // with a mask: what masked rows write to the list
  for (size_t i = 0; i < vars; ++i) {
    const int v = static_cast<int>(i);
    if (v == roles->h || v == roles->c || passed_through[i]) continue;
    const NodeOutput o = r.Result(i);
    Select select;
    if (MatchSelect(r, o, &select)) {
      const int kept = r.Var(select.kept);
      if (!same_mask(select) || select.chosen.node != h_new ||
          roles->output >= 0 || kept < 0 ||
          (kept != v && !passed_through[kept]) ||
          body.input_types[kept] != DT_FLOAT) {
        return nullptr;
      }
      roles->output = v;
      roles->output_kept = kept;
      continue;
    }
    if (const NodeDef* add = r.Op(o, {"Add", "AddV2"}, 2, DT_INT32)) {
      int64_t step = 0;
      const bool counter = r.EitherOrder(*add, [&](NodeOutput a, NodeOutput b) {
        return r.Var(a) == v && IntScalar(r.Constant(b), &step);
      });
      if (!counter) return nullptr;
      roles->counters.push_back({v, step});
      continue;
    }
    const NodeDef* set = r.Op(o, {"TensorListSetItem"}, 3, DT_INVALID);
    if (set == nullptr || roles->output_list >= 0 ||
        !AttrIs(*set, "element_dtype", DT_FLOAT) ||
        r.Var(r.Input(*set, 0)) != v) {
      return nullptr;
    }
    NodeOutput item = r.Input(*set, 2);
    if (masked) {
      if (!MatchSelect(r, item, &select) || !same_mask(select)) return nullptr;
      written_kept = r.Var(select.kept);
      item = select.chosen;
    }
    if (item.node != h_new || item.index != 0 ||
        !MatchOperand(r, r.Input(*set, 1), &roles->write_index)) {
      return nullptr;
    }
    roles->output_list = v;
  }
  if (roles->output_list < 0) return nullptr;
  if (masked) {
    // Without a loop variable for the last output (tf.keras 2), the list's
    // masked rows get a variable passed through (its zeros).
    if (roles->output < 0 && written_kept >= 0 &&
        passed_through[written_kept] &&
        body.input_types[written_kept] == DT_FLOAT) {
      roles->output_kept = written_kept;
    }
    // The list gets the held output where the mask is false, as the
    // output variable does; the mask is a list passed through, read at t.
    if (roles->output_kept < 0 || written_kept != roles->output_kept ||
        !passed_through[mask.mask_list] || mask.mask_time != roles->time ||
        !TilesToUnits(mask.multiples, gates.u->dim_size(0))) {
      return nullptr;
    }
    roles->mask_list = mask.mask_list;
  }

  // The int32 loop variables read by index or by cond must be counters or
  // passed through: their values in each iteration are then known ahead.
  auto known = [&](int var) {
    if (var < 0) return true;
    if (body.input_types[var] != DT_INT32) return false;
    if (passed_through[var]) return true;
    return std::any_of(roles->counters.begin(), roles->counters.end(),
                       [&](const Counter& k) { return k.var == var; });
  };
  const std::vector<Tensor> no_constants;
  const Reader cr(cond, no_constants);
  if (!MatchCond(cr, cr.Result(0), &roles->cond)) return nullptr;
  for (const LessTerm& t : roles->cond) {
    if (!known(t.a.var) || !known(t.b.var)) return nullptr;
  }
  if (!known(roles->write_index.var)) return nullptr;
  // t must grow every iteration: then the items it reads bound the
  // iterations Run plans, whatever cond says.
  if (std::none_of(roles->counters.begin(), roles->counters.end(),
                   [&](const Counter& k) {
                     return k.var == roles->time && k.step > 0;
                   })) {
    return nullptr;
  }

  std::vector<int> int_vars = {roles->time, roles->write_index.var};
  for (const Counter& k : roles->counters) int_vars.push_back(k.var);
  for (const LessTerm& t : roles->cond) {
    int_vars.push_back(t.a.var);
    int_vars.push_back(t.b.var);
  }
  for (int v : int_vars) {
    if (v >= 0 && std::find(roles->int_vars.begin(), roles->int_vars.end(),
                            v) == roles->int_vars.end()) {
      roles->int_vars.push_back(v);
    }
  }

  roles->recurrence =
      std::make_unique<LstmRecurrence>(*gates.w, *gates.u, gates.b);
  return std::unique_ptr<LstmLoop>(new LstmLoop(std::move(roles)));
}

bool LstmLoop::Run(absl::Span<const Tensor* const> inputs,
                   const ParallelForFn& parallel, const RunOptions& options,
                   int64_t max_iterations, absl::string_view label,
                   std::vector<Tensor>* results, Status* status) const {
  const Roles& roles = *roles_;
  if (static_cast<int>(inputs.size()) != roles.num_vars) return false;
  const LstmRecurrence& cell = *roles.recurrence;
  const int64_t units = cell.units();
  const int64_t features = cell.features();

  // The state: h and c [batch, units] floats.
  const Tensor& h0 = *inputs[roles.h];
  const Tensor& c0 = *inputs[roles.c];
  if (h0.dtype() != DT_FLOAT || h0.dims() != 2 || h0.dim_size(1) != units ||
      c0.dtype() != DT_FLOAT || c0.shape() != h0.shape()) {
    return false;
  }
  const int64_t batch = h0.dim_size(0);
  if (batch <= 0) return false;
  const TensorList* in_list = ListOf(*inputs[roles.input_list]);
  const TensorList* out_list = ListOf(*inputs[roles.output_list]);
  const TensorShape h_shape({batch, units});
  const TensorShape x_shape({batch, features});
  if (in_list == nullptr || out_list == nullptr ||
      in_list->element_dtype != DT_FLOAT ||
      out_list->element_dtype != DT_FLOAT ||
      !out_list->element_shape.IsCompatibleWith(h_shape)) {
    return false;
  }
  // With a mask: its list of [batch, 1] bools, and the last output.
  const bool masked = roles.mask_list >= 0;
  const TensorList* mask_list =
      masked ? ListOf(*inputs[roles.mask_list]) : nullptr;
  const Tensor* y0 = masked ? inputs[roles.output_kept] : nullptr;
  const bool y_carries = roles.output_kept == roles.output;
  if (masked && (mask_list == nullptr || mask_list->element_dtype != DT_BOOL ||
                 y0->dtype() != DT_FLOAT || y0->shape() != h_shape)) {
    return false;
  }
  const TensorShape mask_shape({batch, 1});

  // The iterations, from the int32 loop variables alone: which item each
  // reads and where it writes h.
  std::vector<int64_t> value(roles.num_vars, 0);
  for (int v : roles.int_vars) {
    if (!IntScalar(inputs[v], &value[v])) return false;
  }
  auto operand = [&](const IntOperand& o) {
    return o.var < 0 ? o.value : value[o.var];
  };
  const int64_t in_size = static_cast<int64_t>(in_list->tensors.size());
  const int64_t out_size = static_cast<int64_t>(out_list->tensors.size());
  std::vector<const float*> x;
  std::vector<const bool*> mask;
  std::vector<int64_t> writes;
  for (;;) {
    bool holds = true;
    for (const LessTerm& t : roles.cond) {
      holds = holds && operand(t.a) < operand(t.b);
    }
    if (!holds) break;
    const int64_t steps = static_cast<int64_t>(x.size());
    if (max_iterations > 0 && steps >= max_iterations) {
      return false;
    }
    const int64_t t = value[roles.time];
    const int64_t at = operand(roles.write_index);
    if (t < 0 || t >= in_size || at < 0 || at >= out_size) return false;
    const Tensor& item = in_list->tensors[t];
    if (!item.IsInitialized() || item.dtype() != DT_FLOAT ||
        item.shape() != x_shape) {
      return false;
    }
    if (masked) {
      if (t >= static_cast<int64_t>(mask_list->tensors.size())) return false;
      const Tensor& m = mask_list->tensors[t];
      if (!m.IsInitialized() || m.dtype() != DT_BOOL ||
          m.shape() != mask_shape) {
        return false;
      }
      mask.push_back(m.data<bool>());
    }
    x.push_back(item.data<float>());
    writes.push_back(at);
    for (const Counter& k : roles.counters) {
      const int64_t next = value[k.var] + k.step;
      // int32 wraps in the graph's AddV2; such a loop is left to it.
      if (next < std::numeric_limits<int32_t>::min() ||
          next > std::numeric_limits<int32_t>::max()) {
        return false;
      }
      value[k.var] = next;
    }
  }
  const int64_t steps = static_cast<int64_t>(x.size());
  if (steps == 0) return false;

  // What the list gets at step s (h, or with a mask the output y) goes to
  // a tensor of its own where the list keeps it (the last write to an
  // index) and for the last step (the loop's h or y); the other steps'
  // values, read only by the next step, alternate between two buffers, so
  // that a loop writing one index keeps no more than it needs. With a mask,
  // h alternates too, but for the last step's.
  std::vector<bool> kept(steps, false);
  std::vector<bool> written(out_size, false);
  for (int64_t s = steps - 1; s >= 0; --s) {
    kept[s] = !written[writes[s]];  // the last step's write is kept
    written[writes[s]] = true;
  }
  auto buffers = [&](const std::vector<bool>& own, std::vector<Tensor>* mine,
                     Tensor* scratch, std::vector<float*>* out) {
    mine->resize(steps);
    out->resize(steps);
    for (int64_t s = 0; s < steps; ++s) {
      Tensor& t = own[s] ? (*mine)[s] : scratch[s % 2];
      if (!t.IsInitialized()) t = Tensor(DT_FLOAT, h_shape);
      (*out)[s] = t.data<float>();
    }
  };
  Tensor scratch[2], h_scratch[2];
  std::vector<Tensor> ys, hs;
  std::vector<float*> y_out, h_out;
  buffers(kept, &ys, scratch, &y_out);
  if (masked) {
    std::vector<bool> last(steps, false);
    last[steps - 1] = true;
    buffers(last, &hs, h_scratch, &h_out);
  } else {
    hs = ys;
    h_out = y_out;
  }
  Tensor c(DT_FLOAT, h_shape);
  std::memcpy(c.data<float>(), c0.data<float>(),
              sizeof(float) * c0.NumElements());
  const int64_t chunk =
      std::max<int64_t>(1, kScratchFloats / (batch * (features + 4 * units)));
  const bool has_deadline =
      options.deadline != std::chrono::steady_clock::time_point::max();
  for (int64_t s = 0; s < steps; s += chunk) {
    if (options.cancellation != nullptr &&
        options.cancellation->IsCancelled()) {
      *status = absl::CancelledError(
          absl::StrCat("run cancelled in loop ", label, " at iteration ", s));
      return true;
    }
    if (has_deadline && std::chrono::steady_clock::now() >= options.deadline) {
      *status = absl::DeadlineExceededError(absl::StrCat(
          "run deadline exceeded in loop ", label, " at iteration ", s));
      return true;
    }
    const int64_t n = std::min(chunk, steps - s);
    const float* h_prev = s == 0 ? h0.data<float>() : h_out[s - 1];
    // Without a mask the kernel reads neither y_prev nor y_out.
    const float* y_prev =
        !masked ? nullptr
                : (s == 0 || !y_carries ? y0->data<float>() : y_out[s - 1]);
    cell.Run(parallel, n, batch, x.data() + s, h_prev, c.data<float>(),
             h_out.data() + s, masked ? mask.data() + s : nullptr, y_prev,
             y_out.data() + s, y_carries);
  }

  // The loop variables after the last iteration: the counters' values,
  // the list, h and c; the others are their inputs, as the graph passes
  // them through.
  results->assign(inputs.size(), Tensor());
  for (int v = 0; v < roles.num_vars; ++v) (*results)[v] = *inputs[v];
  for (const Counter& k : roles.counters) {
    Tensor t(DT_INT32, TensorShape());
    *t.data<int32_t>() = static_cast<int32_t>(value[k.var]);
    (*results)[k.var] = std::move(t);
  }
  auto list = std::make_shared<TensorList>(*out_list);
  for (int64_t s = 0; s < steps; ++s) {
    if (kept[s]) list->tensors[writes[s]] = ys[s];
  }
  Tensor list_tensor(DT_VARIANT, TensorShape());
  VariantElements(list_tensor)[0] = Variant(std::move(list));
  (*results)[roles.output_list] = std::move(list_tensor);
  if (roles.output >= 0) (*results)[roles.output] = ys[steps - 1];
  (*results)[roles.h] = hs[steps - 1];
  (*results)[roles.c] = std::move(c);
  *status = Status();
  return true;
}

}  // namespace weft
