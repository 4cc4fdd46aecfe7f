// _FusedElementwise: a group of float32 element-wise nodes the graph
// optimizer (executor/optimizer/elementwise_fusion_rule.h) made one node,
// so that a run dispatches, allocates and schedules one kernel where the
// group had one per node (a Keras LSTM or GRU cell's gates: nine to eleven
// nodes per loop iteration on tensors of a few hundred floats, where the
// per-node cost, not the arithmetic, was the time).
//
// The node carries the group as a straight-line program over numbered
// registers: registers 0 .. N-1 are the node's inputs, register N + i is
// the value of step i. Each step is one of the ops below applied to one or
// two earlier registers; each output of the node is the value of one step.
// The values are those of the nodes the steps stand for: the same NumPy
// broadcasting and, on every CPU path, the same function per element as
// each node's own kernel, so the fused node's outputs equal the group's bit
// for bit.
//
// Attrs: `ops` (one TensorFlow op name per step), `operands` (two
// registers per step; -1 as the second of a unary op), `results` (the
// register of each output, num_outputs of them), and `slices`: empty, or two
// numbers per input, (offset, width), when the register is not the whole
// input but the columns [offset, offset + width) of its last axis, what a
// Split or StridedSlice along that axis would take (width -1: the whole
// input, offset 0). The optimizer reads the gates of an RNN cell this way
// where the graph split them apart first.
#ifndef WEFT_OPS_FUSED_ELEMENTWISE_OPS_H_
#define WEFT_OPS_FUSED_ELEMENTWISE_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "ops/attr_value.h"

namespace weft {

// What a step computes.
enum class ElementwiseOp : uint8_t {
  kAdd,      // Add, AddV2
  kSub,      // Sub
  kMul,      // Mul
  kDiv,      // RealDiv
  kNeg,      // Neg
  kSquare,   // Square
  kSigmoid,  // Sigmoid
  kTanh,     // Tanh
  kExp,      // Exp
};

// The step that the float32 TensorFlow op `op` is; false for an op outside
// the vocabulary. Also the optimizer's test of which nodes it may fuse.
bool ElementwiseOpFromName(absl::string_view op, ElementwiseOp* out);
bool IsUnaryElementwiseOp(ElementwiseOp op);
// The TensorFlow op name of a step, for messages ("Add" for kAdd).
const char* ElementwiseOpName(ElementwiseOp op);

struct ElementwiseStep {
  ElementwiseOp op;
  int a = 0;   // register of the first (or only) operand
  int b = -1;  // register of the second operand; -1 for a unary op
};

struct ElementwiseProgram {
  int num_inputs = 0;
  std::vector<ElementwiseStep> steps;
  std::vector<int> results;  // the register of each output
  // Per input, its (offset, width) on the last axis; (0, -1) for the whole
  // input. Always 2 * num_inputs entries.
  std::vector<int64_t> slices;
};

// The program a node's attrs (N, num_outputs, ops, operands, results,
// slices) describe, checked: known ops, each operand an input or an earlier
// step, each result a step, one result per output, slices with offset >= 0
// and width >= 0 (or (0, -1)). InvalidArgument otherwise,
// naming the attr and the step.
Status ReadElementwiseProgram(const AttrMap& attrs,
                              ElementwiseProgram* program);

}  // namespace weft

#endif  // WEFT_OPS_FUSED_ELEMENTWISE_OPS_H_
