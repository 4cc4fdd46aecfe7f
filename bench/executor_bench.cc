// Executor overhead: the fixed cost of Session::Run and the per-node cost of
// scheduling trivial (Identity) nodes in chains and wide fan-outs, at
// threads 0 (the caller's thread), 1 and 2; and the per-node cost of a small
// real kernel (BM_AddChain: AddV2 on 1-element float tensors), where the
// kernel's own set-up (broadcast analysis, output allocation or forwarding,
// ParallelFor) adds to the scheduling.
//
//   build/bench/weft_executor_bench --benchmark_counters_tabular=true
//
// "ns_per_node" divides the run time by the node count; the per-node cost is
// the slope between sizes, which RESULTS.md works out. These graphs run
// without the optimizer, which would read through the Identity nodes and
// fuse the AddV2 chain (bench/RESULTS.md section 52): they measure what each
// node that does run costs. BM_ImportGraph and
// BM_CreateSession time session creation for 1k to 100k nodes; BM_WhileLoop
// the cost of one While iteration ("ns_per_iteration").
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/tensor_types.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"

namespace weft {
namespace {

std::string PlaceholderX() {
  return "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" "
         "value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { "
         "dim { size: 1 } } } } }\n";
}

std::string IdentityNode(const std::string& name, const std::string& input) {
  return "node { name: \"" + name + "\" op: \"Identity\" input: \"" + input +
         "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
}

// A chain x -> n0 -> n1 -> ... -> n{N-1}; fetch the last.
std::string Chain(int n, std::vector<std::string>* fetches) {
  std::string text = PlaceholderX();
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    text += IdentityNode(name, prev);
    prev = name;
  }
  fetches->push_back(prev);
  return text;
}

// A chain of N AddV2 nodes on 1-element floats, x_{i+1} = AddV2(x_i, c)
// with c one [1] float constant; fetch the last. Nothing folds (x is fed).
std::string AddChain(int n, std::vector<std::string>* fetches) {
  std::string text = PlaceholderX();
  text +=
      "node { name: \"c\" op: \"Const\" attr { key: \"dtype\" value { type: "
      "DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
      "tensor_shape { dim { size: 1 } } float_val: 0.5 } } } }\n";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = "a" + std::to_string(i);
    text += "node { name: \"" + name + "\" op: \"AddV2\" input: \"" + prev +
            "\" input: \"c\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
    prev = name;
  }
  fetches->push_back(prev);
  return text;
}

// x feeds N independent nodes; a NoOp waits for all of them through control
// edges and is the target, so every node runs and nothing is copied out.
std::string FanOut(int n, std::vector<std::string>* targets) {
  std::string text = PlaceholderX();
  std::string join = "node { name: \"join\" op: \"NoOp\" ";
  for (int i = 0; i < n; ++i) {
    std::string name = "n" + std::to_string(i);
    text += IdentityNode(name, "x");
    join += "input: \"^" + name + "\" ";
  }
  text += join + "}\n";
  targets->push_back("join");
  return text;
}

struct Fixture {
  std::unique_ptr<Session> session;
  std::shared_ptr<const Callable> callable;
  std::vector<Tensor> feeds;
};

Fixture Make(const std::string& text, int threads,
             const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, bool optimize = false) {
  Fixture f;
  auto def = ParseTextGraphDef(text, "bench");
  auto graph = ImportGraphDef(*def, ImportOptions());
  if (!graph.ok()) std::abort();
  if (!InferShapes(graph->get(), ShapeInferenceOptions()).ok()) std::abort();
  SessionOptions options;
  options.threads = threads;
  options.optimize = optimize;
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*graph)), options);
  if (!session.ok()) std::abort();
  f.session = std::move(*session);
  auto callable = f.session->Prepare({"x"}, fetches, targets);
  if (!callable.ok()) std::abort();
  f.callable = *callable;
  Tensor x(DT_FLOAT, TensorShape({1}));
  x.flat<float>()(0) = 1;
  f.feeds.push_back(x);
  return f;
}

void RunLoop(benchmark::State& state, Fixture& f, int nodes) {
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    Status s = f.session->Run(*f.callable, f.feeds, &outputs);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
    benchmark::DoNotOptimize(outputs);
  }
  state.counters["nodes"] = nodes;
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(nodes) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_RunOneNode(benchmark::State& state) {
  std::vector<std::string> fetches;
  Fixture f =
      Make(Chain(1, &fetches), static_cast<int>(state.range(0)), fetches, {});
  RunLoop(state, f, 1);
}
BENCHMARK(BM_RunOneNode)->ArgName("threads")->Arg(0)->Arg(1)->Arg(2);

void BM_Chain(benchmark::State& state) {
  std::vector<std::string> fetches;
  const int n = static_cast<int>(state.range(0));
  Fixture f =
      Make(Chain(n, &fetches), static_cast<int>(state.range(1)), fetches, {});
  RunLoop(state, f, n);
}
BENCHMARK(BM_Chain)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {0, 1, 2}});

void BM_AddChain(benchmark::State& state) {
  std::vector<std::string> fetches;
  const int n = static_cast<int>(state.range(0));
  Fixture f = Make(AddChain(n, &fetches), static_cast<int>(state.range(1)),
                   fetches, {});
  RunLoop(state, f, n);
}
BENCHMARK(BM_AddChain)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {0, 1, 2}});

