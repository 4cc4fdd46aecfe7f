#include "ops/fused_scalar_ops.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"
#include "ops/step_program.h"

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
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "Tin", &tin));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "Tout", &tout));
  StepProgramAttrs a;
  WEFT_RETURN_IF_ERROR(
      ReadStepProgramAttrs(attrs, static_cast<int64_t>(tout.size()), &a));
  ScalarProgram p;
  p.types = tin;
  for (size_t i = 0; i < tin.size(); ++i) {
    if (!IsInteger(tin[i]) && tin[i] != DT_BOOL) {
      return errors::InvalidArgument("input ", i, " of attr 'Tin' is ",
                                     DataTypeName(tin[i]),
                                     "; inputs are int32, int64 or bool");
    }
  }
  for (int64_t i = 0; i < static_cast<int64_t>(a.ops.size()); ++i) {
    ScalarStep step;
    if (!ScalarOpFromName(a.ops[i], &step.op)) {
      return errors::InvalidArgument("step ", i, " of attr 'ops': '", a.ops[i],
                                     "' is not a scalar op it runs");
    }
    const bool unary = step.op == ScalarOp::kLogicalNot;
    WEFT_RETURN_IF_ERROR(
        CheckStepOperands(a, i, unary, static_cast<int64_t>(p.types.size())));
    step.a = static_cast<int>(a.operands[2 * i]);
    step.b = static_cast<int>(a.operands[2 * i + 1]);
    const DataType in = p.types[step.a];
    const DataType out = ScalarStepType(step.op, in);
    if (out == DT_INVALID || (!unary && p.types[step.b] != in)) {
      return errors::InvalidArgument(
          "step ", i, " (", a.ops[i], ") reads ", DataTypeName(in),
          unary ? "" : absl::StrCat(" and ", DataTypeName(p.types[step.b])),
          ", which it does not take");
    }
    p.steps.push_back(step);
    p.types.push_back(out);
  }
  const int64_t num_inputs = static_cast<int64_t>(tin.size());
  for (size_t o = 0; o < tout.size(); ++o) {
    WEFT_RETURN_IF_ERROR(CheckStepResult(a, o, num_inputs,
                                         static_cast<int64_t>(p.types.size())));
    const int64_t r = a.results[o];
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
