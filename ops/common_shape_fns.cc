#include "ops/common_shape_fns.h"

#include <algorithm>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {

StatusOr<Padding> ParsePadding(absl::string_view name) {
  if (name == "VALID") return Padding::kValid;
  if (name == "SAME") return Padding::kSame;
  if (name == "EXPLICIT") return Padding::kExplicit;
  return errors::InvalidArgument("unknown padding '", name,
                                 "'; expected VALID, SAME or EXPLICIT");
}

StatusOr<TensorFormat> ParseTensorFormat(absl::string_view name) {
  if (name == "NHWC") return TensorFormat::kNHWC;
  if (name == "NCHW") return TensorFormat::kNCHW;
  return errors::InvalidArgument("data_format '", name,
                                 "' is not supported; expected NHWC or NCHW");
}

int FormatDimIndex(TensorFormat format, char dim) {
  static constexpr char kNHWC[] = "NHWC";
  static constexpr char kNCHW[] = "NCHW";
  const char* order = format == TensorFormat::kNHWC ? kNHWC : kNCHW;
  for (int i = 0; i < 4; ++i) {
    if (order[i] == dim) return i;
  }
  return -1;
}

StatusOr<WindowedOutputSize> GetWindowedOutputSize(
    int64_t input_size, int64_t filter_size, int64_t dilation_rate,
    int64_t stride, Padding padding, int64_t explicit_pad_before,
    int64_t explicit_pad_after) {
  if (stride < 1) {
    return errors::InvalidArgument("stride must be >= 1 but is ", stride);
  }
  if (dilation_rate < 1) {
    return errors::InvalidArgument("dilation rate must be >= 1 but is ",
                                   dilation_rate);
  }
  if (filter_size < 1) {
    return errors::InvalidArgument("window size must be >= 1 but is ",
                                   filter_size);
  }
  if (input_size < 0) {
    return errors::InvalidArgument("input size must be >= 0 but is ",
                                   input_size);
  }
  int64_t effective;
  if (__builtin_mul_overflow(filter_size - 1, dilation_rate, &effective) ||
      __builtin_add_overflow(effective, 1, &effective)) {
    return errors::InvalidArgument("window size ", filter_size,
                                   " with dilation rate ", dilation_rate,
                                   " overflows int64");
  }
  WindowedOutputSize result;
  int64_t padded = input_size;
  if (padding == Padding::kExplicit) {
    if (explicit_pad_before < 0 || explicit_pad_after < 0) {
      return errors::InvalidArgument("explicit paddings must be >= 0 but are ",
                                     explicit_pad_before, " and ",
                                     explicit_pad_after);
    }
    if (__builtin_add_overflow(padded, explicit_pad_before, &padded) ||
        __builtin_add_overflow(padded, explicit_pad_after, &padded)) {
      return errors::InvalidArgument("input size ", input_size,
                                     " plus paddings overflows int64");
    }
    result.pad_before = explicit_pad_before;
    result.pad_after = explicit_pad_after;
  }
  if (padding == Padding::kSame) {
    // ceil(input / stride) without overflow.
    result.size = input_size / stride + (input_size % stride != 0 ? 1 : 0);
    // (out - 1) * stride <= input, so only adding the window can overflow.
    // For an empty input this is effective - stride, as in TensorFlow.
    const int64_t covered = (result.size - 1) * stride;
    int64_t needed;
    if (__builtin_add_overflow(covered, effective, &needed)) {
      return errors::InvalidArgument("window size ", effective,
                                     " overflows int64 with the padding");
    }
    needed = std::max<int64_t>(0, needed - input_size);
    result.pad_before = needed / 2;
    result.pad_after = needed - result.pad_before;
    return result;
  }
  // VALID and EXPLICIT: (padded - effective + stride) / stride, truncating
  // toward zero as TensorFlow's integer arithmetic does.
  int64_t numerator;
  if (__builtin_add_overflow(padded - effective, stride, &numerator)) {
    return errors::InvalidArgument("input size ", padded,
                                   " overflows int64 with stride ", stride);
  }
  result.size = numerator / stride;
  if (result.size < 0) {
    return errors::InvalidArgument(
        "computed output size would be negative: ", result.size,
        " [input size: ", padded, ", effective window size: ", effective,
        ", stride: ", stride, "]");
  }
  return result;
}