void BM_FanOut(benchmark::State& state) {
  std::vector<std::string> targets;
  const int n = static_cast<int>(state.range(0));
  Fixture f =
      Make(FanOut(n, &targets), static_cast<int>(state.range(1)), {}, targets);
  RunLoop(state, f, n + 1);
}
BENCHMARK(BM_FanOut)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {0, 1, 2}});

// A While loop of N iterations whose body is one AddV2 on an int32 counter
// and one Identity on x: "ns_per_iteration" is the run time divided by N,
// the cost of one iteration's run of the prepared step (the body and the
// next iteration's cond), optimized as a session would.
std::string CountingLoop(int n) {
  std::string text = PlaceholderX();
  text +=
      "node { name: \"zero\" op: \"Const\" attr { key: \"dtype\" value { type: "
      "DT_INT32 } } attr { key: \"value\" value { tensor { dtype: DT_INT32 "
      "tensor_shape {} int_val: 0 } } } }\n"
      "node { name: \"loop\" op: \"While\" input: \"zero\" input: \"x\" "
      "attr { key: \"T\" value { list { type: DT_INT32 type: DT_FLOAT } } } "
      "attr { key: \"cond\" value { func { name: \"below\" } } } "
      "attr { key: \"body\" value { func { name: \"step\" } } } }\n"
      "library {\n"
      "function { signature { name: \"below\" input_arg { name: \"i\" type: "
      "DT_INT32 } input_arg { name: \"v\" type: DT_FLOAT } output_arg { name: "
      "\"ok\" type: DT_BOOL } }\n"
      "  node_def { name: \"n\" op: \"Const\" attr { key: \"dtype\" value { "
      "type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: "
      "DT_INT32 tensor_shape {} int_val: " +
      std::to_string(n) +
      " } } } }\n"
      "  node_def { name: \"less\" op: \"Less\" input: \"i\" input: "
      "\"n:output:0\" attr { key: \"T\" value { type: DT_INT32 } } }\n"
      "  ret { key: \"ok\" value: \"less:z:0\" } }\n"
      "function { signature { name: \"step\" input_arg { name: \"i\" type: "
      "DT_INT32 } input_arg { name: \"v\" type: DT_FLOAT } output_arg { name: "
      "\"j\" type: DT_INT32 } output_arg { name: \"w\" type: DT_FLOAT } }\n"
      "  node_def { name: \"one\" op: \"Const\" attr { key: \"dtype\" value { "
      "type: DT_INT32 } } attr { key: \"value\" value { tensor { dtype: "
      "DT_INT32 tensor_shape {} int_val: 1 } } } }\n"
      "  node_def { name: \"add\" op: \"AddV2\" input: \"i\" input: "
      "\"one:output:0\" attr { key: \"T\" value { type: DT_INT32 } } }\n"
      "  node_def { name: \"id\" op: \"Identity\" input: \"v\" attr { key: "
      "\"T\" value { type: DT_FLOAT } } }\n"
      "  ret { key: \"j\" value: \"add:z:0\" } ret { key: \"w\" value: "
      "\"id:output:0\" } }\n"
      "}\n";
  return text;
}

void BM_WhileLoop(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Fixture f =
      Make(CountingLoop(n), static_cast<int>(state.range(1)), {"loop:1"}, {},
           /*optimize=*/true);
  std::vector<Tensor> outputs;
  for (auto _ : state) {
    Status s = f.session->Run(*f.callable, f.feeds, &outputs);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
    benchmark::DoNotOptimize(outputs);
  }
  state.counters["ns_per_iteration"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WhileLoop)
    ->ArgNames({"iterations", "threads"})
    ->ArgsProduct({{1, 100, 10000}, {0, 1, 2}});

// Session creation for chains of 1k, 10k and 100k nodes, in two parts:
// building the graph (GraphDef import, validation against the op registry,
// shape inference) and making a session that can run it (Session::Create and
// preparing the callable: pruning, placement, kernel construction, plan).
// "ns_per_node" is the time divided by the node count.
void BM_ImportGraph(benchmark::State& state) {
  std::vector<std::string> fetches;
  const int n = static_cast<int>(state.range(0));
  auto def = ParseTextGraphDef(Chain(n, &fetches), "bench");
  if (!def.ok()) std::abort();
  for (auto _ : state) {
    auto graph = ImportGraphDef(*def, ImportOptions());
    if (!graph.ok()) std::abort();
    if (!InferShapes(graph->get(), ShapeInferenceOptions()).ok()) std::abort();
    benchmark::DoNotOptimize(graph);
  }
  state.counters["nodes"] = n + 1;
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n + 1) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ImportGraph)
    ->ArgName("nodes")
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

void BM_CreateSession(benchmark::State& state) {
  std::vector<std::string> fetches;
  const int n = static_cast<int>(state.range(0));
  auto def = ParseTextGraphDef(Chain(n, &fetches), "bench");
  if (!def.ok()) std::abort();
  auto imported = ImportGraphDef(*def, ImportOptions());
  if (!imported.ok()) std::abort();
  if (!InferShapes(imported->get(), ShapeInferenceOptions()).ok()) std::abort();
  std::shared_ptr<const Graph> graph(std::move(*imported));
  SessionOptions options;
  options.threads = static_cast<int>(state.range(1));
  for (auto _ : state) {
    auto session = Session::Create(graph, options);
    if (!session.ok()) std::abort();
    auto callable = (*session)->Prepare({"x"}, fetches, {});
    if (!callable.ok()) std::abort();
    benchmark::DoNotOptimize(callable);
  }
  state.counters["nodes"] = n + 1;
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n + 1) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CreateSession)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{1000, 10000, 100000}, {0, 2}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
