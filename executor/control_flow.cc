#include "executor/control_flow.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/tensor_list.h"
#include "core/variant.h"
#include "executor/loop_input_projection.h"
#include "executor/lstm_loop.h"
#include "graph/function_library.h"
#include "graph/function_shapes.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"

namespace weft {
namespace {

// One function of a control-flow node, prepared: a session over its body
// graph and the callable for (arguments) -> (results).
class PreparedFunction {
 public:
  // The function as a graph of its own (FunctionBodyGraph), for Create.
  static StatusOr<FunctionGraph> Instantiate(
      const Node& node, absl::string_view role, const NameAttrList& f,
      const std::vector<PartialTensorShape>& input_shapes,
      const ControlFlowOptions& options) {
    auto body = FunctionBodyGraph(options.library_owner->library(), f,
                                  absl::StrCat(node.name(), "/", role, "/"),
                                  input_shapes, OpRegistry::Global());
    if (!body.ok()) {
      return AddContext(body.status(), Where(node, role, f, options));
    }
    return body;
  }

  // `role` names the function in messages and node names ("body", "then").
  // `constants` is empty or has one entry per flat input: the session
  // constant that input is in every call, or no tensor (IsInitialized
  // false) for an input fed by the call. A constant input becomes a Const
  // node of the prepared graph, so that the optimizer folds and fuses
  // through it and kernels prepare it once (packed weights) rather than in
  // every call; the call then passes only the other inputs.
  static StatusOr<std::unique_ptr<PreparedFunction>> Create(
      const Node& node, absl::string_view role, const NameAttrList& f,
      FunctionGraph body, const std::vector<Tensor>& constants,
      const ControlFlowOptions& options) {
    const std::string where = Where(node, role, f, options);
    auto out = std::unique_ptr<PreparedFunction>(new PreparedFunction());
    std::vector<std::string> feeds;
    for (size_t i = 0; i < body.feeds.size(); ++i) {
      if (i >= constants.size() || !constants[i].IsInitialized()) {
        feeds.push_back(body.feeds[i]);
        out->fed_inputs_.push_back(static_cast<int>(i));
        continue;
      }
      for (NodeDef& n : body.graph_def.node) {
        if (n.name != body.feeds[i]) continue;
        n.op = "Const";
        n.attr.clear();
        n.attr["dtype"] = AttrValue::Type(constants[i].dtype());
        n.attr["value"] = AttrValue::TensorValue(constants[i]);
        break;
      }
    }
    ImportOptions import_options;
    import_options.source_name = options.session_options.source_name;
    auto graph = ImportGraphDef(std::move(body.graph_def), import_options);
    if (!graph.ok()) return AddContext(graph.status(), where);
    ShapeInferenceOptions shape_options;
    shape_options.source_name = options.session_options.source_name;
    WEFT_RETURN_IF_ERROR_CTX(InferShapes(graph->get(), shape_options), where);

    SessionOptions session_options = options.session_options;
    session_options.fetches.clear();
    session_options.feeds.clear();
    session_options.targets.clear();
    auto session = Session::Create(
        std::shared_ptr<const Graph>(*std::move(graph)), session_options);
    if (!session.ok()) return AddContext(session.status(), where);
    out->session_ = *std::move(session);
    auto callable = out->session_->Prepare(feeds, body.fetches, body.targets);
    if (!callable.ok()) return AddContext(callable.status(), where);
    out->callable_ = *std::move(callable);
    return out;
  }

  // `fed` holds the fed inputs when some are constants: the caller's, so
  // that a loop reuses its storage from one iteration to the next.
  Status Call(const std::vector<Tensor>& args, std::vector<Tensor>* fed,
              std::vector<Tensor>* results, const RunOptions& options) const {
    if (fed_inputs_.size() == args.size()) {
      return session_->Run(*callable_, args, results, options);
    }
    fed->clear();
    for (int i : fed_inputs_) fed->push_back(args[i]);
    return session_->Run(*callable_, *fed, results, options);
  }

  // Call for a caller that gives `args` up (left moved-from): what the
  // function's nodes read once they may write in place
  // (Session::RunTakingFeeds). A loop's step takes its variables this way,
  // as the iteration's values replace them anyway.
  Status CallTaking(std::vector<Tensor>* args, std::vector<Tensor>* fed,
                    std::vector<Tensor>* results,
                    const RunOptions& options) const {
    if (fed_inputs_.size() == args->size()) {
      return session_->RunTakingFeeds(*callable_, args, results, options);
    }
    fed->clear();
    for (int i : fed_inputs_) fed->push_back(std::move((*args)[i]));
    return session_->RunTakingFeeds(*callable_, fed, results, options);
  }

