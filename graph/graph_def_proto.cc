// NodeDef, OpDef, FunctionDef and GraphDef conversions between the
// graph-file messages and weft's structs.
#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/internal/proto_convert.h"
#include "graph/internal/proto_io.h"

namespace weft::graph_internal {
namespace {

// How errors name a node: "node 'dense/MatMul' (MatMul)", or by position
// when the name is missing. Bytes that are not printable text are escaped.
std::string NodeLabel(const pb::NodeDef& node, int index) {
  std::string label = node.name().empty()
                          ? absl::StrCat("node #", index)
                          : absl::StrCat("node '", Printable(node.name()), "'");
  if (!node.op().empty())
    absl::StrAppend(&label, " (", Printable(node.op()), ")");
  return label;
}

Status CheckUtf8(const std::string& text, absl::string_view what) {
  if (IsValidUtf8(text)) return Status();
  return errors::InvalidArgument(what, " is not valid UTF-8");
}

// map<string, string> fields arrive as repeated entries; the last entry for a
// key wins, as in a protobuf map.
Status StringMapFromProto(
    const google::protobuf::RepeatedPtrField<pb::StringEntry>& entries,
    absl::string_view what, std::map<std::string, std::string>* out) {
  for (const pb::StringEntry& entry : entries) {
    WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(entry), what);
    (*out)[entry.key()] = entry.value();
  }
  return Status();
}

void StringMapToProto(
    const std::map<std::string, std::string>& map,
    google::protobuf::RepeatedPtrField<pb::StringEntry>* entries) {
  for (const auto& [key, value] : map) {
    pb::StringEntry* entry = entries->Add();
    entry->set_key(key);
    entry->set_value(value);
  }
}

StatusOr<OpDef::ArgDef> ArgDefFromProto(const pb::OpDef::ArgDef& p) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  OpDef::ArgDef arg;
  arg.name = p.name();
  arg.description = p.description();
  WEFT_ASSIGN_OR_RETURN(arg.type,
                        DataTypeFromProto(p.type(), /*allow_invalid=*/true));
  arg.type_attr = p.type_attr();
  arg.number_attr = p.number_attr();
  arg.type_list_attr = p.type_list_attr();
  arg.is_ref = p.is_ref();
  return arg;
}

void ArgDefToProto(const OpDef::ArgDef& arg, pb::OpDef::ArgDef* p) {
  p->set_name(arg.name);
  p->set_description(arg.description);
  p->set_type(static_cast<pb::DataType>(arg.type));
  p->set_type_attr(arg.type_attr);
  p->set_number_attr(arg.number_attr);
  p->set_type_list_attr(arg.type_list_attr);
  p->set_is_ref(arg.is_ref);
}

StatusOr<OpDef::AttrDef> AttrDefFromProto(const pb::OpDef::AttrDef& p,
                                          const TensorDecodeOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  OpDef::AttrDef attr;
  attr.name = p.name();
  attr.type = p.type();
  if (p.has_default_value()) {
    auto value = AttrValueFromProto(p.default_value(), options);
    if (!value.ok()) return AddContext(value.status(), "default_value");
    attr.default_value = *std::move(value);
  }
  if (p.has_allowed_values()) {
    auto value = AttrValueFromProto(p.allowed_values(), options);
    if (!value.ok()) return AddContext(value.status(), "allowed_values");
    attr.allowed_values = *std::move(value);
  }
  attr.has_minimum = p.has_minimum();
  attr.minimum = p.minimum();
  attr.description = p.description();
  return attr;
}

Status AttrDefToProto(const OpDef::AttrDef& attr, pb::OpDef::AttrDef* p) {
  p->set_name(attr.name);
  p->set_type(attr.type);
  if (attr.default_value.has_value()) {
    WEFT_RETURN_IF_ERROR_CTX(
        AttrValueToProto(*attr.default_value, p->mutable_default_value()),
        "default_value");
  }
  if (attr.allowed_values.has_value()) {
    WEFT_RETURN_IF_ERROR_CTX(
        AttrValueToProto(*attr.allowed_values, p->mutable_allowed_values()),
        "allowed_values");
  }
  p->set_has_minimum(attr.has_minimum);
  p->set_minimum(attr.minimum);
  p->set_description(attr.description);
  return Status();
}

}  // namespace

StatusOr<NodeDef> NodeDefFromProto(const pb::NodeDef& p,
                                   const TensorDecodeOptions& options,
                                   NodeDetachedContents detached) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  if (p.name().empty()) {
    return errors::InvalidArgument("name is empty");
  }
  if (p.op().empty()) {
    return errors::InvalidArgument("op is empty");
  }
  WEFT_RETURN_IF_ERROR(CheckUtf8(p.name(), "name"));
  WEFT_RETURN_IF_ERROR(CheckUtf8(p.op(), "op"));
  WEFT_RETURN_IF_ERROR(CheckUtf8(p.device(), "device"));
  for (int i = 0; i < p.input_size(); ++i) {
    WEFT_RETURN_IF_ERROR(CheckUtf8(p.input(i), absl::StrCat("input ", i)));
  }
  NodeDef node;
  node.name = p.name();
  node.op = p.op();
  node.input.assign(p.input().begin(), p.input().end());
  node.device = p.device();
  WEFT_ASSIGN_OR_RETURN(node.attr,
                        AttrMapFromProto(p.attr(), options, detached));
  return node;
}

