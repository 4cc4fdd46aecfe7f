#include "graph/raise_control_flow.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "graph/import.h"
#include "ops/op_def_util.h"

namespace weft {
namespace {

bool IsStructural(absl::string_view op) {
  return op == "Enter" || op == "Exit" || op == "Switch" || op == "_SwitchN" ||
         op == "Merge" || op == "NextIteration" || op == "LoopCond";
}

std::string Tensor(absl::string_view node, int index) {
  return index == 0 ? std::string(node) : absl::StrCat(node, ":", index);
}

// One consumer of a node's output (`output` < 0 for a control edge).
struct Use {
  int node = -1;
  int output = 0;
};

// A tensor a raised function reads from outside: its argument name.
using ArgMap = std::map<std::pair<std::string, int>, std::string>;

class Raiser {
 public:
  Raiser(GraphDef graph, const OpRegistry* registry, absl::string_view source)
      : g_(std::move(graph)), registry_(registry), src_(source) {}

  StatusOr<GraphDef> Run() {
    for (NodeDef& n : g_.node) {
      if (n.op == "ControlTrigger") n.op = "NoOp";
    }
    while (true) {
      WEFT_RETURN_IF_ERROR(Reindex());
      // Loop frames by name, in node order; conds by predicate.
      std::vector<std::string> frames;
      std::map<std::string, std::vector<int>> frame_enters;
      std::vector<std::string> preds;
      std::map<std::string, std::vector<int>> pred_switches;
      for (size_t i = 0; i < g_.node.size(); ++i) {
        const NodeDef& n = g_.node[i];
        if (n.op == "Enter") {
          std::string frame;
          auto it = n.attr.find("frame_name");
          if (it != n.attr.end()) frame = it->second.s;
          if (!frame_enters.count(frame)) frames.push_back(frame);
          frame_enters[frame].push_back(static_cast<int>(i));
        } else if ((n.op == "Switch" || n.op == "_SwitchN") &&
                   n.input.size() >= 2) {
          const int pred = Producer(n.input[1]);
          if (pred >= 0 && g_.node[pred].op == "LoopCond") continue;
          // TF1 conds read the predicate through an Identity (pred_id) in
          // all but one Switch: they are still one conditional.
          const std::string key = Canonical(ThroughIdentities(n.input[1]));
          if (!pred_switches.count(key)) preds.push_back(key);
          pred_switches[key].push_back(static_cast<int>(i));
        }
      }
      if (frames.empty() && preds.empty()) break;
      bool raised = false;
      std::string blocked;
      for (const std::string& f : frames) {
        WEFT_ASSIGN_OR_RETURN(bool done, RaiseLoop(f, frame_enters[f]));
        if (done) {
          raised = true;
          break;
        }
        if (blocked.empty()) blocked = absl::StrCat("loop frame '", f, "'");
      }
      if (raised) continue;
      for (const std::string& p : preds) {
        WEFT_ASSIGN_OR_RETURN(bool done, RaiseCond(p, pred_switches[p]));
        if (done) {
          raised = true;
          break;
        }
        if (blocked.empty()) {
          blocked = absl::StrCat("the conditional on '", p, "'");
        }
      }
      if (!raised) {
        return errors::Unimplemented(
            src_, ": lowered control flow: ", blocked,
            " and every other loop or conditional left encloses another one, "
            "so none can be raised into While / If");
      }
    }
    // What no loop frame or conditional took (a Merge or Exit of no frame,
    // a Switch on a LoopCond outside any loop) would be raised again on
    // every import of the result, forever.
    for (const NodeDef& n : g_.node) {
      if (IsStructural(n.op)) {
        return errors::InvalidArgument(
            src_, ": lowered control flow: node '", n.name, "' (", n.op,
            ") belongs to no loop frame or conditional that can be raised "
            "into While / If");
      }
    }
    return std::move(g_);
  }