 private:
  PreparedFunction() = default;
  static std::string Where(const Node& node, absl::string_view role,
                           const NameAttrList& f,
                           const ControlFlowOptions& options) {
    return absl::StrCat(options.session_options.source_name, ": node ",
                        node.DebugName(), ": ", role, " function '", f.name,
                        "'");
  }
  std::vector<int> fed_inputs_;  // the inputs the callable takes, in order
  std::unique_ptr<Session> session_;
  std::shared_ptr<const Callable> callable_;
};

std::string TypeList(const std::vector<DataType>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    absl::StrAppend(&out, i ? ", " : "", DataTypeName(types[i]));
  }
  return absl::StrCat("[", out, "]");
}

// TensorFlow's truth value of a predicate: a scalar is true when it is not
// zero (or, for strings, not empty); any other tensor when it has elements.
StatusOr<bool> ToBool(const Tensor& t) {
  if (t.dims() > 0) return t.NumElements() > 0;
  switch (t.dtype()) {
    case DT_BOOL:
      return *t.data<bool>();
    case DT_FLOAT:
      return *t.data<float>() != 0.0f;
    case DT_DOUBLE:
      return *t.data<double>() != 0.0;
    case DT_HALF:
    case DT_BFLOAT16: {
      uint16_t bits;
      std::memcpy(&bits, t.raw_data(), sizeof(bits));
      return (bits & 0x7fff) != 0;  // +0 and -0 are false
    }
    default:
      break;
  }
  if (!DataTypeIsInteger(t.dtype())) {
    return errors::InvalidArgument("a predicate of dtype ",
                                   DataTypeName(t.dtype()),
                                   " has no truth value");
  }
  const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
  for (size_t i = 0; i < DataTypeSize(t.dtype()); ++i) {
    if (bytes[i] != 0) return true;
  }
  return false;
}

// The shapes the outer graph knows for inputs [first, num_inputs) of `node`.
std::vector<PartialTensorShape> InputShapes(const Graph& graph,
                                            const Node& node, int first) {
  std::vector<PartialTensorShape> shapes;
  for (int i = first; i < node.num_inputs(); ++i) {
    shapes.push_back(
        graph.output_shape(node.input(i).node, node.input(i).index));
  }
  return shapes;
}

Status CheckSignature(const Node& node, absl::string_view role,
                      const NameAttrList& f, const FunctionGraph& fn,
                      const std::vector<DataType>& inputs,
                      const std::vector<DataType>& outputs,
                      absl::string_view source) {
  if (fn.input_types != inputs || fn.output_types != outputs) {
    return errors::InvalidArgument(
        source, ": node ", node.DebugName(), ": ", role, " function '", f.name,
        "' maps ", TypeList(fn.input_types), " to ", TypeList(fn.output_types),
        "; the node needs ", TypeList(inputs), " to ", TypeList(outputs));
  }
  return Status();
}

std::vector<Tensor> Gather(absl::Span<const Tensor* const> inputs,
                           size_t first) {
  std::vector<Tensor> out;
  out.reserve(inputs.size() - first);
  for (size_t i = first; i < inputs.size(); ++i) out.push_back(*inputs[i]);
  return out;
}

Status MoveResults(std::vector<Tensor>* results, absl::Span<Tensor> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i] = std::move((*results)[i]);
  }
  return Status();
}

// If, StatelessIf, Case, StatelessCase: input 0 picks a branch, which maps
// the other inputs to the outputs.
class BranchKernel : public ControlFlowKernel {
 public:
  BranchKernel(OpKernelConstruction* ctx, bool is_case,
               std::vector<std::unique_ptr<PreparedFunction>> branches)
      : ControlFlowKernel(ctx),
        is_case_(is_case),
        branches_(std::move(branches)) {}

