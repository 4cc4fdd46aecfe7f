// The contract of one graph-optimizer rewrite (executor/graph_optimizer.h).
//
// A rule looks at the nodes of the session's graph one at a time, in
// topological order, and records what it rewrites in the RewriteContext
// that all rules of one OptimizeGraph call share: a folded constant, a node
// absorbed into another, a node replaced by a fused one. Rules never edit
// the graph; after the last rule, GraphRebuilder (graph_rebuilder.h) writes
// the optimized graph from what they recorded. A rule therefore sees the
// rewrites of the rules before it (through the context's marks and
// constant values) and of the nodes before the current one, and nothing
// else: each rule is one full pass over the graph, in the fixed order of
// DefaultRewriteRules (rule_pipeline.h).
//
// A new rewrite is a new rule file under executor/optimizer/ plus a line in
// DefaultRewriteRules; its op-name vocabulary stays in its own file.
#ifndef WEFT_EXECUTOR_OPTIMIZER_REWRITE_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_REWRITE_RULE_H_

#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace weft {

class RewriteContext;

class RewriteRule {
 public:
  virtual ~RewriteRule() = default;

  // Short and stable, in snake case ("constant_folding"): names the rule in
  // tests and messages.
  virtual absl::string_view name() const = 0;

  // Considers `node`, any node of the graph (the rule checks the context's
  // marks itself: live, kept, fed, protected, already rewritten), and
  // records the rewrite it makes, if any, in `context`. Must not fail: a
  // pattern the rule cannot rewrite safely is left as it is, so that the
  // run reports exactly what it would have without the optimizer.
  virtual void Visit(const Node* node, RewriteContext* context) const = 0;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_REWRITE_RULE_H_
