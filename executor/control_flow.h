// Functional control flow: If / StatelessIf, Case / StatelessCase and
// While / StatelessWhile (ops/functional_ops.cc) run as kernels over
// prepared sub-plans of their function attrs.
//
// When the session creates such a node's kernel (once per prepared
// signature, never in Run), each function the node names is instantiated as
// a graph of its own (graph/function_library.h: FunctionBodyGraph, nodes
// named "<node>/<role>/<body node>", role one of cond, body, then, else,
// branch<i>), shape-inferred from what the node knows of its inputs (the
// outer graph's shapes for If and Case, `output_shapes` for While, the shape
// invariants TensorFlow writes there), and prepared by a session of its own
// that shares the outer session's threads and options, so that the optimizer
// folds and fuses inside bodies, and loops and conds nest. A run calls the
// prepared bodies with the run's RunOptions: a loop checks cancellation and
// the deadline before every iteration, and stops with an error naming the
// loop at SessionOptions::max_loop_iterations.
//
// A While runs one graph per iteration: cond alone before the first, then
// the step (graph/function_library.h: LoopStepGraph), the body followed by
// cond on its results, which also decides whether the next iteration runs.
//
// A While's loop variable that is a session constant (a Const of the outer
// graph, after folding) and that the body passes through unchanged, such as
// the weights a Keras RNN's loop captures, is the same tensor in every
// iteration: cond and the step are prepared a second time with it as a
// Const node, so that the optimizer folds and fuses through it and the
// products pack it once instead of in every iteration. A run whose inputs
// are those constants takes that pair; a signature that feeds one of the
// Consts takes the pair prepared with every input fed. That pair may also
// have a third form whose body reads its input projection from a list made
// before the loop (executor/loop_input_projection.h), which runs take when
// the steps have few rows; and on the CPU, where the loop is a Keras LSTM
// layer's, the whole recurrence as one kernel (executor/lstm_loop.h),
// which runs take before either. If and Case branches take their inputs as
// fed.
//
// The executor runs these kernels through ControlFlowKernel::Run (a plan
// node of step PlanStep::kControlFlow), so graphs without control flow pay
// nothing for it.
#ifndef WEFT_EXECUTOR_CONTROL_FLOW_H_
#define WEFT_EXECUTOR_CONTROL_FLOW_H_

#include <cstdint>
#include <memory>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "graph/graph.h"
#include "kernels/op_kernel.h"

namespace weft {

// What a control-flow kernel needs from the session that creates it.
struct ControlFlowOptions {
  // The graph whose library holds the functions; kept alive by the kernel.
  std::shared_ptr<const Graph> library_owner;
  // Options for the sessions that prepare the bodies: the outer session's,
  // with `arena` set to its arena (or threads 0 when it has none).
  SessionOptions session_options;
};

// If, StatelessIf, Case, StatelessCase, While, StatelessWhile.
bool IsControlFlowOp(absl::string_view op);

class ControlFlowKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  // One execution with the run's cancellation token and deadline.
  // Thread-safe, like Compute.
  virtual Status Run(absl::Span<const Tensor* const> inputs,
                     absl::Span<Tensor> outputs,
                     const RunOptions& options) const = 0;
  // Run with default RunOptions (no deadline), for callers outside a plan.
  void Compute(OpKernelContext* ctx) const override;
};

// The kernel of control-flow node `node` of `graph` (whose output shapes
// give the bodies' input shapes). Errors name the node and the function.
StatusOr<std::unique_ptr<OpKernel>> CreateControlFlowKernel(
    const Graph& graph, const Node& node, Device* device,
    const ControlFlowOptions& options);

}  // namespace weft

#endif  // WEFT_EXECUTOR_CONTROL_FLOW_H_