  Status Run(absl::Span<const Tensor* const> inputs, absl::Span<Tensor> outputs,
             const RunOptions& options) const override {
    size_t branch = 0;
    const Tensor& selector = *inputs[0];
    if (is_case_) {
      if (selector.dims() != 0) {
        return errors::InvalidArgument(
            node_label(), ": branch_index must be a scalar, got shape ",
            selector.shape().DebugString());
      }
      // Out of range picks the last branch, as in TensorFlow.
      const int32_t index = *selector.data<int32_t>();
      branch = index < 0 || static_cast<size_t>(index) >= branches_.size()
                   ? branches_.size() - 1
                   : static_cast<size_t>(index);
    } else {
      auto cond = ToBool(selector);
      if (!cond.ok()) return AddContext(cond.status(), node_label());
      branch = *cond ? 0 : 1;
    }
    std::vector<Tensor> fed, results;
    Status s =
        branches_[branch]->Call(Gather(inputs, 1), &fed, &results, options);
    if (!s.ok()) return AddContext(s, node_label());
    return MoveResults(&results, outputs);
  }

 private:
  const bool is_case_;
  // If: then, else. Case: the branches in order.
  std::vector<std::unique_ptr<PreparedFunction>> branches_;
};

// While, StatelessWhile: the loop variables start as the inputs; while cond
// holds, body maps them to their next values.
//
// An iteration is one run: cond alone decides whether the first iteration
// runs, and then each runs the step (LoopStepGraph): the body and cond on
// its results, which decides whether the next one runs. A run costs its
// setup whatever its size, and cond is a few small nodes.
//
// A loop variable that is a session constant and that the body passes
// through unchanged (the weights an RNN's loop captures) is the same
// constant in every iteration: cond and body are prepared a second time
// with it as a Const node (PreparedFunction::Create), and a run whose
// inputs are those constants takes that pair. A run of a signature that
// feeds one of the Consts takes the pair prepared with every input fed.
class WhileKernel : public ControlFlowKernel {
 public:
  struct Functions {
    std::unique_ptr<PreparedFunction> cond;
    std::unique_ptr<PreparedFunction> step;  // body, then cond
  };
  // The step of `with_constants` with its body's input projection made
  // before the loop (executor/loop_input_projection.h), and the prologue
  // that makes it from loop variable `list_input`.
  struct Projection {
    int list_input = -1;
    int64_t features = 0;  // LoopInputProjection::features
    std::unique_ptr<PreparedFunction> prologue;
    std::unique_ptr<PreparedFunction> step;
  };
  // `constants` has one entry per input: the constant that `with_constants`
  // was prepared with, or no tensor (IsInitialized false) where that input
  // is fed. `with_constants` is empty when no input is such a constant;
  // `projection` is empty when it is, or when its body has no projection;
  // `lstm` null unless with_constants is an LSTM's recurrence
  // (executor/lstm_loop.h).
  WhileKernel(OpKernelConstruction* ctx, Functions fed,
              Functions with_constants, std::vector<Tensor> constants,
              Projection projection, std::unique_ptr<LstmLoop> lstm,
              int64_t max_iterations)
      : ControlFlowKernel(ctx),
        cond_prefix_(absl::StrCat(name(), "/cond/")),
        fed_(std::move(fed)),
        with_constants_(std::move(with_constants)),
        constants_(std::move(constants)),
        projection_(std::move(projection)),
        lstm_(std::move(lstm)),
        parallel_([device = ctx->device()](
                      int64_t n, int64_t cost,
                      const std::function<void(int64_t, int64_t)>& fn) {
          device->ParallelFor(n, cost, fn);
        }),
        max_iterations_(max_iterations) {}