Status NodeDefToProto(const NodeDef& node, pb::NodeDef* p) {
  p->set_name(node.name);
  p->set_op(node.op);
  for (const std::string& input : node.input) p->add_input(input);
  p->set_device(node.device);
  return AttrMapToProto(node.attr, p->mutable_attr());
}

StatusOr<OpDef> OpDefFromProto(const pb::OpDef& p,
                               const TensorDecodeOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  OpDef op;
  op.name = p.name();
  for (const pb::OpDef::ArgDef& arg : p.input_arg()) {
    auto converted = ArgDefFromProto(arg);
    if (!converted.ok()) {
      return AddContext(
          converted.status(),
          absl::StrCat("input_arg '", Printable(arg.name()), "'"));
    }
    op.input_arg.push_back(*std::move(converted));
  }
  for (const pb::OpDef::ArgDef& arg : p.output_arg()) {
    auto converted = ArgDefFromProto(arg);
    if (!converted.ok()) {
      return AddContext(
          converted.status(),
          absl::StrCat("output_arg '", Printable(arg.name()), "'"));
    }
    op.output_arg.push_back(*std::move(converted));
  }
  for (const pb::OpDef::AttrDef& attr : p.attr()) {
    auto converted = AttrDefFromProto(attr, options);
    if (!converted.ok()) {
      return AddContext(converted.status(),
                        absl::StrCat("attr '", Printable(attr.name()), "'"));
    }
    op.attr.push_back(*std::move(converted));
  }
  op.summary = p.summary();
  op.description = p.description();
  op.is_commutative = p.is_commutative();
  op.is_aggregate = p.is_aggregate();
  op.is_stateful = p.is_stateful();
  op.allows_uninitialized_input = p.allows_uninitialized_input();
  return op;
}

Status OpDefToProto(const OpDef& op, pb::OpDef* p) {
  p->set_name(op.name);
  for (const OpDef::ArgDef& arg : op.input_arg) {
    ArgDefToProto(arg, p->add_input_arg());
  }
  for (const OpDef::ArgDef& arg : op.output_arg) {
    ArgDefToProto(arg, p->add_output_arg());
  }
  for (const OpDef::AttrDef& attr : op.attr) {
    WEFT_RETURN_IF_ERROR_CTX(AttrDefToProto(attr, p->add_attr()), "attr '",
                             attr.name, "'");
  }
  p->set_summary(op.summary);
  p->set_description(op.description);
  p->set_is_commutative(op.is_commutative);
  p->set_is_aggregate(op.is_aggregate);
  p->set_is_stateful(op.is_stateful);
  p->set_allows_uninitialized_input(op.allows_uninitialized_input);
  return Status();
}

StatusOr<FunctionDef> FunctionDefFromProto(const pb::FunctionDef& p,
                                           const TensorDecodeOptions& options) {
  const std::string context =
      absl::StrCat("function '", Printable(p.signature().name()), "'");
  WEFT_RETURN_IF_ERROR_CTX(CheckUtf8(p.signature().name(), "function name"),
                           "library");
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(p), context);
  FunctionDef f;
  auto signature = OpDefFromProto(p.signature(), options);
  if (!signature.ok()) {
    return AddContext(signature.status(), absl::StrCat(context, ": signature"));
  }
  f.signature = *std::move(signature);
  f.control_output.assign(p.signature().control_output().begin(),
                          p.signature().control_output().end());
  auto attrs = AttrMapFromProto(p.attr(), options);
  if (!attrs.ok()) return AddContext(attrs.status(), context);
  f.attr = *std::move(attrs);
  for (const auto& [index, arg_attrs] : p.arg_attr()) {
    if (!options.keep_function_arg_attrs) break;
    auto converted = AttrMapFromProto(arg_attrs.attr(), options);
    if (!converted.ok()) {
      return AddContext(converted.status(),
                        absl::StrCat(context, ": arg_attr[", index, "]"));
    }
    f.arg_attr.emplace(index, *std::move(converted));
  }
  f.resource_arg_unique_id.insert(p.resource_arg_unique_id().begin(),
                                  p.resource_arg_unique_id().end());
  f.node_def.reserve(p.node_def_size());
  for (int i = 0; i < p.node_def_size(); ++i) {
    auto node = NodeDefFromProto(p.node_def(i), options);
    if (!node.ok()) {
      return AddContext(
          node.status(),
          absl::StrCat(context, ": ", NodeLabel(p.node_def(i), i)));
    }
    f.node_def.push_back(*std::move(node));
  }
  WEFT_RETURN_IF_ERROR_CTX(StringMapFromProto(p.ret(), "ret", &f.ret), context);
  WEFT_RETURN_IF_ERROR_CTX(
      StringMapFromProto(p.control_ret(), "control_ret", &f.control_ret),
      context);
  return f;
}

