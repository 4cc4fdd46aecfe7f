#include "executor/optimizer/rewrite_context.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "device/device.h"
#include "executor/const_values.h"
#include "graph/import.h"

namespace weft {

RewriteContext::RewriteContext(const Graph& graph,
                               const GraphOptimizerOptions& options)
    : graph_(graph), options_(options) {}

Status RewriteContext::MarkSignature(const std::vector<const Node*>& live,
                                     const std::vector<std::string>& feeds,
                                     const std::vector<std::string>& fetches,
                                     const std::vector<std::string>& targets) {
  WEFT_ASSIGN_OR_RETURN(order_, graph_.TopologicalOrder());
  const int n = graph_.num_nodes();
  live_.assign(n, 0);
  keep_.assign(n, 0);
  fed_node_.assign(n, 0);
  protected_.assign(n, 0);
  target_.assign(n, 0);
  passed_through_.assign(n, NodeOutput());
  folded_.resize(n);
  folded_names_.resize(n);
  absorbed_.assign(n, 0);
  replacement_.resize(n);
  stand_in_.resize(n);
  patches_.resize(n);
  merged_.resize(n);
  for (const Node* node : live) live_[node->id()] = 1;
  stats_.nodes_before = static_cast<int>(live.size());

  auto endpoint = [&](const std::string& name) -> StatusOr<EndpointKey> {
    WEFT_ASSIGN_OR_RETURN(ParsedInput parsed, ParseNodeInput(name));
    const Node* node = graph_.FindNode(parsed.node);
    if (node == nullptr) {
      return errors::Internal("optimizer: no node named '", parsed.node, "'");
    }
    return EndpointKey{node->id(), parsed.index};
  };
  std::vector<int> stack;
  for (const std::string& f : feeds) {
    WEFT_ASSIGN_OR_RETURN(EndpointKey k, endpoint(f));
    fed_.insert(k);
    fed_node_[k.first] = 1;
    // A feed names its node even when no fetch needs it.
    stack.push_back(k.first);
  }
  for (const std::string& f : fetches) {
    WEFT_ASSIGN_OR_RETURN(EndpointKey k, endpoint(f));
    protected_[k.first] = 1;
    stack.push_back(k.first);
  }
  for (const std::string& t : targets) {
    const Node* node = graph_.FindNode(t);
    if (node == nullptr) {
      return errors::Internal("optimizer: no node named '", t, "'");
    }
    protected_[node->id()] = 1;
    target_[node->id()] = 1;
    stack.push_back(node->id());
  }
  // Everything the fetched nodes reach stays, also upstream of feeds and
  // constants: BuildPlan prunes it again, and the optimized graph keeps
  // every name the signature and the kept nodes' inputs refer to.
  for (const Node* node : live) stack.push_back(node->id());
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (keep_[id]) continue;
    keep_[id] = 1;
    const Node* node = graph_.node(id);
    for (const Endpoint& e : node->inputs()) stack.push_back(e.node->id());
    for (const Node* c : node->control_inputs()) stack.push_back(c->id());
  }
  for (const auto& node : graph_.nodes()) taken_names_.insert(node->name());
  canonical_.resize(n);
  for (int i = 0; i < n; ++i) canonical_[i] = i;
  duplicates_.assign(n, {});
  position_.assign(n, 0);
  for (size_t i = 0; i < order_.size(); ++i) position_[order_[i]] = i;
  MarkSideEffects();
  PruneIdentityN();
  return Status();
}

void RewriteContext::MarkSideEffects() {
  has_side_effects_.assign(graph_.num_nodes(), 0);
  for (int id : order_) {
    const Node* n = graph_.node(id);
    // An op that takes or makes a resource acts on state others share
    // (TensorArray reads and writes, variables), as Grappler also assumes.
    bool effects = n->op_def().is_stateful;
    for (DataType t : n->types().input_types) effects |= t == DT_RESOURCE;
    for (DataType t : n->types().output_types) effects |= t == DT_RESOURCE;
    for (const Endpoint& e : n->inputs()) {
      effects |= has_side_effects_[e.node->id()] != 0;
    }
    for (const Node* c : n->control_inputs()) {
      effects |= has_side_effects_[c->id()] != 0;
    }
    has_side_effects_[id] = effects;
  }
}

bool RewriteContext::HasKeptControlInputs(const Node* n) const {
  for (const Node* c : n->control_inputs()) {
    if (KeepsControlEdgesFrom(c)) return true;
  }
  return false;
}

bool ConstInts(const Tensor* t, std::vector<int64_t>* values) {
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) {
    return false;
  }
  values->resize(t->NumElements());
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    (*values)[i] =
        t->dtype() == DT_INT32 ? t->data<int32_t>()[i] : t->data<int64_t>()[i];
  }
  return true;
}

void RewriteContext::MergeDuplicate(const Node* n, const Node* into) {
  ReadAs(n, into);
  ++stats_.merged_duplicates;
}

void RewriteContext::ReadAs(const Node* n, const Node* into) {
  canonical_[n->id()] = into->id();
  duplicates_[into->id()].push_back(n);
  absorbed_[n->id()] = 1;
}

void RewriteContext::PruneIdentityN() {
  pruned_.assign(graph_.num_nodes(), {});
  // Consumers first: an IdentityN that reads another's output through a
  // dropped input no longer counts as its reader.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Node* n = graph_.node(*it);
    if (n->op() != "IdentityN" || !live_[n->id()] || !keep_[n->id()] ||
        protected_[n->id()] || fed_node_[n->id()] || HasKeptControlOutputs(n) ||
        n->num_inputs() != n->num_outputs()) {
      continue;
    }
    std::vector<int> index(n->num_outputs(), -1);
    int read = 0;
    for (int o = 0; o < n->num_outputs(); ++o) {
      if (KeptConsumers(n, o) > 0) index[o] = read++;
    }
    if (read > 0 && read < n->num_outputs()) pruned_[n->id()] = index;
  }
}

