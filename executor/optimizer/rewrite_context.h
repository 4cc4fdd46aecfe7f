// What the rewrite rules of one OptimizeGraph call share: the signature's
// marks on the session's graph (which nodes run, stay, are fed or are
// fetched), the constant values known so far, and the rewrites recorded so
// far, which GraphRebuilder (graph_rebuilder.h) turns into the optimized
// graph. Rules read it to decide and write to it to record; nothing here
// changes the session's graph.
#ifndef WEFT_EXECUTOR_OPTIMIZER_REWRITE_CONTEXT_H_
#define WEFT_EXECUTOR_OPTIMIZER_REWRITE_CONTEXT_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/graph_optimizer.h"
#include "graph/graph.h"

namespace weft {

class GraphRebuilder;

// An output of a node, as an element-wise pattern's rule follows it: two
// reads of the same tensor compare equal.
struct NodeOutput {
  const Node* node = nullptr;
  int index = 0;
  bool operator==(const NodeOutput& o) const {
    return node == o.node && index == o.index;
  }
};

// What input `i` of `n` reads.
inline NodeOutput InputOf(const Node* n, int i) {
  return {n->input(i).node, n->input(i).index};
}

// The elements of an int32 or int64 constant (a shape, axis or amounts
// input), as int64; false for null or another dtype.
bool ConstInts(const Tensor* t, std::vector<int64_t>* values);

// Writes the node(s) that take a replaced node's place in the optimized
// graph (a fused node and its new constants) through `rebuilder`. Called
// once, at the replaced node's position in topological order. Errors are
// internal ones: the rule checked its pattern when it recorded it.
using ReplacementFn =
    std::function<Status(const Node* node, GraphRebuilder* rebuilder)>;

// Edits the NodeDef written for a node, whichever way it is written (as a
// copy or by another rule's replacement): Pad folding redirects a
// convolution's input and padding this way, and fusion then keeps that.
using NodeDefPatch =
    std::function<void(const GraphRebuilder& rebuilder, NodeDef* def)>;

class RewriteContext {
 public:
  // `graph` and `options` must outlive the context.
  RewriteContext(const Graph& graph, const GraphOptimizerOptions& options);
  RewriteContext(const RewriteContext&) = delete;
  RewriteContext& operator=(const RewriteContext&) = delete;

  // Marks what the signature runs and needs (see OptimizeGraph for the
  // arguments). Must be called once, before any rule runs.
  Status MarkSignature(const std::vector<const Node*>& live,
                       const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets);

  const Graph& graph() const { return graph_; }
  const GraphOptimizerOptions& options() const { return options_; }
  // Node ids in topological order: the order rules visit and the
  // optimized graph lists nodes in.
  const std::vector<int>& order() const { return order_; }
  // Rules count their rewrites here; OptimizeGraph returns null when no
  // rule counted any.
  GraphOptimizerStats& stats() { return stats_; }
  const GraphOptimizerStats& stats() const { return stats_; }

  // ---- The signature's marks, fixed by MarkSignature.

  // The signature runs it.
  bool IsLive(const Node* n) const { return live_[n->id()]; }
  // It appears in the optimized graph unless a rule absorbs it: the
  // signature's nodes and everything they reach, also upstream of feeds.
  bool IsKept(const Node* n) const { return keep_[n->id()]; }
  // Some output of it is fed: its value is the caller's, not its own.
  bool IsFed(const Node* n) const { return fed_node_[n->id()]; }
  // Some output of it is fetched, or it is a target: its value and name
  // must stay.
  bool IsProtected(const Node* n) const { return protected_[n->id()]; }
  // The reads of output `output` of `n` that stay in the graph, as
  // (consumer, input slot): those of its duplicates (below) included, reads
  // by a pruned IdentityN's dropped inputs (below) not.
  std::vector<Endpoint> KeptReads(const Node* n, int output) const;
  // Their number.
  int KeptConsumers(const Node* n, int output) const;
  // The node `n` was merged into as its duplicate (MergeDuplicate), or `n`.
  const Node* Canonical(const Node* n) const {
    return graph_.node(canonical_[n->id()]);
  }
  // Where `n` comes in order().
  int Position(const Node* n) const { return position_[n->id()]; }
  // Whether a control edge from `c` stays in the optimized graph: `c` or
  // something it reads or runs after has a side effect (a stateful op, or
  // one that takes or makes a resource). A control edge from a node whose
  // whole past is pure only orders work whose values do not depend on the
  // order, so the optimized graph drops it: then a Const after such an edge
  // is a constant, an Identity after one can be read through, and the NoOp
  // that a function body's outputs wait for no longer runs. TensorFlow
  // writes such edges into every function body (its outputs wait for the
  // reads of captured variables, which freezing made Consts).
  bool KeepsControlEdgesFrom(const Node* c) const {
    return has_side_effects_[c->id()];
  }
  // Some control input of `n` stays (KeepsControlEdgesFrom).
  bool HasKeptControlInputs(const Node* n) const;
  // Some control output of `n` stays.
  bool HasKeptControlOutputs(const Node* n) const {
    return has_side_effects_[n->id()] && !n->control_outputs().empty();
  }
  // A target of the signature (it must keep its name and run).
  bool IsTarget(const Node* n) const { return target_[n->id()]; }
  // An IdentityN whose outputs are partly unread: Keras' custom-gradient
  // activations (its swish among them) write IdentityN(result, x, ...) and
  // read only the result, so x would otherwise have a reader that keeps it
  // from being absorbed into a fused node. The optimized graph's copy of
  // such a node keeps only its read outputs and their inputs: for output
  // `index` of `n`, its index there, or -1 when dropped; `index` when `n` is
  // not pruned. A pruned node is kept, not fetched or fed, has no control
  // edges out that stay and at least one read output.
  int PrunedOutputIndex(const Node* n, int index) const;
  bool IsPruned(const Node* n) const { return !pruned_[n->id()].empty(); }
  // The one kept node that reads output 0 of `n`, and the input slot it
  // reads it in (*slot), when that is where `n`'s value goes and nowhere
  // else: `n` is not fetched, has no control successors that stay and no
  // other output in use. Null otherwise. What a chain rule asks of each node it
  // absorbs.
  const Node* SoleConsumer(const Node* n, int* slot) const;