Status FunctionDefToProto(const FunctionDef& f, pb::FunctionDef* p) {
  const std::string context = absl::StrCat("function '", f.signature.name, "'");
  WEFT_RETURN_IF_ERROR_CTX(OpDefToProto(f.signature, p->mutable_signature()),
                           context, ": signature");
  for (const std::string& name : f.control_output) {
    p->mutable_signature()->add_control_output(name);
  }
  WEFT_RETURN_IF_ERROR_CTX(AttrMapToProto(f.attr, p->mutable_attr()), context);
  for (const auto& [index, attrs] : f.arg_attr) {
    WEFT_RETURN_IF_ERROR_CTX(
        AttrMapToProto(attrs, (*p->mutable_arg_attr())[index].mutable_attr()),
        context, ": arg_attr[", index, "]");
  }
  for (const auto& [index, id] : f.resource_arg_unique_id) {
    (*p->mutable_resource_arg_unique_id())[index] = id;
  }
  for (const NodeDef& node : f.node_def) {
    WEFT_RETURN_IF_ERROR_CTX(NodeDefToProto(node, p->add_node_def()), context,
                             ": node '", node.name, "' (", node.op, ")");
  }
  StringMapToProto(f.ret, p->mutable_ret());
  StringMapToProto(f.control_ret, p->mutable_control_ret());
  return Status();
}

StatusOr<GraphDef> GraphDefFromProto(
    const pb::GraphDef& p, const TensorDecodeOptions& options,
    const absl::flat_hash_set<std::string>* skip_functions,
    absl::Span<const DetachedContent> detached) {
  WEFT_RETURN_IF_ERROR(CheckFieldWireTypes(p));
  GraphDef graph;
  graph.node.reserve(p.node_size());
  size_t cursor = 0;
  for (int i = 0; i < p.node_size(); ++i) {
    auto node = NodeDefFromProto(p.node(i), options,
                                 DetachedContentsOf(detached, i, &cursor));
    if (!node.ok()) {
      return AddContext(node.status(), NodeLabel(p.node(i), i));
    }
    graph.node.push_back(*std::move(node));
  }

  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(p.versions()), "versions");
  graph.versions.producer = p.versions().producer();
  graph.versions.min_consumer = p.versions().min_consumer();
  graph.versions.bad_consumers.assign(p.versions().bad_consumers().begin(),
                                      p.versions().bad_consumers().end());

  const pb::FunctionDefLibrary& library = p.library();
  WEFT_RETURN_IF_ERROR_CTX(CheckFieldWireTypes(library), "library");
  graph.library.function.reserve(library.function_size());
  for (const pb::FunctionDef& function : library.function()) {
    if (skip_functions != nullptr &&
        skip_functions->contains(function.signature().name())) {
      continue;
    }
    auto converted = FunctionDefFromProto(function, options);
    if (!converted.ok()) return AddContext(converted.status(), "library");
    graph.library.function.push_back(*std::move(converted));
  }
  for (const pb::GradientDef& gradient : library.gradient()) {
    graph.library.gradient.emplace_back(gradient.function_name(),
                                        gradient.gradient_func());
  }
  for (const pb::RegisteredGradient& gradient :
       library.registered_gradients()) {
    graph.library.registered_gradients.emplace_back(
        gradient.gradient_func(), gradient.registered_op_type());
  }
  return graph;
}

Status GraphDefToProto(const GraphDef& graph, pb::GraphDef* p) {
  p->mutable_node()->Reserve(static_cast<int>(graph.node.size()));
  for (const NodeDef& node : graph.node) {
    WEFT_RETURN_IF_ERROR_CTX(NodeDefToProto(node, p->add_node()), "node '",
                             node.name, "' (", node.op, ")");
  }
  pb::VersionDef* versions = p->mutable_versions();
  versions->set_producer(graph.versions.producer);
  versions->set_min_consumer(graph.versions.min_consumer);
  for (int v : graph.versions.bad_consumers) versions->add_bad_consumers(v);

  const FunctionLibrary& library = graph.library;
  if (!library.function.empty() || !library.gradient.empty() ||
      !library.registered_gradients.empty()) {
    pb::FunctionDefLibrary* out = p->mutable_library();
    for (const FunctionDef& function : library.function) {
      WEFT_RETURN_IF_ERROR_CTX(
          FunctionDefToProto(function, out->add_function()), "library");
    }
    for (const auto& [function_name, gradient_func] : library.gradient) {
      pb::GradientDef* g = out->add_gradient();
      g->set_function_name(function_name);
      g->set_gradient_func(gradient_func);
    }
    for (const auto& [gradient_func, op_type] : library.registered_gradients) {
      pb::RegisteredGradient* g = out->add_registered_gradients();
      g->set_gradient_func(gradient_func);
      g->set_registered_op_type(op_type);
    }
  }
  return Status();
}

}  // namespace weft::graph_internal
