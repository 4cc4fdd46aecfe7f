#include "graph/graph.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {

std::string Node::DebugName() const {
  return absl::StrCat("'", name(), "' (", op(), ")");
}

StatusOr<Node*> Graph::AddNode(NodeDef def, const OpRegistrationData* op_reg,
                               NodeTypes types) {
  if (by_name_.contains(def.name)) {
    return errors::InvalidArgument("duplicate node name '", def.name, "'");
  }
  auto node = std::make_unique<Node>();
  node->id_ = static_cast<int>(nodes_.size());
  node->def_ = std::move(def);
  node->op_reg_ = op_reg;
  node->types_ = std::move(types);
  node->inputs_.resize(node->types_.input_types.size());
  node->outputs_.resize(node->types_.output_types.size());
  shapes_.emplace_back(node->outputs_.size());
  Node* raw = node.get();
  by_name_.emplace(raw->name(), raw);
  nodes_.push_back(std::move(node));
  return raw;
}

void Graph::AddEdge(Node* src, int src_index, Node* dst, int dst_index) {
  dst->inputs_[dst_index] = Endpoint{src, src_index};
  src->outputs_[src_index].push_back(Endpoint{dst, dst_index});
}

void Graph::AddControlEdge(Node* src, Node* dst) {
  // The edge is in both lists or in neither: look in the shorter one (a
  // NoOp that waits for a thousand nodes, each waited for by one or two,
  // made adding its edges quadratic).
  const bool present =
      dst->control_in_.size() <= src->control_out_.size()
          ? std::find(dst->control_in_.begin(), dst->control_in_.end(), src) !=
                dst->control_in_.end()
          : std::find(src->control_out_.begin(), src->control_out_.end(),
                      dst) != src->control_out_.end();
  if (present) return;
  dst->control_in_.push_back(src);
  src->control_out_.push_back(dst);
}

Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

StatusOr<std::vector<int>> Graph::TopologicalOrder() const {
  const int n = num_nodes();
  std::vector<int> pending(n, 0);
  for (const auto& node : nodes_) {
    pending[node->id()] =
        node->num_inputs() + static_cast<int>(node->control_in_.size());
  }
  std::vector<int> order;
  order.reserve(n);
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const Node* node = nodes_[order[k]].get();
    auto release = [&](const Node* next) {
      if (--pending[next->id()] == 0) order.push_back(next->id());
    };
    for (const auto& consumers : node->outputs_) {
      for (const Endpoint& e : consumers) release(e.node);
    }
    for (const Node* next : node->control_out_) release(next);
  }
  if (static_cast<int>(order.size()) == n) return order;

  // Every node left has a pending input from another node left, so walking
  // back along pending inputs from any of them must revisit a node: that
  // walk's tail is a cycle.
  std::vector<int> seen_at(n, -1);
  std::vector<const Node*> path;
  const Node* cur = nullptr;
  for (int i = 0; i < n; ++i) {
    if (pending[i] > 0) {
      cur = nodes_[i].get();
      break;
    }
  }
  while (seen_at[cur->id()] < 0) {
    seen_at[cur->id()] = static_cast<int>(path.size());
    path.push_back(cur);
    const Node* next = nullptr;
    for (const Endpoint& e : cur->inputs_) {
      if (e.node != nullptr && pending[e.node->id()] > 0) {
        next = e.node;
        break;
      }
    }
    if (next == nullptr) {
      for (const Node* c : cur->control_in_) {
        if (pending[c->id()] > 0) {
          next = c;
          break;
        }
      }
    }
    cur = next;
  }
  std::vector<std::string> names;
  for (size_t k = seen_at[cur->id()]; k < path.size(); ++k) {
    names.push_back(absl::StrCat("'", path[k]->name(), "'"));
  }
  // The walk followed inputs backwards; print the cycle in data-flow order.
  std::reverse(names.begin(), names.end());
  names.push_back(names.front());
  return errors::FailedPrecondition("graph has a cycle: ",
                                    absl::StrJoin(names, " -> "));
}

GraphDef Graph::ToGraphDef() const {
  GraphDef out;
  out.versions = versions_;
  out.library = library_;
  out.node.reserve(nodes_.size());
  for (const auto& node : nodes_) {
    NodeDef def = node->def_;
    def.input.clear();
    for (const Endpoint& e : node->inputs_) {
      def.input.push_back(e.index == 0
                              ? e.node->name()
                              : absl::StrCat(e.node->name(), ":", e.index));
    }
    for (const Node* c : node->control_in_) {
      def.input.push_back(absl::StrCat("^", c->name()));
    }
    out.node.push_back(std::move(def));
  }
  return out;
}

void Graph::set_aliases(GraphAliases aliases) {
  alias_map_.clear();
  for (const auto* list : {&aliases.inputs, &aliases.outputs}) {
    for (const TensorAlias& a : *list) alias_map_[a.key] = a.tensor;
  }
  aliases_ = std::move(aliases);
}

const std::string& Graph::ResolveAlias(const std::string& name) const {
  if (alias_map_.empty()) return name;
  auto it = alias_map_.find(name);
  return it == alias_map_.end() ? name : it->second;
}

}  // namespace weft
