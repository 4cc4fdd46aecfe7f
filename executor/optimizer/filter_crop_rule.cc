#include "executor/optimizer/filter_crop_rule.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"
#include "kernels/common/window_shape.h"
#include "ops/common_shape_fns.h"

namespace weft {
namespace {

// One spatial dimension of the convolution as the rule sees it.
struct Crop {
  WindowDim dim;
  int64_t first = 0;  // first tap kept
  int64_t taps = 0;   // taps kept
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// The taps of `d` that some output reads inside the input, as one range
// (taps between two that do are kept too), and the explicit paddings that
// give the cropped window the same outputs; false when nothing can go or
// the paddings would be negative.
bool CropDim(const WindowDim& d, Crop* crop) {
  if (d.output <= 0 || d.input <= 0) return false;
  int64_t lo = d.window, hi = 0;
  for (int64_t o = 0; o < d.output; ++o) {
    int64_t first = 0, last = 0;
    ValidTaps(d, o, &first, &last);
    if (first < last) {
      lo = std::min(lo, first);
      hi = std::max(hi, last);
    }
  }
  if (lo >= hi) return false;  // no output reads the input at all
  crop->dim = d;
  crop->first = lo;
  crop->taps = hi - lo;
  crop->pad_before = d.pad_before - lo * d.dilation;
  const int64_t extent = (crop->taps - 1) * d.dilation + 1;
  crop->pad_after = std::max<int64_t>(
      0, (d.output - 1) * d.stride + extent - d.input - crop->pad_before);
  if (crop->pad_before < 0) return false;
  // The cropped window must give the same output count.
  auto size = GetWindowedOutputSize(d.input, crop->taps, d.dilation, d.stride,
                                    Padding::kExplicit, crop->pad_before,
                                    crop->pad_after);
  return size.ok() && size->size == d.output &&
         size->pad_before == crop->pad_before;
}

// The convolution's window attrs (kernels/common/window_shape.h) from its
// node; false when one is missing or malformed (the kernel reports those).
bool ReadWindowAttrs(const Node* conv, WindowAttrs* a) {
  std::string format = "NHWC", padding;
  GetNodeAttr(conv->attrs(), "data_format", &format).IgnoreError();
  GetNodeAttr(conv->attrs(), "dilations", &a->dilations).IgnoreError();
  if (!GetNodeAttr(conv->attrs(), "padding", &padding).ok() ||
      !GetNodeAttr(conv->attrs(), "strides", &a->strides).ok() ||
      a->strides.size() != 4 || a->dilations.size() != 4) {
    return false;
  }
  auto tensor_format = ParseTensorFormat(format);
  auto parsed_padding = ParsePadding(padding);
  if (!tensor_format.ok() || !parsed_padding.ok()) return false;
  a->format = *tensor_format;
  a->padding = *parsed_padding;
  return a->padding != Padding::kExplicit ||
         (GetNodeAttr(conv->attrs(), "explicit_paddings", &a->explicit_paddings)
              .ok() &&
          a->explicit_paddings.size() == 8);
}

// The geometry along `dim` ('H' or 'W') for a window of `window` taps;
// false when the input's size there is unknown or the window does not fit.
bool Dim(const WindowAttrs& a, const PartialTensorShape& input_shape,
         int64_t window, char dim, WindowDim* d) {
  const int i = a.index(dim);
  if (input_shape.unknown_rank() || input_shape.dims() != 4 ||
      input_shape.dim_size(i) < 0) {
    return false;
  }
  auto computed = ComputeWindowDim(a, dim, input_shape.dim_size(i), window);
  if (!computed.ok()) return false;
  *d = *computed;
  return true;
}

// filter[first_h : first_h + rows, first_w : first_w + cols, :, :].
Tensor CropFilter(const Tensor& filter, const Crop& h, const Crop& w) {
  const int64_t cols = filter.dim_size(1);
  const int64_t inner = filter.dim_size(2) * filter.dim_size(3);
  Tensor out(DT_FLOAT, TensorShape({h.taps, w.taps, filter.dim_size(2),
                                    filter.dim_size(3)}));
  const float* src = filter.data<float>();
  float* dst = out.data<float>();
  for (int64_t r = 0; r < h.taps; ++r) {
    const float* row = src + ((h.first + r) * cols + w.first) * inner;
    dst = std::copy_n(row, w.taps * inner, dst);
  }
  return out;
}

}  // namespace

void FilterCropRule::Visit(const Node* conv, RewriteContext* ctx) const {
  if (conv->op() != "Conv2D" || !ctx->IsLive(conv) || ctx->IsFed(conv) ||
      ctx->IsFolded(conv) || !ctx->IsUnrewrittenFloatNode(conv) ||
      !ctx->patches(conv).empty() || !ctx->PlacedOnCpu(conv)) {
    return;
  }
  const Node* filter_node = conv->input(1).node;
  const int filter_output = conv->input(1).index;
  const Tensor* filter = ctx->ConstInput(conv, 1);
  if (filter == nullptr || filter->dtype() != DT_FLOAT || filter->dims() != 4 ||
      filter_node->num_outputs() != 1 || ctx->IsFed(filter_node) ||
      ctx->IsProtected(filter_node) || ctx->IsReplaced(filter_node) ||
      ctx->IsAbsorbed(filter_node) ||
      ctx->KeptConsumers(filter_node, filter_output) != 1) {
    return;
  }
  const PartialTensorShape& input_shape =
      ctx->graph().output_shape(conv->input(0).node, conv->input(0).index);
  WindowAttrs attrs;
  if (!ReadWindowAttrs(conv, &attrs)) return;
  const int hi = attrs.index('H');
  const int wi = attrs.index('W');
  WindowDim h, w;
  if (!Dim(attrs, input_shape, filter->dim_size(0), 'H', &h) ||
      !Dim(attrs, input_shape, filter->dim_size(1), 'W', &w)) {
    return;
  }
  Crop ch, cw;
  if (!CropDim(h, &ch) || !CropDim(w, &cw)) return;
  if (ch.taps == h.window && cw.taps == w.window) return;

  std::vector<int64_t> paddings(8, 0);
  paddings[2 * hi] = ch.pad_before;
  paddings[2 * hi + 1] = ch.pad_after;
  paddings[2 * wi] = cw.pad_before;
  paddings[2 * wi + 1] = cw.pad_after;
  ctx->RecordFold(filter_node, {CropFilter(*filter, ch, cw)});
  ctx->Patch(conv, [paddings = std::move(paddings)](const GraphRebuilder&,
                                                    NodeDef* def) {
    def->attr["padding"] = AttrValue::String("EXPLICIT");
    def->attr["explicit_paddings"] = AttrValue::IntList(paddings);
  });
  ++ctx->stats().cropped_filters;
}

}  // namespace weft
