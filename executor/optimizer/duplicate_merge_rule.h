// Common subexpression elimination: a node that computes what an earlier
// node computes (the same op, attrs and data inputs, read through earlier
// merges, on the same device) is merged into it (RewriteContext::
// MergeDuplicate): its readers read the earlier node, and it is not run.
// NASNet's cells apply the same Relu, AvgPool or MaxPool to one input once
// per branch (76 such nodes in NASNetMobile, ONNX Runtime merges them too).
//
// Only nodes whose value is their inputs' function: not stateful, not fed
// or fetched, with no control edges (an order the graph asks for), at
// least one data input (two input-less nodes in two loop frames are not
// one value), no resource or variant outputs (handles to state), and not a
// frame or call op (Enter, Switch, Merge, If, PartitionedCall and the
// like). Runs first, so that the rules after it count the merged readers.
#ifndef WEFT_EXECUTOR_OPTIMIZER_DUPLICATE_MERGE_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_DUPLICATE_MERGE_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class DuplicateMergeRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "duplicate_merge"; }
  // Visits each node, comparing it with the earlier readers of its first
  // data input.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_DUPLICATE_MERGE_RULE_H_
