// OpDefBuilder: turns TensorFlow-style spec strings into an OpDef.
//
//   OpDefBuilder("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false")
//       .Attr("T: {half, bfloat16, float, double, int32, int64}")
//       .SetShapeFn(shape_inference::MatMulShape);
//
// The setters only record the strings; Finalize() parses them all, so the
// order of the calls does not matter (an input may name an attr declared
// later) and a builder is cheap to copy into a static registration.
//
// Grammar (TensorFlow's op_def_builder, minus reference inputs):
//
//   attr   := name ':' attr_type [ '>=' int ] [ '=' default ]
//   attr_type := 'string' | 'int' | 'float' | 'bool' | 'type' | 'shape'
//             | 'tensor' | 'func'
//             | '{' dtype (',' dtype)* '}'         a type from this set
//                                                  (aliases may be members)
//             | '{' 'str' (',' 'str')* '}'         a string from this set
//             | alias                              a type from DataTypeAlias()
//             | 'list(' scalar_attr_type ')'       any of the above in a list
//   input/output := name ':' [ name '*' ] (dtype | name)
//
//  - `>= N` is the least value of an "int" attr or the least length of a list.
//  - Defaults: ints; floats (1e-4, -inf, inf, nan); true/false; 'strings' or
//    "strings" (backslash escapes \\ \' \" \n \t); types as `float` or
//    `DT_FLOAT`; shapes `[2, -1]` (`?` also means an unknown dimension), `[]`
//    for a scalar and `<unknown>` for unknown rank; lists `[1, 2]`, `[]`,
//    `['a']`, `[DT_INT32]`, `[[2], []]`. Tensor and func attrs take no default.
//  - "x: float" is a fixed dtype; "x: T" needs a "type" attr T, or a
//    "list(type)" attr for a type list; "x: N * T" / "x: N * float" need an
//    "int" attr N declared with a minimum >= 0 ("N: int >= 1").
//  - Names match [A-Za-z][A-Za-z0-9_]*. Op names start with an uppercase
//    letter, optionally after one '_' (TensorFlow's internal ops: "_Arg").
//  - "x: Ref(T)" parses but Finalize() rejects it: weft has no reference
//    tensors (resource variables replace them).
#ifndef WEFT_OPS_OP_DEF_BUILDER_H_
#define WEFT_OPS_OP_DEF_BUILDER_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "ops/op_def.h"

namespace weft {

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string op_name);

  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);

  OpDefBuilder& SetIsCommutative();
  OpDefBuilder& SetIsAggregate();
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetAllowsUninitializedInput();

  // Required: an op without a shape function fails Finalize(). Ops whose
  // outputs cannot be inferred say so with shape_inference::UnknownShape.
  OpDefBuilder& SetShapeFn(ShapeInferenceFn fn);

  // The first paragraph becomes OpDef::summary, the rest (after a blank
  // line) OpDef::description. Optional; repeated calls append.
  OpDefBuilder& Doc(std::string text);

  const std::string& op_name() const { return op_name_; }

  // Parses every spec and checks the result as a whole. The first error
  // names the op and quotes the spec, e.g.
  //   op 'Foo': attr spec 'T: {float, doubel}': unknown type 'doubel'
  // Checked: names, duplicate names among attrs, inputs and outputs (one
  // namespace, as TensorFlow's generated wrappers need), that args refer to
  // declared attrs of the right type, that defaults have the attr's type, lie
  // in its allowed set and meet its minimum, and that a shape function is set.
  StatusOr<OpRegistrationData> Finalize() const;

 private:
  std::string op_name_;
  std::vector<std::string> inputs_;
  std::vector<std::string> outputs_;
  std::vector<std::string> attrs_;
  std::string doc_;
  bool is_commutative_ = false;
  bool is_aggregate_ = false;
  bool is_stateful_ = false;
  bool allows_uninitialized_input_ = false;
  ShapeInferenceFn shape_fn_;
};

// Whether `name` is a valid op name / attr or arg name in the spec grammar.
bool IsValidOpName(absl::string_view name);
bool IsValidArgOrAttrName(absl::string_view name);

}  // namespace weft

#endif  // WEFT_OPS_OP_DEF_BUILDER_H_
