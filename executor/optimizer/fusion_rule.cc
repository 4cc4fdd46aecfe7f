#include "executor/optimizer/fusion_rule.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/graph_optimizer.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"
#include "executor/optimizer/swish_rule.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

// ---- The vocabulary.

// Heads whose data_format must be NHWC and whose output has rank 4.
bool IsConvolutionHead(absl::string_view op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative";
}

// The activations the fused kernels apply last ("fused_ops").
bool IsActivation(absl::string_view op) {
  return op == "Relu" || op == "Relu6" || op == "Elu" || op == "LeakyRelu";
}

// Per-channel additions (Sub only with the product as its first operand),
// which add to the bias.
bool IsBiasLink(absl::string_view op) {
  return op == "BiasAdd" || op == "Add" || op == "AddV2" || op == "Sub";
}

// Per-channel multiplications, which scale the filter and the bias so far.
bool IsScaleLink(absl::string_view op) {
  return op == "Mul" || op == "FusedBatchNormV3";
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
  // The head's data input: 0, or the scaled tensor's slot of a scale head
  // (below).
  int input = 0;
  // The head is a Mul by a constant per channel, run as a 1x1 depthwise
  // convolution whose filter is that scale.
  bool scale_head = false;
  std::vector<const Node*> absorbed;
  // The new filter when a scale was folded into it; else uninitialized and
  // the head's own filter input is used.
  Tensor filter;
  Tensor bias;  // uninitialized: no bias
  // The residual added after the bias (an AddV2 of two tensors of the
  // output's shape): the producer's output, or null for none.
  const Node* residual = nullptr;
  int residual_output = 0;
  std::string activation;
  float alpha = 0.2f;
  float beta = 1.0f;  // "Swish"'s
  std::string name;

  const Node* last() const { return absorbed.back(); }
};