namespace shape_inference {

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return Status();
}

Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int64_t rank) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), rank, &out));
  c->set_output(0, out);
  return Status();
}

Status UnchangedShapeWithRank(InferenceContext* c, int64_t rank) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &out));
  c->set_output(0, out);
  return Status();
}

Status ScalarShape(InferenceContext* c) {
  c->set_output(0, c->Scalar());
  return Status();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return Status();
}

Status NoOutputs(InferenceContext* c) {
  if (c->num_outputs() != 0) {
    return errors::Internal("NoOutputs used for an op with ", c->num_outputs(),
                            " outputs");
  }
  return Status();
}

// ---- broadcasting -----------------------------------------------------------

Status BroadcastBinaryOpOutputShape(InferenceContext* c, ShapeHandle x,
                                    ShapeHandle y, ShapeHandle* out) {
  if (x.SameHandle(y) || c->Rank(y) == 0) {
    *out = x.IsSet() ? x : c->UnknownShape();
    return Status();
  }
  if (c->Rank(x) == 0) {
    *out = y.IsSet() ? y : c->UnknownShape();
    return Status();
  }
  if (!c->RankKnown(x) || !c->RankKnown(y)) {
    *out = c->UnknownShape();
    return Status();
  }
  const int32_t rank_x = c->Rank(x);
  const int32_t rank_y = c->Rank(y);
  const int32_t rank_out = std::max(rank_x, rank_y);
  std::vector<DimensionHandle> dims(rank_out);
  bool all_from_x = rank_out == rank_x;
  bool all_from_y = rank_out == rank_y;
  for (int32_t i = 0; i < rank_out; ++i) {
    const int32_t ix = i - (rank_out - rank_x);
    const int32_t iy = i - (rank_out - rank_y);
    // A missing leading dimension behaves as a known 1.
    const DimensionHandle dx = ix >= 0 ? c->Dim(x, ix) : DimensionHandle();
    const DimensionHandle dy = iy >= 0 ? c->Dim(y, iy) : DimensionHandle();
    const int64_t vx = ix >= 0 ? c->Value(dx) : 1;
    const int64_t vy = iy >= 0 ? c->Value(dy) : 1;
    bool take_x;
    if (ix >= 0 && iy >= 0 && dx.SameHandle(dy)) {
      take_x = true;
    } else if (vx == kUnknownDim || vy == kUnknownDim) {
      if (vx > 1) {
        take_x = true;
      } else if (vy > 1) {
        take_x = false;
      } else if (vx == 1) {
        take_x = false;
      } else if (vy == 1) {
        take_x = true;
      } else {
        // Two different unknown dimensions: either may be 1 at run time.
        dims[i] = c->UnknownDim();
        all_from_x = all_from_y = false;
        continue;
      }
    } else if (vx == vy) {
      // Either will do; the longer shape's keeps the result its handle.
      take_x = rank_x >= rank_y;
    } else if (vx == 1) {
      take_x = false;
    } else if (vy == 1) {
      take_x = true;
    } else {
      return errors::InvalidArgument(
          c->DescribeShape(x), " and ", c->DescribeShape(y),
          " cannot be broadcast together: sizes ", vx, " and ", vy,
          " at their dimensions ", ix, " and ", iy, " differ and neither is 1");
    }
    if (take_x) {
      dims[i] = dx.IsSet() ? dx : c->MakeDim(1);
      all_from_y = false;
    } else {
      dims[i] = dy.IsSet() ? dy : c->MakeDim(1);
      all_from_x = false;
    }
  }
  if (all_from_x) {
    *out = x;
  } else if (all_from_y) {
    *out = y;
  } else {
    *out = c->MakeShape(dims);
  }
  return Status();
}

