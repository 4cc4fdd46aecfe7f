// Windowed NN ops beyond Conv2D, MaxPool and AvgPool: MaxPoolV2 (ksize and
// strides as inputs), MaxPoolWithArgmax, Conv3D, Conv3DBackpropInputV2 (the
// transposed 3-D convolution of Conv3DTranspose), MaxPool3D, AvgPool3D,
// ExtractImagePatches, and LRN (a window over channels). Names, arguments,
// attrs and defaults follow TensorFlow 2.21's nn_ops.cc and array_ops.cc so
// graph files validate unchanged; the shape functions propagate every known
// dimension through the window arithmetic the kernels use
// (GetWindowedOutputSize).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

std::string List(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// Where the batch, channel and spatial dimensions of a data_format sit.
struct Layout {
  int rank = 4;
  int batch = 0;
  int channel = 3;
  std::vector<int> spatial;  // in order (D,) H, W
};

StatusOr<Layout> ParseLayout(const std::string& format) {
  Layout l;
  l.rank = static_cast<int>(format.size());
  if (format == "NHWC" || format == "NDHWC") {
    l.channel = l.rank - 1;
    for (int i = 1; i < l.rank - 1; ++i) l.spatial.push_back(i);
    return l;
  }
  if (format == "NCHW" || format == "NCDHW") {
    l.channel = 1;
    for (int i = 2; i < l.rank; ++i) l.spatial.push_back(i);
    return l;
  }
  return errors::InvalidArgument("data_format '", format,
                                 "' is not supported here");
}

// A list(int) attr (or input) of one value >= 1 per dimension of the input.
Status CheckWindowList(const char* name, const std::vector<int64_t>& v,
                       int rank) {
  if (static_cast<int>(v.size()) != rank) {
    return errors::InvalidArgument(name, " is ", List(v), " but must have ",
                                   rank,
                                   " values, one per dimension of input 0");
  }
  for (int64_t x : v) {
    if (x < 1) {
      return errors::InvalidArgument(name, " is ", List(v),
                                     " but its values must be >= 1");
    }
  }
  return Status();
}

// Values of `v` at the batch and channel dimensions must be 1.
Status CheckNotOverBatchOrChannel(const char* name,
                                  const std::vector<int64_t>& v,
                                  const Layout& l, const char* what) {
  if (v[l.batch] != 1 || v[l.channel] != 1) {
    return errors::Unimplemented(name, " is ", List(v), ": ", what,
                                 " over the batch or channel dimension is not "
                                 "supported");
  }
  return Status();
}

// The output size along each spatial dimension of `input`, for windows
// `window[i]` (dimension handles: filter sizes may be unknown) with the
// given strides and dilations (indexed by input dimension).
Status SpatialOutputDims(InferenceContext* c, ShapeHandle input,
                         const Layout& l,
                         const std::vector<DimensionHandle>& window,
                         const std::vector<int64_t>& strides,
                         const std::vector<int64_t>& dilations, Padding padding,
                         std::vector<DimensionHandle>* out) {
  out->clear();
  for (size_t i = 0; i < l.spatial.size(); ++i) {
    const int d = l.spatial[i];
    const DimensionHandle in = c->Dim(input, d);
    if (!c->ValueKnown(in) || !c->ValueKnown(window[i])) {
      out->push_back(c->UnknownDim());
      continue;
    }
    StatusOr<WindowedOutputSize> size = GetWindowedOutputSize(
        c->Value(in), c->Value(window[i]), dilations[d], strides[d], padding);
    if (!size.ok()) {
      return errors::InvalidArgument(
          "window ", c->Value(window[i]), " with stride ", strides[d],
          " and dilation ", dilations[d], " does not fit dimension ", d,
          " of input 0 ", c->DebugString(input), ": ", size.status().message());
    }
    out->push_back(c->MakeDim(size->size));
  }
  return Status();
}

ShapeHandle MakeLayoutShape(InferenceContext* c, const Layout& l,
                            DimensionHandle batch,
                            const std::vector<DimensionHandle>& spatial,
                            DimensionHandle channels) {
  std::vector<DimensionHandle> dims(l.rank);
  dims[l.batch] = batch;
  dims[l.channel] = channels;
  for (size_t i = 0; i < spatial.size(); ++i) dims[l.spatial[i]] = spatial[i];
  return c->MakeShape(dims);
}

// A pool with ksize and strides of one value per input dimension: the
// spatial dimensions shrink by the window, batch and channels stay.
Status PoolWithWindows(InferenceContext* c, const std::string& format,
                       const std::vector<int64_t>& ksize,
                       const std::vector<int64_t>& strides,
                       const char* ksize_name, const char* strides_name) {
  WEFT_ASSIGN_OR_RETURN(const Layout l, ParseLayout(format));
  WEFT_RETURN_IF_ERROR(CheckWindowList(ksize_name, ksize, l.rank));
  WEFT_RETURN_IF_ERROR(CheckWindowList(strides_name, strides, l.rank));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel(ksize_name, ksize, l, "pooling"));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel(strides_name, strides, l, "striding"));
  std::string padding_name;
  WEFT_RETURN_IF_ERROR(c->GetAttr("padding", &padding_name));
  WEFT_ASSIGN_OR_RETURN(const Padding padding, ParsePadding(padding_name));
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), l.rank, &input));
  std::vector<DimensionHandle> window;
  for (int d : l.spatial) window.push_back(c->MakeDim(ksize[d]));
  std::vector<DimensionHandle> spatial;
  WEFT_RETURN_IF_ERROR(SpatialOutputDims(c, input, l, window, strides,
                                         std::vector<int64_t>(l.rank, 1),
                                         padding, &spatial));
  c->set_output(0, MakeLayoutShape(c, l, c->Dim(input, l.batch), spatial,
                                   c->Dim(input, l.channel)));
  return Status();
}