  Status Run(absl::Span<const Tensor* const> inputs, absl::Span<Tensor> outputs,
             const RunOptions& options) const override {
    const bool constant = InputsAreTheConstants(inputs);
    if (constant && lstm_ != nullptr) {
      // Inputs it does not run (see lstm_loop.h) run the loop below.
      std::vector<Tensor> results;
      Status s;
      if (lstm_->Run(inputs, parallel_, options, max_iterations_, node_label(),
                     &results, &s)) {
        if (!s.ok()) return s;
        return MoveResults(&results, outputs);
      }
    }
    const Functions& f = constant ? with_constants_ : fed_;
    const bool has_deadline =
        options.deadline != std::chrono::steady_clock::time_point::max();
    std::vector<Tensor> vars = Gather(inputs, 0);
    std::vector<Tensor> next, pred, fed;
    const PreparedFunction* step = f.step.get();
    if (constant && projection_.step != nullptr &&
        WorthProjecting(vars[projection_.list_input])) {
      // A list that does not project (see loop_input_projection.h) runs
      // the loop as it is, which gives the graph's results or errors.
      const int list = projection_.list_input;
      if (projection_.prologue->Call({vars[list]}, &fed, &next, options).ok()) {
        vars[list] = std::move(next[0]);
        step = projection_.step.get();
      }
    }
    for (int64_t iteration = 0;; ++iteration) {
      if (options.cancellation != nullptr &&
          options.cancellation->IsCancelled()) {
        return absl::CancelledError(absl::StrCat("run cancelled in loop ",
                                                 node_label(), " at iteration ",
                                                 iteration));
      }
      if (has_deadline &&
          std::chrono::steady_clock::now() >= options.deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat("run deadline exceeded in loop ", node_label(),
                         " at iteration ", iteration));
      }
      if (iteration == 0) {
        Status s = f.cond->Call(vars, &fed, &pred, options);
        if (!s.ok()) {
          return AddContext(s,
                            absl::StrCat(node_label(), ": iteration 0: cond"));
        }
      }
      auto holds = ToBool(pred[0]);
      if (!holds.ok()) {
        return AddContext(holds.status(),
                          absl::StrCat(node_label(), ": cond's result"));
      }
      if (!*holds) break;
      if (max_iterations_ > 0 && iteration >= max_iterations_) {
        return errors::ResourceExhausted(
            "loop ", node_label(), " did not end after ", max_iterations_,
            " iterations (SessionOptions.max_loop_iterations)");
      }
      // The step's results replace the variables, which it may therefore
      // overwrite (a list it appends to, a state it updates).
      Status s = step->CallTaking(&vars, &fed, &next, options);
      if (!s.ok()) {
        // A node of the step's cond part is the next iteration's cond.
        const bool in_cond = absl::StrContains(s.message(), cond_prefix_);
        return AddContext(s, absl::StrCat(node_label(), ": iteration ",
                                          iteration + (in_cond ? 1 : 0),
                                          in_cond ? ": cond" : ": body"));
      }
      pred[0] = std::move(next.back());
      next.pop_back();
      vars.swap(next);
    }
    // The body passed the list through: its value out is the one that came
    // in, not the projected one.
    if (step == projection_.step.get()) {
      vars[projection_.list_input] = *inputs[projection_.list_input];
    }
    return MoveResults(&vars, outputs);
  }

 private:
  // Whether the projection pays for a list: its steps have few rows for
  // their features. The per-step product then reads all of W for those few
  // rows, which the projection saves; with more rows that read is shared
  // by them, and writing and splitting the projected sequence costs about
  // as much (bench/RESULTS.md section 52: an LSTM(128) over 32 features
  // took 0.88 of the time at batch 1 with the projection, 1.03 at batch 8).
  bool WorthProjecting(const Tensor& list) const {
    constexpr int64_t kMinFeaturesPerRow = 8;
    if (list.dtype() != DT_VARIANT || list.dims() != 0) return false;
    const TensorList* l = VariantElements(list)[0].get<TensorList>();
    if (l == nullptr || l->tensors.empty()) return false;
    const Tensor& step = l->tensors[0];
    return step.IsInitialized() && step.dims() == 2 &&
           step.dim_size(0) * kMinFeaturesPerRow <= projection_.features;
  }

  // Whether `with_constants_` serves these inputs: it exists and each input
  // it took as a constant is that constant (a pointer and shape compare).
  bool InputsAreTheConstants(absl::Span<const Tensor* const> inputs) const {
    if (with_constants_.step == nullptr) return false;
    for (size_t i = 0; i < constants_.size(); ++i) {
      if (constants_[i].IsInitialized() &&
          !ConstantInputMatches(*inputs[i], constants_[i])) {
        return false;
      }
    }
    return true;
  }

  // "<node>/cond/": names the nodes of a step that belong to cond.
  const std::string cond_prefix_;
  const Functions fed_;
  const Functions with_constants_;
  const std::vector<Tensor> constants_;
  const Projection projection_;
  const std::unique_ptr<LstmLoop> lstm_;
  // The device's threads, for the LSTM's products.
  const ParallelForFn parallel_;
  const int64_t max_iterations_;
};

StatusOr<NameAttrList> FuncAttr(const Node& node, absl::string_view name,
                                absl::string_view source) {
  NameAttrList f;
  Status s = GetNodeAttr(node.attrs(), name, &f);
  if (!s.ok()) {
    return AddContext(s, absl::StrCat(source, ": node ", node.DebugName()));
  }
  return f;
}