  // ---- The rewrites recorded so far.

  bool IsFolded(const Node* n) const { return !folded_[n->id()].empty(); }
  bool IsAbsorbed(const Node* n) const { return absorbed_[n->id()]; }
  bool IsReplaced(const Node* n) const {
    return replacement_[n->id()] != nullptr;
  }
  // Output `output` of `n` as a constant: a Const without control inputs
  // that stay, or a folded node, and not fed. Null when it is not one. The
  // tensor lives as long as the context (and the session's graph).
  const Tensor* ConstValueOf(const Node* n, int output) const;
  // Output 0 of an Identity-like node that readers and fetches read through
  // (RecordPassThrough): what it passes on. Null for any other node.
  const NodeOutput* PassedThrough(const Node* n) const {
    const NodeOutput& p = passed_through_[n->id()];
    return p.node != nullptr ? &p : nullptr;
  }
  const Tensor* ConstInput(const Node* n, int input) const {
    return ConstValueOf(n->input(input).node, n->input(input).index);
  }
  // A node a fusion may absorb or start from: it runs, is not fed, no rule
  // has rewritten it yet, no control input of it stays, and its output 0
  // is float32. (Whether its value goes elsewhere is the rule's question.)
  bool IsUnrewrittenFloatNode(const Node* n) const;
  // True when the session places `n` on a CPU device, or when no placement
  // is given: only the CPU device has the fused and explicit-padding
  // kernels the rules rewrite into.
  bool PlacedOnCpu(const Node* n) const;
  // `last` and every node of `nodes` are placed on one CPU device (true
  // when no placement is given): a pattern whose nodes the session split
  // across devices, or put on another, is not rewritten into a CPU kernel.
  bool PlacedOnOneCpu(const Node* last,
                      const std::vector<const Node*>& nodes) const;
  // The session places `a` and `b` on one device (true when no placement
  // is given).
  bool PlacedAlike(const Node* a, const Node* b) const {
    return !options_.place || options_.place(a) == options_.place(b);
  }
  // A node a rewrite may replace by a new node standing in for it: it runs
  // in the kept graph, is not fed, no rule has folded, absorbed or replaced
  // it or given it a stand-in, and it has an output.
  bool IsOpenNode(const Node* n) const;
  // The same, with output 0 float32.
  bool IsOpenFloatNode(const Node* n) const {
    return IsOpenNode(n) && n->output_type(0) == DT_FLOAT;
  }
  // `base`, or `base_1`, `base_2`, ...: a name no node of the graph and
  // no name handed out before has. Rules call it in a fixed order, so the
  // optimized graph's names are the same on every run.
  std::string UniqueName(const std::string& base);

  // ---- Recording rewrites.