 private:
  Status Reindex() {
    index_.clear();
    for (size_t i = 0; i < g_.node.size(); ++i) {
      index_[g_.node[i].name] = static_cast<int>(i);
    }
    uses_.assign(g_.node.size(), {});
    for (size_t i = 0; i < g_.node.size(); ++i) {
      for (const std::string& in : g_.node[i].input) {
        auto parsed = ParseNodeInput(in);
        if (!parsed.ok()) {
          return AddContext(
              parsed.status(),
              absl::StrCat(src_, ": node '", g_.node[i].name, "'"));
        }
        auto it = index_.find(parsed->node);
        if (it == index_.end()) continue;  // import names it
        uses_[it->second].push_back(
            {static_cast<int>(i), parsed->is_control ? -1 : parsed->index});
      }
    }
    return Status();
  }

  int Producer(const std::string& input) const {
    auto parsed = ParseNodeInput(input);
    if (!parsed.ok()) return -1;
    auto it = index_.find(parsed->node);
    return it == index_.end() ? -1 : it->second;
  }

  // `input` with the Identity nodes it reads through skipped.
  std::string ThroughIdentities(std::string input) const {
    for (int hops = 0; hops < 64; ++hops) {
      const int p = Producer(input);
      if (p < 0 || g_.node[p].op != "Identity" || g_.node[p].input.empty() ||
          g_.node[p].input[0].empty() || g_.node[p].input[0][0] == '^') {
        break;
      }
      input = g_.node[p].input[0];
    }
    return input;
  }

  static std::string Canonical(const std::string& input) {
    auto parsed = ParseNodeInput(input);
    if (!parsed.ok()) return input;
    return parsed->is_control ? input : Tensor(parsed->node, parsed->index);
  }

  // The dtypes of `node`'s outputs under its op's signature.
  StatusOr<DataType> OutputType(int node, int output) {
    NodeDef copy = g_.node[node];
    auto reg = registry_->LookUp(copy.op);
    if (!reg.ok()) return reg.status();
    WEFT_ASSIGN_OR_RETURN(NodeTypes types, ValidateNode((*reg)->op_def, &copy));
    if (output >= static_cast<int>(types.output_types.size())) {
      return errors::InvalidArgument("node '", copy.name, "' has no output ",
                                     output);
    }
    return types.output_types[output];
  }

  // Makes the outer tensor `key` argument `_weft_capture<i>` of a raised
  // function: appends its name, its dtype and the input that feeds it, and
  // returns the name. `where` names the loop or conditional for errors.
  StatusOr<std::string> AddCaptureArg(const std::pair<std::string, int>& key,
                                      size_t i, const std::string& where,
                                      std::vector<std::string>* arg_names,
                                      std::vector<DataType>* arg_types,
                                      std::vector<std::string>* inputs) {
    auto it = index_.find(key.first);
    if (it == index_.end()) {
      return errors::InvalidArgument(where, ": reads unknown node '", key.first,
                                     "'");
    }
    auto type = OutputType(it->second, key.second);
    if (!type.ok()) return AddContext(type.status(), where);
    std::string a = absl::StrCat("_weft_capture", i);
    arg_names->push_back(a);
    arg_types->push_back(*type);
    inputs->push_back(Tensor(key.first, key.second));
    return a;
  }

  static DataType AttrType(const NodeDef& n, const char* attr) {
    auto it = n.attr.find(attr);
    return it == n.attr.end() ? DT_INVALID : it->second.type;
  }

  // Forward closure of `seeds` over data and control edges, not entering
  // `stop` nodes; Merge nodes reached are collected in `merges` and not
  // entered when `merges` is given.
  std::set<int> Forward(const std::vector<int>& seeds,
                        const absl::flat_hash_set<int>& stop,
                        std::set<int>* merges) const {
    std::set<int> region;
    std::vector<int> work;
    auto visit = [&](int v) {
      if (stop.contains(v) || region.count(v)) return;
      if (merges != nullptr && g_.node[v].op == "Merge") {
        merges->insert(v);
        return;
      }
      region.insert(v);
      work.push_back(v);
    };
    for (int s : seeds) visit(s);
    while (!work.empty()) {
      int u = work.back();
      work.pop_back();
      for (const Use& use : uses_[u]) visit(use.node);
    }
    return region;
  }