// The loop's input projection (executor/loop_input_projection.h), prepared;
// empty when the body has none, when WEFT_LOOP_INPUT_PROJECTION=0, or when
// preparing it fails (the loop then runs as it is: the projection is only a
// faster way to the same values).
WhileKernel::Projection PrepareProjection(
    const Node& node, const NameAttrList& body_f, const FunctionGraph& cond,
    const FunctionGraph& body, const std::vector<bool>& through,
    const std::vector<Tensor>& constants, const ControlFlowOptions& options) {
  WhileKernel::Projection out;
  const char* env = std::getenv("WEFT_LOOP_INPUT_PROJECTION");
  if (env != nullptr && std::strcmp(env, "0") == 0) return out;
  LoopInputProjection found;
  if (!FindLoopInputProjection(cond, body, through, constants,
                               absl::StrCat(node.name(), "/projection/"),
                               &found)) {
    return out;
  }
  auto prologue = PreparedFunction::Create(
      node, "input projection", body_f, std::move(found.prologue), {}, options);
  auto projected = PreparedFunction::Create(node, "body", body_f,
                                            LoopStepGraph(found.body, cond),
                                            constants, options);
  if (!prologue.ok() || !projected.ok()) return out;
  out.list_input = found.list_input;
  out.features = found.features;
  out.prologue = *std::move(prologue);
  out.step = *std::move(projected);
  return out;
}

// The loop's recurrence as an LSTM's (executor/lstm_loop.h) on the CPU;
// null when it is none or when WEFT_LSTM_LOOP=0 (which A/B measurements
// and the tests' comparison with the loop's own nodes use).
std::unique_ptr<LstmLoop> FindLstm(const FunctionGraph& cond,
                                   const FunctionGraph& body,
                                   const std::vector<bool>& through,
                                   const std::vector<Tensor>& constants,
                                   const Device& device) {
  const char* env = std::getenv("WEFT_LSTM_LOOP");
  if ((env != nullptr && std::strcmp(env, "0") == 0) ||
      device.device_type() != DEVICE_CPU) {
    return nullptr;
  }
  return LstmLoop::Find(cond, body, through, constants);
}

}  // namespace

bool IsControlFlowOp(absl::string_view op) {
  return IsFunctionalControlFlowOp(op);
}

void ControlFlowKernel::Compute(OpKernelContext* ctx) const {
  std::vector<const Tensor*> inputs;
  for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(&ctx->input(i));
  std::vector<Tensor> outputs(ctx->num_outputs());
  Status s = Run(inputs, absl::MakeSpan(outputs), RunOptions());
  if (!s.ok()) {
    ctx->SetStatus(s);
    return;
  }
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    ctx->set_output(i, std::move(outputs[i]));
  }
}

