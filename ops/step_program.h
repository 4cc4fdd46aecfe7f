// What the fused ops that carry a straight-line program share
// (_FusedElementwise, ops/fused_elementwise_ops.h; _FusedScalars,
// ops/fused_scalar_ops.h): registers 0 .. N-1 are the node's inputs and
// register N + i the value of step i; attrs `ops` (one op name per step),
// `operands` (two registers per step, -1 as the second of a unary step) and
// `results` (the register of each output).
#ifndef WEFT_OPS_STEP_PROGRAM_H_
#define WEFT_OPS_STEP_PROGRAM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "ops/attr_value.h"

namespace weft {

struct StepProgramAttrs {
  std::vector<std::string> ops;
  std::vector<int64_t> operands;  // two per step
  std::vector<int64_t> results;   // one per output
};

// Reads `ops`, `operands` and `results`, checking their lengths: two
// operands per step, `num_outputs` results. InvalidArgument naming the attr
// otherwise.
Status ReadStepProgramAttrs(const AttrMap& attrs, int64_t num_outputs,
                            StepProgramAttrs* out);

// Checks step `step`'s operands: each a register defined before it (the
// inputs and earlier steps, `defined` in all), the second -1 exactly when
// the step is `unary`. InvalidArgument naming the step and its op
// otherwise.
Status CheckStepOperands(const StepProgramAttrs& program, int64_t step,
                         bool unary, int64_t defined);

// Checks output `output`'s register: a step's (num_inputs <= r <
// num_registers), no other output's. InvalidArgument otherwise.
Status CheckStepResult(const StepProgramAttrs& program, int64_t output,
                       int64_t num_inputs, int64_t num_registers);

}  // namespace weft

#endif  // WEFT_OPS_STEP_PROGRAM_H_
