#include "executor/graph_optimizer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "device/device.h"
#include "executor/const_values.h"
#include "graph/import.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

using EndpointKey = std::pair<int, int>;  // (node id, output index)

bool IsConvHead(const std::string& op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative";
}

bool IsActivation(absl::string_view op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu";
}

std::string StringAttr(const Node* n, absl::string_view name,
                       const std::string& fallback) {
  std::string v;
  return GetNodeAttr(n->attrs(), name, &v).ok() ? v : fallback;
}

// One fused chain: `head` (the product) and the nodes absorbed after it, the
// last of which the fused node stands in for.
struct Fusion {
  const Node* head = nullptr;
  std::vector<const Node*> absorbed;
  // The new filter when a scale was folded into it; else uninitialized and
  // the head's own filter input is used.
  Tensor filter;
  Tensor bias;  // uninitialized: no bias
  std::string activation;
  float alpha = 0.2f;
  std::string name;

  const Node* last() const { return absorbed.back(); }
};

// A Pad folded into the convolution that consumes it: the convolution reads
// the Pad's input with these explicit_paddings (a before/after pair per
// input dimension, in the convolution's data_format order).
struct PadFold {
  const Node* pad = nullptr;
  std::vector<int64_t> paddings;
};

}  // namespace

// Does the work of OptimizeGraph; one instance per call.
class GraphOptimizer {
 public:
  GraphOptimizer(const Graph& graph, const GraphOptimizerOptions& options)
      : g_(graph), options_(options) {}