StatusOr<std::unique_ptr<OpKernel>> CreateControlFlowKernel(
    const Graph& graph, const Node& node, Device* device,
    const ControlFlowOptions& options) {
  const std::string& source = options.session_options.source_name;
  OpKernelConstruction construction(device, node.def(), node.op_def(),
                                    node.types(), nullptr);
  const std::vector<DataType>& in = node.types().input_types;
  const std::vector<DataType>& out = node.types().output_types;
  const absl::string_view op = node.op();
  if (op == "While" || op == "StatelessWhile") {
    WEFT_ASSIGN_OR_RETURN(NameAttrList cond_f, FuncAttr(node, "cond", source));
    WEFT_ASSIGN_OR_RETURN(NameAttrList body_f, FuncAttr(node, "body", source));
    // The bodies see the loop variables with the shapes every iteration
    // keeps: the node's inferred output shapes, which shape inference
    // derives from the inputs' and the body's (graph/function_shapes.h)
    // and intersects with output_shapes. A loop raised from TF1 control
    // flow declares none; its bodies then still know ranks and dimensions,
    // so that their element-wise and scalar nodes fuse.
    std::vector<PartialTensorShape> shapes(in.size());
    if (node.num_outputs() == static_cast<int>(in.size())) {
      for (size_t i = 0; i < in.size(); ++i) {
        shapes[i] = graph.output_shape(&node, static_cast<int>(i));
      }
    }
    WEFT_ASSIGN_OR_RETURN(
        FunctionGraph cond_graph,
        PreparedFunction::Instantiate(node, "cond", cond_f, shapes, options));
    WEFT_ASSIGN_OR_RETURN(
        FunctionGraph body_graph,
        PreparedFunction::Instantiate(node, "body", body_f, shapes, options));
    if (cond_graph.input_types != in || cond_graph.output_types.size() != 1) {
      return errors::InvalidArgument(
          source, ": node ", node.DebugName(), ": cond function '", cond_f.name,
          "' maps ", TypeList(cond_graph.input_types), " to ",
          TypeList(cond_graph.output_types), "; the loop needs ", TypeList(in),
          " to one predicate");
    }
    WEFT_RETURN_IF_ERROR(
        CheckSignature(node, "body", body_f, body_graph, in, out, source));
    // The loop variables that stay a session constant in every iteration.
    const std::vector<bool> through = PassedThroughInputs(body_graph);
    std::vector<Tensor> constants(in.size());
    bool any_constant = false;
    for (size_t i = 0; i < in.size() && i < through.size(); ++i) {
      const Tensor* c = construction.constant_input(static_cast<int>(i));
      if (c != nullptr && through[i] && c->dtype() == in[i] &&
          DataTypeIsPod(in[i])) {
        constants[i] = *c;
        any_constant = true;
      }
    }
    WhileKernel::Functions fed, with_constants;
    WhileKernel::Projection projection;
    std::unique_ptr<LstmLoop> lstm;
    FunctionGraph step_graph = LoopStepGraph(body_graph, cond_graph);
    if (any_constant) {
      WEFT_ASSIGN_OR_RETURN(
          with_constants.cond,
          PreparedFunction::Create(node, "cond", cond_f, cond_graph, constants,
                                   options));
      WEFT_ASSIGN_OR_RETURN(
          with_constants.step,
          PreparedFunction::Create(node, "body", body_f, step_graph, constants,
                                   options));
      projection = PrepareProjection(node, body_f, cond_graph, body_graph,
                                     through, constants, options);
      lstm = FindLstm(cond_graph, body_graph, through, constants, *device);
    }
    WEFT_ASSIGN_OR_RETURN(
        fed.cond, PreparedFunction::Create(node, "cond", cond_f,
                                           std::move(cond_graph), {}, options));
    WEFT_ASSIGN_OR_RETURN(
        fed.step, PreparedFunction::Create(node, "body", body_f,
                                           std::move(step_graph), {}, options));
    return std::unique_ptr<OpKernel>(new WhileKernel(
        &construction, std::move(fed), std::move(with_constants),
        std::move(constants), std::move(projection), std::move(lstm),
        options.session_options.max_loop_iterations));
  }
  std::vector<NameAttrList> fs;
  std::vector<std::string> roles;
  const bool is_case = op == "Case" || op == "StatelessCase";
  if (is_case) {
    auto it = node.attrs().find("branches");
    if (it != node.attrs().end()) fs = it->second.list->func;
    for (size_t i = 0; i < fs.size(); ++i) {
      roles.push_back(absl::StrCat("branch", i));
    }
  } else if (op == "If" || op == "StatelessIf") {
    WEFT_ASSIGN_OR_RETURN(NameAttrList then_f,
                          FuncAttr(node, "then_branch", source));
    WEFT_ASSIGN_OR_RETURN(NameAttrList else_f,
                          FuncAttr(node, "else_branch", source));
    fs = {then_f, else_f};
    roles = {"then", "else"};
  } else {
    return errors::InvalidArgument(source, ": node ", node.DebugName(),
                                   " is no control-flow op");
  }
  if (fs.empty()) {
    return errors::InvalidArgument(source, ": node ", node.DebugName(),
                                   ": attr 'branches' is empty");
  }
  const std::vector<PartialTensorShape> shapes = InputShapes(graph, node, 1);
  const std::vector<DataType> branch_in(in.begin() + 1, in.end());
  std::vector<std::unique_ptr<PreparedFunction>> branches;
  for (size_t i = 0; i < fs.size(); ++i) {
    WEFT_ASSIGN_OR_RETURN(
        FunctionGraph graph,
        PreparedFunction::Instantiate(node, roles[i], fs[i], shapes, options));
    WEFT_RETURN_IF_ERROR(
        CheckSignature(node, roles[i], fs[i], graph, branch_in, out, source));
    WEFT_ASSIGN_OR_RETURN(
        auto fn, PreparedFunction::Create(node, roles[i], fs[i],
                                          std::move(graph), {}, options));
    branches.push_back(std::move(fn));
  }
  return std::unique_ptr<OpKernel>(
      new BranchKernel(&construction, is_case, std::move(branches)));
}

}  // namespace weft