// MaxPool3D, AvgPool3D: attrs ksize and strides.
Status Pool3DShape(InferenceContext* c) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  std::vector<int64_t> ksize, strides;
  WEFT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  WEFT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  return PoolWithWindows(c, format, ksize, strides, "attr 'ksize'",
                         "attr 'strides'");
}

// MaxPoolWithArgmax: NHWC, and argmax has the output's shape.
Status MaxPoolWithArgmaxShape(InferenceContext* c) {
  std::vector<int64_t> ksize, strides;
  WEFT_RETURN_IF_ERROR(c->GetAttr("ksize", &ksize));
  WEFT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  WEFT_RETURN_IF_ERROR(PoolWithWindows(c, "NHWC", ksize, strides,
                                       "attr 'ksize'", "attr 'strides'"));
  c->set_output(1, c->output(0));
  return Status();
}

// MaxPoolV2: ksize (input 1) and strides (input 2) are int32 vectors of 4;
// the output's spatial size is known only when both are constant.
Status MaxPoolV2Shape(InferenceContext* c) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format == "NCHW_VECT_C") {
    return errors::InvalidArgument(
        "data_format NCHW_VECT_C is only for qint8, which weft does not "
        "support; use NHWC or NCHW");
  }
  for (int i = 1; i <= 2; ++i) {
    ShapeHandle v;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), 1, &v),
                             i == 1 ? "ksize (input 1)" : "strides (input 2)",
                             " must be a vector");
    DimensionHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(
        c->WithValue(c->Dim(v, 0), 4, &unused),
        i == 1 ? "ksize (input 1)" : "strides (input 2)",
        " must have 4 values, one per dimension of input 0");
  }
  bool ksize_known = false;
  bool strides_known = false;
  std::vector<int64_t> ksize, strides;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &ksize_known, &ksize));
  WEFT_RETURN_IF_ERROR(c->GetInputInts(2, 1, &strides_known, &strides));
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  if (!ksize_known || !strides_known) {
    c->set_output(0, c->UnknownShapeOfRank(4));
    return Status();
  }
  // A window over depth alone pools groups of channels (as MaxPool does).
  WEFT_ASSIGN_OR_RETURN(const Layout l, ParseLayout(format));
  WEFT_RETURN_IF_ERROR(CheckWindowList("ksize (input 1)", ksize, 4));
  WEFT_RETURN_IF_ERROR(CheckWindowList("strides (input 2)", strides, 4));
  if (ksize[l.channel] != 1) {
    if (ksize[l.batch] != 1 || strides[l.batch] != 1) {
      return errors::Unimplemented("ksize (input 1) ", List(ksize),
                                   " and strides (input 2) ", List(strides),
                                   ": pooling over the batch dimension is not "
                                   "supported");
    }
    DimensionHandle depth;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Divide(c->Dim(input, l.channel), ksize[l.channel],
                  /*evenly_divisible=*/true, &depth),
        "the depth window ", ksize[l.channel],
        " must divide the depth of input 0 ", c->DebugString(input));
    ShapeHandle out;
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(input, l.channel, depth, &out));
    c->set_output(0, out);
    return Status();
  }
  return PoolWithWindows(c, format, ksize, strides, "ksize (input 1)",
                         "strides (input 2)");
}