Status BroadcastBinaryOpShape(InferenceContext* c) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(
      BroadcastBinaryOpOutputShape(c, c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return Status();
}

// ---- matrix products --------------------------------------------------------

namespace {

// The error for inner dimensions a (of input 0) and b (of input 1) that
// differ, or OK.
Status CheckInnerDims(InferenceContext* c, DimensionHandle a, DimensionHandle b,
                      absl::string_view transpose_note) {
  if (!c->ValueKnown(a) || !c->ValueKnown(b) || c->Value(a) == c->Value(b)) {
    return Status();
  }
  return errors::InvalidArgument(
      "inner dimensions of input 0 ", c->DebugString(c->input(0)),
      " and input 1 ", c->DebugString(c->input(1)), " differ: ", c->Value(a),
      " vs ", c->Value(b), transpose_note);
}

std::string TransposeNote(absl::string_view name_a, bool a,
                          absl::string_view name_b, bool b) {
  if (!a && !b) return "";
  return absl::StrCat(" (", name_a, "=", a ? "true" : "false", ", ", name_b,
                      "=", b ? "true" : "false", ")");
}

}  // namespace

Status MatMulShape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
  bool transpose_a = false;
  bool transpose_b = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  WEFT_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  const DimensionHandle rows = c->Dim(a, transpose_a ? 1 : 0);
  const DimensionHandle cols = c->Dim(b, transpose_b ? 0 : 1);
  const DimensionHandle inner_a = c->Dim(a, transpose_a ? 0 : 1);
  const DimensionHandle inner_b = c->Dim(b, transpose_b ? 1 : 0);
  WEFT_RETURN_IF_ERROR(CheckInnerDims(
      c, inner_a, inner_b,
      TransposeNote("transpose_a", transpose_a, "transpose_b", transpose_b)));
  c->set_output(0, c->Matrix(rows, cols));
  return Status();
}

Status BatchMatMulV2Shape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 2, &a));
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(1), 2, &b));
  bool adj_x = false;
  bool adj_y = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  WEFT_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  const DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  const DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  WEFT_RETURN_IF_ERROR(
      CheckInnerDims(c, c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2),
                     TransposeNote("adj_x", adj_x, "adj_y", adj_y)));
  ShapeHandle a_batch;
  ShapeHandle b_batch;
  WEFT_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  WEFT_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  ShapeHandle batch;
  WEFT_RETURN_IF_ERROR_CTX(
      BroadcastBinaryOpOutputShape(c, a_batch, b_batch, &batch),
      "batch dimensions of input 0 ", c->DebugString(c->input(0)),
      " and input 1 ", c->DebugString(c->input(1)), " do not broadcast");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return Status();
}

// ---- reductions and reshapes ------------------------------------------------

namespace {

// Reads an int32/int64 tensor of rank <= 1 as a list of int64.
Status ReadIndexTensor(const Tensor& t, int input_idx,
                       std::vector<int64_t>* values) {
  if (t.dims() > 1) {
    return errors::InvalidArgument("input ", input_idx,
                                   " must be a scalar or vector but its value "
                                   "has shape ",
                                   t.shape().DebugString());
  }
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument("input ", input_idx,
                                   " must be int32 or int64 but is ",
                                   DataTypeName(t.dtype()));
  }
  const int64_t n = t.NumElements();
  values->clear();
  values->reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    values->push_back(t.dtype() == DT_INT32 ? t.data<int32_t>()[i]
                                            : t.data<int64_t>()[i]);
  }
  return Status();
}

}  // namespace

