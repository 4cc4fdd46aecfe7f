// Graph optimization for one prepared signature (feeds, fetches, targets):
// the session runs it once per Session::Prepare, never in Run. It rewrites
// the nodes the signature needs into a new Graph that the plan is built
// from, leaving the session's graph untouched.
//
// The rewrites are rules, one file each under executor/optimizer/, run in
// this fixed order (executor/optimizer/rule_pipeline.h), each a pass over
// the whole graph that sees what the rules before it recorded:
//
//  0. Duplicate merge (duplicate_merge_rule.h). A node equal to an earlier
//     one (op, attrs, inputs, device; not stateful, fed or fetched, no
//     control edges) is merged into it: its readers read the earlier node
//     (NASNet's cells repeat one Relu per branch). The rules after it count
//     the merged readers as the earlier node's.
//
//  1. Constant folding (constant_folding_rule.h). A node whose data inputs
//     are all constants (Consts, or nodes folded before it), that is not
//     stateful, not a placeholder and not fed, is evaluated once with its
//     CPU kernel and becomes a Const of the same name (output i > 0 becomes
//     a Const of its own). Results larger than
//     GraphOptimizerOptions::max_folded_bytes stay computed at run time. A
//     node whose kernel is missing or fails is left as it is, so the run
//     reports exactly what it would have without the optimizer.
//
//  2. Pad folding, before fusion (pad_folding_rule.h). A Pad (or PadV2 of
//     float zeros) of constant, non-negative amounts on H and W only, whose
//     output only feeds input 0 of a CPU Conv2D or DepthwiseConv2dNative
//     with padding VALID or EXPLICIT and is neither fed nor fetched, is
//     removed: the convolution reads the Pad's input with padding EXPLICIT
//     and the amounts (added to its own) as explicit_paddings. Keras emits
//     such Pads before its stride-2 convolutions. Results are the same,
//     except that padded zeros no longer turn an infinite or NaN filter tap
//     into NaN at the border.
//
//  3. Fusion, float32 only (fusion_rule.h). A Conv2D, DepthwiseConv2dNative
//     or MatMul (NHWC for the convolutions) followed by a chain of
//     per-channel affine nodes with constant operands, BiasAdd, Add/AddV2,
//     Sub, Mul and inference-mode FusedBatchNormV3, and then optionally
//     Relu, Relu6, Elu, LeakyRelu, a swish (below) or Keras' hard swish
//     (x * (Relu6(x + 3) / 6), bit-identical), becomes one
//     _FusedConv2D / _FusedDepthwiseConv2dNative / _FusedMatMul
//     (ops/nn_fused_ops.cc); a Mul by a constant per channel heads such a
//     chain as a 1x1 depthwise convolution (a batch normalization standing
//     alone: DenseNet's). Multiplications (the batch-norm scale) are
//     folded into a new constant filter, so they need a constant filter;
//     additions become the bias. Every intermediate tensor of the chain must
//     have exactly one consumer and be neither fed nor fetched (a swish's x
//     goes to two nodes of it), and nodes in it must carry no control edges.
//     An IdentityN's inputs whose outputs nobody reads do not count as
//     consumers (Keras' custom-gradient activations write them); the
//     optimized graph's IdentityN keeps only its read outputs.
//
//  4. Swish (swish_rule.h). x * Sigmoid(beta * x), beta a constant float
//     scalar, or x * Sigmoid(x), on the CPU, not absorbed by fusion (x also
//     goes elsewhere), becomes one _Swish node whose results are
//     bit-identical to the nodes'.
//
//  5. GELU (gelu_rule.h). The nodes tf.nn.gelu writes for x * Phi(x),
//     exact (Erfc or Erf) or tanh-approximated, on the CPU become one
//     _Gelu node, which evaluates the function within a few float ulps
//     (not the nodes' bits).
//
//  6. Layer normalization (layer_norm_rule.h). The nodes Keras'
//     LayerNormalization writes over the last axis (the moments, Rsqrt,
//     the scale and shift by constant gamma and beta) on the CPU become one
//     _LayerNorm node, within the nodes' rounding (its sums run in another
//     order).
//
// A fused node is named after what it replaces, "<first node>+<op>+<op>"
// ("conv1/Conv2D+BiasAdd+Relu"), so that traces map back to the original
// graph; its `_weft_fused_nodes` attr lists the original node names. A
// fetch or target naming the chain's last node is redirected to it.
#ifndef WEFT_EXECUTOR_GRAPH_OPTIMIZER_H_
#define WEFT_EXECUTOR_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/plan.h"
#include "graph/graph.h"

