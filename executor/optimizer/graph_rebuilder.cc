#include "executor/optimizer/graph_rebuilder.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "executor/const_values.h"
#include "graph/import.h"

namespace weft {

NodeDef ConstNodeDef(const std::string& name, const Tensor& value,
                     const std::string& device) {
  NodeDef def;
  def.name = name;
  def.op = "Const";
  def.device = device;
  def.attr["dtype"] = AttrValue::Type(value.dtype());
  def.attr["value"] = AttrValue::TensorValue(value);
  return def;
}

std::string GraphRebuilder::NodeName(const Node* n) const {
  const std::string& stand_in = context_.stand_in(n);
  return stand_in.empty() ? n->name() : stand_in;
}

std::string GraphRebuilder::InputName(const Node* src, int index) const {
  src = context_.Canonical(src);
  if (const NodeOutput* through = context_.PassedThrough(src)) {
    return InputName(through->node, through->index);
  }
  const std::string& stand_in = context_.stand_in(src);
  if (!stand_in.empty()) return stand_in;
  if (context_.IsFolded(src) && index > 0) {
    return context_.FoldedOutputName(src, index);
  }
  index = context_.PrunedOutputIndex(src, index);
  return index == 0 ? src->name() : absl::StrCat(src->name(), ":", index);
}

void GraphRebuilder::AddPrunedCopy(const Node* n) {
  NodeDef copy = n->def();
  copy.input.clear();
  std::vector<DataType> types;
  std::vector<PartialTensorShape> shapes;
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (context_.PrunedOutputIndex(n, i) < 0) continue;
    copy.input.push_back(InputName(n->input(i).node, n->input(i).index));
    types.push_back(n->input_type(i));
    shapes.push_back(context_.graph().output_shape(n, i));
  }
  AppendControlInputs(n, &copy);
  copy.attr["T"] = AttrValue::TypeList(std::move(types));
  AddNode(std::move(copy), std::move(shapes));
}

void GraphRebuilder::CopyInputs(const Node* n, int data_inputs,
                                NodeDef* out) const {
  out->input.clear();
  for (int i = 0; i < data_inputs; ++i) {
    out->input.push_back(InputName(n->input(i).node, n->input(i).index));
  }
  AppendControlInputs(n, out);
}

void GraphRebuilder::AppendControlInputs(const Node* n, NodeDef* def) const {
  for (const Node* c : n->control_inputs()) {
    if (context_.KeepsControlEdgesFrom(c)) {
      def->input.push_back(absl::StrCat("^", NodeName(c)));
    }
  }
}

void GraphRebuilder::ApplyPatches(const Node* n, NodeDef* def) const {
  for (const NodeDefPatch& patch : context_.patches(n)) patch(*this, def);
}

std::string GraphRebuilder::UniqueName(const std::string& base) {
  return context_.UniqueName(base);
}

std::vector<PartialTensorShape> GraphRebuilder::OriginalShapes(
    const Node* n) const {
  std::vector<PartialTensorShape> s;
  for (int o = 0; o < n->num_outputs(); ++o) {
    s.push_back(context_.graph().output_shape(n, o));
  }
  return s;
}

void GraphRebuilder::AddReplacing(NodeDef def,
                                  const std::vector<const Node*>& nodes) {
  const Node* last = nodes.back();
  def.name = NodeName(last);
  def.device = last->requested_device();
  AppendControlInputs(last, &def);
  std::vector<std::string> originals;
  for (const Node* n : nodes) originals.push_back(n->name());
  def.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
  AddNode(std::move(def), OriginalShapes(last));
}

void GraphRebuilder::AddNode(NodeDef def,
                             std::vector<PartialTensorShape> shapes) {
  shapes_[def.name] = std::move(shapes);
  def_.node.push_back(std::move(def));
}

void GraphRebuilder::AddConst(const std::string& name, const Tensor& value,
                              const std::string& device) {
  AddNode(ConstNodeDef(name, value, device),
          {PartialTensorShape(value.shape())});
}

StatusOr<std::unique_ptr<OptimizedGraph>> GraphRebuilder::Build(
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  const Graph& g = context_.graph();
  const GraphOptimizerOptions& options = context_.options();
  def_ = GraphDef();
  shapes_.clear();
  def_.versions = g.versions();
  for (int id : context_.order()) {
    const Node* n = g.node(id);
    if (!context_.IsKept(n) || context_.IsAbsorbed(n)) continue;
    if (context_.IsFolded(n)) {
      const std::vector<Tensor>& values = context_.folded_values(n);
      for (int o = 0; o < n->num_outputs(); ++o) {
        AddConst(o == 0 ? n->name() : context_.FoldedOutputName(n, o),
                 values[o], n->requested_device());
      }
      continue;
    }
    if (context_.IsReplaced(n)) {
      WEFT_RETURN_IF_ERROR(context_.replacement(n)(n, this));
      continue;
    }
    if (context_.IsPruned(n)) {
      AddPrunedCopy(n);
      continue;
    }
    NodeDef copy = n->def();
    CopyInputs(n, n->num_inputs(), &copy);
    ApplyPatches(n, &copy);
    AddNode(std::move(copy), OriginalShapes(n));
  }

  ImportOptions import_options;
  import_options.source_name =
      absl::StrCat(options.source_name, " (optimized)");
  auto imported = ImportGraphDef(std::move(def_), import_options);
  if (!imported.ok()) {
    return errors::Internal("graph optimizer produced an invalid graph: ",
                            imported.status().message());
  }
  std::unique_ptr<Graph> graph = *std::move(imported);
  for (const auto& node : graph->nodes()) {
    auto it = shapes_.find(node->name());
    if (it == shapes_.end()) continue;
    for (int o = 0;
         o < node->num_outputs() && o < static_cast<int>(it->second.size());
         ++o) {
      graph->set_output_shape(node.get(), o, it->second[o]);
    }
  }
  auto result = std::make_unique<OptimizedGraph>(
      std::move(graph), options.place, options.create_kernel);
  WEFT_RETURN_IF_ERROR(CollectConstValues(result->graph(), options.source_name,
                                          &result->const_values_));
  for (const std::string& f : fetches) {
    WEFT_ASSIGN_OR_RETURN(ParsedInput parsed, ParseNodeInput(f));
    result->fetches_.push_back(
        InputName(g.FindNode(parsed.node), parsed.index));
  }
  for (const std::string& t : targets) {
    result->targets_.push_back(NodeName(g.FindNode(t)));
  }
  result->stats_ = context_.stats();
  return result;
}

}  // namespace weft
