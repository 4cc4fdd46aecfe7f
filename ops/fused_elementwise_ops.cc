#include "ops/fused_elementwise_ops.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"
#include "ops/step_program.h"

namespace weft {

namespace {

// The vocabulary: each TensorFlow op name and its step; the first name of a
// step is the one ElementwiseOpName gives.
constexpr struct {
  const char* name;
  ElementwiseOp op;
} kOps[] = {
    {"Add", ElementwiseOp::kAdd},       {"AddV2", ElementwiseOp::kAdd},
    {"Sub", ElementwiseOp::kSub},       {"Mul", ElementwiseOp::kMul},
    {"RealDiv", ElementwiseOp::kDiv},   {"Neg", ElementwiseOp::kNeg},
    {"Square", ElementwiseOp::kSquare}, {"Sigmoid", ElementwiseOp::kSigmoid},
    {"Tanh", ElementwiseOp::kTanh},     {"Exp", ElementwiseOp::kExp},
};

}  // namespace

bool ElementwiseOpFromName(absl::string_view op, ElementwiseOp* out) {
  for (const auto& entry : kOps) {
    if (op == entry.name) {
      *out = entry.op;
      return true;
    }
  }
  return false;
}

const char* ElementwiseOpName(ElementwiseOp op) {
  for (const auto& entry : kOps) {
    if (entry.op == op) return entry.name;
  }
  return "?";
}

bool IsUnaryElementwiseOp(ElementwiseOp op) {
  return op != ElementwiseOp::kAdd && op != ElementwiseOp::kSub &&
         op != ElementwiseOp::kMul && op != ElementwiseOp::kDiv;
}

Status ReadElementwiseProgram(const AttrMap& attrs,
                              ElementwiseProgram* program) {
  int64_t num_inputs = 0, num_outputs = 0;
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "N", &num_inputs));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "num_outputs", &num_outputs));
  StepProgramAttrs a;
  WEFT_RETURN_IF_ERROR(ReadStepProgramAttrs(attrs, num_outputs, &a));
  ElementwiseProgram p;
  p.num_inputs = static_cast<int>(num_inputs);
  if (attrs.find("slices") != attrs.end()) {
    WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "slices", &p.slices));
  }
  if (p.slices.empty()) {
    for (int64_t i = 0; i < num_inputs; ++i) {
      p.slices.push_back(0);
      p.slices.push_back(-1);
    }
  }
  if (static_cast<int64_t>(p.slices.size()) != 2 * num_inputs) {
    return errors::InvalidArgument("attr 'slices' has ", p.slices.size(),
                                   " entries; the ", num_inputs,
                                   " inputs need ", 2 * num_inputs, " or none");
  }
  for (int64_t i = 0; i < num_inputs; ++i) {
    const int64_t offset = p.slices[2 * i], width = p.slices[2 * i + 1];
    if (offset < 0 || width < -1 || (width == -1 && offset != 0)) {
      return errors::InvalidArgument(
          "input ", i, " of attr 'slices' is (", offset, ", ", width,
          "); an (offset, width) needs offset >= 0 and width >= 0, or (0, "
          "-1) for the whole input");
    }
  }
  const int64_t num_steps = static_cast<int64_t>(a.ops.size());
  for (int64_t i = 0; i < num_steps; ++i) {
    ElementwiseStep step;
    if (!ElementwiseOpFromName(a.ops[i], &step.op)) {
      return errors::InvalidArgument("step ", i, " of attr 'ops': '", a.ops[i],
                                     "' is not an element-wise op it runs");
    }
    // Registers before step i: the inputs and steps 0 .. i-1.
    WEFT_RETURN_IF_ERROR(
        CheckStepOperands(a, i, IsUnaryElementwiseOp(step.op), num_inputs + i));
    step.a = static_cast<int>(a.operands[2 * i]);
    step.b = static_cast<int>(a.operands[2 * i + 1]);
    p.steps.push_back(step);
  }
  for (int64_t o = 0; o < num_outputs; ++o) {
    WEFT_RETURN_IF_ERROR(
        CheckStepResult(a, o, num_inputs, num_inputs + num_steps));
    p.results.push_back(static_cast<int>(a.results[o]));
  }
  *program = std::move(p);
  return Status();
}

namespace {

// Each output's shape is its step's: the steps' shapes follow from the
// inputs' as each node's own shape function derives them.
Status FusedElementwiseShape(shape_inference::InferenceContext* c) {
  ElementwiseProgram program;
  WEFT_RETURN_IF_ERROR(ReadElementwiseProgram(c->attrs(), &program));
  std::vector<shape_inference::ShapeHandle> regs;
  for (int i = 0; i < c->num_inputs(); ++i) {
    shape_inference::ShapeHandle in = c->input(i);
    const int64_t offset = program.slices[2 * i];
    const int64_t width = program.slices[2 * i + 1];
    if (width >= 0 && c->RankKnown(in)) {
      if (c->Rank(in) == 0) {
        return errors::InvalidArgument("input ", i,
                                       " is a scalar; its slice needs an axis");
      }
      shape_inference::DimensionHandle last = c->Dim(in, -1);
      if (c->ValueKnown(last) && offset + width > c->Value(last)) {
        return errors::InvalidArgument(
            "input ", i, " has ", c->Value(last),
            " columns on its last axis; its slice ends at ", offset + width);
      }
      WEFT_RETURN_IF_ERROR(c->ReplaceDim(in, -1, c->MakeDim(width), &in));
    }
    regs.push_back(in);
  }
  for (const ElementwiseStep& s : program.steps) {
    shape_inference::ShapeHandle out = regs[s.a];
    if (s.b >= 0) {
      WEFT_RETURN_IF_ERROR(shape_inference::BroadcastBinaryOpOutputShape(
          c, regs[s.a], regs[s.b], &out));
    }
    regs.push_back(out);
  }
  for (size_t o = 0; o < program.results.size(); ++o) {
    c->set_output(static_cast<int>(o), regs[program.results[o]]);
  }
  return Status();
}

}  // namespace

REGISTER_OP("_FusedElementwise")
    .Input("inputs: N * T")
    .Output("outputs: num_outputs * T")
    .Attr("N: int >= 1")
    .Attr("num_outputs: int >= 1")
    .Attr("T: {float}")
    .Attr("ops: list(string)")
    .Attr("operands: list(int)")
    .Attr("results: list(int)")
    .Attr("slices: list(int) = []")
    .SetShapeFn(FusedElementwiseShape);

}  // namespace weft
