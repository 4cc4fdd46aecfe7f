#include "ops/step_program.h"

namespace weft {

Status ReadStepProgramAttrs(const AttrMap& attrs, int64_t num_outputs,
                            StepProgramAttrs* out) {
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "ops", &out->ops));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "operands", &out->operands));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "results", &out->results));
  if (out->operands.size() != 2 * out->ops.size()) {
    return errors::InvalidArgument(
        "attr 'operands' has ", out->operands.size(), " entries; the ",
        out->ops.size(), " steps of 'ops' need ", 2 * out->ops.size());
  }
  if (static_cast<int64_t>(out->results.size()) != num_outputs) {
    return errors::InvalidArgument("attr 'results' has ", out->results.size(),
                                   " entries for ", num_outputs, " outputs");
  }
  return Status();
}

Status CheckStepOperands(const StepProgramAttrs& program, int64_t step,
                         bool unary, int64_t defined) {
  const int64_t a = program.operands[2 * step];
  const int64_t b = program.operands[2 * step + 1];
  if (a < 0 || a >= defined || (unary ? b != -1 : (b < 0 || b >= defined))) {
    return errors::InvalidArgument(
        "step ", step, " (", program.ops[step],
        ") of attr 'ops' reads registers ", a, " and ", b, "; ",
        unary ? "a unary step reads one of" : "it reads two of", " the ",
        defined, " defined before it", unary ? " and -1" : "");
  }
  return Status();
}

Status CheckStepResult(const StepProgramAttrs& program, int64_t output,
                       int64_t num_inputs, int64_t num_registers) {
  const int64_t r = program.results[output];
  if (r < num_inputs || r >= num_registers) {
    return errors::InvalidArgument(
        "output ", output, " of attr 'results' is register ", r,
        ", not one of the ", num_registers - num_inputs, " steps' (",
        num_inputs, " .. ", num_registers - 1, ")");
  }
  for (int64_t o = 0; o < output; ++o) {
    if (program.results[o] == r) {
      return errors::InvalidArgument("register ", r,
                                     " is in attr 'results' more than once");
    }
  }
  return Status();
}

}  // namespace weft