  // Backward closure within `region` from `roots` (node indices).
  std::set<int> Backward(const std::vector<int>& roots,
                         const std::set<int>& region) const {
    std::set<int> out;
    std::vector<int> work;
    auto visit = [&](int v) {
      if (v < 0 || !region.count(v) || out.count(v)) return;
      out.insert(v);
      work.push_back(v);
    };
    for (int r : roots) visit(r);
    while (!work.empty()) {
      int u = work.back();
      work.pop_back();
      for (const std::string& in : g_.node[u].input) visit(Producer(in));
    }
    return out;
  }

  bool HoldsStructural(const std::set<int>& region) const {
    for (int n : region) {
      if (IsStructural(g_.node[n].op)) return true;
    }
    return false;
  }

  std::string UniqueNodeName(const std::string& want) const {
    std::string name = want.empty() ? "raised" : want;
    for (int k = 1; index_.count(name); ++k) {
      name = absl::StrCat(want, "/_", k);
    }
    return name;
  }

  std::string UniqueFunctionName(const std::string& base) {
    std::string want = absl::StrCat(
        "weft_raised_", absl::StrReplaceAll(base, {{"/", "_"}, {":", "_"}}));
    std::string name = want;
    for (int k = 1;; ++k) {
      bool taken = false;
      for (const FunctionDef& f : g_.library.function) {
        if (f.signature.name == name) taken = true;
      }
      if (!taken) return name;
      name = absl::StrCat(want, "_", k);
    }
  }

  // A function over `nodes` (indices, kept in graph order) whose inputs that
  // `args` names become arguments; control inputs from outside are dropped.
  StatusOr<FunctionDef> MakeFunction(
      const std::string& name, const std::vector<std::string>& arg_names,
      const std::vector<DataType>& arg_types, const std::set<int>& nodes,
      const ArgMap& args, const std::vector<std::string>& outputs,
      const std::vector<DataType>& output_types) {
    FunctionDef f;
    f.signature.name = name;
    for (size_t i = 0; i < arg_names.size(); ++i) {
      OpDef::ArgDef a;
      a.name = arg_names[i];
      a.type = arg_types[i];
      f.signature.input_arg.push_back(std::move(a));
    }
    auto map_tensor = [&](const std::string& in) -> StatusOr<std::string> {
      WEFT_ASSIGN_OR_RETURN(ParsedInput p, ParseNodeInput(in));
      auto arg = args.find({p.node, p.index});
      if (arg != args.end()) return arg->second;
      auto it = index_.find(p.node);
      if (it != index_.end() && nodes.count(it->second)) {
        return Tensor(p.node, p.index);
      }
      return errors::InvalidArgument("'", in,
                                     "' is read inside but computed outside");
    };
    for (int n : nodes) {
      NodeDef def = g_.node[n];
      std::vector<std::string> inputs;
      for (const std::string& in : def.input) {
        if (!in.empty() && in[0] == '^') {
          auto it = index_.find(in.substr(1));
          if (it != index_.end() && nodes.count(it->second)) {
            inputs.push_back(in);
          }
          continue;
        }
        auto mapped = map_tensor(in);
        if (!mapped.ok()) {
          return AddContext(mapped.status(),
                            absl::StrCat("node '", def.name, "'"));
        }
        inputs.push_back(*std::move(mapped));
      }
      def.input = std::move(inputs);
      f.node_def.push_back(std::move(def));
    }
    for (size_t k = 0; k < outputs.size(); ++k) {
      OpDef::ArgDef a;
      a.name = absl::StrCat("out", k);
      a.type = output_types[k];
      f.signature.output_arg.push_back(a);
      WEFT_ASSIGN_OR_RETURN(std::string t, map_tensor(outputs[k]));
      f.ret[a.name] = t;
    }
    return f;
  }