  // `n` is computed once now: `values`, one per output, replace it. Output
  // 0 keeps its name; the others get names of their own.
  void RecordFold(const Node* n, std::vector<Tensor> values);
  // `n` is no longer written on its own: another node does its work.
  void Absorb(const Node* n);
  // `n` (an Identity, say) hands on `src` unchanged: `n` is absorbed, and
  // its readers and fetches read `src` (GraphRebuilder::InputName).
  void RecordPassThrough(const Node* n, NodeOutput src);
  // `n` computes what `into`, earlier in order(), computes (a common
  // subexpression): `n` is absorbed, its readers read `into`'s outputs
  // (GraphRebuilder::InputName), and KeptReads of `into` include theirs.
  void MergeDuplicate(const Node* n, const Node* into);
  // As MergeDuplicate, for a node that a rewrite of `into` makes equal to
  // it (atrous_conv_rule.h: the BatchToSpaceND after a convolution that
  // now computes its value), not counted as a duplicate.
  void ReadAs(const Node* n, const Node* into);
  // `n`'s place in the optimized graph is taken by what `replacement`
  // writes.
  void Replace(const Node* n, ReplacementFn replacement);
  // Every output of `n` is read from the node named `name` (a fused node
  // standing in for the last node of its chain); fetches and targets
  // naming `n` follow it.
  void StandIn(const Node* n, std::string name);
  // The nodes of an element-wise pattern (`nodes`, the node the new one
  // stands in for last) become one node: the others are absorbed, the last
  // is read from the unique name made from `name` and written by
  // `replacement`, and the stats count one fusion of nodes.size() - 1.
  void ReplaceByOne(const std::vector<const Node*>& nodes,
                    const std::string& name, ReplacementFn replacement);
  // Edits the NodeDef written for `n`, in the order patches are added.
  void Patch(const Node* n, NodeDefPatch patch);
  // `merged` was folded into `into` (a Pad into its convolution): a fused
  // node made from `into` lists it among the nodes it replaces.
  void RecordMerged(const Node* into, const Node* merged);

  // ---- Read by GraphRebuilder.

  const std::vector<Tensor>& folded_values(const Node* n) const {
    return folded_[n->id()];
  }
  // The name of folded output `output` > 0 of `n`.
  std::string FoldedOutputName(const Node* n, int output) const;
  const ReplacementFn& replacement(const Node* n) const {
    return replacement_[n->id()];
  }
  // Empty when nothing stands in for `n`.
  const std::string& stand_in(const Node* n) const {
    return stand_in_[n->id()];
  }
  const std::vector<NodeDefPatch>& patches(const Node* n) const {
    return patches_[n->id()];
  }
  const std::vector<const Node*>& merged_into(const Node* n) const {
    return merged_[n->id()];
  }

 private:
  using EndpointKey = std::pair<int, int>;  // (node id, output index)

  // Marks the IdentityN nodes to prune (PrunedOutputIndex).
  void PruneIdentityN();
  // Fills has_side_effects_, in order_.
  void MarkSideEffects();
  // fn(consumer) for each read KeptReads lists, without the list.
  template <typename Fn>
  void ForEachKeptRead(const Node* n, int output, Fn&& fn) const {
    for (const Endpoint& c : n->consumers(output)) {
      if (KeptRead(c)) fn(c);
    }
    for (const Node* d : duplicates_[n->id()]) {
      for (const Endpoint& c : d->consumers(output)) {
        if (KeptRead(c)) fn(c);
      }
    }
  }
  // Whether the consumer `c` (node, input slot) stays and reads its input:
  // kept, and not a pruned IdentityN's dropped input (an IdentityN's input
  // i is its output i).
  bool KeptRead(const Endpoint& c) const {
    const std::vector<int>& p = pruned_[c.node->id()];
    return keep_[c.node->id()] && canonical_[c.node->id()] == c.node->id() &&
           (p.empty() || p[c.index] >= 0);
  }

  const Graph& graph_;
  const GraphOptimizerOptions& options_;
  std::vector<int> order_;
  std::vector<char> live_;
  std::vector<char> keep_;
  std::vector<char> fed_node_;
  std::vector<char> protected_;
  std::vector<char> target_;
  // Per node: it or its past has a side effect (KeepsControlEdgesFrom).
  std::vector<char> has_side_effects_;
  std::vector<NodeOutput> passed_through_;
  absl::flat_hash_set<EndpointKey> fed_;
  std::vector<std::vector<Tensor>> folded_;  // per node: its values
  std::vector<std::string> folded_names_;    // per node: prefix of outputs > 0
  std::vector<char> absorbed_;
  std::vector<ReplacementFn> replacement_;
  std::vector<std::string> stand_in_;
  std::vector<std::vector<NodeDefPatch>> patches_;
  std::vector<std::vector<const Node*>> merged_;
  // Per node: empty, or (a pruned IdentityN) the new index of each output.
  std::vector<std::vector<int>> pruned_;
  // Per node: the id of its canonical node (its own when none), and the
  // duplicates merged into it.
  std::vector<int> canonical_;
  std::vector<std::vector<const Node*>> duplicates_;
  std::vector<int> position_;  // per node: its index in order_
  absl::flat_hash_set<std::string> taken_names_;
  GraphOptimizerStats stats_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_REWRITE_CONTEXT_H_