// Input `input` of `n` as `channels` floats: a constant of shape [channels],
// or broadcastable to the product's output as one value per channel ([1, 1,
// 1, C] of rank <= max_rank), or a single value for every channel.
bool PerChannel(const Node* n, int input, int64_t channels, int max_rank,
                const RewriteContext& ctx, std::vector<float>* values) {
  const Tensor* t = ctx.ConstInput(n, input);
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

// Whether input `input` of the AddV2 `add` can be the residual a product
// adds before its activation: a float tensor whose inferred shape is the
// product's output shape `shape` (so the AddV2 does not broadcast), known
// except perhaps its first (batch) dimension. Two unknown batch dimensions
// are taken as equal; the fused kernel checks the shapes it is given.
bool IsResidual(const Node* add, int input, const PartialTensorShape& shape,
                const RewriteContext& ctx) {
  if (add->input_type(input) != DT_FLOAT || shape.unknown_rank()) {
    return false;
  }
  const Endpoint& src = add->input(input);
  const PartialTensorShape& other =
      ctx.graph().output_shape(src.node, src.index);
  if (other != shape || ctx.graph().output_shape(add, 0) != shape) {
    return false;
  }
  for (int d = 1; d < shape.dims(); ++d) {
    if (shape.dim_size(d) < 0) return false;
  }
  return true;
}

// The head's filter times `scale` per output channel, into a new tensor.
bool FoldScaleIntoFilter(const Node* head, const std::vector<float>& scale,
                         int64_t channels, const RewriteContext& ctx,
                         Tensor* filter) {
  const Tensor* w = ctx.ConstInput(head, 1);
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

// Output 0 of `cur` is read by two kept nodes (a swish's first node and its
// final Mul) and goes nowhere else: not fetched, no control successors, no
// other output in use. SoleConsumer's question for a diamond.
bool ReadByTwoAlone(const Node* cur, const RewriteContext& ctx) {
  if (ctx.IsProtected(cur) || ctx.HasKeptControlOutputs(cur) ||
      ctx.KeptConsumers(cur, 0) != 2) {
    return false;
  }
  for (int o = 1; o < cur->num_outputs(); ++o) {
    if (ctx.KeptConsumers(cur, o) > 0) return false;
  }
  return true;
}

// The swish x * Sigmoid([beta *] x) (swish_rule.h) that output 0 of `cur`
// goes to, and nowhere else: the pattern's first node and final Mul are
// its only readers, and no other output of `cur` is used. A fused kernel
// applies it as its activation, the _Swish node's bits.
bool SwishAfter(const Node* cur, const RewriteContext& ctx,
                SwishPattern* swish) {
  if (!ReadByTwoAlone(cur, ctx)) return false;
  for (const Endpoint& c : ctx.KeptReads(cur, 0)) {
    if (ctx.IsUnrewrittenFloatNode(c.node) && MatchSwish(c.node, ctx, swish) &&
        swish->x == NodeOutput{cur, 0}) {
      return true;
    }
  }
  return false;
}

// Whether input `input` of `n` is the float scalar constant `value`.
bool IsScalar(const Node* n, int input, float value,
              const RewriteContext& ctx) {
  const Tensor* t = ctx.ConstInput(n, input);
  return t != nullptr && t->dtype() == DT_FLOAT && t->NumElements() == 1 &&
         t->data<float>()[0] == value;
}

// A node of a hard swish whose value goes only to the next node of it.
bool HardSwishLink(const Node* n, const char* op, const RewriteContext& ctx) {
  int slot = -1;
  return n->op() == op && ctx.IsUnrewrittenFloatNode(n) &&
         ctx.SoleConsumer(n, &slot) != nullptr;
}

// Keras' hard swish (hard_silu), x * (Relu6(x + 3) / 6), that output 0 of
// `cur` goes to and nowhere else: AddV2(x, 3) and the final Mul(x, ...) are
// its only readers. *nodes: AddV2, Relu6, RealDiv, Mul.
bool HardSwishAfter(const Node* cur, const RewriteContext& ctx,
                    std::vector<const Node*>* nodes) {
  if (!ReadByTwoAlone(cur, ctx)) return false;
  const NodeOutput x{cur, 0};
  for (const Endpoint& c : ctx.KeptReads(cur, 0)) {
    const Node* add = c.node;
    if (add->num_inputs() != 2 || !HardSwishLink(add, "AddV2", ctx) ||
        !IsScalar(add, 1 - c.index, 3.0f, ctx)) {
      continue;
    }
    int slot = -1;
    const Node* relu6 = ctx.SoleConsumer(add, &slot);
    if (!HardSwishLink(relu6, "Relu6", ctx)) return false;
    const Node* div = ctx.SoleConsumer(relu6, &slot);
    if (slot != 0 || !HardSwishLink(div, "RealDiv", ctx) ||
        !IsScalar(div, 1, 6.0f, ctx)) {
      return false;
    }
    const Node* mul = ctx.SoleConsumer(div, &slot);
    if (mul->op() != "Mul" || !ctx.IsOpenFloatNode(mul) ||
        !ctx.IsUnrewrittenFloatNode(mul) || !(InputOf(mul, 1 - slot) == x)) {
      return false;
    }
    *nodes = {add, relu6, div, mul};
    return ctx.PlacedOnOneCpu(mul, {add, relu6, div});
  }
  return false;
}

// The epilogue attrs of `f` as fused_ops lists them.
std::vector<std::string> FusedOps(const Fusion& f) {
  std::vector<std::string> ops;
  if (f.bias.IsInitialized()) ops.push_back("BiasAdd");
  if (f.residual != nullptr) ops.push_back("Add");
  if (!f.activation.empty()) ops.push_back(f.activation);
  return ops;
}

// The attrs of a 1x1 depthwise convolution at unit strides (a scale head's).
void SetUnitWindowAttrs(NodeDef* def) {
  def->attr["strides"] = AttrValue::IntList({1, 1, 1, 1});
  def->attr["dilations"] = AttrValue::IntList({1, 1, 1, 1});
  def->attr["padding"] = AttrValue::String("VALID");
  def->attr["data_format"] = AttrValue::String("NHWC");
}

// The fused node's data input and the head's control inputs, in order.
void HeadInputs(const Fusion& f, const Node* n, GraphRebuilder* rebuilder,
                NodeDef* def) {
  rebuilder->CopyInputs(n, 1, def);
  def->input[0] =
      rebuilder->InputName(n->input(f.input).node, n->input(f.input).index);
}

// Writes the fused node (and its new filter and bias Consts) in the head's
// place.
Status EmitFusion(const Fusion& f, const Node* n, GraphRebuilder* rebuilder) {
  NodeDef fused;
  fused.name = f.name;
  fused.device = n->requested_device();
  const std::vector<std::string> fused_ops = FusedOps(f);
  // A chain of scales only is the base op with the scaled filter.
  const std::string head_op =
      f.scale_head ? std::string("DepthwiseConv2dNative") : n->op();
  fused.op = fused_ops.empty() ? head_op : FusedOpName(head_op);
  auto reg = OpRegistry::Global()->LookUp(fused.op);
  if (!reg.ok()) {
    return errors::Internal(rebuilder->context().options().source_name,
                            ": node ", n->DebugName(), ": fusing into '",
                            fused.op, "': ", reg.status().message());
  }
  // The head's attrs the fused op has (MatMul's grad_a, grad_b are not).
  for (const OpDef::AttrDef& a : (*reg)->op_def.attr) {
    auto it = n->attrs().find(a.name);
    if (it != n->attrs().end()) fused.attr[a.name] = it->second;
  }
  if (f.scale_head) SetUnitWindowAttrs(&fused);
  HeadInputs(f, n, rebuilder, &fused);
  rebuilder->ApplyPatches(n, &fused);
  std::string filter =
      rebuilder->InputName(n->input(1).node, n->input(1).index);
  if (f.filter.IsInitialized()) {
    filter = rebuilder->UniqueName(f.name + "/filter");
    rebuilder->AddConst(filter, f.filter, n->requested_device());
  }
  fused.input.insert(fused.input.begin() + 1, filter);
  if (!fused_ops.empty()) {
    int num_args = 0;
    if (f.bias.IsInitialized()) {
      std::string bias = rebuilder->UniqueName(f.name + "/bias");
      rebuilder->AddConst(bias, f.bias, n->requested_device());
      fused.input.insert(fused.input.begin() + 2, bias);
      num_args = 1;
    }
    if (f.residual != nullptr) {
      fused.input.insert(fused.input.begin() + 2 + num_args,
                         rebuilder->InputName(f.residual, f.residual_output));
      ++num_args;
    }
    fused.attr["num_args"] = AttrValue::Int(num_args);
    fused.attr["fused_ops"] = AttrValue::StringList(fused_ops);
    fused.attr["leakyrelu_alpha"] = AttrValue::Float(f.alpha);
    if (f.activation == "Swish") {
      fused.attr["swish_beta"] = AttrValue::Float(f.beta);
    }
    std::vector<std::string> originals;
    for (const Node* m : rebuilder->context().merged_into(n)) {
      originals.push_back(m->name());
    }
    originals.push_back(n->name());
    for (const Node* a : f.absorbed) originals.push_back(a->name());
    fused.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
  }
  rebuilder->AddNode(std::move(fused), rebuilder->OriginalShapes(f.last()));
  return Status();
}

// A Mul of a rank-4 float tensor of its own shape (no broadcast) by one
// constant value per channel: a batch normalization standing alone
// (DenseNet's and ResNetV2's pre-activations, scale then offset then Relu),
// which heads a chain as a 1x1 depthwise convolution with the scale as its
// filter (the product x * scale, then the same additions: the same values;
// a -0 product comes out +0, the convolution's sum starting at +0). Sets
// *slot to the tensor's input and *scale to the values.
bool IsScaleHead(const Node* mul, int64_t channels, const RewriteContext& ctx,
                 int* slot, std::vector<float>* scale) {
  if (mul->op() != "Mul" || mul->num_inputs() != 2) return false;
  const PartialTensorShape& shape = ctx.graph().output_shape(mul, 0);
  for (int s = 0; s < 2; ++s) {
    const Endpoint& x = mul->input(s);
    if (mul->input_type(s) == DT_FLOAT &&
        ctx.graph().output_shape(x.node, x.index) == shape &&
        ctx.ConstInput(mul, s) == nullptr &&
        PerChannel(mul, 1 - s, channels, 4, ctx, scale)) {
      *slot = s;
      return true;
    }
  }
  return false;
}

// Follows the chain after `head` into *f: the nodes it absorbs, the scale
// folded into a new filter, the summed bias, the residual and activation.
// False when `head` cannot head a fusion (f->absorbed may be empty on true).
bool CollectChain(const Node* head, RewriteContext* ctx, Fusion* out) {
  const std::string& op = head->op();
  if (!IsFusionHead(op) && op != "Mul") return false;
  if (!ctx->IsUnrewrittenFloatNode(head) || ctx->IsProtected(head) ||
      head->num_outputs() != 1) {
    return false;
  }
  if (ctx->HasKeptControlOutputs(head)) return false;
  if (IsConvolutionHead(op) &&
      StringAttr(head, "data_format", "NHWC") != "NHWC") {
    return false;
  }
  if (!ctx->PlacedOnCpu(head)) return false;
  // The number of output channels, from the inferred output shape.
  const int out_rank = op == "MatMul" ? 2 : 4;
  int64_t channels = -1;
  const PartialTensorShape& shape = ctx->graph().output_shape(head, 0);
  if (shape.dims() == out_rank && shape.dim_size(out_rank - 1) >= 0) {
    channels = shape.dim_size(out_rank - 1);
  }
  if (channels < 0) return false;

  Fusion& f = *out;
  f.head = head;
  std::vector<float> scale(channels, 1.0f);
  std::vector<float> bias(channels, 0.0f);
  bool scaled = false;
  bool has_bias = false;
  if (op == "Mul") {
    if (!IsScaleHead(head, channels, *ctx, &f.input, &scale)) return false;
    f.scale_head = true;
    scaled = true;
  }
  const Node* cur = head;
  std::vector<float> v;
  while (true) {
    // `cur`'s value must go nowhere else than the next link.
    int slot = -1;
    const Node* next = ctx->SoleConsumer(cur, &slot);
    // Read by the two first nodes of a swish or a hard swish: the
    // activation.
    SwishPattern swish;
    if (next == nullptr && SwishAfter(cur, *ctx, &swish) &&
        ctx->PlacedOnOneCpu(swish.nodes.back(), {head})) {
      f.activation = "Swish";
      f.beta = swish.beta;
      f.absorbed.insert(f.absorbed.end(), swish.nodes.begin(),
                        swish.nodes.end());
      break;
    }
    std::vector<const Node*> hard_swish;
    if (next == nullptr && HardSwishAfter(cur, *ctx, &hard_swish) &&
        ctx->PlacedOnOneCpu(hard_swish.back(), {head})) {
      f.activation = "HardSwish";
      f.absorbed.insert(f.absorbed.end(), hard_swish.begin(), hard_swish.end());
      break;
    }
    if (next == nullptr || !ctx->IsUnrewrittenFloatNode(next)) break;
    const std::string& nop = next->op();
    if (!IsFusionLink(nop)) break;
    // After a residual only the activation may follow: a bias or scale
    // would apply to the sum, not the product.
    if (f.residual != nullptr && !IsActivation(nop)) break;
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
          !PerChannel(next, 1, channels, 1, *ctx, &v)) {
        break;
      }
      for (int64_t c = 0; c < channels; ++c) bias[c] += v[c];
      has_bias = true;
    } else if (IsBiasLink(nop)) {  // Add, AddV2, Sub
      if (nop == "Sub" && slot != 0) break;
      if (!PerChannel(next, 1 - slot, channels, out_rank, *ctx, &v)) {
        // Not per channel: a residual connection (ResNet's shortcut), which
        // the Conv2D and MatMul kernels add in their epilogue.
        if (nop == "Sub" || (op != "Conv2D" && op != "MatMul") ||
            !IsResidual(next, 1 - slot, shape, *ctx)) {
          break;
        }
        f.residual = next->input(1 - slot).node;
        f.residual_output = next->input(1 - slot).index;
        f.absorbed.push_back(next);
        cur = next;
        continue;
      }
      const float sign = nop == "Sub" ? -1.0f : 1.0f;
      for (int64_t c = 0; c < channels; ++c) bias[c] += sign * v[c];
      has_bias = true;
    } else if (nop == "Mul") {
      if (!PerChannel(next, 1 - slot, channels, out_rank, *ctx, &v)) break;
      if (!f.scale_head && ctx->ConstInput(head, 1) == nullptr) break;
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
          (!f.scale_head && ctx->ConstInput(head, 1) == nullptr)) {
        break;
      }
      std::vector<float> bn_scale, offset, mean, variance;
      if (!PerChannel(next, 1, channels, 1, *ctx, &bn_scale) ||
          !PerChannel(next, 2, channels, 1, *ctx, &offset) ||
          !PerChannel(next, 3, channels, 1, *ctx, &mean) ||
          !PerChannel(next, 4, channels, 1, *ctx, &variance)) {
        break;
      }
      bool stats_used = false;
      for (int o = 1; o < next->num_outputs(); ++o) {
        stats_used |= ctx->KeptConsumers(next, o) > 0;
      }
      if (stats_used || ctx->IsProtected(next) ||
          ctx->HasKeptControlOutputs(next)) {
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
  if (f.scale_head) {
    f.filter = Tensor(DT_FLOAT, TensorShape({1, 1, channels, 1}));
    std::copy(scale.begin(), scale.end(), f.filter.data<float>());
  } else if (scaled &&
             !FoldScaleIntoFilter(head, scale, channels, *ctx, &f.filter)) {
    return false;
  }
  if (has_bias) {
    f.bias = Tensor(DT_FLOAT, TensorShape({channels}));
    std::copy(bias.begin(), bias.end(), f.bias.data<float>());
  }
  return true;
}

// Whether `conv` is a Conv2D a separable fusion may take in as a 1x1
// convolution: unrewritten, NHWC, unit strides and dilations, no explicit
// padding (nor Pad folded into it), and a constant float [1, 1, depth, K]
// filter (depth -1: any but 0).
bool IsUnitOneByOne(const Node* conv, int64_t depth,
                    const RewriteContext& ctx) {
  if (conv == nullptr || conv->op() != "Conv2D" ||
      !ctx.IsUnrewrittenFloatNode(conv) || !ctx.patches(conv).empty() ||
      !ctx.merged_into(conv).empty() ||
      StringAttr(conv, "padding", "") == "EXPLICIT" ||
      StringAttr(conv, "data_format", "NHWC") != "NHWC") {
    return false;
  }
  for (const char* attr : {"strides", "dilations"}) {
    std::vector<int64_t> v;
    if (GetNodeAttr(conv->attrs(), attr, &v).ok()) {
      for (int64_t x : v) {
        if (x != 1) return false;
      }
    } else if (std::string(attr) == "strides") {
      return false;
    }
  }
  const Tensor* filter = ctx.ConstInput(conv, 1);
  return filter != nullptr && filter->dtype() == DT_FLOAT &&
         filter->dims() == 4 && filter->dim_size(0) == 1 &&
         filter->dim_size(1) == 1 && filter->dim_size(2) > 0 &&
         (depth < 0 || filter->dim_size(2) == depth);
}

// The Conv2D that reads `end` (the depthwise chain's last value) when the
// two can be one _FusedSeparableConv2D: `end`'s value goes only to its
// input 0, and it is a unit 1x1 convolution (above) whose filter has
// `depth` input channels. Null otherwise.
const Node* PointwiseAfter(const Node* end, int64_t depth,
                           const RewriteContext& ctx) {
  int slot = -1;
  const Node* conv = ctx.SoleConsumer(end, &slot);
  return slot == 0 && IsUnitOneByOne(conv, depth, ctx) ? conv : nullptr;
}

// The DepthwiseConv2dNative that reads `end` (a 1x1 expansion chain's last
// value), directly or through a Pad folded into it, when that is where the
// value goes and nowhere else. Null otherwise. A Keras custom-gradient
// IdentityN in between (its swish's: IdentityN(result, x) with only the
// result read) is passed through and set in *identity, else null: the
// fusion absorbs it.
const Node* DepthwiseAfter(const Node* end, const RewriteContext& ctx,
                           const Node** identity) {
  int slot = -1;
  *identity = nullptr;
  const Node* reader = ctx.SoleConsumer(end, &slot);
  if (reader == nullptr || slot != 0) return nullptr;
  if (reader->op() == "IdentityN" && ctx.IsUnrewrittenFloatNode(reader) &&
      ctx.IsPruned(reader) && ctx.PrunedOutputIndex(reader, 0) == 0) {
    *identity = reader;
    reader = ctx.SoleConsumer(reader, &slot);
    if (reader == nullptr || slot != 0) return nullptr;
  }
  if (ctx.IsAbsorbed(reader)) {
    // A folded Pad: the convolution it was merged into reads it.
    const Node* pad = reader;
    reader = ctx.SoleConsumer(pad, &slot);
    if (reader == nullptr || slot != 0) return nullptr;
    const std::vector<const Node*>& merged = ctx.merged_into(reader);
    if (std::find(merged.begin(), merged.end(), pad) == merged.end()) {
      return nullptr;
    }
  }
  return reader->op() == "DepthwiseConv2dNative" ? reader : nullptr;
}

// The fused node's name, "<head>+<op>+<op>", from a chain's nodes.
std::string ChainName(const Fusion& f) {
  std::vector<std::string> parts = {f.head->name()};
  for (const Node* n : f.absorbed) parts.push_back(n->op());
  return absl::StrJoin(parts, "+");
}

// The chains of a separable fusion: the depthwise `d` and, when `pointwise`
// is set, the 1x1 `p` after it; when `expand` is set the 1x1 expansion `e`
// before it (at least one of the two is set).
struct SeparableChains {
  bool expand = false;
  bool pointwise = true;
  Fusion e;
  Fusion d;
  Fusion p;

  const char* op() const {
    if (!expand) return "_FusedSeparableConv2D";
    return pointwise ? "_FusedExpandSeparableConv2D"
                     : "_FusedExpandDepthwiseConv2dNative";
  }
  // The chain the fused node stands in for the last node of.
  const Fusion& last() const { return pointwise ? p : d; }
};

// The epilogue attrs of chain `f` with `num_args` args, named with `prefix`
// as ReadFusedOps (kernels/cpu/fused_epilogue.h) reads them.
void SetEpilogueAttrs(const Fusion& f, const std::string& prefix,
                      int64_t num_args, NodeDef* def) {
  def->attr["num_" + prefix + "args"] = AttrValue::Int(num_args);
  def->attr[prefix + "fused_ops"] = AttrValue::StringList(FusedOps(f));
  def->attr[prefix + "leakyrelu_alpha"] = AttrValue::Float(f.alpha);
  if (f.activation == "Swish") {
    def->attr[prefix + "swish_beta"] = AttrValue::Float(f.beta);
  }
}

// Writes the fused node of chains `c` (SeparableChains::op) in the first
// head's place, `n`.
Status EmitSeparable(const SeparableChains& c, const std::string& name,
                     const Node* n, GraphRebuilder* rebuilder) {
  const Fusion& d = c.d;
  const Fusion& p = c.p;
  const char* op = c.op();
  auto reg = OpRegistry::Global()->LookUp(op);
  if (!reg.ok()) {
    return errors::Internal(rebuilder->context().options().source_name,
                            ": node ", n->DebugName(), ": fusing into '", op,
                            "': ", reg.status().message());
  }
  NodeDef fused;
  fused.name = name;
  fused.device = n->requested_device();
  fused.op = op;
  // The window is the depthwise convolution's, with its folded Pad.
  const Node* depthwise = d.head;
  for (const OpDef::AttrDef& a : (*reg)->op_def.attr) {
    auto it = depthwise->attrs().find(a.name);
    if (it != depthwise->attrs().end()) fused.attr[a.name] = it->second;
  }
  rebuilder->CopyInputs(depthwise, 1, &fused);
  if (d.scale_head) {
    // A Mul: the scaled tensor is its data input, the window 1x1.
    SetUnitWindowAttrs(&fused);
    fused.input[0] = rebuilder->InputName(depthwise->input(d.input).node,
                                          depthwise->input(d.input).index);
  }
  rebuilder->ApplyPatches(depthwise, &fused);
  if (c.expand) {
    // The expansion's input (the heads have no control inputs).
    fused.input[0] = rebuilder->InputName(n->input(0).node, n->input(0).index);
  }
  // Data inputs go before the control inputs CopyInputs appended.
  std::vector<std::string> data;
  auto filter_of = [&](const Fusion& f, const char* suffix) {
    if (!f.filter.IsInitialized()) {
      return rebuilder->InputName(f.head->input(1).node,
                                  f.head->input(1).index);
    }
    std::string filter = rebuilder->UniqueName(name + suffix);
    rebuilder->AddConst(filter, f.filter, n->requested_device());
    return filter;
  };
  if (c.expand) data.push_back(filter_of(c.e, "/expand_filter"));
  data.push_back(filter_of(d, "/depthwise_filter"));
  if (c.pointwise) data.push_back(filter_of(p, "/pointwise_filter"));
  auto args_of = [&](const Fusion& f, const char* suffix) {
    int64_t count = 0;
    if (f.bias.IsInitialized()) {
      std::string bias = rebuilder->UniqueName(name + suffix);
      rebuilder->AddConst(bias, f.bias, n->requested_device());
      data.push_back(bias);
      ++count;
    }
    if (f.residual != nullptr) {
      data.push_back(rebuilder->InputName(f.residual, f.residual_output));
      ++count;
    }
    return count;
  };
  // The args in input order: the expansion's, the depthwise, the 1x1.
  if (c.expand) {
    SetEpilogueAttrs(c.e, "expand_", args_of(c.e, "/expand_bias"), &fused);
  }
  SetEpilogueAttrs(d, c.pointwise ? "depthwise_" : "",
                   args_of(d, "/depthwise_bias"), &fused);
  if (c.pointwise) SetEpilogueAttrs(p, "", args_of(p, "/bias"), &fused);
  fused.input.insert(fused.input.begin() + 1, data.begin(), data.end());
  std::vector<std::string> originals;
  for (const Fusion* f : {&c.e, &d, &p}) {
    if ((f == &c.e && !c.expand) || (f == &p && !c.pointwise)) continue;
    for (const Node* m : rebuilder->context().merged_into(f->head)) {
      originals.push_back(m->name());
    }
    originals.push_back(f->head->name());
    for (const Node* a : f->absorbed) originals.push_back(a->name());
  }
  fused.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
  const Fusion& end = c.last();
  const Node* last = end.absorbed.empty() ? end.head : end.last();
  rebuilder->AddNode(std::move(fused), rebuilder->OriginalShapes(last));
  return Status();
}

// Whether the environment leaves switch `name` on: anything but "0", or
// unset (read when a signature is optimized). The switches below are for
// comparing the fused and unfused forms.
bool SwitchOn(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || std::string(v) != "0";
}

// WEFT_SEPARABLE_FUSION=0 leaves depthwise and 1x1 convolutions apart.
bool SeparableFusionEnabled() { return SwitchOn("WEFT_SEPARABLE_FUSION"); }

// WEFT_EXPAND_FUSION=0 leaves a 1x1 expansion out of the separable
// convolution after it.
bool ExpandFusionEnabled() { return SwitchOn("WEFT_EXPAND_FUSION"); }

// WEFT_SCALE_PROLOGUE=0 leaves a standalone batch normalization apart from
// the 1x1 convolution after it.
bool ScalePrologueEnabled() { return SwitchOn("WEFT_SCALE_PROLOGUE"); }

// The separable fusion that starts at `head`, whose chain is `f`: a
// depthwise chain and the 1x1 chain after it, or a 1x1 expansion chain, the
// depthwise chain it feeds and the 1x1 chain after that. False when there
// is none.
bool CollectSeparable(const Node* head, const Fusion& f, RewriteContext* ctx,
                      SeparableChains* c) {
  if (!SeparableFusionEnabled() || !ctx->PlacedOnCpu(head)) return false;
  const Node* end = f.absorbed.empty() ? head : f.last();
  if (head->op() == "Conv2D") {
    // An expansion: no residual (its epilogue has none) and a reader that
    // is a depthwise convolution on the same device.
    const Node* depthwise = nullptr;
    const Node* identity = nullptr;
    if (!ExpandFusionEnabled() || f.residual != nullptr ||
        !IsUnitOneByOne(head, -1, *ctx) ||
        (depthwise = DepthwiseAfter(end, *ctx, &identity)) == nullptr ||
        !ctx->PlacedAlike(head, depthwise) ||
        !CollectChain(depthwise, ctx, &c->d)) {
      return false;
    }
    c->expand = true;
    c->e = f;
    if (identity != nullptr) c->e.absorbed.push_back(identity);
  } else if (head->op() == "DepthwiseConv2dNative") {
    c->d = f;
  } else if (f.scale_head && ScalePrologueEnabled() &&
             (f.activation.empty() || f.activation == "Relu" ||
              f.activation == "Relu6")) {
    // A standalone batch normalization before a 1x1 convolution: the
    // product applies it as it packs its rows (separable_conv.cc's
    // ScaleAsPrologue), so it costs no pass over memory of its own.
    c->d = f;
  } else {
    return false;
  }
  const Node* d_end = c->d.absorbed.empty() ? c->d.head : c->d.last();
  const PartialTensorShape& shape = ctx->graph().output_shape(c->d.head, 0);
  const Node* conv = PointwiseAfter(d_end, shape.dim_size(3), *ctx);
  c->pointwise = conv != nullptr && CollectChain(conv, ctx, &c->p);
  // Without the 1x1 product, an expansion and the depthwise convolution
  // alone (a selective build may leave any of the ops out).
  return (c->pointwise || c->expand) &&
         OpRegistry::Global()->LookUp(c->op()).ok();
}

}  // namespace

void FusionRule::Visit(const Node* head, RewriteContext* ctx) const {
  Fusion f;
  if (!CollectChain(head, ctx, &f)) return;
  // A depthwise convolution whose value (after its chain) goes only to a
  // 1x1 convolution: both in one node, band by band, with the 1x1
  // expansion before it when there is one; an expansion and the depthwise
  // convolution it feeds alone when there is no such 1x1 convolution. A
  // scale head goes with the 1x1 convolution after it too, computed as one
  // whole product that scales its rows as it packs them (band by band, its
  // deep filters, 256 to 2048 channels in DenseNet and ResNetV2, lost 1-3%
  // in ResNet50V2 against the whole product).
  SeparableChains separable;
  if (CollectSeparable(head, f, ctx, &separable)) {
    auto chains = std::make_shared<const SeparableChains>(std::move(separable));
    std::string name = ChainName(chains->d);
    std::vector<const Node*> absorbed;
    if (chains->expand) {
      name = ChainName(chains->e) + "+" + name;
      absorbed = chains->e.absorbed;
      absorbed.push_back(chains->d.head);
    }
    absorbed.insert(absorbed.end(), chains->d.absorbed.begin(),
                    chains->d.absorbed.end());
    if (chains->pointwise) {
      name += "+" + ChainName(chains->p);
      absorbed.push_back(chains->p.head);
      absorbed.insert(absorbed.end(), chains->p.absorbed.begin(),
                      chains->p.absorbed.end());
    }
    name = ctx->UniqueName(name);
    for (const Node* n : absorbed) ctx->Absorb(n);
    ctx->StandIn(absorbed.back(), name);
    ctx->stats().fused_away += static_cast<int>(absorbed.size());
    ++ctx->stats().fused;
    ctx->Replace(head,
                 [chains, name](const Node* n, GraphRebuilder* rebuilder) {
                   return EmitSeparable(*chains, name, n, rebuilder);
                 });
    return;
  }
  if (f.absorbed.empty()) return;
  f.name = ctx->UniqueName(ChainName(f));
  for (const Node* n : f.absorbed) ctx->Absorb(n);
  ctx->StandIn(f.last(), f.name);
  ctx->stats().fused_away += static_cast<int>(f.absorbed.size());
  ++ctx->stats().fused;
  auto fusion = std::make_shared<const Fusion>(std::move(f));
  ctx->Replace(head, [fusion](const Node* n, GraphRebuilder* rebuilder) {
    return EmitFusion(*fusion, n, rebuilder);
  });
}

bool IsFusionHead(absl::string_view op) {
  return IsConvolutionHead(op) || op == "MatMul";
}

std::string FusedOpName(absl::string_view head_op) {
  return absl::StrCat("_Fused", head_op);
}

bool IsFusionLink(absl::string_view op) {
  return IsActivation(op) || IsBiasLink(op) || IsScaleLink(op);
}

}  // namespace weft
