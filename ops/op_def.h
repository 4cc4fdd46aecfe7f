// OpDef: an op's interface, as the spec strings of REGISTER_OP state it:
// typed inputs and outputs, attrs with types, defaults, allowed values and
// minimums. Field names follow TensorFlow's OpDef message.
#ifndef WEFT_OPS_OP_DEF_H_
#define WEFT_OPS_OP_DEF_H_

#include <functional>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "core/status.h"
#include "core/types.h"
#include "ops/attr_value.h"

namespace weft {

namespace shape_inference {
class InferenceContext;
}  // namespace shape_inference

// Computes a node's output shapes from its input shapes, constant inputs and
// attrs. Every registered op has one (possibly shape_inference::UnknownShape).
using ShapeInferenceFn =
    std::function<Status(shape_inference::InferenceContext* c)>;

struct OpDef {
  // One input or output. Exactly one way of typing it is set:
  //  - `type` (a fixed dtype, "x: float"),
  //  - `type_attr` ("x: T"), optionally with `number_attr` ("x: N * T"),
  //  - `number_attr` with a fixed `type` ("x: N * float"),
  //  - `type_list_attr` ("x: Tlist", a list(type) attr).
  struct ArgDef {
    std::string name;
    std::string description;
    DataType type = DT_INVALID;
    std::string type_attr;
    std::string number_attr;
    std::string type_list_attr;
    bool is_ref = false;
  };

  struct AttrDef {
    std::string name;
    // "string", "int", "float", "bool", "type", "shape", "tensor", "func",
    // or "list(<one of those>)".
    std::string type;
    std::optional<AttrValue> default_value;
    // For "type"/"list(type)": kind kList with list.type set; for
    // "string"/"list(string)": kind kList with list.s set.
    std::optional<AttrValue> allowed_values;
    bool has_minimum = false;
    // For "int": the least value; for "list(...)": the least length.
    int64_t minimum = 0;
    std::string description;
  };

  std::string name;
  std::vector<ArgDef> input_arg;
  std::vector<ArgDef> output_arg;
  std::vector<AttrDef> attr;
  std::string summary;
  std::string description;
  bool is_commutative = false;
  bool is_aggregate = false;
  bool is_stateful = false;
  bool allows_uninitialized_input = false;

  const AttrDef* FindAttr(absl::string_view attr_name) const;
};

// What the registry keeps per op.
struct OpRegistrationData {
  OpDef op_def;
  ShapeInferenceFn shape_fn;
  // Where it was registered ("ops/math_ops.cc:42", or a plugin's path), for
  // duplicate-registration messages.
  std::string source;
};

}  // namespace weft

#endif  // WEFT_OPS_OP_DEF_H_