Status ReductionShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  bool keep_dims = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));

  const Tensor* axes_t = c->input_tensor(1);
  if (axes_t == nullptr || !c->RankKnown(input)) {
    c->set_output(0, keep_dims && c->RankKnown(input)
                         ? c->UnknownShapeOfRank(c->Rank(input))
                         : c->UnknownShape());
    return Status();
  }
  std::vector<int64_t> axes;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(*axes_t, 1, &axes));
  const int32_t rank = c->Rank(input);
  std::set<int64_t> reduced;
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument(
          "reduction axis ", axis, " is out of range for input 0 ",
          c->DebugString(input), " of rank ", rank, "; axes must be in [",
          -rank, ", ", rank, ")");
    }
    reduced.insert(axis < 0 ? axis + rank : axis);
  }
  std::vector<DimensionHandle> dims;
  for (int32_t i = 0; i < rank; ++i) {
    if (reduced.count(i) == 0) {
      dims.push_back(c->Dim(input, i));
    } else if (keep_dims) {
      dims.push_back(c->MakeDim(1));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

namespace {

// What a shape's dimensions say about its element count: the product of the
// known dimensions and the position of the unknown ones.
struct ElementCount {
  int64_t known_product = 1;
  std::vector<int32_t> unknown;
  bool overflow = false;
  bool has_zero = false;
};

ElementCount CountElements(InferenceContext* c, ShapeHandle s) {
  ElementCount count;
  for (int32_t i = 0; i < c->Rank(s); ++i) {
    const int64_t v = c->Value(c->Dim(s, i));
    if (v == kUnknownDim) {
      count.unknown.push_back(i);
    } else {
      if (v == 0) count.has_zero = true;
      if (__builtin_mul_overflow(count.known_product, v,
                                 &count.known_product)) {
        count.overflow = true;
      }
    }
  }
  return count;
}

}  // namespace

Status ReshapeShape(InferenceContext* c) {
  const ShapeHandle in = c->input(0);
  if (const Tensor* t = c->input_tensor(1)) {
    std::vector<int64_t> sizes;
    if (ReadIndexTensor(*t, 1, &sizes).ok()) {
      std::vector<size_t> wildcards;
      for (size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1) wildcards.push_back(i);
      }
      if (wildcards.size() > 1) {
        return errors::InvalidArgument(
            "the target shape ", t->SummarizeValue(kMaxRank),
            " (input 1) has -1 at indices ", absl::StrJoin(wildcards, " and "),
            "; at most one size can be inferred");
      }
    }
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return Status();
  }
  const ElementCount in_count = CountElements(c, in);
  const ElementCount out_count = CountElements(c, out);
  if (in_count.overflow || out_count.overflow) {
    // Run() rejects an output this large; nothing useful to infer.
    c->set_output(0, out);
    return Status();
  }
  const std::string in_desc = absl::StrCat("input 0 ", c->DebugString(in));
  // The element count is known when every dimension is, or when one is 0.
  const bool in_total_known = in_count.unknown.empty() || in_count.has_zero;
  const bool out_total_known = out_count.unknown.empty() || out_count.has_zero;
  const int64_t in_total = in_count.has_zero ? 0 : in_count.known_product;
  const int64_t out_total = out_count.has_zero ? 0 : out_count.known_product;
  if (in_total_known && out_total_known) {
    if (in_total != out_total) {
      return errors::InvalidArgument(
          "cannot reshape ", in_desc, " with ", in_total, " elements to shape ",
          c->DebugString(out), " with ", out_total, " elements");
    }
  } else if (in_total_known && out_count.unknown.size() == 1) {
    // The known sizes of the target are all positive here.
    const int64_t rest = out_count.known_product;
    if (in_total % rest != 0) {
      return errors::InvalidArgument(
          "cannot reshape ", in_desc, " with ", in_total, " elements to shape ",
          c->DebugString(out), ": ", in_total,
          " is not a multiple of the known sizes' product ", rest);
    }
    WEFT_RETURN_IF_ERROR(
        c->ReplaceDim(out, out_count.unknown[0], in_total / rest, &out));
  } else if (out_total_known && in_count.unknown.size() == 1) {
    const int64_t rest = in_count.known_product;
    if (out_total % rest != 0) {
      return errors::InvalidArgument(
          "cannot reshape ", in_desc, " to shape ", c->DebugString(out),
          " with ", out_total, " elements: ", out_total,
          " is not a multiple of the input's known sizes' product ", rest);
    }
  } else if (in_count.unknown.size() == 1 && out_count.unknown.size() == 1 &&
             in_count.known_product == out_count.known_product) {
    // The two unknown dimensions must be equal: carry the input's handle.
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(out, out_count.unknown[0],
                                       c->Dim(in, in_count.unknown[0]), &out));
  }
  c->set_output(0, out);
  return Status();
}

