// A loop's input projection, computed once before the loop instead of once
// per iteration.
//
// A Keras RNN runs as a While whose body reads step t of the input sequence
// from a TensorList (TensorListGetItem of a loop variable the body passes
// through unchanged) and multiplies it by the cell's input kernel, a
// constant: x_t * W, a product of a few rows at every step. All those
// products can be one product of the whole sequence, [steps * batch,
// features] x W, made before the first iteration; each iteration then reads
// its rows of the result from a list instead. ONNX Runtime's LSTM and GRU
// do the same. At batch 1 the per-step product reads all of W for one row
// of output, so this removes a pass over W from every iteration as well as
// a node.
//
// What qualifies: a TensorList loop variable of float elements that the
// body passes through, that cond does not read, and that the body reads
// only with one TensorListGetItem whose element goes only to input 0 of a
// float MatMul (not transpose_a) whose input 1 is a constant matrix (a Const,
// or a loop variable that is a session constant, through Identity nodes).
//
// The rewritten body reads the MatMul's value with a TensorListGetItem of
// the projected list, at the same index, under the MatMul's name. The
// prologue graph maps the list to the projected list: TensorListStack,
// BatchMatMulV2 with W (rows of all steps in one product), and
// TensorListFromTensor. A loop whose list does not stack (elements of
// different shapes, an empty list of unknown element shape) fails the
// prologue; the caller then runs the loop as it is, so its results and
// errors are the graph's.
#ifndef WEFT_EXECUTOR_LOOP_INPUT_PROJECTION_H_
#define WEFT_EXECUTOR_LOOP_INPUT_PROJECTION_H_

#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/tensor.h"
#include "graph/function_library.h"

namespace weft {

struct LoopInputProjection {
  // The loop variable that holds the list.
  int list_input = -1;
  // The product's inner dimension: the features of a step's rows.
  int64_t features = 0;
  // The body with the product read from the projected list.
  FunctionGraph body;
  // One input, the list; one output, the projected list. Nodes named
  // `prefix` + name.
  FunctionGraph prologue;
};

// Finds the projection in a While's `body` (whose `cond` must not read the
// list). `passed_through` is PassedThroughInputs(body); `constants` has, per
// loop variable, the session constant it always is, or no tensor. False
// when there is none.
bool FindLoopInputProjection(const FunctionGraph& cond,
                             const FunctionGraph& body,
                             const std::vector<bool>& passed_through,
                             const std::vector<Tensor>& constants,
                             absl::string_view prefix,
                             LoopInputProjection* out);

}  // namespace weft

#endif  // WEFT_EXECUTOR_LOOP_INPUT_PROJECTION_H_
