// The window geometry of the 2-D image ops (convolutions, pooling), shared
// by the CPU kernels, the CUDA planning (kernels/cuda/plan/nn_plan.h) and
// the shape contracts (pool_shape.h, conv_shape.h):
//
//  - Reading the window attrs (data_format, padding with explicit_paddings,
//    strides, dilations, ksize) in a kernel constructor, with the checks the
//    shape functions in ops/common_shape_fns.cc make, so that a node whose
//    shape inference was skipped fails the same way.
//  - The geometry of a window sliding along one spatial dimension, computed
//    by the very GetWindowedOutputSize that shape inference uses, so kernels
//    and shape functions agree on every output size and padding.
//  - Image shapes in NHWC and NCHW.
#ifndef WEFT_KERNELS_COMMON_WINDOW_SHAPE_H_
#define WEFT_KERNELS_COMMON_WINDOW_SHAPE_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {

inline std::string WindowListString(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// The window attrs of a 2-D convolution or pooling node, in data_format
// order.
struct WindowAttrs {
  TensorFormat format = TensorFormat::kNHWC;
  Padding padding = Padding::kValid;
  // 8 values (a before/after pair per dimension) when padding is EXPLICIT,
  // all zero otherwise.
  std::vector<int64_t> explicit_paddings = std::vector<int64_t>(8, 0);
  std::vector<int64_t> strides = {1, 1, 1, 1};
  // All 1 for ops without a dilations attr.
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  // Pooling windows; all 1 for convolutions.
  std::vector<int64_t> ksize = {1, 1, 1, 1};

  int index(char dim) const { return FormatDimIndex(format, dim); }
};

// Reads a list(int) attr that must hold 4 values >= 1.
inline Status ReadWindowList(OpKernelConstruction* ctx, const char* name,
                             std::vector<int64_t>* values) {
  WEFT_RETURN_IF_ERROR(ctx->GetAttr(name, values));
  if (values->size() != 4) {
    return errors::InvalidArgument(
        "attr '", name, "' is ", WindowListString(*values),
        " but must have 4 values, one per dimension of the input");
  }
  for (int64_t v : *values) {
    if (v < 1) {
      return errors::InvalidArgument("attr '", name, "' is ",
                                     WindowListString(*values),
                                     " but its values must be >= 1");
    }
  }
  return Status();
}

// Reads data_format and padding, and explicit_paddings when the op has that
// attr: 8 values >= 0 with the batch and channel pairs zero when padding is
// EXPLICIT, none otherwise.
inline Status ReadFormatAndPadding(OpKernelConstruction* ctx,
                                   WindowAttrs* attrs) {
  std::string format;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  WEFT_ASSIGN_OR_RETURN(attrs->format, ParseTensorFormat(format));
  std::string padding;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  WEFT_ASSIGN_OR_RETURN(attrs->padding, ParsePadding(padding));
  std::vector<int64_t> explicit_paddings;
  if (ctx->HasAttr("explicit_paddings")) {
    WEFT_RETURN_IF_ERROR(ctx->GetAttr("explicit_paddings", &explicit_paddings));
  }
  if (attrs->padding != Padding::kExplicit) {
    if (!explicit_paddings.empty()) {
      return errors::InvalidArgument(
          "attr 'explicit_paddings' is ", WindowListString(explicit_paddings),
          " but must be empty unless padding is EXPLICIT (it is ", padding,
          ")");
    }
    return Status();
  }
  if (explicit_paddings.size() != 8) {
    return errors::InvalidArgument(
        "attr 'explicit_paddings' is ", WindowListString(explicit_paddings),
        " but padding EXPLICIT needs 8 values, a (before, after) pair per "
        "dimension of the input");
  }
  for (int64_t p : explicit_paddings) {
    if (p < 0) {
      return errors::InvalidArgument("attr 'explicit_paddings' is ",
                                     WindowListString(explicit_paddings),
                                     " but paddings must be >= 0");
    }
  }
  for (char dim : {'N', 'C'}) {
    const int i = attrs->index(dim);
    if (explicit_paddings[2 * i] != 0 || explicit_paddings[2 * i + 1] != 0) {
      return errors::InvalidArgument(
          "attr 'explicit_paddings' is ", WindowListString(explicit_paddings),
          " but the ", dim == 'N' ? "batch" : "channel", " dimension (", i,
          " in ", format, ") cannot be padded");
    }
  }
  attrs->explicit_paddings = std::move(explicit_paddings);
  return Status();
}

// All the attrs of a 2-D convolution: strides and dilations of 1 over the
// batch and channel dimensions.
inline Status ReadConvAttrs(OpKernelConstruction* ctx, WindowAttrs* attrs) {
  WEFT_RETURN_IF_ERROR(ReadFormatAndPadding(ctx, attrs));
  WEFT_RETURN_IF_ERROR(ReadWindowList(ctx, "strides", &attrs->strides));
  WEFT_RETURN_IF_ERROR(ReadWindowList(ctx, "dilations", &attrs->dilations));
  for (char dim : {'N', 'C'}) {
    const int i = attrs->index(dim);
    if (attrs->strides[i] != 1) {
      return errors::InvalidArgument(
          "attr 'strides' is ", WindowListString(attrs->strides),
          " but striding over the batch or channel dimension is not "
          "supported");
    }
    if (attrs->dilations[i] != 1) {
      return errors::InvalidArgument(
          "attr 'dilations' is ", WindowListString(attrs->dilations),
          " but dilating the batch or channel dimension is not supported");
    }
  }
  return Status();
}

// One spatial dimension of a sliding window: output[o] covers input
// positions o * stride - pad_before + t * dilation for taps t < window.
struct WindowDim {
  int64_t input = 0;
  int64_t window = 1;
  int64_t dilation = 1;
  int64_t stride = 1;
  int64_t output = 0;
  int64_t pad_before = 0;
};

// The geometry along spatial dimension `dim` ('H' or 'W') of an input of
// `input` elements under `attrs`, with a window of `window` taps. Errors say
// which dimension and sizes were involved.
inline StatusOr<WindowDim> ComputeWindowDim(const WindowAttrs& attrs, char dim,
                                            int64_t input, int64_t window) {
  const int i = attrs.index(dim);
  WindowDim d;
  d.input = input;
  d.window = window;
  d.dilation = attrs.dilations[i];
  d.stride = attrs.strides[i];
  StatusOr<WindowedOutputSize> size = GetWindowedOutputSize(
      input, window, d.dilation, d.stride, attrs.padding,
      attrs.explicit_paddings[2 * i], attrs.explicit_paddings[2 * i + 1]);
  if (!size.ok()) {
    const char* name = dim == 'H' ? "height" : "width";
    return AddContext(
        size.status(),
        absl::StrCat("output ", name, " for input ", name, " ", input,
                     ", window ", window,
                     d.dilation > 1 ? absl::StrCat(" dilated by ", d.dilation)
                                    : std::string(),
                     ", stride ", d.stride));
  }
  d.output = size->size;
  d.pad_before = size->pad_before;
  return d;
}

// The range [*lo, *hi) of taps t < d.window whose input position
// o * stride - pad_before + t * dilation lies inside the input.
inline void ValidTaps(const WindowDim& d, int64_t o, int64_t* lo, int64_t* hi) {
  const int64_t start = o * d.stride - d.pad_before;
  int64_t first = 0;
  if (start < 0) first = (-start + d.dilation - 1) / d.dilation;
  int64_t last = d.window;               // exclusive
  const int64_t room = d.input - start;  // positions start .. input - 1
  if (room <= 0) {
    last = 0;
  } else {
    last = std::min(d.window, (room - 1) / d.dilation + 1);
  }
  *lo = std::min(first, last);
  *hi = last;
}

// The [N, H, W, C] shape of a 4-D shape given in `format`.
inline TensorShape NhwcShape(TensorFormat format, const TensorShape& shape) {
  if (format == TensorFormat::kNHWC) return shape;
  return TensorShape({shape.dim_size(0), shape.dim_size(2), shape.dim_size(3),
                      shape.dim_size(1)});
}

// The shape in `format` of batch n, spatial h x w and c channels.
inline TensorShape FormatShape(TensorFormat format, int64_t n, int64_t h,
                               int64_t w, int64_t c) {
  if (format == TensorFormat::kNHWC) return TensorShape({n, h, w, c});
  return TensorShape({n, c, h, w});
}

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_WINDOW_SHAPE_H_