// ---- convolution and pooling ------------------------------------------------

namespace {

std::string ListString(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// Reads a 4-element list(int) attr whose values must all be >= 1.
Status GetWindowAttr(InferenceContext* c, const char* name,
                     std::vector<int64_t>* values) {
  WEFT_RETURN_IF_ERROR(c->GetAttr(name, values));
  if (values->size() != 4) {
    return errors::InvalidArgument("attr '", name, "' is ", ListString(*values),
                                   " but must have 4 values, one per "
                                   "dimension of input 0");
  }
  for (int64_t v : *values) {
    if (v < 1) {
      return errors::InvalidArgument("attr '", name, "' is ",
                                     ListString(*values),
                                     " but its values must be >= 1");
    }
  }
  return Status();
}

struct WindowAttrs {
  TensorFormat format = TensorFormat::kNHWC;
  Padding padding = Padding::kValid;
  // Per dimension of the input, in data_format order: {before, after}.
  std::vector<int64_t> explicit_paddings = std::vector<int64_t>(8, 0);
};

// Reads data_format, padding and (when the op has it) explicit_paddings.
Status GetPaddingAttrs(InferenceContext* c, WindowAttrs* attrs) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  WEFT_ASSIGN_OR_RETURN(attrs->format, ParseTensorFormat(format));
  std::string padding;
  WEFT_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  WEFT_ASSIGN_OR_RETURN(attrs->padding, ParsePadding(padding));

  std::vector<int64_t> explicit_paddings;
  if (c->op_def().FindAttr("explicit_paddings") != nullptr) {
    WEFT_RETURN_IF_ERROR(c->GetAttr("explicit_paddings", &explicit_paddings));
  }
  if (attrs->padding != Padding::kExplicit) {
    if (!explicit_paddings.empty()) {
      return errors::InvalidArgument(
          "attr 'explicit_paddings' is ", ListString(explicit_paddings),
          " but must be empty unless padding is EXPLICIT (it is ", padding,
          ")");
    }
    return Status();
  }
  if (explicit_paddings.size() != 8) {
    return errors::InvalidArgument(
        "attr 'explicit_paddings' is ", ListString(explicit_paddings),
        " but padding EXPLICIT needs 8 values, a (before, after) pair per "
        "dimension of input 0");
  }
  for (int64_t p : explicit_paddings) {
    if (p < 0) {
      return errors::InvalidArgument("attr 'explicit_paddings' is ",
                                     ListString(explicit_paddings),
                                     " but paddings must be >= 0");
    }
  }
  for (char dim : {'N', 'C'}) {
    const int i = FormatDimIndex(attrs->format, dim);
    if (explicit_paddings[2 * i] != 0 || explicit_paddings[2 * i + 1] != 0) {
      return errors::InvalidArgument(
          "attr 'explicit_paddings' is ", ListString(explicit_paddings),
          " but the ", dim == 'N' ? "batch" : "channel", " dimension (", i,
          " in ", format, ") cannot be padded");
    }
  }
  attrs->explicit_paddings = std::move(explicit_paddings);
  return Status();
}

// The output size along one spatial dimension; unknown if the input size or
// window is.
Status WindowedDim(InferenceContext* c, DimensionHandle input,
                   DimensionHandle window, int64_t dilation, int64_t stride,
                   const WindowAttrs& attrs, char dim, DimensionHandle* out) {
  if (!c->ValueKnown(input) || !c->ValueKnown(window)) {
    *out = c->UnknownDim();
    return Status();
  }
  const int i = FormatDimIndex(attrs.format, dim);
  StatusOr<WindowedOutputSize> size = GetWindowedOutputSize(
      c->Value(input), c->Value(window), dilation, stride, attrs.padding,
      attrs.explicit_paddings[2 * i], attrs.explicit_paddings[2 * i + 1]);
  if (!size.ok()) {
    const char* name = dim == 'H' ? "height" : (dim == 'W' ? "width" : "depth");
    return AddContext(
        size.status(),
        absl::StrCat("output ", name, " for input 0 ",
                     c->DebugString(c->input(0)), " (", name, " ",
                     c->Value(input), ", window ", c->Value(window),
                     dilation > 1 ? absl::StrCat(" dilated by ", dilation)
                                  : std::string(),
                     ", stride ", stride, ")"));
  }
  *out = c->MakeDim(size->size);
  return Status();
}

ShapeHandle MakeFormatShape(InferenceContext* c, TensorFormat format,
                            DimensionHandle n, DimensionHandle h,
                            DimensionHandle w, DimensionHandle ch) {
  if (format == TensorFormat::kNHWC) return c->MakeShape({n, h, w, ch});
  return c->MakeShape({n, ch, h, w});
}

}  // namespace

