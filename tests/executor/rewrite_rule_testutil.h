// Helpers for the per-rule tests of the graph optimizer
// (tests/executor/*_rule_test.cc): run one rewrite rule alone
// (executor/optimizer/rule_pipeline.h) on a graph written as GraphDef text,
// run the optimized graph it makes, and run the graph as it is, so that the
// expected values always come from the unoptimized graph.
#ifndef WEFT_TESTS_EXECUTOR_REWRITE_RULE_TESTUTIL_H_
#define WEFT_TESTS_EXECUTOR_REWRITE_RULE_TESTUTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/rewrite_rule.h"
#include "graph/graph.h"

namespace weft {
namespace rewrite_rule_test {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Parses `text` (GraphDef text format), imports it and infers its shapes,
// as Session::Create's callers do. Fails the test on an error.
std::shared_ptr<const Graph> GraphFromText(const std::string& text);

// Runs `rule` alone on the signature (the names of `feeds`, `fetches`) as a
// session would: the live nodes are those the fetches need, up to the fed
// ones; folding evaluates on a CPU device, and everything is placed on it.
// Null when the rule rewrote nothing. `cpu` false gives the rule no CPU
// device.
std::shared_ptr<OptimizedGraph> RunRule(const RewriteRule& rule,
                                        const Graph& graph, const Feeds& feeds,
                                        const std::vector<std::string>& fetches,
                                        bool cpu = true);
// The same for `rules` in order (a rule and those it builds on).
std::shared_ptr<OptimizedGraph> RunRules(
    const std::vector<const RewriteRule*>& rules, const Graph& graph,
    const Feeds& feeds, const std::vector<std::string>& fetches,
    bool cpu = true);

// The fetched values of `graph` run as it is (optimizer off).
std::vector<Tensor> RunUnoptimized(std::shared_ptr<const Graph> graph,
                                   const Feeds& feeds,
                                   const std::vector<std::string>& fetches);

// The values of `optimized`'s fetches (OptimizedGraph::fetches()), its graph
// run as it is in a session of its own.
std::vector<Tensor> RunOptimized(std::shared_ptr<OptimizedGraph> optimized,
                                 const Feeds& feeds);

// The node of `optimized` named `name`, or null.
const Node* FindNode(const OptimizedGraph& optimized, const std::string& name);

// The number of nodes of `optimized` whose op is `op`.
int CountOps(const OptimizedGraph& optimized, const std::string& op);

// Same dtype, shape and bytes (a NaN must be the same NaN).
void ExpectSameBits(const Tensor& a, const Tensor& b);

// |a - b| <= tolerance * (1 + |b|) elementwise, for rewrites that round
// differently (a scale folded into a filter).
void ExpectNear(const Tensor& a, const Tensor& b, float tolerance);

// Deterministic floats in [lo, hi) of `shape`.
Tensor Values(const TensorShape& shape, float lo, float hi, unsigned seed);

// A float32 Placeholder `name` of `shape`, as GraphDef text.
std::string FloatPlaceholderText(const std::string& name,
                                 const TensorShape& shape);
// The same with `dims`, -1 for an unknown dimension.
std::string PartialFloatPlaceholderText(const std::string& name,
                                        const std::vector<int64_t>& dims);

// A Const node holding the float32 `value`, as GraphDef text (every value
// printed so that it parses back to the same float).
std::string FloatConstText(const std::string& name, const Tensor& value);

// A float32 scalar Const, as GraphDef text.
std::string FloatScalarText(const std::string& name, float value);

// An int32 Const `name` of `shape` holding `values` (an axis, sizes, slice
// bounds), as GraphDef text.
std::string IntConstText(const std::string& name,
                         const std::vector<int64_t>& shape,
                         const std::vector<int>& values);

// A node `name` of `op` reading `inputs`, with T = DT_FLOAT and the attrs
// in `attrs` (GraphDef text of `attr { ... }` entries), as GraphDef text.
std::string FloatOpText(const std::string& name, const std::string& op,
                        const std::vector<std::string>& inputs,
                        const std::string& attrs = "");

}  // namespace rewrite_rule_test
}  // namespace weft

#endif  // WEFT_TESTS_EXECUTOR_REWRITE_RULE_TESTUTIL_H_
