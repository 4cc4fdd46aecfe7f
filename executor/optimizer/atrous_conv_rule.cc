#include "executor/optimizer/atrous_conv_rule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

// The convolutions with dilations and explicit_paddings attrs and CPU
// kernels for them.
bool IsConvolution(absl::string_view op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative";
}

// The convolution reads its input as it is: NHWC, unit strides and
// dilations, VALID.
bool PlainValid(const Node* conv) {
  std::string format = "NHWC", padding;
  std::vector<int64_t> strides, dilations = {1, 1, 1, 1};
  GetNodeAttr(conv->attrs(), "data_format", &format).IgnoreError();
  GetNodeAttr(conv->attrs(), "dilations", &dilations).IgnoreError();
  if (!GetNodeAttr(conv->attrs(), "padding", &padding).ok() ||
      !GetNodeAttr(conv->attrs(), "strides", &strides).ok()) {
    return false;
  }
  const std::vector<int64_t> ones = {1, 1, 1, 1};
  return format == "NHWC" && padding == "VALID" && strides == ones &&
         dilations == ones;
}

// The block shape, SpaceToBatchND's paddings and BatchToSpaceND's crops of
// the pattern, as the dilated convolution's dilations and explicit
// paddings; false when they are not constant, not for H and W, or not what
// the rewrite reproduces (see the header).
bool AtrousAttrs(const Node* s2b, const Node* conv, const Node* b2s,
                 const RewriteContext& ctx, std::vector<int64_t>* dilations,
                 std::vector<int64_t>* paddings) {
  std::vector<int64_t> block, block_again, pads, crops;
  if (!ConstInts(ctx.ConstInput(s2b, 1), &block) ||
      !ConstInts(ctx.ConstInput(b2s, 1), &block_again) ||
      !ConstInts(ctx.ConstInput(s2b, 2), &pads) ||
      !ConstInts(ctx.ConstInput(b2s, 2), &crops) || block.size() != 2 ||
      block != block_again || pads.size() != 4 || crops.size() != 4) {
    return false;
  }
  const PartialTensorShape& input =
      ctx.graph().output_shape(s2b->input(0).node, s2b->input(0).index);
  const PartialTensorShape& filter =
      ctx.graph().output_shape(conv->input(1).node, conv->input(1).index);
  if (input.unknown_rank() || input.dims() != 4 || filter.unknown_rank() ||
      filter.dims() != 4) {
    return false;
  }
  *dilations = {1, block[0], block[1], 1};
  *paddings = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int d = 0; d < 2; ++d) {
    const int64_t b = block[d];
    const int64_t size = input.dim_size(1 + d);
    const int64_t window = filter.dim_size(d);
    const int64_t before = pads[2 * d] - crops[2 * d];
    const int64_t after = pads[2 * d + 1] - crops[2 * d + 1];
    const int64_t padded = size + pads[2 * d] + pads[2 * d + 1];
    // SpaceToBatchND and the VALID window must succeed, as they would
    // have: a padded size the block divides, holding the window.
    if (b < 1 || size < 0 || window < 1 || pads[2 * d] < 0 ||
        pads[2 * d + 1] < 0 || crops[2 * d] < 0 || crops[2 * d + 1] < 0 ||
        before < 0 || after < 0 || padded % b != 0 || padded / b < window) {
      return false;
    }
    (*paddings)[2 + 2 * d] = before;
    (*paddings)[3 + 2 * d] = after;
  }
  return true;
}

}  // namespace

void AtrousConvRule::Visit(const Node* conv, RewriteContext* ctx) const {
  if (!IsConvolution(conv->op()) || !ctx->IsUnrewrittenFloatNode(conv) ||
      !ctx->patches(conv).empty() || ctx->IsProtected(conv) ||
      conv->input(0).index != 0 || !PlainValid(conv)) {
    return;
  }
  const Node* s2b = conv->input(0).node;
  int slot = -1;
  const Node* b2s = ctx->SoleConsumer(conv, &slot);
  if (s2b->op() != "SpaceToBatchND" || b2s == nullptr || slot != 0 ||
      b2s->op() != "BatchToSpaceND") {
    return;
  }
  // The reshuffles go: their values must be needed nowhere else.
  for (const Node* n : {s2b, b2s}) {
    if (!ctx->IsUnrewrittenFloatNode(n) || ctx->IsProtected(n) ||
        ctx->HasKeptControlOutputs(n)) {
      return;
    }
  }
  if (ctx->KeptConsumers(s2b, 0) != 1 ||
      !ctx->PlacedOnOneCpu(conv, {s2b, b2s})) {
    return;
  }
  std::vector<int64_t> dilations, paddings;
  if (!AtrousAttrs(s2b, conv, b2s, *ctx, &dilations, &paddings)) return;
  ctx->Absorb(s2b);
  ctx->RecordMerged(conv, s2b);
  ctx->ReadAs(b2s, conv);
  ctx->RecordMerged(conv, b2s);
  ctx->Patch(conv, [s2b, dilations = std::move(dilations),
                    paddings = std::move(paddings)](
                       const GraphRebuilder& rebuilder, NodeDef* def) {
    def->input[0] =
        rebuilder.InputName(s2b->input(0).node, s2b->input(0).index);
    def->attr["dilations"] = AttrValue::IntList(dilations);
    def->attr["padding"] = AttrValue::String("EXPLICIT");
    def->attr["explicit_paddings"] = AttrValue::IntList(paddings);
  });
  ++ctx->stats().atrous_convs;
}

}  // namespace weft