Status Conv2DShape(InferenceContext* c) {
  WindowAttrs attrs;
  WEFT_RETURN_IF_ERROR(GetPaddingAttrs(c, &attrs));
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "strides", &strides));
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "dilations", &dilations));
  const int n_idx = FormatDimIndex(attrs.format, 'N');
  const int c_idx = FormatDimIndex(attrs.format, 'C');
  const int h_idx = FormatDimIndex(attrs.format, 'H');
  const int w_idx = FormatDimIndex(attrs.format, 'W');
  if (strides[n_idx] != 1 || strides[c_idx] != 1) {
    return errors::InvalidArgument(
        "attr 'strides' is ", ListString(strides),
        " but striding over the batch or channel dimension is not supported");
  }
  if (dilations[n_idx] != 1 || dilations[c_idx] != 1) {
    return errors::InvalidArgument(
        "attr 'dilations' is ", ListString(dilations),
        " but dilating the batch or channel dimension is not supported");
  }

  ShapeHandle input;
  ShapeHandle filter;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  const DimensionHandle in_depth = c->Dim(input, c_idx);
  const DimensionHandle filter_in_depth = c->Dim(filter, 2);
  const DimensionHandle out_depth = c->Dim(filter, 3);
  if (c->ValueKnown(in_depth) && c->ValueKnown(filter_in_depth)) {
    const int64_t in_d = c->Value(in_depth);
    const int64_t f_d = c->Value(filter_in_depth);
    if (f_d == 0) {
      return errors::InvalidArgument("filter (input 1) ",
                                     c->DebugString(c->input(1)),
                                     " has input depth 0");
    }
    if (in_d % f_d != 0) {
      return errors::InvalidArgument(
          "input depth ", in_d, " of input 0 ", c->DebugString(c->input(0)),
          " is not a multiple of the filter's input depth ", f_d, " (input 1 ",
          c->DebugString(c->input(1)), ")");
    }
    const int64_t groups = in_d / f_d;
    if (c->ValueKnown(out_depth) && c->Value(out_depth) % groups != 0) {
      return errors::InvalidArgument(
          "output depth ", c->Value(out_depth), " of the filter (input 1 ",
          c->DebugString(c->input(1)),
          ") is not a multiple of the number of groups ", groups,
          " (input depth ", in_d, " / filter input depth ", f_d, ")");
    }
  }
  DimensionHandle out_rows;
  DimensionHandle out_cols;
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, h_idx), c->Dim(filter, 0),
                                   dilations[h_idx], strides[h_idx], attrs, 'H',
                                   &out_rows));
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, w_idx), c->Dim(filter, 1),
                                   dilations[w_idx], strides[w_idx], attrs, 'W',
                                   &out_cols));
  c->set_output(0, MakeFormatShape(c, attrs.format, c->Dim(input, n_idx),
                                   out_rows, out_cols, out_depth));
  return Status();
}