  // Drops the nodes in `removed`; the nodes of `replaced` keep their places.
  void Remove(const std::set<int>& removed) {
    std::vector<NodeDef> kept;
    for (size_t i = 0; i < g_.node.size(); ++i) {
      if (!removed.count(static_cast<int>(i))) {
        kept.push_back(std::move(g_.node[i]));
      }
    }
    g_.node = std::move(kept);
  }

  // Outside `region`: control inputs naming a region node name `to` instead.
  void RedirectControl(const std::set<int>& region, const std::string& to) {
    for (size_t i = 0; i < g_.node.size(); ++i) {
      if (region.count(static_cast<int>(i))) continue;
      std::vector<std::string> inputs;
      bool redirected = false;
      for (const std::string& in : g_.node[i].input) {
        if (!in.empty() && in[0] == '^') {
          auto it = index_.find(in.substr(1));
          if (it != index_.end() && region.count(it->second)) {
            if (!redirected) inputs.push_back("^" + to);
            redirected = true;
            continue;
          }
        }
        inputs.push_back(in);
      }
      g_.node[i].input = std::move(inputs);
    }
  }

  // Tensors `nodes` read from outside `inside` (neither a node of it nor in
  // `args`), in first-use order; control inputs from outside go to `ctrl`.
  void Captures(const std::set<int>& nodes, const std::set<int>& inside,
                const ArgMap& args,
                std::vector<std::pair<std::string, int>>* captured,
                std::vector<std::string>* ctrl) const {
    for (int n : nodes) {
      for (const std::string& in : g_.node[n].input) {
        auto p = ParseNodeInput(in);
        if (!p.ok()) continue;
        auto it = index_.find(p->node);
        const bool outside = it == index_.end() || !inside.count(it->second);
        if (!outside) continue;
        if (p->is_control) {
          if (it != index_.end() && !IsStructural(g_.node[it->second].op)) {
            ctrl->push_back(in);
          }
          continue;
        }
        std::pair<std::string, int> key = {p->node, p->index};
        if (args.count(key)) continue;
        if (std::find(captured->begin(), captured->end(), key) ==
            captured->end()) {
          captured->push_back(key);
        }
      }
    }
  }

