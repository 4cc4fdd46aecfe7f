#include "executor/optimizer/rule_pipeline.h"

#include "executor/optimizer/atrous_conv_rule.h"
#include "executor/optimizer/constant_folding_rule.h"
#include "executor/optimizer/dense_bias_rule.h"
#include "executor/optimizer/duplicate_merge_rule.h"
#include "executor/optimizer/elementwise_fusion_rule.h"
#include "executor/optimizer/filter_crop_rule.h"
#include "executor/optimizer/fusion_rule.h"
#include "executor/optimizer/gelu_rule.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/layer_norm_rule.h"
#include "executor/optimizer/pad_folding_rule.h"
#include "executor/optimizer/pass_through_rule.h"
#include "executor/optimizer/rewrite_context.h"
#include "executor/optimizer/scalar_fusion_rule.h"
#include "executor/optimizer/swish_rule.h"

namespace weft {

std::vector<std::unique_ptr<RewriteRule>> DefaultRewriteRules() {
  std::vector<std::unique_ptr<RewriteRule>> rules;
  rules.push_back(std::make_unique<DuplicateMergeRule>());
  rules.push_back(std::make_unique<ConstantFoldingRule>());
  rules.push_back(std::make_unique<AtrousConvRule>());
  rules.push_back(std::make_unique<PadFoldingRule>());
  rules.push_back(std::make_unique<FilterCropRule>());
  rules.push_back(std::make_unique<DenseBiasRule>());
  rules.push_back(std::make_unique<FusionRule>());
  rules.push_back(std::make_unique<SwishRule>());
  rules.push_back(std::make_unique<GeluRule>());
  rules.push_back(std::make_unique<LayerNormRule>());
  // Last: it takes the element-wise nodes no pattern above claimed.
  rules.push_back(std::make_unique<ElementwiseFusionRule>());
  rules.push_back(std::make_unique<ScalarFusionRule>());
  // After every rule that reads a node's consumers: an Identity it reads
  // through still counts as a reader of its input until the end.
  rules.push_back(std::make_unique<PassThroughRule>());
  return rules;
}

StatusOr<std::unique_ptr<OptimizedGraph>> OptimizeGraphWithRules(
    const Graph& graph, const std::vector<const Node*>& live,
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const GraphOptimizerOptions& options,
    const std::vector<const RewriteRule*>& rules) {
  RewriteContext context(graph, options);
  WEFT_RETURN_IF_ERROR(context.MarkSignature(live, feeds, fetches, targets));
  for (const RewriteRule* rule : rules) {
    for (int id : context.order()) rule->Visit(graph.node(id), &context);
  }
  // Nothing to rewrite (a chain of Identity nodes, a graph without
  // constants or convolutions): building a copy of the graph, a second plan
  // and a second set of kernels would only make Prepare slower.
  const GraphOptimizerStats& stats = context.stats();
  if (stats.folded == 0 && stats.fused == 0 && stats.folded_pads == 0 &&
      stats.cropped_filters == 0 && stats.merged_duplicates == 0 &&
      stats.atrous_convs == 0 && stats.passed_through == 0) {
    return std::unique_ptr<OptimizedGraph>();
  }
  GraphRebuilder rebuilder(&context);
  return rebuilder.Build(fetches, targets);
}

}  // namespace weft
