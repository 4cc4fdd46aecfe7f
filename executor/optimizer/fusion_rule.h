// Fusion of a product with what follows it, float32 only: a Conv2D,
// DepthwiseConv2dNative or MatMul (NHWC for the convolutions) followed by a
// chain of per-channel affine nodes with constant operands (BiasAdd,
// Add/AddV2, Sub, Mul and inference-mode FusedBatchNormV3), and then
// optionally Relu, Relu6, Elu, LeakyRelu, a swish (x * Sigmoid([beta *]
// x) as the swish rule matches it, swish_rule.h: fused_ops "Swish" with
// swish_beta, the _Swish node's bits) or Keras' hard swish (x * (Relu6(x +
// 3) / 6), AddV2, Relu6, RealDiv and Mul: "HardSwish", the nodes' bits),
// becomes one _FusedConv2D / _FusedDepthwiseConv2dNative / _FusedMatMul
// (ops/nn_fused_ops.cc). The (hard) swish's x, the chain's value, goes to
// its first node and final Mul and nowhere else; the input a Keras
// custom-gradient IdentityN also takes of it does not count when that
// output of it is unread (RewriteContext::PrunedOutputIndex).
// Multiplications (the batch-norm scale) are folded into a new constant
// filter, so they need a constant filter; additions become the bias. A
// chain of scales only becomes the head's own op with the scaled filter.
// After a Conv2D or MatMul, an AddV2 / Add of another tensor of the same
// shape (a residual connection: ResNet's shortcut, MobileNetV2's and
// EfficientNet's inverted residuals) is absorbed too, as fused_ops "Add"
// with that tensor as the last input; only the activation may follow it.
// The shapes must be known but for the batch dimension, so that the Add
// does not broadcast. The sum is the same float operations in the same
// order, so the fused result equals the separate nodes' bit for bit.
//
// Every intermediate tensor of the chain must have exactly one consumer and
// be neither fed nor fetched, and nodes in it must carry no control edges:
// the fused node computes only the chain's last value. The head must be
// placed on the CPU, the only device with fused kernels.
//
// A Mul of a rank-4 float tensor (of the Mul's own shape) by a constant
// per last-dimension channel heads a chain too, when the chain absorbs
// something: a batch normalization and activation standing alone (the
// pre-activations of DenseNet and ResNetV2: scale, offset, Relu) becomes a
// _FusedDepthwiseConv2dNative with a 1x1 filter holding the scale, one pass
// instead of three, the same values (a -0 product comes out +0: the
// convolution's sum starts at +0).
//
// A depthwise convolution's chain whose last value goes only to input 0 of
// a Conv2D with a constant float [1, 1, C * M, K] filter, unit strides and
// dilations and no explicit padding (nor Pad folded into it) makes, with
// that Conv2D's own chain, one _FusedSeparableConv2D (both epilogues, the
// two filters, the depthwise window attrs): the two convolutions computed
// band by band (kernels/cpu/separable_conv.h), the same bits as the two
// fused nodes. WEFT_SEPARABLE_FUSION=0 in the environment keeps them two.
// A standalone batch normalization's chain (the Mul head above) with no
// activation, Relu or Relu6 pairs with such a Conv2D the same way, its
// depthwise window 1x1: the product applies it to its left-hand side as it
// packs it (the same bits again); WEFT_SCALE_PROLOGUE=0 keeps it apart.
// When that depthwise convolution's input (or the Pad folded into it) is
// the value of a Conv2D with a constant float [1, 1, Cx, C] filter at unit
// strides and dilations, without explicit padding, whose chain (no residual)
// goes there and nowhere else (an inverted residual's expansion), the three
// are one _FusedExpandSeparableConv2D, visited from the expansion, the
// earliest: the expansion computed band by band too, the same bits as the
// three fused nodes. An expansion whose depthwise convolution's value goes
// elsewhere than such a 1x1 convolution joins it alone, one
// _FusedExpandDepthwiseConv2dNative. The IdentityN that Keras' swish writes
// after the expansion (only its result read) is passed through and
// absorbed. WEFT_EXPAND_FUSION=0 keeps expansions apart;
// WEFT_SEPARABLE_FUSION=0 all of these.
//
// The fused node is named "<head>+<op>+<op>" ("conv1/Conv2D+BiasAdd+Relu")
// and lists the nodes it replaces (with a Pad folded into the head before)
// in its kFusedNodesAttr; it stands in for the chain's last node. A
// separable pair (or triple) is named after its chains, joined by "+".
//
// The op vocabulary (IsFusionHead, IsFusionLink, FusedOpName) is declared
// in executor/graph_optimizer.h for `weft ops --used-by`, and defined with
// this rule.
#ifndef WEFT_EXECUTOR_OPTIMIZER_FUSION_RULE_H_
#define WEFT_EXECUTOR_OPTIMIZER_FUSION_RULE_H_

#include "executor/optimizer/rewrite_rule.h"

namespace weft {

class FusionRule : public RewriteRule {
 public:
  absl::string_view name() const override { return "fusion"; }
  // Visits heads: the chain is followed downstream from the product.
  void Visit(const Node* node, RewriteContext* context) const override;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_OPTIMIZER_FUSION_RULE_H_
