// What the CPU kernels over images share: the convolutions (conv_ops.cc,
// depthwise_conv_op.cc, conv_backprop_input_op.cc), pooling, batch norm and
// resizing.
//
//  - Reading the window attrs (data_format, padding with explicit_paddings,
//    strides, dilations, ksize) in a kernel constructor, with the checks the
//    shape functions in ops/common_shape_fns.cc make, so that a node whose
//    shape inference was skipped fails the same way.
//  - The geometry of a window sliding along one spatial dimension, computed
//    by the very GetWindowedOutputSize that shape inference uses, so kernels
//    and shape functions agree on every output size and padding.
//  - NCHW <-> NHWC layout changes that move elements by their byte size,
//    one instantiation per element width rather than per dtype: the kernels
//    compute in NHWC and convert NCHW tensors on the way in and out.
//  - The precision a kernel accumulates in: float for half and bfloat16.
#ifndef WEFT_KERNELS_COMMON_IMAGE_UTIL_H_
#define WEFT_KERNELS_COMMON_IMAGE_UTIL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "core/tensor.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {

// float for half and bfloat16 (their products and sums are computed in
// float and rounded once), the type itself otherwise.
template <typename T>
using AccumulateType =
    std::conditional_t<std::is_same_v<T, half> || std::is_same_v<T, bfloat16>,
                       float, T>;

// out[i] = static_cast<To>(in[i]) for i < n; a plain copy for equal types.
template <typename To, typename From>
inline void ConvertElements(const From* in, To* out, int64_t n) {
  if constexpr (std::is_same_v<To, From>) {
    if (n > 0) std::memcpy(out, in, n * sizeof(To));
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<To>(in[i]);
  }
}

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

namespace image_internal {

// out[b][j][i] = in[b][i][j] for i < rows, j < cols: a batch of row-major
// rows x cols matrices transposed, in 32 x 32 tiles so both sides stream
// through the cache. Units of work are (matrix, tile row) pairs.
template <typename E>
void TransposeBatch(const OpKernelContext& ctx, const E* in, E* out,
                    int64_t batch, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
  const int64_t tile_rows = (rows + kTile - 1) / kTile;
  ctx.ParallelFor(batch * tile_rows, kTile * cols,
                  [&](int64_t first, int64_t last) {
                    for (int64_t u = first; u < last; ++u) {
                      const int64_t b = u / tile_rows;
                      const int64_t r0 = (u % tile_rows) * kTile;
                      const int64_t r1 = std::min(rows, r0 + kTile);
                      const E* src = in + b * rows * cols;
                      E* dst = out + b * rows * cols;
                      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
                        const int64_t c1 = std::min(cols, c0 + kTile);
                        for (int64_t r = r0; r < r1; ++r) {
                          for (int64_t c = c0; c < c1; ++c) {
                            dst[c * rows + r] = src[r * cols + c];
                          }
                        }
                      }
                    }
                  });
}

inline void TransposeBatchBytes(const OpKernelContext& ctx, const void* in,
                                void* out, size_t elem_size, int64_t batch,
                                int64_t rows, int64_t cols) {
  if (batch * rows * cols == 0) return;
  switch (elem_size) {
    case 1:
      TransposeBatch(ctx, static_cast<const uint8_t*>(in),
                     static_cast<uint8_t*>(out), batch, rows, cols);
      break;
    case 2:
      TransposeBatch(ctx, static_cast<const uint16_t*>(in),
                     static_cast<uint16_t*>(out), batch, rows, cols);
      break;
    case 4:
      TransposeBatch(ctx, static_cast<const uint32_t*>(in),
                     static_cast<uint32_t*>(out), batch, rows, cols);
      break;
    default:
      TransposeBatch(ctx, static_cast<const uint64_t*>(in),
                     static_cast<uint64_t*>(out), batch, rows, cols);
      break;
  }
}

}  // namespace image_internal

// [N, C, H, W] -> [N, H, W, C]: a new temporary of the same dtype.
inline Status NchwToNhwc(OpKernelContext* ctx, const Tensor& nchw,
                         Tensor* nhwc) {
  const int64_t n = nchw.dim_size(0), c = nchw.dim_size(1),
                h = nchw.dim_size(2), w = nchw.dim_size(3);
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(nchw.dtype(), TensorShape({n, h, w, c}), nhwc));
  image_internal::TransposeBatchBytes(*ctx, nchw.raw_data(), nhwc->raw_data(),
                                      DataTypeSize(nchw.dtype()), n, c, h * w);
  return Status();
}

// [N, H, W, C] `nhwc` into the already allocated [N, C, H, W] `nchw`.
inline void NhwcToNchw(const OpKernelContext& ctx, const Tensor& nhwc,
                       Tensor* nchw) {
  const int64_t n = nhwc.dim_size(0), h = nhwc.dim_size(1),
                w = nhwc.dim_size(2), c = nhwc.dim_size(3);
  image_internal::TransposeBatchBytes(ctx, nhwc.raw_data(), nchw->raw_data(),
                                      DataTypeSize(nhwc.dtype()), n, h * w, c);
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

// Runs `compute(in_nhwc, out_nhwc)` for a kernel whose input 0 and output
// 0 are images in `format`: NHWC tensors are passed through; an NCHW input
// is transposed into a temporary, the NHWC result is computed into another
// and transposed into the output. `out` is the allocated output (in
// `format`).
template <typename Fn>
void WithNhwc(OpKernelContext* ctx, TensorFormat format, const Tensor& in,
              Tensor* out, Fn&& compute) {
  if (format == TensorFormat::kNHWC) {
    compute(in, out);
    return;
  }
  Tensor in_nhwc;
  OP_REQUIRES_OK(ctx, NchwToNhwc(ctx, in, &in_nhwc));
  Tensor out_nhwc;
  OP_REQUIRES_OK(
      ctx, ctx->allocate_temp(out->dtype(), NhwcShape(format, out->shape()),
                              &out_nhwc));
  compute(static_cast<const Tensor&>(in_nhwc), &out_nhwc);
  if (!ctx->status().ok()) return;
  NhwcToNchw(*ctx, out_nhwc, out);
}

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_IMAGE_UTIL_H_