  StatusOr<bool> RaiseLoop(const std::string& frame,
                           const std::vector<int>& enters) {
    const std::string where =
        absl::StrCat(src_, ": lowered loop frame '", frame, "'");
    std::vector<int> vars, consts;
    for (int e : enters) {
      auto it = g_.node[e].attr.find("is_constant");
      (it != g_.node[e].attr.end() && it->second.b ? consts : vars)
          .push_back(e);
    }
    if (vars.empty()) {
      return errors::Unimplemented(where, ": has no loop variable");
    }
    absl::flat_hash_set<int> structural(enters.begin(), enters.end());
    std::vector<int> merges, switches, nexts, exits;
    int loop_cond = -1;
    for (int e : vars) {
      const NodeDef& enter = g_.node[e];
      int merge = -1;
      for (const Use& u : uses_[e]) {
        if (u.output == 0 && g_.node[u.node].op == "Merge") merge = u.node;
      }
      if (merge < 0 || g_.node[merge].input.size() != 2) {
        return errors::InvalidArgument(where, ": Enter '", enter.name,
                                       "' feeds no two-input Merge");
      }
      int next = -1;
      for (const std::string& in : g_.node[merge].input) {
        int p = Producer(in);
        if (p >= 0 && g_.node[p].op == "NextIteration") next = p;
      }
      int sw = -1;
      for (const Use& u : uses_[merge]) {
        if (u.output == 0 && g_.node[u.node].op == "Switch" &&
            Producer(g_.node[u.node].input[0]) == merge) {
          sw = u.node;
        }
      }
      if (next < 0 || sw < 0) {
        return errors::InvalidArgument(
            where, ": Merge '", g_.node[merge].name,
            "' has no NextIteration input or feeds no Switch");
      }
      const int lc = Producer(g_.node[sw].input[1]);
      if (lc < 0 || g_.node[lc].op != "LoopCond" ||
          (loop_cond >= 0 && lc != loop_cond)) {
        return errors::InvalidArgument(where, ": Switch '", g_.node[sw].name,
                                       "' is not on the frame's LoopCond");
      }
      loop_cond = lc;
      int exit = -1;
      for (const Use& u : uses_[sw]) {
        if (u.output == 0 && g_.node[u.node].op == "Exit") exit = u.node;
      }
      merges.push_back(merge);
      switches.push_back(sw);
      nexts.push_back(next);
      exits.push_back(exit);
      for (int s : {merge, next, sw, exit}) {
        if (s >= 0) structural.insert(s);
      }
    }
    structural.insert(loop_cond);

    // The loop's interior: what the Merges, the Switches' true outputs and
    // the constant Enters reach before the frame's own nodes.
    std::vector<int> seeds;
    for (size_t k = 0; k < vars.size(); ++k) {
      for (const Use& u : uses_[merges[k]]) {
        if (u.node != switches[k]) seeds.push_back(u.node);
      }
      for (const Use& u : uses_[switches[k]]) {
        if (u.output == 1 || u.output < 0) seeds.push_back(u.node);
      }
    }
    for (int c : consts) {
      for (const Use& u : uses_[c]) seeds.push_back(u.node);
    }
    const std::set<int> region = Forward(seeds, structural, nullptr);
    if (HoldsStructural(region)) return false;  // an inner construct first
    // Arguments: loop variables, constant Enters, captured tensors.
    std::vector<std::string> arg_names, inputs;
    std::vector<DataType> arg_types;
    ArgMap cond_args, body_args;
    for (size_t k = 0; k < vars.size(); ++k) {
      const std::string a = absl::StrCat("_weft_var", k);
      arg_names.push_back(a);
      arg_types.push_back(AttrType(g_.node[vars[k]], "T"));
      inputs.push_back(g_.node[vars[k]].input.at(0));
      cond_args[{g_.node[merges[k]].name, 0}] = a;
      body_args[{g_.node[switches[k]].name, 1}] = a;
      body_args[{g_.node[merges[k]].name, 0}] = a;
    }
    for (size_t j = 0; j < consts.size(); ++j) {
      const std::string a = absl::StrCat("_weft_const", j);
      arg_names.push_back(a);
      arg_types.push_back(AttrType(g_.node[consts[j]], "T"));
      inputs.push_back(g_.node[consts[j]].input.at(0));
      cond_args[{g_.node[consts[j]].name, 0}] = a;
      body_args[{g_.node[consts[j]].name, 0}] = a;
    }
    std::vector<std::pair<std::string, int>> captured;
    std::vector<std::string> ctrl;
    Captures(region, region, body_args, &captured, &ctrl);
    for (size_t i = 0; i < captured.size(); ++i) {
      auto key = captured[i];
      if (cond_args.count(key)) continue;  // a Merge read by the body
      WEFT_ASSIGN_OR_RETURN(
          std::string a,
          AddCaptureArg(key, i, where, &arg_names, &arg_types, &inputs));
      cond_args[key] = a;
      body_args[key] = a;
    }

    // cond: what the LoopCond's predicate needs; body: what the
    // NextIterations need.
    const std::string pred = g_.node[loop_cond].input.at(0);
    std::set<int> cond_nodes = Backward({Producer(pred)}, region);
    std::vector<int> body_roots;
    std::vector<std::string> body_outputs;
    for (size_t k = 0; k < vars.size(); ++k) {
      for (const std::string& in : g_.node[nexts[k]].input) {
        body_roots.push_back(Producer(in));
      }
      body_outputs.push_back(g_.node[nexts[k]].input.at(0));
    }
    // Everything else in the frame runs as part of the body too, as it
    // would each iteration in TensorFlow (a node reading a body value that
    // nothing inside uses, an Assert): only what the predicate alone needs
    // stays out.
    std::set<int> body_nodes = Backward(body_roots, region);
    for (int n : region) {
      if (!cond_nodes.count(n)) body_nodes.insert(n);
    }
    // Invariants and captured tensors come back unchanged.
    std::vector<DataType> out_types = arg_types;
    for (size_t i = vars.size(); i < arg_names.size(); ++i) {
      body_outputs.push_back(arg_names[i]);
    }
    ArgMap body_ret_args = body_args;
    for (const std::string& a : arg_names) body_ret_args[{a, 0}] = a;

    const std::string loop_name =
        UniqueNodeName(absl::EndsWith(frame, "/while_context")
                           ? frame.substr(0, frame.size() - 14)
                           : frame);
    const std::string cond_fn = UniqueFunctionName(loop_name + "_cond");
    auto cond_f = MakeFunction(cond_fn, arg_names, arg_types, cond_nodes,
                               cond_args, {pred}, {DT_BOOL});
    if (!cond_f.ok()) return AddContext(cond_f.status(), where + ": cond");
    g_.library.function.push_back(*std::move(cond_f));
    const std::string body_fn = UniqueFunctionName(loop_name + "_body");
    auto body_f = MakeFunction(body_fn, arg_names, arg_types, body_nodes,
                               body_ret_args, body_outputs, out_types);
    if (!body_f.ok()) return AddContext(body_f.status(), where + ": body");
    g_.library.function.push_back(*std::move(body_f));

    NodeDef loop;
    loop.name = loop_name;
    loop.op = "While";
    loop.device = g_.node[vars[0]].device;
    loop.input = inputs;
    for (int e : enters) {
      for (const std::string& in : g_.node[e].input) {
        if (!in.empty() && in[0] == '^') ctrl.push_back(in);
      }
    }
    std::sort(ctrl.begin(), ctrl.end());
    ctrl.erase(std::unique(ctrl.begin(), ctrl.end()), ctrl.end());
    loop.input.insert(loop.input.end(), ctrl.begin(), ctrl.end());
    loop.attr["T"] = AttrValue::TypeList(arg_types);
    NameAttrList c, b;
    c.name = cond_fn;
    b.name = body_fn;
    loop.attr["cond"] = AttrValue::Func(c);
    loop.attr["body"] = AttrValue::Func(b);
    auto pi = g_.node[vars[0]].attr.find("parallel_iterations");
    if (pi != g_.node[vars[0]].attr.end()) {
      loop.attr["parallel_iterations"] = pi->second;
    }

    std::set<int> removed(region.begin(), region.end());
    removed.insert(structural.begin(), structural.end());
    RedirectControl(removed, loop_name);
    for (size_t k = 0; k < vars.size(); ++k) {
      if (exits[k] < 0) continue;
      NodeDef& exit = g_.node[exits[k]];
      NodeDef id;
      id.name = exit.name;
      id.op = "Identity";
      id.device = exit.device;
      id.input = {Tensor(loop_name, static_cast<int>(k))};
      id.attr["T"] = AttrValue::Type(arg_types[k]);
      exit = std::move(id);
      removed.erase(exits[k]);
    }
    Remove(removed);
    g_.node.push_back(std::move(loop));
    return true;
  }

