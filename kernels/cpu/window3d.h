// The window geometry of the 3-D NN ops (Conv3D, MaxPool3D, AvgPool3D) on
// the CPU: their attrs read and checked once in the kernel constructor, and
// the output size and padding along planes, rows and columns computed by the
// GetWindowedOutputSize that shape inference uses, so kernels and shape
// functions agree. Like TensorFlow's CPU kernels these take NDHWC only.
#ifndef WEFT_KERNELS_CPU_WINDOW3D_H_
#define WEFT_KERNELS_CPU_WINDOW3D_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/window_shape.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {

struct Window3DAttrs {
  Padding padding = Padding::kValid;
  std::vector<int64_t> ksize = {1, 1, 1, 1, 1};  // all 1 for Conv3D
  std::vector<int64_t> strides = {1, 1, 1, 1, 1};
};

// Reads data_format (NDHWC only, as TensorFlow's CPU kernels), padding,
// strides and, for pools, ksize: 5 values >= 1 each, 1 over the batch and
// channel dimensions. Conv3D's dilations must be all 1 (as on TensorFlow's
// CPU).
inline Status ReadWindow3DAttrs(OpKernelConstruction* ctx, bool pool,
                                Window3DAttrs* attrs) {
  std::string format;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NDHWC") {
    return errors::Unimplemented(
        "data_format '", format,
        "' is not supported on the CPU (as in TensorFlow); use NDHWC");
  }
  std::string padding;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("padding", &padding));
  WEFT_ASSIGN_OR_RETURN(attrs->padding, ParsePadding(padding));
  std::vector<const char*> names = {"strides"};
  if (pool) names.push_back("ksize");
  for (const char* name : names) {
    std::vector<int64_t> v;
    WEFT_RETURN_IF_ERROR(ctx->GetAttr(name, &v));
    if (v.size() != 5) {
      return errors::InvalidArgument("attr '", name, "' is ",
                                     WindowListString(v),
                                     " but must have 5 values");
    }
    for (int64_t x : v) {
      if (x < 1) {
        return errors::InvalidArgument("attr '", name, "' is ",
                                       WindowListString(v),
                                       " but its values must be >= 1");
      }
    }
    if (v[0] != 1 || v[4] != 1) {
      return errors::Unimplemented(
          "attr '", name, "' is ", WindowListString(v),
          ": windows and strides over the batch or channel dimension are "
          "not supported");
    }
    (std::string(name) == "ksize" ? attrs->ksize : attrs->strides) = v;
  }
  if (!pool) {
    std::vector<int64_t> dilations;
    WEFT_RETURN_IF_ERROR(ctx->GetAttr("dilations", &dilations));
    for (int64_t d : dilations) {
      if (d != 1) {
        return errors::Unimplemented(
            "attr 'dilations' is ", WindowListString(dilations),
            " but the CPU Conv3D supports only dilations of 1 (as in "
            "TensorFlow)");
      }
    }
  }
  return Status();
}

// The windows along planes, rows and columns of an NDHWC input, with
// windows `window[3]` (ksize, or the filter's spatial sizes).
inline Status ComputeWindows3D(const Window3DAttrs& attrs,
                               const TensorShape& input,
                               const int64_t window[3], WindowDim dims[3]) {
  if (input.dims() != 5) {
    return errors::InvalidArgument("input 0 must be 5-D (NDHWC) but has shape ",
                                   input.DebugString());
  }
  static constexpr const char* kNames[3] = {"planes", "rows", "columns"};
  for (int i = 0; i < 3; ++i) {
    WindowDim& d = dims[i];
    d.input = input.dim_size(i + 1);
    d.window = window[i];
    d.stride = attrs.strides[i + 1];
    StatusOr<WindowedOutputSize> size =
        GetWindowedOutputSize(d.input, d.window, 1, d.stride, attrs.padding);
    if (!size.ok()) {
      return AddContext(
          size.status(),
          absl::StrCat("output ", kNames[i], " for input ", kNames[i], " ",
                       d.input, ", window ", d.window, ", stride ", d.stride));
    }
    d.output = size->size;
    d.pad_before = size->pad_before;
  }
  return Status();
}

}  // namespace weft

#endif  // WEFT_KERNELS_CPU_WINDOW3D_H_
