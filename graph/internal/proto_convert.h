// Conversions between the generated graph-file messages and weft's plain
// structs. Internal to graph/: this is the only header that names generated
// protobuf types, and only graph/*.cc include it.
//
// Every FromProto function reports errors relative to the message it was
// given ("tensor_content has 12 bytes ..."); callers higher up add the node,
// attr and file ("graph.pb: node 'c' (Const): attr 'value': ...").
#ifndef WEFT_GRAPH_INTERNAL_PROTO_CONVERT_H_
#define WEFT_GRAPH_INTERNAL_PROTO_CONVERT_H_

#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "graph/graph_def.h"
#include "graph/internal/detached_content.h"
#include "graph/proto/weft_graph_def.pb.h"
#include "graph/tensor_proto.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"
#include "ops/op_def.h"

namespace weft::graph_internal {

namespace pb = ::weft::graphdef;

// A dtype field's value as a weft DataType. Values weft has no type for
// (float8, int4, *_REF, unknown numbers) are errors naming the value, e.g.
// "dtype DT_FLOAT8_E5M2 is not supported by weft". DT_INVALID is an error
// unless `allow_invalid` (an ArgDef typed through an attr).
StatusOr<DataType> DataTypeFromProto(int value, bool allow_invalid = false);
// TensorFlow's spelling of a dtype field value: "DT_FLOAT", or the number.
std::string ProtoDataTypeName(int value);

// Shapes as attrs state them: unknown rank, -1 for unknown dimensions.
StatusOr<PartialTensorShape> ShapeFromProto(const pb::TensorShapeProto& proto);
void ShapeToProto(const PartialTensorShape& shape, pb::TensorShapeProto* proto);

// `detached`, when given, is the proto's tensor_content as cut out before
// parsing (graph/internal/detached_content.h), and where its buffer comes
// from.
StatusOr<Tensor> TensorFromProto(const pb::TensorProto& proto,
                                 const TensorDecodeOptions& options,
                                 const DetachedContent* detached = nullptr);
Status TensorToProto(const Tensor& tensor, pb::TensorProto* proto);

StatusOr<AttrValue> AttrValueFromProto(
    const pb::AttrValue& proto, const TensorDecodeOptions& options,
    const DetachedContent* detached = nullptr);
Status AttrValueToProto(const AttrValue& value, pb::AttrValue* proto);

// The attr maps of NodeDef, NameAttrList and FunctionDef, as the schema
// spells them: repeated entries.
using ProtoAttrMap = google::protobuf::RepeatedPtrField<pb::AttrEntry>;

// Converts each entry, naming the attr in errors ("attr 'T': ..."). A key
// given twice keeps its last value, as a protobuf map would.
// `detached` gives the payloads cut out of the entries' tensors.
StatusOr<AttrMap> AttrMapFromProto(const ProtoAttrMap& proto,
                                   const TensorDecodeOptions& options,
                                   NodeDetachedContents detached = {});
Status AttrMapToProto(const AttrMap& attrs, ProtoAttrMap* proto);

StatusOr<NameAttrList> NameAttrListFromProto(
    const pb::NameAttrList& proto, const TensorDecodeOptions& options);
Status NameAttrListToProto(const NameAttrList& value, pb::NameAttrList* proto);

// Errors name the node: "node 'c' (Const): attr 'value': ...".
StatusOr<NodeDef> NodeDefFromProto(const pb::NodeDef& proto,
                                   const TensorDecodeOptions& options,
                                   NodeDetachedContents detached = {});
Status NodeDefToProto(const NodeDef& node, pb::NodeDef* proto);

StatusOr<OpDef> OpDefFromProto(const pb::OpDef& proto,
                               const TensorDecodeOptions& options);
Status OpDefToProto(const OpDef& op, pb::OpDef* proto);

// Errors name the function: "function 'f': node 'n' (Mul): ...".
StatusOr<FunctionDef> FunctionDefFromProto(const pb::FunctionDef& proto,
                                           const TensorDecodeOptions& options);
Status FunctionDefToProto(const FunctionDef& function, pb::FunctionDef* proto);

// Every function of the library is converted, except those named in
// `skip_functions` when it is given (they are left out of the result).
// `detached` lists the nodes' payloads cut out before parsing.
StatusOr<GraphDef> GraphDefFromProto(
    const pb::GraphDef& proto, const TensorDecodeOptions& options,
    const absl::flat_hash_set<std::string>* skip_functions = nullptr,
    absl::Span<const DetachedContent> detached = {});
Status GraphDefToProto(const GraphDef& graph, pb::GraphDef* proto);

}  // namespace weft::graph_internal

#endif  // WEFT_GRAPH_INTERNAL_PROTO_CONVERT_H_