  StatusOr<std::unique_ptr<OptimizedGraph>> Run(
      const std::vector<const Node*>& live,
      const std::vector<std::string>& feeds,
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

 private:
  Status MarkSignature(const std::vector<const Node*>& live,
                       const std::vector<std::string>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets);
  // Constant folding.
  const Tensor* ConstValueOf(const Node* n, int index) const;
  bool CanFold(const Node* n) const;
  void TryFold(const Node* n);
  // Pad folding.
  void TryFoldPad(const Node* conv);
  void ApplyPadFold(const Node* conv, NodeDef* def) const;
  // Fusion.
  int KeptConsumers(const Node* n, int output) const;
  bool IsChainLink(const Node* n) const;
  bool PerChannel(const Node* n, int input, int64_t channels, int max_rank,
                  std::vector<float>* values) const;
  void TryFuse(const Node* head);
  void TrySwish(const Node* mul);
  bool FoldScaleIntoFilter(const Node* head, const std::vector<float>& scale,
                           int64_t channels, Tensor* filter) const;
  // Rebuilding.
  std::string UniqueName(const std::string& base);
  std::string InputName(const Node* src, int index) const;
  std::string NodeName(const Node* n) const;
  StatusOr<std::unique_ptr<OptimizedGraph>> Emit(
      const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

  const Graph& g_;
  const GraphOptimizerOptions& options_;
  std::vector<int> order_;
  std::vector<char> live_;       // the signature runs it
  std::vector<char> keep_;       // it appears in the optimized graph
  std::vector<char> fed_node_;   // some output is fed
  std::vector<char> protected_;  // some output is fetched, or it is a target
  absl::flat_hash_set<EndpointKey> fed_;
  std::vector<std::vector<Tensor>> folded_;  // per node: its values
  std::vector<std::string> folded_names_;    // per node: output 0 stays
  std::vector<Fusion> fusions_;
  std::vector<int> fusion_head_;  // per node: index into fusions_, or -1
  std::vector<int> fusion_last_;  // per node: index into fusions_, or -1
  std::vector<char> absorbed_;
  absl::flat_hash_map<int, PadFold> pad_folds_;  // by convolution node id
  // x * Sigmoid(beta * x) made one _Swish node, by the Mul's id (TrySwish).
  struct Swish {
    const Node* x;
    int x_index;
    float beta;
  };
  absl::flat_hash_map<int, Swish> swish_;
  absl::flat_hash_set<std::string> taken_names_;
  GraphOptimizerStats stats_;
};

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

Status GraphOptimizer::MarkSignature(const std::vector<const Node*>& live,
                                     const std::vector<std::string>& feeds,
                                     const std::vector<std::string>& fetches,
                                     const std::vector<std::string>& targets) {
  const int n = g_.num_nodes();
  live_.assign(n, 0);
  keep_.assign(n, 0);
  fed_node_.assign(n, 0);
  protected_.assign(n, 0);
  folded_.resize(n);
  folded_names_.resize(n);
  fusion_head_.assign(n, -1);
  fusion_last_.assign(n, -1);
  absorbed_.assign(n, 0);
  for (const Node* node : live) live_[node->id()] = 1;
  stats_.nodes_before = static_cast<int>(live.size());

  auto endpoint = [&](const std::string& name) -> StatusOr<EndpointKey> {
    WEFT_ASSIGN_OR_RETURN(ParsedInput parsed, ParseNodeInput(name));
    const Node* node = g_.FindNode(parsed.node);
    if (node == nullptr) {
      return errors::Internal("optimizer: no node named '", parsed.node, "'");
    }
    return EndpointKey{node->id(), parsed.index};
  };
  std::vector<int> stack;
  for (const std::string& f : feeds) {
    WEFT_ASSIGN_OR_RETURN(EndpointKey k, endpoint(f));
    fed_.insert(k);
    fed_node_[k.first] = 1;
    // A feed names its node even when no fetch needs it.
    stack.push_back(k.first);
  }
  for (const std::string& f : fetches) {
    WEFT_ASSIGN_OR_RETURN(EndpointKey k, endpoint(f));
    protected_[k.first] = 1;
    stack.push_back(k.first);
  }
  for (const std::string& t : targets) {
    const Node* node = g_.FindNode(t);
    if (node == nullptr) {
      return errors::Internal("optimizer: no node named '", t, "'");
    }
    protected_[node->id()] = 1;
    stack.push_back(node->id());
  }
  // Everything the fetched nodes reach stays, also upstream of feeds and
  // constants: BuildPlan prunes it again, and the optimized graph keeps
  // every name the signature and the kept nodes' inputs refer to.
  for (const Node* node : live) stack.push_back(node->id());
  while (!stack.empty()) {
    const int id = stack.back();
    stack.pop_back();
    if (keep_[id]) continue;
    keep_[id] = 1;
    const Node* node = g_.node(id);
    for (const Endpoint& e : node->inputs()) stack.push_back(e.node->id());
    for (const Node* c : node->control_inputs()) stack.push_back(c->id());
  }
  for (const auto& node : g_.nodes()) taken_names_.insert(node->name());
  return Status();
}

// ---- constant folding -----------------------------------------------------

const Tensor* GraphOptimizer::ConstValueOf(const Node* n, int index) const {
  if (fed_.contains(EndpointKey{n->id(), index})) return nullptr;
  if (!folded_[n->id()].empty()) return &folded_[n->id()][index];
  // A Const with a control input runs after it (const_values.h): folding
  // its consumers would drop that order.
  if (n->op() != "Const" || !n->control_inputs().empty()) return nullptr;
  // Session::Create has rejected bad Consts; one here is not a constant.
  StatusOr<const Tensor*> value = ConstNodeValue(*n, options_.source_name);
  return value.ok() ? *value : nullptr;
}

bool GraphOptimizer::CanFold(const Node* n) const {
  if (!live_[n->id()] || fed_node_[n->id()]) return false;
  if (n->num_inputs() == 0 || n->num_outputs() == 0) return false;
  const std::string& op = n->op();
  // Placeholders may be fed by another signature; stateful ops (variables,
  // random numbers, queues) must run every time.
  if (op == "Const" || op == "Placeholder" || op == "PlaceholderWithDefault" ||
      n->op_def().is_stateful) {
    return false;
  }
  // Variant values (TensorLists) are not folded: they would become
  // constants no graph file can hold, and each run builds its own lists.
  for (int o = 0; o < n->num_outputs(); ++o) {
    if (n->output_type(o) == DT_VARIANT) return false;
  }
  for (int i = 0; i < n->num_inputs(); ++i) {
    if (ConstValueOf(n->input(i).node, n->input(i).index) == nullptr) {
      return false;
    }
  }
  // A control input orders the node after something that runs; only
  // constants (which never run) may be dropped.
  for (const Node* c : n->control_inputs()) {
    const bool runs = c->op() != "Const" || !c->control_inputs().empty();
    if (runs && folded_[c->id()].empty()) return false;
  }
  // Skip evaluating what would be discarded for its size anyway.
  int64_t known_bytes = 0;
  for (int o = 0; o < n->num_outputs(); ++o) {
    const PartialTensorShape& s = g_.output_shape(n, o);
    if (s.unknown_rank() || !s.IsFullyDefined()) continue;
    int64_t elements = 1;
    for (int64_t d : s.dim_sizes()) elements *= d;
    known_bytes +=
        elements * static_cast<int64_t>(DataTypeSize(n->output_type(o)));
  }
  return known_bytes <= options_.max_folded_bytes;
}

void GraphOptimizer::TryFold(const Node* n) {
  if (!CanFold(n)) return;
  // Any failure leaves the node to run: the run then reports it (or the
  // kernel lookup does, when the plan is built) exactly as without folding.
  auto kernel = KernelRegistry::Global()->CreateKernel(
      n->def(), n->op_def(), n->types(), options_.cpu);
  if (!kernel.ok()) return;
  std::vector<const Tensor*> inputs;
  for (int i = 0; i < n->num_inputs(); ++i) {
    inputs.push_back(ConstValueOf(n->input(i).node, n->input(i).index));
  }
  std::vector<Tensor> outputs(n->num_outputs());
  OpKernelContext::Params params;
  params.device = options_.cpu;
  params.kernel = kernel->get();
  params.inputs = inputs;
  params.outputs = absl::MakeSpan(outputs);
  // No input is forwardable: constants are shared with the session's graph.
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  if (!ctx.status().ok()) return;
  int64_t bytes = 0;
  for (int o = 0; o < n->num_outputs(); ++o) {
    if (!outputs[o].IsInitialized() ||
        outputs[o].dtype() != n->output_type(o)) {
      return;
    }
    bytes += static_cast<int64_t>(outputs[o].TotalBytes());
  }
  if (bytes > options_.max_folded_bytes) return;
  folded_[n->id()] = std::move(outputs);
  ++stats_.folded;
}

// ---- pad folding ----------------------------------------------------------

// conv = Conv2D / DepthwiseConv2dNative with padding VALID or EXPLICIT whose
// input is a Pad (or a PadV2 of float zeros) of the H and W dimensions only,
// by constant amounts: the convolution takes the Pad's input and the
// paddings as explicit ones, and the padded copy is never made. The Pad's
// output must go nowhere else (one consumer, not fed or fetched, no control
// edges). The windows sum the same nonzero products in the same order; the
// zeros the Pad contributed only added +-0 to sums that are never -0, so
// results are unchanged, except that a padded zero times an infinite or NaN
// filter value no longer makes a NaN.
void GraphOptimizer::TryFoldPad(const Node* conv) {
  if (!IsConvHead(conv->op()) || !live_[conv->id()] || fed_node_[conv->id()] ||
      !folded_[conv->id()].empty()) {
    return;
  }
  const std::string padding = StringAttr(conv, "padding", "");
  if (padding != "VALID" && padding != "EXPLICIT") return;
  const Node* pad = conv->input(0).node;
  if (conv->input(0).index != 0) return;
  if (pad->op() != "Pad" && pad->op() != "PadV2") return;
  if (!IsChainLink(pad) || protected_[pad->id()] ||
      !pad->control_outputs().empty() || KeptConsumers(pad, 0) != 1) {
    return;
  }
  if (options_.place) {
    for (const Node* n : {conv, pad}) {
      Device* d = options_.place(n);
      if (d == nullptr || d->device_type() != "CPU") return;
    }
  }
  if (pad->op() == "PadV2") {
    const Tensor* value = ConstValueOf(pad->input(2).node, pad->input(2).index);
    if (value == nullptr || value->dtype() != DT_FLOAT ||
        value->NumElements() != 1 || value->data<float>()[0] != 0.0f) {
      return;
    }
  }
  const Tensor* amounts = ConstValueOf(pad->input(1).node, pad->input(1).index);
  if (amounts == nullptr || amounts->dims() != 2 || amounts->dim_size(0) != 4 ||
      amounts->dim_size(1) != 2) {
    return;
  }
  std::vector<int64_t> paddings(8, 0);
  for (int i = 0; i < 8; ++i) {
    if (amounts->dtype() == DT_INT32) {
      paddings[i] = amounts->data<int32_t>()[i];
    } else if (amounts->dtype() == DT_INT64) {
      paddings[i] = amounts->data<int64_t>()[i];
    } else {
      return;
    }
    if (paddings[i] < 0) return;
  }
  const bool nchw = StringAttr(conv, "data_format", "NHWC") == "NCHW";
  const int channel_dim = nchw ? 1 : 3;
  for (int dim : {0, channel_dim}) {
    if (paddings[2 * dim] != 0 || paddings[2 * dim + 1] != 0) return;
  }
  if (padding == "EXPLICIT") {
    std::vector<int64_t> existing;
    if (!GetNodeAttr(conv->attrs(), "explicit_paddings", &existing).ok() ||
        existing.size() != 8) {
      return;
    }
    for (int i = 0; i < 8; ++i) paddings[i] += existing[i];
  }
  absorbed_[pad->id()] = 1;
  pad_folds_[conv->id()] = PadFold{pad, std::move(paddings)};
  ++stats_.folded_pads;
}

// Rewrites `def`, made from `conv`, to read the folded Pad's input with
// explicit paddings.
void GraphOptimizer::ApplyPadFold(const Node* conv, NodeDef* def) const {
  auto it = pad_folds_.find(conv->id());
  if (it == pad_folds_.end()) return;
  const Node* pad = it->second.pad;
  def->input[0] = InputName(pad->input(0).node, pad->input(0).index);
  def->attr["padding"] = AttrValue::String("EXPLICIT");
  def->attr["explicit_paddings"] = AttrValue::IntList(it->second.paddings);
}

// ---- fusion ---------------------------------------------------------------

int GraphOptimizer::KeptConsumers(const Node* n, int output) const {
  int count = 0;
  for (const Endpoint& c : n->consumers(output)) count += keep_[c.node->id()];
  return count;
}

// A node the chain may pass through: it runs, is not fed, fetched or
// targeted, has no control edges, and computes float32.
bool GraphOptimizer::IsChainLink(const Node* n) const {
  const int id = n->id();
  return live_[id] && !fed_node_[id] && folded_[id].empty() &&
         fusion_head_[id] < 0 && !absorbed_[id] &&
         n->control_inputs().empty() && n->num_outputs() >= 1 &&
         n->output_type(0) == DT_FLOAT;
}

// Input `input` of `n` as `channels` floats: a constant of shape [channels],
// or broadcastable to the product's output as one value per channel ([1, 1,
// 1, C] of rank <= max_rank), or a single value for every channel.
bool GraphOptimizer::PerChannel(const Node* n, int input, int64_t channels,
                                int max_rank,
                                std::vector<float>* values) const {
  const Tensor* t = ConstValueOf(n->input(input).node, n->input(input).index);
  if (t == nullptr || t->dtype() != DT_FLOAT || t->dims() > max_rank) {
    return false;
  }
  for (int d = 0; d + 1 < t->dims(); ++d) {
    if (t->dim_size(d) != 1) return false;
  }
  const float* v = t->data<float>();
  if (t->NumElements() == channels &&
      (t->dims() >= 1 && t->dim_size(t->dims() - 1) == channels)) {
    values->assign(v, v + channels);
    return true;
  }
  if (t->NumElements() == 1) {
    values->assign(channels, v[0]);
    return true;
  }
  return false;
}

// The head's filter times `scale` per output channel, into a new tensor.
bool GraphOptimizer::FoldScaleIntoFilter(const Node* head,
                                         const std::vector<float>& scale,
                                         int64_t channels,
                                         Tensor* filter) const {
  const Tensor* w = ConstValueOf(head->input(1).node, head->input(1).index);
  if (w == nullptr || w->dtype() != DT_FLOAT) return false;
  Tensor out(DT_FLOAT, w->shape());
  const float* src = w->data<float>();
  float* dst = out.data<float>();
  const int64_t total = w->NumElements();
  bool transpose_b = false;
  if (head->op() == "MatMul") {
    GetNodeAttr(head->attrs(), "transpose_b", &transpose_b).IgnoreError();
  }
  if (transpose_b) {
    // b is [n, k]: row j scales output column j.
    if (w->dims() != 2 || w->dim_size(0) != channels) return false;
    const int64_t k = w->dim_size(1);
    // Row by row: a division per element cost 8% of loading NASNetMobile.
    for (int64_t j = 0; j < channels; ++j) {
      for (int64_t i = j * k; i < (j + 1) * k; ++i) dst[i] = src[i] * scale[j];
    }
  } else {
    // Conv2D [h, w, in, C], DepthwiseConv2dNative [h, w, in, M] (output
    // channel c * M + m is the flat index over the last two dimensions) and
    // MatMul [k, C]: output channels vary fastest.
    const int64_t inner =
        head->op() == "DepthwiseConv2dNative" && w->dims() == 4
            ? w->dim_size(2) * w->dim_size(3)
            : (w->dims() >= 1 ? w->dim_size(w->dims() - 1) : -1);
    if (inner != channels) return false;
    // Channels innermost, no remainder per element (see above).
    for (int64_t row = 0; row < total; row += channels) {
      for (int64_t c = 0; c < channels; ++c) {
        dst[row + c] = src[row + c] * scale[c];
      }
    }
  }
  *filter = std::move(out);
  return true;
}

void GraphOptimizer::TryFuse(const Node* head) {
  const int hid = head->id();
  const std::string& op = head->op();
  if (!IsFusionHead(op)) return;
  if (!IsChainLink(head) || protected_[hid] || head->num_outputs() != 1) return;
  if (!head->control_outputs().empty()) return;
  if (IsConvHead(op) && StringAttr(head, "data_format", "NHWC") != "NHWC") {
    return;
  }
  if (options_.place) {
    Device* d = options_.place(head);
    if (d == nullptr || d->device_type() != "CPU") return;
  }
  // The number of output channels, from the inferred output shape or the
  // constant filter.
  const int out_rank = op == "MatMul" ? 2 : 4;
  int64_t channels = -1;
  const PartialTensorShape& shape = g_.output_shape(head, 0);
  if (shape.dims() == out_rank && shape.dim_size(out_rank - 1) >= 0) {
    channels = shape.dim_size(out_rank - 1);
  }
  if (channels < 0) return;

  Fusion f;
  f.head = head;
  std::vector<float> scale(channels, 1.0f);
  std::vector<float> bias(channels, 0.0f);
  bool scaled = false;
  bool has_bias = false;
  const Node* cur = head;
  std::vector<float> v;
  while (true) {
    // `cur`'s value must go nowhere else: one consumer, not fetched or fed,
    // no control successors, no other output in use.
    if (protected_[cur->id()] || !cur->control_outputs().empty() ||
        KeptConsumers(cur, 0) != 1) {
      break;
    }
    bool other_outputs_used = false;
    for (int o = 1; o < cur->num_outputs(); ++o) {
      other_outputs_used |= KeptConsumers(cur, o) > 0;
    }
    if (other_outputs_used) break;
    const Node* next = nullptr;
    int slot = -1;
    for (const Endpoint& c : cur->consumers(0)) {
      if (keep_[c.node->id()]) {
        next = c.node;
        slot = c.index;
      }
    }
    if (next == nullptr || !IsChainLink(next)) break;
    const std::string& nop = next->op();
    if (!IsFusionLink(nop)) break;
    if (IsActivation(nop)) {
      f.activation = nop;
      if (nop == "LeakyRelu") {
        GetNodeAttr(next->attrs(), "alpha", &f.alpha).IgnoreError();
      }
      f.absorbed.push_back(next);
      break;
    }
    if (nop == "BiasAdd") {
      if (slot != 0 ||
          (out_rank == 4 &&
           StringAttr(next, "data_format", "NHWC") != "NHWC") ||
          !PerChannel(next, 1, channels, 1, &v)) {
        break;
      }
      for (int64_t c = 0; c < channels; ++c) bias[c] += v[c];
      has_bias = true;
    } else if (nop == "Add" || nop == "AddV2" || nop == "Sub") {
      if (nop == "Sub" && slot != 0) break;
      if (!PerChannel(next, 1 - slot, channels, out_rank, &v)) break;
      const float sign = nop == "Sub" ? -1.0f : 1.0f;
      for (int64_t c = 0; c < channels; ++c) bias[c] += sign * v[c];
      has_bias = true;
    } else if (nop == "Mul") {
      if (!PerChannel(next, 1 - slot, channels, out_rank, &v)) break;
      if (ConstValueOf(head->input(1).node, head->input(1).index) == nullptr) {
        break;
      }
      for (int64_t c = 0; c < channels; ++c) {
        scale[c] *= v[c];
        bias[c] *= v[c];
      }
      scaled = true;
    } else if (nop == "FusedBatchNormV3") {
      // Inference mode after a convolution: y = (x - mean) * factor +
      // offset, factor = rsqrt(variance + epsilon) * scale, as the kernel
      // computes it.
      bool training = true;
      float epsilon = 0;
      GetNodeAttr(next->attrs(), "is_training", &training).IgnoreError();
      GetNodeAttr(next->attrs(), "epsilon", &epsilon).IgnoreError();
      if (slot != 0 || training || out_rank != 4 ||
          StringAttr(next, "data_format", "NHWC") != "NHWC" ||
          next->input_type(1) != DT_FLOAT ||
          ConstValueOf(head->input(1).node, head->input(1).index) == nullptr) {
        break;
      }
      std::vector<float> bn_scale, offset, mean, variance;
      if (!PerChannel(next, 1, channels, 1, &bn_scale) ||
          !PerChannel(next, 2, channels, 1, &offset) ||
          !PerChannel(next, 3, channels, 1, &mean) ||
          !PerChannel(next, 4, channels, 1, &variance)) {
        break;
      }
      bool stats_used = false;
      for (int o = 1; o < next->num_outputs(); ++o) {
        stats_used |= KeptConsumers(next, o) > 0;
      }
      if (stats_used || protected_[next->id()] ||
          !next->control_outputs().empty()) {
        // Its statistics outputs are wanted (or fetched): keep the node.
        break;
      }
      for (int64_t c = 0; c < channels; ++c) {
        const float factor =
            (1.0f / std::sqrt(variance[c] + epsilon)) * bn_scale[c];
        scale[c] *= factor;
        bias[c] = (bias[c] - mean[c]) * factor + offset[c];
      }
      scaled = true;
      has_bias = true;
    } else {
      break;
    }
    f.absorbed.push_back(next);
    cur = next;
  }
  if (f.absorbed.empty()) return;
  if (scaled && !FoldScaleIntoFilter(head, scale, channels, &f.filter)) return;
  if (has_bias) {
    f.bias = Tensor(DT_FLOAT, TensorShape({channels}));
    std::copy(bias.begin(), bias.end(), f.bias.data<float>());
  }
  std::vector<std::string> parts = {head->name()};
  for (const Node* n : f.absorbed) parts.push_back(n->op());
  f.name = UniqueName(absl::StrJoin(parts, "+"));
  const int index = static_cast<int>(fusions_.size());
  fusion_head_[hid] = index;
  fusion_last_[f.last()->id()] = index;
  for (const Node* n : f.absorbed) absorbed_[n->id()] = 1;
  stats_.fused_away += static_cast<int>(f.absorbed.size());
  ++stats_.fused;
  fusions_.push_back(std::move(f));
}

// x * Sigmoid(beta * x) (Keras' swish, SiLU; TensorFlow's tf.nn.silu
// writes beta * x even for beta = 1) as one _Swish node: one pass over x
// instead of two or three, and no tensor in between. Float on the CPU only;
// beta is a constant scalar, and each absorbed node's value goes to the next
// alone. The node computes the same operations per element (beta * x
// rounded, its sigmoid rounded, the product), so its results are
// bit-identical to the nodes'.
void GraphOptimizer::TrySwish(const Node* mul) {
  const int mid = mul->id();
  if (mul->op() != "Mul" || !keep_[mid] || !live_[mid] || fed_node_[mid] ||
      !folded_[mid].empty() || absorbed_[mid] || fusion_head_[mid] >= 0 ||
      fusion_last_[mid] >= 0 || mul->num_inputs() != 2 ||
      mul->output_type(0) != DT_FLOAT) {
    return;
  }
  // A node whose value goes only to the next node of the pattern.
  auto absorbable = [&](const Node* n) {
    return IsChainLink(n) && !protected_[n->id()] &&
           n->control_outputs().empty() && KeptConsumers(n, 0) == 1;
  };
  for (int s = 0; s < 2; ++s) {
    const Node* sig = mul->input(s).node;
    const Node* x = mul->input(1 - s).node;
    const int x_index = mul->input(1 - s).index;
    if (sig->op() != "Sigmoid" || mul->input(s).index != 0 ||
        !absorbable(sig)) {
      continue;
    }
    std::vector<const Node*> absorbed = {sig};
    float beta = 1.0f;
    const Node* arg = sig->input(0).node;
    if (arg != x || sig->input(0).index != x_index) {
      // Sigmoid(beta * x), beta a constant scalar.
      if (arg->op() != "Mul" || sig->input(0).index != 0 || !absorbable(arg)) {
        continue;
      }
      int b = -1;
      for (int i = 0; i < 2; ++i) {
        if (arg->input(1 - i).node == x && arg->input(1 - i).index == x_index) {
          b = i;
        }
      }
      if (b < 0) continue;
      const Tensor* c = ConstValueOf(arg->input(b).node, arg->input(b).index);
      if (c == nullptr || c->dtype() != DT_FLOAT || c->NumElements() != 1 ||
          c->dims() > 0) {
        continue;
      }
      beta = c->data<float>()[0];
      absorbed.insert(absorbed.begin(), arg);
    }
    if (options_.place) {
      Device* d = options_.place(mul);
      if (d == nullptr || d->device_type() != "CPU") return;
      bool same = true;
      for (const Node* a : absorbed) same &= options_.place(a) == d;
      if (!same) return;
    }
    swish_[mid] = {x, x_index, beta};
    Fusion f;
    f.head = absorbed.front();
    for (const Node* a : absorbed) absorbed_[a->id()] = 1;
    absorbed.push_back(mul);
    f.absorbed = absorbed;
    std::vector<std::string> parts;
    for (const Node* a : absorbed) parts.push_back(a->name());
    f.name = UniqueName(absl::StrJoin(parts, "+"));
    fusion_last_[mid] = static_cast<int>(fusions_.size());
    fusions_.push_back(std::move(f));
    ++stats_.fused;
    stats_.fused_away += static_cast<int>(absorbed.size()) - 1;
    return;
  }
}

// ---- rebuilding -----------------------------------------------------------

std::string GraphOptimizer::UniqueName(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_names_.contains(name); ++i) {
    name = absl::StrCat(base, "_", i);
  }
  taken_names_.insert(name);
  return name;
}

std::string GraphOptimizer::NodeName(const Node* n) const {
  const int f = fusion_last_[n->id()];
  return f >= 0 ? fusions_[f].name : n->name();
}

std::string GraphOptimizer::InputName(const Node* src, int index) const {
  const int id = src->id();
  if (fusion_last_[id] >= 0) return fusions_[fusion_last_[id]].name;
  if (!folded_[id].empty() && index > 0) {
    return folded_names_[id] + std::to_string(index);
  }
  return index == 0 ? src->name() : absl::StrCat(src->name(), ":", index);
}

namespace {

NodeDef ConstDef(const std::string& name, const Tensor& value,
                 const std::string& device) {
  NodeDef def;
  def.name = name;
  def.op = "Const";
  def.device = device;
  def.attr["dtype"] = AttrValue::Type(value.dtype());
  def.attr["value"] = AttrValue::TensorValue(value);
  return def;
}

}  // namespace

StatusOr<std::unique_ptr<OptimizedGraph>> GraphOptimizer::Emit(
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  GraphDef def;
  def.versions = g_.versions();
  // Output shapes of the new nodes, by name: what shape inference found for
  // the nodes they replace (a folded value's own shape).
  absl::flat_hash_map<std::string, std::vector<PartialTensorShape>> shapes;
  auto copy_inputs = [&](const Node* n, NodeDef* out, int data_inputs) {
    out->input.clear();
    for (int i = 0; i < data_inputs; ++i) {
      out->input.push_back(InputName(n->input(i).node, n->input(i).index));
    }
    for (const Node* c : n->control_inputs()) {
      out->input.push_back(absl::StrCat("^", NodeName(c)));
    }
  };
  auto original_shapes = [&](const Node* n) {
    std::vector<PartialTensorShape> s;
    for (int o = 0; o < n->num_outputs(); ++o)
      s.push_back(g_.output_shape(n, o));
    return s;
  };

  for (int id : order_) {
    if (!keep_[id] || absorbed_[id]) continue;
    const Node* n = g_.node(id);
    if (!folded_[id].empty()) {
      for (int o = 0; o < n->num_outputs(); ++o) {
        const Tensor& value = folded_[id][o];
        std::string name =
            o == 0 ? n->name() : folded_names_[id] + std::to_string(o);
        shapes[name] = {PartialTensorShape(value.shape())};
        def.node.push_back(ConstDef(name, value, n->requested_device()));
      }
      continue;
    }
    if (fusion_head_[id] >= 0) {
      const Fusion& f = fusions_[fusion_head_[id]];
      NodeDef fused;
      fused.name = f.name;
      fused.device = n->requested_device();
      std::vector<std::string> fused_ops;
      if (f.bias.IsInitialized()) fused_ops.push_back("BiasAdd");
      if (!f.activation.empty()) fused_ops.push_back(f.activation);
      // A chain of scales only is the base op with the scaled filter.
      fused.op = fused_ops.empty() ? n->op() : FusedOpName(n->op());
      auto reg = OpRegistry::Global()->LookUp(fused.op);
      if (!reg.ok()) {
        return errors::Internal(options_.source_name, ": node ", n->DebugName(),
                                ": fusing into '", fused.op,
                                "': ", reg.status().message());
      }
      // The head's attrs the fused op has (MatMul's grad_a, grad_b are not).
      for (const OpDef::AttrDef& a : (*reg)->op_def.attr) {
        auto it = n->attrs().find(a.name);
        if (it != n->attrs().end()) fused.attr[a.name] = it->second;
      }
      copy_inputs(n, &fused, 1);
      ApplyPadFold(n, &fused);
      std::string filter = InputName(n->input(1).node, n->input(1).index);
      if (f.filter.IsInitialized()) {
        filter = UniqueName(f.name + "/filter");
        shapes[filter] = {PartialTensorShape(f.filter.shape())};
        def.node.push_back(ConstDef(filter, f.filter, n->requested_device()));
      }
      fused.input.insert(fused.input.begin() + 1, filter);
      if (!fused_ops.empty()) {
        int num_args = 0;
        if (f.bias.IsInitialized()) {
          std::string bias = UniqueName(f.name + "/bias");
          shapes[bias] = {PartialTensorShape(f.bias.shape())};
          def.node.push_back(ConstDef(bias, f.bias, n->requested_device()));
          fused.input.insert(fused.input.begin() + 2, bias);
          num_args = 1;
        }
        fused.attr["num_args"] = AttrValue::Int(num_args);
        fused.attr["fused_ops"] = AttrValue::StringList(fused_ops);
        fused.attr["leakyrelu_alpha"] = AttrValue::Float(f.alpha);
        std::vector<std::string> originals;
        auto pad = pad_folds_.find(id);
        if (pad != pad_folds_.end()) {
          originals.push_back(pad->second.pad->name());
        }
        originals.push_back(n->name());
        for (const Node* a : f.absorbed) originals.push_back(a->name());
        fused.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
      }
      shapes[f.name] = original_shapes(f.last());
      def.node.push_back(std::move(fused));
      continue;
    }
    auto swish = swish_.find(id);
    if (swish != swish_.end()) {
      NodeDef fused;
      fused.name = NodeName(n);
      fused.op = "_Swish";
      fused.device = n->requested_device();
      fused.attr["T"] = AttrValue::Type(DT_FLOAT);
      fused.attr["beta"] = AttrValue::Float(swish->second.beta);
      fused.input.push_back(InputName(swish->second.x, swish->second.x_index));
      for (const Node* c : n->control_inputs()) {
        fused.input.push_back(absl::StrCat("^", NodeName(c)));
      }
      std::vector<std::string> originals;
      for (const Node* a : fusions_[fusion_last_[id]].absorbed) {
        originals.push_back(a->name());
      }
      fused.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
      shapes[fused.name] = original_shapes(n);
      def.node.push_back(std::move(fused));
      continue;
    }
    NodeDef copy = n->def();
    copy_inputs(n, &copy, n->num_inputs());
    ApplyPadFold(n, &copy);
    shapes[copy.name] = original_shapes(n);
    def.node.push_back(std::move(copy));
  }

  ImportOptions import_options;
  import_options.source_name =
      absl::StrCat(options_.source_name, " (optimized)");
  auto imported = ImportGraphDef(def, import_options);
  if (!imported.ok()) {
    return errors::Internal("graph optimizer produced an invalid graph: ",
                            imported.status().message());
  }
  std::unique_ptr<Graph> graph = *std::move(imported);
  for (const auto& node : graph->nodes()) {
    auto it = shapes.find(node->name());
    if (it == shapes.end()) continue;
    for (int o = 0; o < node->num_outputs() && o < (int)it->second.size();
         ++o) {
      graph->set_output_shape(node.get(), o, it->second[o]);
    }
  }
  auto result = std::make_unique<OptimizedGraph>(
      std::move(graph), options_.place, options_.create_kernel);
  WEFT_RETURN_IF_ERROR(CollectConstValues(result->graph(), options_.source_name,
                                          &result->const_values_));
  for (const std::string& f : fetches) {
    WEFT_ASSIGN_OR_RETURN(ParsedInput parsed, ParseNodeInput(f));
    result->fetches_.push_back(
        InputName(g_.FindNode(parsed.node), parsed.index));
  }
  for (const std::string& t : targets) {
    result->targets_.push_back(NodeName(g_.FindNode(t)));
  }
  result->stats_ = stats_;
  return result;
}

StatusOr<std::unique_ptr<OptimizedGraph>> GraphOptimizer::Run(
    const std::vector<const Node*>& live, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  WEFT_ASSIGN_OR_RETURN(order_, g_.TopologicalOrder());
  WEFT_RETURN_IF_ERROR(MarkSignature(live, feeds, fetches, targets));
  if (options_.cpu != nullptr) {
    for (int id : order_) {
      const Node* n = g_.node(id);
      TryFold(n);
      if (!folded_[id].empty() && n->num_outputs() > 1) {
        folded_names_[id] = UniqueName(n->name() + "/_folded_output_");
        // Each output gets "<prefix><index>"; reserve those names.
        for (int o = 1; o < n->num_outputs(); ++o) {
          taken_names_.insert(folded_names_[id] + std::to_string(o));
        }
      }
    }
  }
  for (int id : order_) TryFoldPad(g_.node(id));
  for (int id : order_) TryFuse(g_.node(id));
  for (int id : order_) TrySwish(g_.node(id));
  // Nothing to rewrite (a chain of Identity nodes, a graph without
  // constants or convolutions): building a copy of the graph, a second plan
  // and a second set of kernels would only make Prepare slower.
  if (stats_.folded == 0 && stats_.fused == 0 && stats_.folded_pads == 0) {
    return std::unique_ptr<OptimizedGraph>();
  }
  return Emit(fetches, targets);
}

StatusOr<std::unique_ptr<OptimizedGraph>> OptimizeGraph(
    const Graph& graph, const std::vector<const Node*>& live,
    const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets,
    const GraphOptimizerOptions& options) {
  GraphOptimizer optimizer(graph, options);
  return optimizer.Run(live, feeds, fetches, targets);
}

bool IsFusionHead(absl::string_view op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative" || op == "MatMul";
}

std::string FusedOpName(absl::string_view head_op) {
  return absl::StrCat("_Fused", head_op);
}

bool IsFusionLink(absl::string_view op) {
  return IsActivation(op) || op == "BiasAdd" || op == "Add" || op == "AddV2" ||
         op == "Sub" || op == "Mul" || op == "FusedBatchNormV3";
}

}  // namespace weft
