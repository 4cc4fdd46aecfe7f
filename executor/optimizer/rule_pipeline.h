// The rule list OptimizeGraph runs, and running any list of rules: the
// seam tests use to exercise one rule alone
// (tests/executor/*_rule_test.cc).
//
// The order, fixed:
//  1. constant_folding (constant_folding_rule.h): first, so that every
//     later rule sees computed weights and amounts as constants.
//  2. atrous_conv (atrous_conv_rule.h): a SpaceToBatchND -> convolution ->
//     BatchToSpaceND made one dilated convolution, before the rules below
//     take it as an ordinary one.
//  3. pad_folding (pad_folding_rule.h): before fusion, which keeps the
//     convolution's new padding when it fuses the convolution.
//  4. filter_crop (filter_crop_rule.h): after pad folding (it skips a
//     convolution already patched) and before fusion, which fuses the
//     cropped filter and padding.
//  5. dense_bias (dense_bias_rule.h): before fusion, so that fusion does
//     not take the product it starts from (it would stop at the Reshape).
//  6. fusion (fusion_rule.h): conv / matmul + bias / scale / batch norm +
//     activation.
//  7. swish (swish_rule.h): after fusion, so that a Mul fusion absorbed as
//     a per-channel scale is not also taken for a swish.
//  8. gelu (gelu_rule.h) and 9. layer_norm (layer_norm_rule.h): element-wise
//     patterns after the products they read, which may be fused nodes.
// Each rule is one pass over the whole graph in topological order; names
// the rules hand out depend on this order, so it must not change without
// a reason (the optimized graph's node names appear in traces).
#ifndef WEFT_EXECUTOR_OPTIMIZER_RULE_PIPELINE_H_
#define WEFT_EXECUTOR_OPTIMIZER_RULE_PIPELINE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/rewrite_rule.h"
#include "graph/graph.h"

namespace weft {

// The rules above, in that order.
std::vector<std::unique_ptr<RewriteRule>> DefaultRewriteRules();

// OptimizeGraph with `rules` (run in the order given) instead of the
// default list. Returns null when no rule rewrote anything.
StatusOr<std::unique_ptr<OptimizedGraph>> OptimizeGraphWithRules(
    const Graph& graph, const std::vector<const Node*>& live,
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const GraphOptimizerOptions& options,
    const std::vector<const RewriteRule*>& rules);

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_RULE_PIPELINE_H_
