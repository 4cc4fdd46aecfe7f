// A Keras LSTM layer's While loop run as one recurrence
// (kernels/cpu/lstm_recurrence.h) instead of one graph per iteration.
//
// Each iteration of such a loop runs a dozen small nodes (two products,
// an addition, a split, four activations, the cell's arithmetic, a list
// write and two counters); at batch 1 the run's own work around them cost
// about as much as the recurrent product (bench/RESULTS.md section 56).
// ONNX Runtime's LSTM node and TensorFlow's BlockLSTM run the recurrence as
// one kernel; this recognizes the loop Keras writes and does the same.
//
// What qualifies, exactly (anything else runs as the graph says):
// - body: every node a Placeholder, Const, Identity, NoOp, MatMul, Add,
//   AddV2, BiasAdd, Split, Sigmoid, Tanh, Mul, SelectV2, Tile,
//   TensorListGetItem or TensorListSetItem, and each result one of
//     * the loop variable itself (passed through);
//     * a counter: an int32 loop variable plus a Const;
//     * h: Mul(Sigmoid(z:3), Tanh(c)), where z = Split(1 or -1, 4 ways) of
//       BiasAdd or Add of b to Add(MatMul(TensorListGetItem(L, t), W),
//       MatMul(h_prev, U)), or that Add itself (no bias), h_prev the loop
//       variable h itself;
//     * c: Add(Mul(Sigmoid(z:1), c_prev), Mul(Sigmoid(z:0), Tanh(z:2))),
//       c_prev the loop variable c itself;
//     * a list: TensorListSetItem(the loop variable, i, h), i a Const or
//       an int32 loop variable;
//   or, for an LSTM masked by an Embedding(mask_zero=True) or a Masking
//   layer, the same with h, c and what the list gets each a SelectV2 on
//   one mask, item t of a list of [batch, 1] bools passed through (tiled
//   by [1, 1] or [1, units], or not at all): SelectV2(m, h, h_prev),
//   SelectV2(m, c, c_prev), and SelectV2(m, h, y) for the list and for a
//   loop variable holding the last output (if there is one), y that
//   variable itself (carried on) or a variable passed through (zeros);
//   with the operands of Add, AddV2 and Mul in either order, float
//   products without transposes, L a list passed through, t a counter
//   that grows, and W [features, 4 units], U [units, 4 units], b [4 units]
//   float Consts of the body or session constants (the loop variables a
//   WhileKernel prepares as constants);
// - cond: Less of two int32 operands (a loop variable that is a counter or
//   passed through, or a Const scalar), or LogicalAnd of such conditions,
//   through Identity nodes.
// That is the body keras.layers.LSTM writes in Keras 3 and in tf.keras 2,
// masked or not (default activations, a bias or none, no dropout at
// inference; return_sequences writes h at t, without it at a Const index;
// go_backwards reverses the sequence before the loop).
#ifndef WEFT_EXECUTOR_LSTM_LOOP_H_
#define WEFT_EXECUTOR_LSTM_LOOP_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "graph/function_library.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {

class LstmLoop {
 public:
  ~LstmLoop();

  // The recurrence of a While whose functions are `cond` and `body`, or
  // null when the loop is not exactly the one above. `passed_through` is
  // PassedThroughInputs(body); `constants` has, per loop variable, the
  // session constant it always is, or no tensor.
  static std::unique_ptr<LstmLoop> Find(const FunctionGraph& cond,
                                        const FunctionGraph& body,
                                        const std::vector<bool>& passed_through,
                                        const std::vector<Tensor>& constants);

  // Runs the loop on the While's `inputs` (with the constants Find was
  // given) into `results`, one per loop variable. False, with nothing
  // written, where the inputs are not what it runs: no iteration at all, a
  // list item that is not set or not of the shape [batch, features], an
  // index the graph's list ops would reject, h or c not [batch, units],
  // more than `max_iterations` iterations (when > 0). The caller then runs
  // the loop as the graph says, which gives its results and errors.
  // Otherwise true, and *status is OK or says that the run was cancelled
  // or passed its deadline (checked between chunks of steps); `label`
  // names the loop there.
  bool Run(absl::Span<const Tensor* const> inputs,
           const ParallelForFn& parallel, const RunOptions& options,
           int64_t max_iterations, absl::string_view label,
           std::vector<Tensor>* results, Status* status) const;

  struct Roles;

 private:
  explicit LstmLoop(std::unique_ptr<Roles> roles);
  std::unique_ptr<Roles> roles_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_LSTM_LOOP_H_