  // A conditional: Switch nodes on one predicate (two sides, 0 false and 1
  // true) become an If; _SwitchN nodes on one branch index (side i the i-th
  // branch, TensorFlow's lowered Case) become a Case.
  StatusOr<bool> RaiseCond(const std::string& pred,
                           const std::vector<int>& switches) {
    const NodeDef& first = g_.node[switches[0]];
    const bool is_case = first.op == "_SwitchN";
    const std::string where =
        absl::StrCat(src_, ": lowered conditional on '", pred, "' (", first.op,
                     " '", first.name, "')");
    int sides = 2;
    if (is_case) {
      auto it = first.attr.find("num_outs");
      sides = it == first.attr.end() ? 0 : static_cast<int>(it->second.i);
    }
    for (int s : switches) {
      int n = 2;
      if (g_.node[s].op == "_SwitchN") {
        auto it = g_.node[s].attr.find("num_outs");
        n = it == g_.node[s].attr.end() ? 0 : static_cast<int>(it->second.i);
      }
      if (n != sides || n < 1 || (g_.node[s].op == "_SwitchN") != is_case) {
        return errors::InvalidArgument(where,
                                       ": its switches disagree on "
                                       "the number of branches");
      }
    }
    absl::flat_hash_set<int> stop(switches.begin(), switches.end());
    std::vector<std::vector<int>> seeds(sides);
    for (int s : switches) {
      for (const Use& u : uses_[s]) {
        if (u.output < 0 || u.output >= sides) {
          return errors::Unimplemented(where, ": node '", g_.node[u.node].name,
                                       "' has a control input from '",
                                       g_.node[s].name, "'");
        }
        seeds[u.output].push_back(u.node);
      }
    }
    std::set<int> merges;
    std::vector<std::set<int>> region(sides);
    for (int side = 0; side < sides; ++side) {
      region[side] = Forward(seeds[side], stop, &merges);
    }
    absl::flat_hash_set<int> switch_set(switches.begin(), switches.end());
    auto side_of = [&](const std::string& in) {
      auto p = ParseNodeInput(in);
      if (!p.ok()) return -1;
      auto it = index_.find(p->node);
      if (it == index_.end()) return -1;
      if (switch_set.contains(it->second)) return p->index;
      for (int side = 0; side < sides; ++side) {
        if (region[side].count(it->second)) return side;
      }
      return -1;
    };
    // A Merge joins the branches when its inputs come one from each side;
    // its output k is then output k of the If or Case.
    std::vector<int> joins;
    std::vector<std::vector<std::string>> outs(sides);
    for (int m : merges) {
      const NodeDef& merge = g_.node[m];
      std::vector<std::string> by_side(sides);
      int data = 0;
      bool joins_all = true;
      for (const std::string& in : merge.input) {
        if (!in.empty() && in[0] == '^') continue;
        ++data;
        const int side = side_of(in);
        if (side < 0 || !by_side[side].empty()) {
          joins_all = false;
        } else {
          by_side[side] = in;
        }
      }
      if (!joins_all || data != sides) {
        return false;  // a Merge of an enclosing construct: raise that first
      }
      for (const Use& u : uses_[m]) {
        if (u.output == 1) {
          return errors::Unimplemented(where, ": node '", g_.node[u.node].name,
                                       "' reads the value_index of Merge '",
                                       merge.name, "'");
        }
      }
      joins.push_back(m);
      for (int side = 0; side < sides; ++side) {
        outs[side].push_back(by_side[side]);
      }
    }
    std::set<int> all;
    size_t total = 0;
    for (const std::set<int>& r : region) {
      if (HoldsStructural(r)) return false;
      all.insert(r.begin(), r.end());
      total += r.size();
    }
    if (joins.empty()) {
      return errors::Unimplemented(where, ": no Merge joins its branches");
    }
    if (all.size() != total) {
      return errors::InvalidArgument(where,
                                     ": a node reads more than one branch");
    }
    const std::set<int> join_set(joins.begin(), joins.end());
    for (int n : all) {
      for (const Use& u : uses_[n]) {
        if (u.output >= 0 && !all.count(u.node) && !join_set.count(u.node)) {
          return errors::InvalidArgument(
              where, ": node '", g_.node[u.node].name,
              "' outside the branches reads '", g_.node[n].name, "'");
        }
      }
    }

    // Arguments: one per switch (its data input), then captured tensors.
    std::vector<std::string> arg_names, inputs;
    std::vector<DataType> arg_types;
    std::vector<ArgMap> args(sides);
    ArgMap switch_outputs;
    for (size_t k = 0; k < switches.size(); ++k) {
      const NodeDef& s = g_.node[switches[k]];
      const std::string a = absl::StrCat("_weft_in", k);
      arg_names.push_back(a);
      arg_types.push_back(AttrType(s, "T"));
      inputs.push_back(s.input.at(0));
      for (int side = 0; side < sides; ++side) {
        args[side][{s.name, side}] = a;
        switch_outputs[{s.name, side}] = a;
      }
    }
    std::vector<std::pair<std::string, int>> captured;
    std::vector<std::string> ctrl;
    Captures(all, all, switch_outputs, &captured, &ctrl);
    for (size_t i = 0; i < captured.size(); ++i) {
      WEFT_ASSIGN_OR_RETURN(std::string a,
                            AddCaptureArg(captured[i], i, where, &arg_names,
                                          &arg_types, &inputs));
      for (ArgMap& m : args) m[captured[i]] = a;
    }

    // The node's name: the scope the switches and Merges share ("cond").
    std::string scope = first.name;
    auto narrow = [&](const std::string& name) {
      size_t n = 0;
      while (n < scope.size() && n < name.size() && scope[n] == name[n]) ++n;
      scope = scope.substr(0, n);
    };
    for (int s : switches) narrow(g_.node[s].name);
    for (int m : joins) narrow(g_.node[m].name);
    const size_t slash = scope.rfind('/');
    scope = slash == std::string::npos ? (is_case ? "case" : "cond")
                                       : scope.substr(0, slash);
    const std::string name = UniqueNodeName(scope);

    std::vector<DataType> out_types;
    for (int m : joins) out_types.push_back(AttrType(g_.node[m], "T"));
    std::vector<NameAttrList> branches(sides);
    for (int side = 0; side < sides; ++side) {
      const std::string role =
          is_case ? absl::StrCat("branch", side) : (side ? "then" : "else");
      branches[side].name = UniqueFunctionName(name + "_" + role);
      auto f = MakeFunction(branches[side].name, arg_names, arg_types,
                            region[side], args[side], outs[side], out_types);
      if (!f.ok()) {
        return AddContext(f.status(), absl::StrCat(where, ": ", role));
      }
      g_.library.function.push_back(*std::move(f));
    }

    NodeDef node;
    node.name = name;
    node.op = is_case ? "Case" : "If";
    node.device = first.device;
    node.input.push_back(pred);
    node.input.insert(node.input.end(), inputs.begin(), inputs.end());
    for (int s : switches) {
      for (const std::string& in : g_.node[s].input) {
        if (!in.empty() && in[0] == '^') ctrl.push_back(in);
      }
    }
    std::sort(ctrl.begin(), ctrl.end());
    ctrl.erase(std::unique(ctrl.begin(), ctrl.end()), ctrl.end());
    node.input.insert(node.input.end(), ctrl.begin(), ctrl.end());
    node.attr["Tin"] = AttrValue::TypeList(arg_types);
    node.attr["Tout"] = AttrValue::TypeList(out_types);
    if (is_case) {
      AttrValue list = AttrValue::EmptyList();
      list.list->func = branches;
      node.attr["branches"] = std::move(list);
    } else {
      node.attr["Tcond"] = AttrValue::Type(DT_BOOL);
      node.attr["then_branch"] = AttrValue::Func(branches[1]);
      node.attr["else_branch"] = AttrValue::Func(branches[0]);
    }

    std::set<int> removed = all;
    removed.insert(switches.begin(), switches.end());
    RedirectControl(removed, name);
    for (size_t k = 0; k < joins.size(); ++k) {
      NodeDef& merge = g_.node[joins[k]];
      NodeDef id;
      id.name = merge.name;
      id.op = "Identity";
      id.device = merge.device;
      id.input = {Tensor(name, static_cast<int>(k))};
      id.attr["T"] = AttrValue::Type(out_types[k]);
      merge = std::move(id);
    }
    Remove(removed);
    g_.node.push_back(std::move(node));
    return true;
  }

  GraphDef g_;
  const OpRegistry* registry_;
  const std::string src_;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<std::vector<Use>> uses_;
};

}  // namespace

bool HasLoweredControlFlow(const GraphDef& graph_def) {
  for (const NodeDef& n : graph_def.node) {
    if (IsStructural(n.op) || n.op == "ControlTrigger") return true;
  }
  return false;
}

StatusOr<GraphDef> RaiseLoweredControlFlow(const GraphDef& graph_def,
                                           const OpRegistry* registry,
                                           absl::string_view source_name) {
  return Raiser(graph_def, registry, source_name).Run();
}

}  // namespace weft
