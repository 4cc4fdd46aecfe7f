#include "executor/optimizer/pad_folding_rule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"

namespace weft {
namespace {

// The convolutions with an explicit_paddings attr and CPU kernels for it.
bool TakesExplicitPadding(absl::string_view op) {
  return op == "Conv2D" || op == "DepthwiseConv2dNative";
}

// The ops that pad with zeros (PadV2 when its constant is 0).
bool IsPad(absl::string_view op) { return op == "Pad" || op == "PadV2"; }

std::string StringAttr(const Node* n, absl::string_view name,
                       const std::string& fallback) {
  std::string v;
  return GetNodeAttr(n->attrs(), name, &v).ok() ? v : fallback;
}

// The Pad's amounts as the convolution's 8 explicit paddings (a
// before/after pair per input dimension, in its data_format order), or
// false when they are not constant, not non-negative, or pad N or C.
bool PadAmounts(const Node* conv, const Node* pad, const RewriteContext& ctx,
                std::vector<int64_t>* paddings) {
  const Tensor* amounts = ctx.ConstInput(pad, 1);
  if (amounts == nullptr || amounts->dims() != 2 || amounts->dim_size(0) != 4 ||
      amounts->dim_size(1) != 2 || !ConstInts(amounts, paddings)) {
    return false;
  }
  for (int64_t amount : *paddings) {
    if (amount < 0) return false;
  }
  const bool nchw = StringAttr(conv, "data_format", "NHWC") == "NCHW";
  const int channel_dim = nchw ? 1 : 3;
  for (int dim : {0, channel_dim}) {
    if ((*paddings)[2 * dim] != 0 || (*paddings)[2 * dim + 1] != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

void PadFoldingRule::Visit(const Node* conv, RewriteContext* ctx) const {
  if (!TakesExplicitPadding(conv->op()) || !ctx->IsLive(conv) ||
      ctx->IsFed(conv) || ctx->IsFolded(conv)) {
    return;
  }
  const std::string padding = StringAttr(conv, "padding", "");
  if (padding != "VALID" && padding != "EXPLICIT") return;
  const Node* pad = conv->input(0).node;
  if (conv->input(0).index != 0) return;
  if (!IsPad(pad->op())) return;
  // The padded copy must go nowhere else.
  if (!ctx->IsUnrewrittenFloatNode(pad) || ctx->IsProtected(pad) ||
      ctx->HasKeptControlOutputs(pad) || ctx->KeptConsumers(pad, 0) != 1) {
    return;
  }
  if (!ctx->PlacedOnCpu(conv) || !ctx->PlacedOnCpu(pad)) return;
  if (pad->op() == "PadV2") {
    const Tensor* value = ctx->ConstInput(pad, 2);
    if (value == nullptr || value->dtype() != DT_FLOAT ||
        value->NumElements() != 1 || value->data<float>()[0] != 0.0f) {
      return;
    }
  }
  std::vector<int64_t> paddings;
  if (!PadAmounts(conv, pad, *ctx, &paddings)) return;
  if (padding == "EXPLICIT") {
    std::vector<int64_t> existing;
    if (!GetNodeAttr(conv->attrs(), "explicit_paddings", &existing).ok() ||
        existing.size() != 8) {
      return;
    }
    for (int i = 0; i < 8; ++i) paddings[i] += existing[i];
  }
  ctx->Absorb(pad);
  ctx->RecordMerged(conv, pad);
  ctx->Patch(conv, [pad, paddings = std::move(paddings)](
                       const GraphRebuilder& rebuilder, NodeDef* def) {
    def->input[0] =
        rebuilder.InputName(pad->input(0).node, pad->input(0).index);
    def->attr["padding"] = AttrValue::String("EXPLICIT");
    def->attr["explicit_paddings"] = AttrValue::IntList(paddings);
  });
  ++ctx->stats().folded_pads;
}

}  // namespace weft
