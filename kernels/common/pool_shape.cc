#include "kernels/common/pool_shape.h"

#include <cstdint>

namespace weft {

Status ReadPoolAttrs(OpKernelConstruction* ctx, bool max, WindowAttrs* attrs,
                     int64_t* depth_window) {
  WEFT_RETURN_IF_ERROR(ReadFormatAndPadding(ctx, attrs));
  WEFT_RETURN_IF_ERROR(ReadWindowList(ctx, "ksize", &attrs->ksize));
  WEFT_RETURN_IF_ERROR(ReadWindowList(ctx, "strides", &attrs->strides));
  return CheckPoolAttrs(max, *attrs, depth_window);
}

Status CheckPoolAttrs(bool max, const WindowAttrs& attrs,
                      int64_t* depth_window) {
  const int n = attrs.index('N');
  if (attrs.ksize[n] != 1 || attrs.strides[n] != 1) {
    return errors::Unimplemented(
        "attrs 'ksize' ", WindowListString(attrs.ksize), " and 'strides' ",
        WindowListString(attrs.strides), " must be 1 at index ", n,
        ": pooling over the batch dimension is not supported");
  }
  if (attrs.padding == Padding::kExplicit) {
    // TensorFlow requires it: a window of padding alone has no value.
    for (char dim : {'H', 'W'}) {
      const int i = attrs.index(dim);
      for (int side = 0; side < 2; ++side) {
        if (attrs.explicit_paddings[2 * i + side] >= attrs.ksize[i]) {
          return errors::InvalidArgument(
              side == 0 ? (dim == 'H' ? "top" : "left")
                        : (dim == 'H' ? "bottom" : "right"),
              " padding ", attrs.explicit_paddings[2 * i + side],
              " must be smaller than the window size ", attrs.ksize[i],
              " (attr 'explicit_paddings' is ",
              WindowListString(attrs.explicit_paddings), ", 'ksize' ",
              WindowListString(attrs.ksize), ")");
        }
      }
    }
  }
  const int c = attrs.index('C');
  *depth_window = attrs.ksize[c];
  if (!max) {
    if (attrs.ksize[c] != 1) {
      return errors::Unimplemented("AvgPool does not pool over depth; 'ksize' ",
                                   WindowListString(attrs.ksize),
                                   " must be 1 at index ", c);
    }
    return Status();
  }
  if (*depth_window != 1) {
    if (attrs.ksize[attrs.index('H')] != 1 ||
        attrs.ksize[attrs.index('W')] != 1) {
      return errors::Unimplemented(
          "MaxPool pools either over depth or over height and width, not "
          "both; 'ksize' is ",
          WindowListString(attrs.ksize));
    }
    if (attrs.strides[c] != *depth_window) {
      return errors::Unimplemented(
          "depthwise max pooling needs the depth stride to equal the depth "
          "window; 'ksize' is ",
          WindowListString(attrs.ksize), " and 'strides' ",
          WindowListString(attrs.strides));
    }
    if (attrs.padding == Padding::kExplicit) {
      return errors::Unimplemented(
          "depthwise max pooling does not support EXPLICIT padding");
    }
  }
  return Status();
}

TensorShape PoolShape::OutputShape(const WindowAttrs& attrs) const {
  return FormatShape(attrs.format, batch, rows.output, cols.output, out_depth);
}

StatusOr<PoolShape> GetPoolShape(const WindowAttrs& attrs, int64_t depth_window,
                                 const TensorShape& input) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional but has shape ",
                                   input.DebugString());
  }
  PoolShape s;
  s.batch = input.dim_size(attrs.index('N'));
  s.depth = input.dim_size(attrs.index('C'));
  s.depth_window = depth_window;
  if (depth_window != 1) {
    if (s.depth % depth_window != 0) {
      return errors::Unimplemented(
          "depthwise max pooling needs the depth window ", depth_window,
          " to divide the input depth ", s.depth, " (input ",
          input.DebugString(), ")");
    }
    s.rows.input = s.rows.output = input.dim_size(attrs.index('H'));
    s.cols.input = s.cols.output = input.dim_size(attrs.index('W'));
    s.out_depth = s.depth / depth_window;
    return s;
  }
  WEFT_ASSIGN_OR_RETURN(
      s.rows, ComputeWindowDim(attrs, 'H', input.dim_size(attrs.index('H')),
                               attrs.ksize[attrs.index('H')]));
  WEFT_ASSIGN_OR_RETURN(
      s.cols, ComputeWindowDim(attrs, 'W', input.dim_size(attrs.index('W')),
                               attrs.ksize[attrs.index('W')]));
  s.out_depth = s.depth;
  return s;
}

}  // namespace weft
