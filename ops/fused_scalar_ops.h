// _FusedScalars: a group of integer and boolean scalar nodes that the graph
// optimizer (executor/optimizer/scalar_fusion_rule.h) made one node. Every
// TensorFlow 2 loop counts its iterations this way: the body adds 1 to two
// int32 counters and cond compares both with their limits and ands the
// results, five nodes of one element each per iteration, where running a
// node, not its arithmetic, is the time.
//
// The node carries the group as a straight-line program over numbered
// registers, as _FusedElementwise does (ops/fused_elementwise_ops.h):
// registers 0 .. N-1 are the inputs, register N + i the value of step i,
// each step one op below on one or two earlier registers, each output the
// value of one step. Each value is the one the node it stands for computes:
// int32 and int64 arithmetic wraps around as TensorFlow's kernels do on
// every machine it runs on (two's complement).
//
// Attrs: `Tin`, `Tout` (the inputs' and outputs' dtypes: int32, int64 or
// bool), `ops` (one TensorFlow op name per step), `operands` (two registers
// per step; -1 as the second of LogicalNot), `results` (the register of each
// output). Every input and output is a scalar.
#ifndef WEFT_OPS_FUSED_SCALAR_OPS_H_
#define WEFT_OPS_FUSED_SCALAR_OPS_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/types.h"
#include "ops/attr_value.h"

namespace weft {

enum class ScalarOp : uint8_t {
  kAdd,           // Add, AddV2
  kSub,           // Sub
  kMul,           // Mul
  kMaximum,       // Maximum
  kMinimum,       // Minimum
  kLess,          // Less
  kLessEqual,     // LessEqual
  kGreater,       // Greater
  kGreaterEqual,  // GreaterEqual
  kEqual,         // Equal
  kNotEqual,      // NotEqual
  kLogicalAnd,    // LogicalAnd
  kLogicalOr,     // LogicalOr
  kLogicalNot,    // LogicalNot
};

// The step that TensorFlow op `op` is; false outside the vocabulary.
bool ScalarOpFromName(absl::string_view op, ScalarOp* out);

// The dtype a step of `op` gives on operands of dtype `in`, or DT_INVALID
// when the op does not take that dtype (arithmetic and order: int32 and
// int64; Equal and NotEqual: those and bool; the logical ops: bool).
DataType ScalarStepType(ScalarOp op, DataType in);

struct ScalarStep {
  ScalarOp op;
  int a = 0;   // register of the first (or only) operand
  int b = -1;  // register of the second; -1 for LogicalNot
};

struct ScalarProgram {
  std::vector<DataType> types;  // per register: inputs, then steps
  std::vector<ScalarStep> steps;
  std::vector<int> results;  // the register of each output
  int num_inputs() const {
    return static_cast<int>(types.size() - steps.size());
  }
};

// The program a node's attrs describe, checked: known ops, each operand an
// input or an earlier step of a dtype the op takes (both of one dtype),
// each result a step whose dtype is that output's. InvalidArgument
// otherwise, naming the attr and the step.
Status ReadScalarProgram(const AttrMap& attrs, ScalarProgram* program);

}  // namespace weft

#endif  // WEFT_OPS_FUSED_SCALAR_OPS_H_