// Conv3D: input [N, D, H, W, C] (or NCDHW), filter [kd, kh, kw, C / groups,
// out]; the output has `out` channels.
Status Conv3DShape(InferenceContext* c) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  WEFT_ASSIGN_OR_RETURN(const Layout l, ParseLayout(format));
  std::vector<int64_t> strides, dilations;
  WEFT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  WEFT_RETURN_IF_ERROR(c->GetAttr("dilations", &dilations));
  WEFT_RETURN_IF_ERROR(CheckWindowList("attr 'strides'", strides, 5));
  WEFT_RETURN_IF_ERROR(CheckWindowList("attr 'dilations'", dilations, 5));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel("attr 'strides'", strides, l, "striding"));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel("attr 'dilations'", dilations, l, "dilating"));
  std::string padding_name;
  WEFT_RETURN_IF_ERROR(c->GetAttr("padding", &padding_name));
  WEFT_ASSIGN_OR_RETURN(const Padding padding, ParsePadding(padding_name));
  ShapeHandle input, filter;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 5, &input), "input 0");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 5, &filter),
                           "filter (input 1)");
  const DimensionHandle in_depth = c->Dim(input, l.channel);
  const DimensionHandle filter_depth = c->Dim(filter, 3);
  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_depth)) {
    if (c->Value(filter_depth) == 0 ||
        c->Value(in_depth) % c->Value(filter_depth) != 0) {
      return errors::InvalidArgument(
          "input depth ", c->Value(in_depth), " of input 0 ",
          c->DebugString(input),
          " must be a multiple of the filter's input depth ",
          c->Value(filter_depth), " (input 1 ", c->DebugString(filter), ")");
    }
  }
  std::vector<DimensionHandle> window = {c->Dim(filter, 0), c->Dim(filter, 1),
                                         c->Dim(filter, 2)};
  std::vector<DimensionHandle> spatial;
  WEFT_RETURN_IF_ERROR(SpatialOutputDims(c, input, l, window, strides,
                                         dilations, padding, &spatial));
  c->set_output(0, MakeLayoutShape(c, l, c->Dim(input, l.batch), spatial,
                                   c->Dim(filter, 4)));
  return Status();
}

// Conv3DBackpropInputV2: the output is input_sizes (input 0, 5 values);
// filter (input 1) and out_backprop (input 2) are 5-D.
Status Conv3DBackpropInputV2Shape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 5, &unused),
                           "filter (input 1)");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 5, &unused),
                           "out_backprop (input 2)");
  ShapeHandle sizes;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 1, &sizes),
                           "input_sizes (input 0) must be a vector");
  DimensionHandle five;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(sizes, 0), 5, &five),
                           "input_sizes (input 0) must have 5 values");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  WEFT_RETURN_IF_ERROR(c->WithRank(out, 5, &out));
  c->set_output(0, out);
  return Status();
}

// ExtractImagePatches: NHWC images; patches [N, out_rows, out_cols,
// ksize_rows * ksize_cols * depth].
Status ExtractImagePatchesShape(InferenceContext* c) {
  std::vector<int64_t> ksizes, strides, rates;
  WEFT_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  WEFT_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  WEFT_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  const Layout l = *ParseLayout("NHWC");
  WEFT_RETURN_IF_ERROR(CheckWindowList("attr 'ksizes'", ksizes, 4));
  WEFT_RETURN_IF_ERROR(CheckWindowList("attr 'strides'", strides, 4));
  WEFT_RETURN_IF_ERROR(CheckWindowList("attr 'rates'", rates, 4));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel("attr 'ksizes'", ksizes, l, "patches"));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel("attr 'strides'", strides, l, "striding"));
  WEFT_RETURN_IF_ERROR(
      CheckNotOverBatchOrChannel("attr 'rates'", rates, l, "dilating"));
  std::string padding_name;
  WEFT_RETURN_IF_ERROR(c->GetAttr("padding", &padding_name));
  WEFT_ASSIGN_OR_RETURN(const Padding padding, ParsePadding(padding_name));
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  std::vector<DimensionHandle> spatial;
  WEFT_RETURN_IF_ERROR(SpatialOutputDims(
      c, input, l, {c->MakeDim(ksizes[1]), c->MakeDim(ksizes[2])}, strides,
      rates, padding, &spatial));
  int64_t taps = 0;
  if (__builtin_mul_overflow(ksizes[1], ksizes[2], &taps)) {
    return errors::InvalidArgument("attr 'ksizes' ", List(ksizes),
                                   " has too many elements");
  }
  DimensionHandle depth;
  WEFT_RETURN_IF_ERROR(c->Multiply(c->Dim(input, 3), taps, &depth));
  c->set_output(0, MakeLayoutShape(c, l, c->Dim(input, 0), spatial, depth));
  return Status();
}

}  // namespace

REGISTER_OP("MaxPoolV2")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, "
        "int8, uint16, qint8} = DT_FLOAT")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Input("input: T")
    .Input("ksize: int32")
    .Input("strides: int32")
    .Output("output: T")
    .SetShapeFn(MaxPoolV2Shape);

REGISTER_OP("MaxPoolWithArgmax")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("Targmax: {int32, int64} = DT_INT64")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("include_batch_in_index: bool = false")
    .Input("input: T")
    .Output("output: T")
    .Output("argmax: Targmax")
    .Attr("T: realnumbertype")
    .SetShapeFn(MaxPoolWithArgmaxShape);

REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DShape);

REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(Conv3DBackpropInputV2Shape);

REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(Pool3DShape);

REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(Pool3DShape);

REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr(
        "T: {bfloat16, half, float, double, int8, int16, int32, int64, "
        "uint8, uint16, uint32, uint64, complex64, complex128, bool}")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape);

REGISTER_OP("LRN")
    .Input("input: T")
    .Output("output: T")
    .Attr("depth_radius: int = 5")
    .Attr("bias: float = 1.0")
    .Attr("alpha: float = 1.0")
    .Attr("beta: float = 0.5")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRank(c, 4);
    });

}  // namespace weft