namespace {

Status PoolShape(InferenceContext* c, bool pools_depth) {
  WindowAttrs attrs;
  WEFT_RETURN_IF_ERROR(GetPaddingAttrs(c, &attrs));
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "ksize", &ksize));
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "strides", &strides));
  const int n_idx = FormatDimIndex(attrs.format, 'N');
  const int c_idx = FormatDimIndex(attrs.format, 'C');
  const int h_idx = FormatDimIndex(attrs.format, 'H');
  const int w_idx = FormatDimIndex(attrs.format, 'W');
  if (ksize[n_idx] != 1 || strides[n_idx] != 1) {
    return errors::InvalidArgument(
        "attrs 'ksize' ", ListString(ksize), " and 'strides' ",
        ListString(strides), " must be 1 at index ", n_idx,
        ": pooling over the batch dimension is not supported");
  }
  if (!pools_depth && (ksize[c_idx] != 1 || strides[c_idx] != 1)) {
    return errors::InvalidArgument(
        "attrs 'ksize' ", ListString(ksize), " and 'strides' ",
        ListString(strides), " must be 1 at index ", c_idx, ": ",
        c->op_def().name, " does not pool over the channel dimension");
  }
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  DimensionHandle out_rows;
  DimensionHandle out_cols;
  DimensionHandle out_depth = c->Dim(input, c_idx);
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, h_idx),
                                   c->MakeDim(ksize[h_idx]), 1, strides[h_idx],
                                   attrs, 'H', &out_rows));
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, w_idx),
                                   c->MakeDim(ksize[w_idx]), 1, strides[w_idx],
                                   attrs, 'W', &out_cols));
  if (pools_depth && (ksize[c_idx] != 1 || strides[c_idx] != 1)) {
    WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, c_idx),
                                     c->MakeDim(ksize[c_idx]), 1,
                                     strides[c_idx], attrs, 'C', &out_depth));
  }
  c->set_output(0, MakeFormatShape(c, attrs.format, c->Dim(input, n_idx),
                                   out_rows, out_cols, out_depth));
  return Status();
}

}  // namespace

Status MaxPoolShape(InferenceContext* c) { return PoolShape(c, true); }

Status AvgPoolShape(InferenceContext* c) { return PoolShape(c, false); }

Status BiasAddShape(InferenceContext* c) {
  TensorFormat format = TensorFormat::kNHWC;
  if (c->op_def().FindAttr("data_format") != nullptr) {
    std::string name;
    WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &name));
    WEFT_ASSIGN_OR_RETURN(format, ParseTensorFormat(name));
  }
  ShapeHandle value;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(
      c->input(0), format == TensorFormat::kNCHW ? 3 : 2, &value));
  ShapeHandle bias;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &bias));
  if (!c->RankKnown(value)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t channel =
      format == TensorFormat::kNCHW ? 1 : c->Rank(value) - 1;
  const DimensionHandle value_channels = c->Dim(value, channel);
  const DimensionHandle bias_size = c->Dim(bias, 0);
  if (c->ValueKnown(value_channels) && c->ValueKnown(bias_size) &&
      c->Value(value_channels) != c->Value(bias_size)) {
    return errors::InvalidArgument(
        "bias (input 1) ", c->DebugString(c->input(1)), " has ",
        c->Value(bias_size), " elements but the channel dimension ", channel,
        " of input 0 ", c->DebugString(c->input(0)), " is ",
        c->Value(value_channels));
  }
  DimensionHandle merged;
  WEFT_RETURN_IF_ERROR(c->Merge(value_channels, bias_size, &merged));
  if (merged.SameHandle(value_channels)) {
    c->set_output(0, value);
    return Status();
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->ReplaceDim(value, channel, merged, &out));
  c->set_output(0, out);
  return Status();
}

}  // namespace shape_inference
}  // namespace weft
