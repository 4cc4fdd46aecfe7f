#include "executor/function_graph_index.h"

#include "graph/import.h"

namespace weft {

FunctionGraphIndex::FunctionGraphIndex(const GraphDef& g) {
  for (const NodeDef& n : g.node) {
    by_name_[n.name] = &n;
    for (size_t i = 0; i < n.input.size(); ++i) {
      auto p = ParseNodeInput(n.input[i]);
      if (!p.ok()) continue;
      reads_[p->node].push_back({&n, p->is_control ? -1 : static_cast<int>(i)});
    }
  }
}

const NodeDef* FunctionGraphIndex::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const std::vector<NodeRead>& FunctionGraphIndex::Reads(
    const std::string& name) const {
  static const std::vector<NodeRead> kNone;
  auto it = reads_.find(name);
  return it == reads_.end() ? kNone : it->second;
}

NodeOutput FunctionGraphIndex::Resolve(const std::string& input) const {
  auto p = ParseNodeInput(input);
  if (!p.ok() || p->is_control) return {};
  NodeOutput out{Find(p->node), p->index};
  // Bounded by the node count, so that a cycle of Identity nodes ends.
  for (size_t hops = 0; hops <= by_name_.size(); ++hops) {
    if (out.node == nullptr || out.node->op != "Identity") return out;
    if (out.index != 0 || out.node->input.empty()) return {};
    p = ParseNodeInput(out.node->input[0]);
    if (!p.ok() || p->is_control) return {};
    out = {Find(p->node), p->index};
  }
  return {};
}

NodeOutput FunctionGraphIndex::Input(const NodeDef& n, int slot) const {
  if (slot < 0 || slot >= static_cast<int>(n.input.size())) return {};
  return Resolve(n.input[slot]);
}

bool AttrIs(const NodeDef& n, const char* name, DataType type) {
  auto it = n.attr.find(name);
  return it != n.attr.end() && it->second.kind == AttrValue::Kind::kType &&
         it->second.type == type;
}

bool BoolAttr(const NodeDef& n, const char* name) {
  auto it = n.attr.find(name);
  return it != n.attr.end() && it->second.kind == AttrValue::Kind::kBool &&
         it->second.b;
}

size_t DataInputs(const NodeDef& n) {
  size_t count = 0;
  while (count < n.input.size() && !n.input[count].empty() &&
         n.input[count][0] != '^') {
    ++count;
  }
  return count;
}

const Tensor* ConstValue(const NodeDef* n) {
  if (n == nullptr || n->op != "Const") return nullptr;
  auto it = n->attr.find("value");
  if (it == n->attr.end() || it->second.kind != AttrValue::Kind::kTensor) {
    return nullptr;
  }
  return &it->second.tensor;
}

int FeedIndex(const FunctionGraph& fn, const NodeDef* n) {
  for (size_t i = 0; n != nullptr && i < fn.feeds.size(); ++i) {
    if (fn.feeds[i] == n->name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace weft
