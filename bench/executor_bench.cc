// Executor overhead: the fixed cost of Session::Run and the per-node cost of
// scheduling trivial (Identity) nodes in chains and wide fan-outs, at
// threads 0 (the caller's thread), 1 and 2.
//
//   build/bench/weft_executor_bench --benchmark_counters_tabular=true
//
// "ns_per_node" divides the run time by the node count; the per-node cost is
// the slope between sizes, which RESULTS.md works out.
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
             const std::vector<std::string>& targets) {
  Fixture f;
  auto def = ParseTextGraphDef(text, "bench");
  auto graph = ImportGraphDef(*def, ImportOptions());
  if (!graph.ok()) std::abort();
  if (!InferShapes(graph->get(), ShapeInferenceOptions()).ok()) std::abort();
  SessionOptions options;
  options.threads = threads;
  auto session = Session::Create(
      std::shared_ptr<const Graph>(std::move(*graph)), options);
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
  Fixture f = Make(Chain(1, &fetches), static_cast<int>(state.range(0)),
                   fetches, {});
  RunLoop(state, f, 1);
}
BENCHMARK(BM_RunOneNode)->ArgName("threads")->Arg(0)->Arg(1)->Arg(2);

void BM_Chain(benchmark::State& state) {
  std::vector<std::string> fetches;
  const int n = static_cast<int>(state.range(0));
  Fixture f = Make(Chain(n, &fetches), static_cast<int>(state.range(1)),
                   fetches, {});
  RunLoop(state, f, n);
}
BENCHMARK(BM_Chain)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {0, 1, 2}});

void BM_FanOut(benchmark::State& state) {
  std::vector<std::string> targets;
  const int n = static_cast<int>(state.range(0));
  Fixture f = Make(FanOut(n, &targets), static_cast<int>(state.range(1)), {},
                   targets);
  RunLoop(state, f, n + 1);
}
BENCHMARK(BM_FanOut)
    ->ArgNames({"nodes", "threads"})
    ->ArgsProduct({{10, 100, 1000, 10000}, {0, 1, 2}});

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
