#include "ops/fused_scalar_ops.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {

namespace {

// The vocabulary: each TensorFlow op name and its step.
constexpr struct {
  const char* name;
  ScalarOp op;
} kOps[] = {
    {"Add", ScalarOp::kAdd},
    {"AddV2", ScalarOp::kAdd},
    {"Sub", ScalarOp::kSub},
    {"Mul", ScalarOp::kMul},
    {"Maximum", ScalarOp::kMaximum},
    {"Minimum", ScalarOp::kMinimum},
    {"Less", ScalarOp::kLess},
    {"LessEqual", ScalarOp::kLessEqual},
    {"Greater", ScalarOp::kGreater},
    {"GreaterEqual", ScalarOp::kGreaterEqual},
    {"Equal", ScalarOp::kEqual},
    {"NotEqual", ScalarOp::kNotEqual},
    {"LogicalAnd", ScalarOp::kLogicalAnd},
    {"LogicalOr", ScalarOp::kLogicalOr},
    {"LogicalNot", ScalarOp::kLogicalNot},
};

bool IsInteger(DataType t) { return t == DT_INT32 || t == DT_INT64; }

}  // namespace

bool ScalarOpFromName(absl::string_view op, ScalarOp* out) {
  for (const auto& entry : kOps) {
    if (op == entry.name) {
      *out = entry.op;
      return true;
    }
  }
  return false;
}

DataType ScalarStepType(ScalarOp op, DataType in) {
  switch (op) {
    case ScalarOp::kAdd:
    case ScalarOp::kSub:
    case ScalarOp::kMul:
    case ScalarOp::kMaximum:
    case ScalarOp::kMinimum:
      return IsInteger(in) ? in : DT_INVALID;
    case ScalarOp::kLess:
    case ScalarOp::kLessEqual:
    case ScalarOp::kGreater:
    case ScalarOp::kGreaterEqual:
      return IsInteger(in) ? DT_BOOL : DT_INVALID;
    case ScalarOp::kEqual:
    case ScalarOp::kNotEqual:
      return IsInteger(in) || in == DT_BOOL ? DT_BOOL : DT_INVALID;
    case ScalarOp::kLogicalAnd:
    case ScalarOp::kLogicalOr:
    case ScalarOp::kLogicalNot:
      return in == DT_BOOL ? DT_BOOL : DT_INVALID;
  }
  return DT_INVALID;
}

Status ReadScalarProgram(const AttrMap& attrs, ScalarProgram* program) {
  std::vector<DataType> tin, tout;
  std::vector<std::string> ops;
  std::vector<int64_t> operands, results;
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "Tin", &tin));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "Tout", &tout));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "ops", &ops));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "operands", &operands));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "results", &results));
  if (operands.size() != 2 * ops.size()) {
    return errors::InvalidArgument("attr 'operands' has ", operands.size(),
                                   " entries; the ", ops.size(),
                                   " steps of 'ops' need ", 2 * ops.size());
  }
  if (results.size() != tout.size()) {
    return errors::InvalidArgument("attr 'results' has ", results.size(),
                                   " entries for the ", tout.size(),
                                   " outputs of 'Tout'");
  }
  ScalarProgram p;
  p.types = tin;
  for (size_t i = 0; i < tin.size(); ++i) {
    if (!IsInteger(tin[i]) && tin[i] != DT_BOOL) {
      return errors::InvalidArgument("input ", i, " of attr 'Tin' is ",
                                     DataTypeName(tin[i]),
                                     "; inputs are int32, int64 or bool");
    }
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    ScalarStep step;
    if (!ScalarOpFromName(ops[i], &step.op)) {
      return errors::InvalidArgument("step ", i, " of attr 'ops': '", ops[i],
                                     "' is not a scalar op it runs");
    }
    const int64_t defined = static_cast<int64_t>(p.types.size());
    const int64_t a = operands[2 * i], b = operands[2 * i + 1];
    const bool unary = step.op == ScalarOp::kLogicalNot;
    if (a < 0 || a >= defined || (unary ? b != -1 : (b < 0 || b >= defined))) {
      return errors::InvalidArgument(
          "step ", i, " (", ops[i], ") of attr 'ops' reads registers ", a,
          " and ", b, "; ",
          unary ? "a unary step reads one of" : "it reads two of", " the ",
          defined, " defined before it", unary ? " and -1" : "");
    }
    const DataType in = p.types[a];
    const DataType out = ScalarStepType(step.op, in);
    if (out == DT_INVALID || (!unary && p.types[b] != in)) {
      return errors::InvalidArgument(
          "step ", i, " (", ops[i], ") reads ", DataTypeName(in),
          unary ? "" : absl::StrCat(" and ", DataTypeName(p.types[b])),
          ", which it does not take");
    }
    step.a = static_cast<int>(a);
    step.b = static_cast<int>(b);
    p.steps.push_back(step);
    p.types.push_back(out);
  }
  const int64_t num_inputs = static_cast<int64_t>(tin.size());
  for (size_t o = 0; o < results.size(); ++o) {
    const int64_t r = results[o];
    if (r < num_inputs || r >= static_cast<int64_t>(p.types.size())) {
      return errors::InvalidArgument(
          "output ", o, " of attr 'results' is register ", r,
          ", not one of the ", ops.size(), " steps'");
    }
    if (p.types[r] != tout[o]) {
      return errors::InvalidArgument("output ", o, " is step ", r - num_inputs,
                                     "'s ", DataTypeName(p.types[r]),
                                     ", but attr 'Tout' says ",
                                     DataTypeName(tout[o]));
    }
    p.results.push_back(static_cast<int>(r));
  }
  *program = std::move(p);
  return Status();
}

namespace {

Status FusedScalarsShape(shape_inference::InferenceContext* c) {
  ScalarProgram program;
  WEFT_RETURN_IF_ERROR(ReadScalarProgram(c->attrs(), &program));
  for (int i = 0; i < c->num_inputs(); ++i) {
    shape_inference::ShapeHandle unused;
    WEFT_RETURN_IF_ERROR(c->WithRank(c->input(i), 0, &unused));
  }
  for (int o = 0; o < c->num_outputs(); ++o) c->set_output(o, c->Scalar());
  return Status();
}

}  // namespace

REGISTER_OP("_FusedScalars")
    .Input("inputs: Tin")
    .Output("outputs: Tout")
    .Attr("Tin: list(type) >= 1")
    .Attr("Tout: list(type) >= 1")
    .Attr("ops: list(string)")
    .Attr("operands: list(int)")
    .Attr("results: list(int)")
    .SetShapeFn(FusedScalarsShape);

}  // namespace weft