namespace weft {

class Device;
class OpKernel;

// The attr on a fused node listing the original nodes it replaces.
inline constexpr char kFusedNodesAttr[] = "_weft_fused_nodes";

struct GraphOptimizerOptions {
  // Prefixes errors, usually the graph file's path.
  std::string source_name = "graph";
  // Where folded nodes are evaluated: the session's CPU device.
  Device* cpu = nullptr;
  // The session's placement for a node of the optimized graph. Fusion only
  // rewrites nodes placed on a CPU device, the only one with fused kernels.
  std::function<Device*(const Node*)> place;
  // Makes the kernels of the optimized graph's nodes (the session's
  // factory, which also makes control-flow kernels); null for the kernel
  // registry.
  std::function<StatusOr<std::unique_ptr<OpKernel>>(const Graph&, const Node*,
                                                    Device*)>
      create_kernel;
  // The largest folded result kept, over all outputs of a node. 16 MiB is
  // twice the largest weight matrix of the models weft is tested on
  // (ResNet50's 2048 x 1000 classifier, 8 MiB), so transformations of
  // weights (Identity, Reshape, Transpose, Cast of a Const) always fold;
  // what it stops is a small constant expanded into a large one (Fill, Tile,
  // BroadcastTo, OneHot of constants), which would trade a cheap run-time
  // op for resident memory per prepared signature.
  int64_t max_folded_bytes = int64_t{16} << 20;
};

struct GraphOptimizerStats {
  int nodes_before = 0;     // nodes the signature ran before optimizing
  int folded = 0;           // nodes replaced by constants
  int fused = 0;            // fused nodes made
  int fused_away = 0;       // nodes absorbed into them
  int folded_pads = 0;      // Pads folded into convolutions' padding
  int cropped_filters = 0;  // convolution filters cut to the taps that read
                            // the input (executor/optimizer/filter_crop_rule.h)
  int merged_duplicates = 0;  // nodes equal to an earlier one, merged into it
                              // (RewriteContext::Canonical)
  int atrous_convs = 0;       // SpaceToBatchND -> convolution -> BatchToSpaceND
                              // made one dilated convolution
                              // (executor/optimizer/atrous_conv_rule.h)
  int passed_through = 0;     // Identity-like nodes read through
                              // (executor/optimizer/pass_through_rule.h)
};

// The optimized graph of one signature and what a plan needs from it: the
// kernels of its nodes (made on first use, like the session's) and its
// constants. Owned by the plan built from it.
class OptimizedGraph : public PlanResources {
 public:
  OptimizedGraph(std::unique_ptr<Graph> graph,
                 std::function<Device*(const Node*)> place,
                 std::function<StatusOr<std::unique_ptr<OpKernel>>(
                     const Graph&, const Node*, Device*)>
                     create_kernel = nullptr);
  ~OptimizedGraph() override;

  const Graph& graph() const { return *graph_; }
  // The signature's fetches and targets spelled for the optimized graph
  // (a fused chain's last node becomes the fused node).
  const std::vector<std::string>& fetches() const { return fetches_; }
  const std::vector<std::string>& targets() const { return targets_; }
  const GraphOptimizerStats& stats() const { return stats_; }

  Status GetKernel(const Node* node, const OpKernel** kernel,
                   Device** device) override;
  const Tensor* ConstValue(const Node* node) const override;

 private:
  // Fills the private members below (executor/optimizer/graph_rebuilder.h).
  friend class GraphRebuilder;
  std::unique_ptr<Graph> graph_;
  std::function<Device*(const Node*)> place_;
  std::function<StatusOr<std::unique_ptr<OpKernel>>(const Graph&, const Node*,
                                                    Device*)>
      create_kernel_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  // By node id; GraphRebuilder fills it.
  std::vector<const Tensor*> const_values_;
  std::vector<std::string> fetches_;
  std::vector<std::string> targets_;
  GraphOptimizerStats stats_;
};

// The fusion rule's vocabulary (defined in executor/optimizer/fusion_rule.cc,
// with the rule), also read by `weft ops --used-by`
// (tools/ops_to_register.cc), which must predict what this optimizer makes:
// a head (Conv2D, DepthwiseConv2dNative, MatMul) becomes FusedOpName(head)
// when a chain of IsFusionLink ops (bias and per-channel scale adds and
// multiplies, FusedBatchNormV3, an activation) follows it.
bool IsFusionHead(absl::string_view op);
std::string FusedOpName(absl::string_view head_op);
bool IsFusionLink(absl::string_view op);
// The dense bias rule's (executor/optimizer/dense_bias_rule.cc): a
// product of these ops (MatMul, BatchMatMul*) followed by a Reshape or a
// bias node may become a _FusedMatMul between Reshapes.
bool IsDenseBiasProduct(absl::string_view op);
// The element-wise fusion rule's (executor/optimizer/
// elementwise_fusion_rule.cc): nodes of these ops, one reading another, may
// become a _FusedElementwise.
bool IsElementwiseFusionOp(absl::string_view op);
// The scalar fusion rule's (executor/optimizer/scalar_fusion_rule.cc):
// integer and boolean scalar nodes of these ops, one reading another, may
// become a _FusedScalars.
bool IsScalarFusionOp(absl::string_view op);

// Optimizes what `live` (the nodes a plan for the signature runs, ids of
// `graph`) computes. Feeds, fetches and targets must already be valid for
// `graph` (BuildPlan has checked them). Errors name the source and the node.
// Returns null when no rule applies: the graph as given is what should run.
StatusOr<std::unique_ptr<OptimizedGraph>> OptimizeGraph(
    const Graph& graph, const std::vector<const Node*>& live,
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const GraphOptimizerOptions& options);

}  // namespace weft

#endif  // WEFT_EXECUTOR_GRAPH_OPTIMIZER_H_