int RewriteContext::PrunedOutputIndex(const Node* n, int index) const {
  const std::vector<int>& p = pruned_[n->id()];
  return p.empty() ? index : p[index];
}

std::vector<Endpoint> RewriteContext::KeptReads(const Node* n,
                                                int output) const {
  std::vector<Endpoint> reads;
  ForEachKeptRead(n, output, [&](const Endpoint& c) { reads.push_back(c); });
  return reads;
}

int RewriteContext::KeptConsumers(const Node* n, int output) const {
  int count = 0;
  ForEachKeptRead(n, output, [&](const Endpoint&) { ++count; });
  return count;
}

const Node* RewriteContext::SoleConsumer(const Node* n, int* slot) const {
  if (IsProtected(n) || HasKeptControlOutputs(n) || KeptConsumers(n, 0) != 1) {
    return nullptr;
  }
  for (int o = 1; o < n->num_outputs(); ++o) {
    if (KeptConsumers(n, o) > 0) return nullptr;
  }
  const Node* reader = nullptr;
  ForEachKeptRead(n, 0, [&](const Endpoint& c) {
    reader = c.node;
    *slot = c.index;
  });
  return reader;
}

const Tensor* RewriteContext::ConstValueOf(const Node* n, int output) const {
  n = Canonical(n);
  if (fed_.contains(EndpointKey{n->id(), output})) return nullptr;
  if (!folded_[n->id()].empty()) return &folded_[n->id()][output];
  // A Const with a control input runs after it (const_values.h): folding
  // its consumers would drop that order, unless the optimized graph drops
  // the edge anyway (KeepsControlEdgesFrom).
  if (n->op() != "Const" || HasKeptControlInputs(n)) return nullptr;
  // Session::Create has rejected bad Consts; one here is not a constant.
  StatusOr<const Tensor*> value = ConstNodeValue(*n, options_.source_name);
  return value.ok() ? *value : nullptr;
}

bool RewriteContext::IsUnrewrittenFloatNode(const Node* n) const {
  const int id = n->id();
  return live_[id] && !fed_node_[id] && folded_[id].empty() &&
         replacement_[id] == nullptr && !absorbed_[id] &&
         !HasKeptControlInputs(n) && n->num_outputs() >= 1 &&
         n->output_type(0) == DT_FLOAT;
}

bool RewriteContext::PlacedOnCpu(const Node* n) const {
  if (!options_.place) return true;
  Device* d = options_.place(n);
  return d != nullptr && d->device_type() == "CPU";
}

bool RewriteContext::PlacedOnOneCpu(
    const Node* last, const std::vector<const Node*>& nodes) const {
  if (!options_.place) return true;
  Device* d = options_.place(last);
  if (d == nullptr || d->device_type() != "CPU") return false;
  for (const Node* n : nodes) {
    if (options_.place(n) != d) return false;
  }
  return true;
}

bool RewriteContext::IsOpenNode(const Node* n) const {
  return IsKept(n) && IsLive(n) && !IsFed(n) && !IsFolded(n) &&
         !IsAbsorbed(n) && !IsReplaced(n) && stand_in(n).empty() &&
         n->num_outputs() >= 1;
}

std::string RewriteContext::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_names_.contains(name); ++i) {
    name = absl::StrCat(base, "_", i);
  }
  taken_names_.insert(name);
  return name;
}

void RewriteContext::RecordFold(const Node* n, std::vector<Tensor> values) {
  const int id = n->id();
  folded_[id] = std::move(values);
  ++stats_.folded;
  if (n->num_outputs() > 1) {
    folded_names_[id] = UniqueName(n->name() + "/_folded_output_");
    // Each output gets "<prefix><index>"; reserve those names.
    for (int o = 1; o < n->num_outputs(); ++o) {
      taken_names_.insert(folded_names_[id] + std::to_string(o));
    }
  }
}

std::string RewriteContext::FoldedOutputName(const Node* n, int output) const {
  return folded_names_[n->id()] + std::to_string(output);
}

void RewriteContext::Absorb(const Node* n) { absorbed_[n->id()] = 1; }

void RewriteContext::RecordPassThrough(const Node* n, NodeOutput src) {
  Absorb(n);
  passed_through_[n->id()] = src;
  ++stats_.passed_through;
}

void RewriteContext::Replace(const Node* n, ReplacementFn replacement) {
  replacement_[n->id()] = std::move(replacement);
}

void RewriteContext::StandIn(const Node* n, std::string name) {
  stand_in_[n->id()] = std::move(name);
}

void RewriteContext::ReplaceByOne(const std::vector<const Node*>& nodes,
                                  const std::string& name,
                                  ReplacementFn replacement) {
  const Node* last = nodes.back();
  for (size_t i = 0; i + 1 < nodes.size(); ++i) Absorb(nodes[i]);
  StandIn(last, UniqueName(name));
  Replace(last, std::move(replacement));
  ++stats_.fused;
  stats_.fused_away += static_cast<int>(nodes.size()) - 1;
}

void RewriteContext::Patch(const Node* n, NodeDefPatch patch) {
  patches_[n->id()].push_back(std::move(patch));
}

void RewriteContext::RecordMerged(const Node* into, const Node* merged) {
  merged_[into->id()].push_back(merged);
}

}  // namespace weft
