#include "executor/graph_optimizer.h"

#include <utility>

#include "executor/optimizer/rule_pipeline.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

// The rules themselves, the context they share and the rebuilding of the
// optimized graph are under executor/optimizer/ (rule_pipeline.h lists
// them in order); the fusion vocabulary is defined with its rule
// (executor/optimizer/fusion_rule.cc).
namespace weft {

OptimizedGraph::OptimizedGraph(
    std::unique_ptr<Graph> graph, std::function<Device*(const Node*)> place,
    std::function<StatusOr<std::unique_ptr<OpKernel>>(const Graph&, const Node*,
                                                      Device*)>
        create_kernel)
    : graph_(std::move(graph)),
      place_(std::move(place)),
      create_kernel_(std::move(create_kernel)) {
  kernels_.resize(graph_->num_nodes());
}

OptimizedGraph::~OptimizedGraph() = default;

Status OptimizedGraph::GetKernel(const Node* node, const OpKernel** kernel,
                                 Device** device) {
  // BuildPlan asks once per node, on the preparing thread; the kernels are
  // this signature's own, so no lock is needed.
  Device* placed = place_(node);
  std::unique_ptr<OpKernel>& slot = kernels_[node->id()];
  if (slot == nullptr && create_kernel_ != nullptr) {
    WEFT_ASSIGN_OR_RETURN(slot, create_kernel_(*graph_, node, placed));
  } else if (slot == nullptr) {
    WEFT_ASSIGN_OR_RETURN(
        slot, KernelRegistry::Global()->CreateKernel(
                  node->def(), node->op_def(), node->types(), placed));
  }
  *kernel = slot.get();
  *device = placed;
  return Status();
}

const Tensor* OptimizedGraph::ConstValue(const Node* node) const {
  return const_values_[node->id()];
}

StatusOr<std::unique_ptr<OptimizedGraph>> OptimizeGraph(
    const Graph& graph, const std::vector<const Node*>& live,
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const GraphOptimizerOptions& options) {
  const std::vector<std::unique_ptr<RewriteRule>> rules = DefaultRewriteRules();
  std::vector<const RewriteRule*> order;
  for (const auto& rule : rules) order.push_back(rule.get());
  return OptimizeGraphWithRules(graph, live, feeds, fetches, targets, options,
                                order);
}

}  // namespace weft
