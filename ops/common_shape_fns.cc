#include "ops/common_shape_fns.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

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

// ---- StridedSlice -----------------------------------------------------------

namespace {

// Markers in the list of output dimensions: a new axis (no input
// dimension) and a shrunk input dimension (no output dimension).
constexpr int kNewAxis = -1;
constexpr int kShrunk = -2;

Status CheckMask(const char* name, int64_t mask, uint32_t* out) {
  if (mask < std::numeric_limits<int32_t>::min() ||
      mask > std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument("attr '", name, "' is ", mask,
                                   "; masks are 32-bit integers");
  }
  *out = static_cast<uint32_t>(static_cast<int32_t>(mask));
  return Status();
}

bool Bit(uint32_t mask, int64_t i) { return i < 32 && ((mask >> i) & 1u); }

}  // namespace

Status ReadStridedSliceMasks(const AttrMap& attrs, StridedSliceMasks* masks) {
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "begin_mask", &masks->begin));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "end_mask", &masks->end));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "ellipsis_mask", &masks->ellipsis));
  WEFT_RETURN_IF_ERROR(GetNodeAttr(attrs, "new_axis_mask", &masks->new_axis));
  return GetNodeAttr(attrs, "shrink_axis_mask", &masks->shrink_axis);
}

StatusOr<StridedSlicePlan> PlanStridedSlice(
    const std::vector<int64_t>& input_dims, int64_t num_terms,
    const std::vector<int64_t>* begin, const std::vector<int64_t>* end,
    const std::vector<int64_t>* strides, const StridedSliceMasks& masks) {
  if (num_terms < 0 || num_terms >= 32) {
    return errors::InvalidArgument(
        "the slice has ", num_terms,
        " terms (the length of begin, end and strides); at most 31 fit the "
        "32-bit masks");
  }
  for (const auto& [name, values] :
       {std::pair<const char*, const std::vector<int64_t>*>{"begin", begin},
        {"end", end},
        {"strides", strides}}) {
    if (values != nullptr &&
        static_cast<int64_t>(values->size()) != num_terms) {
      return errors::InvalidArgument(
          "begin, end and strides must have the same length, but ", name,
          " has ", values->size(), " values and the slice has ", num_terms,
          " terms");
    }
  }
  uint32_t begin_mask = 0;
  uint32_t end_mask = 0;
  uint32_t ellipsis_mask = 0;
  uint32_t new_axis_mask = 0;
  uint32_t shrink_mask = 0;
  WEFT_RETURN_IF_ERROR(CheckMask("begin_mask", masks.begin, &begin_mask));
  WEFT_RETURN_IF_ERROR(CheckMask("end_mask", masks.end, &end_mask));
  WEFT_RETURN_IF_ERROR(
      CheckMask("ellipsis_mask", masks.ellipsis, &ellipsis_mask));
  WEFT_RETURN_IF_ERROR(
      CheckMask("new_axis_mask", masks.new_axis, &new_axis_mask));
  WEFT_RETURN_IF_ERROR(
      CheckMask("shrink_axis_mask", masks.shrink_axis, &shrink_mask));
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0) {
    return errors::InvalidArgument("attr 'ellipsis_mask' is ", masks.ellipsis,
                                   "; at most one ellipsis is allowed");
  }

  // New axes after the ellipsis are not input dimensions: the ellipsis must
  // leave room for the input dimensions the later terms index.
  bool ellipsis_seen = false;
  int64_t new_axes_after_ellipsis = 0;
  for (int64_t i = 0; i < num_terms; ++i) {
    if (ellipsis_seen && Bit(new_axis_mask, i)) ++new_axes_after_ellipsis;
    if (Bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  int64_t sparse_terms = num_terms;
  if (!ellipsis_seen) {
    // An implicit ellipsis at the end keeps the remaining dimensions.
    ellipsis_mask |= 1u << sparse_terms;
    ++sparse_terms;
  }

  const int64_t rank = static_cast<int64_t>(input_dims.size());
  StridedSlicePlan plan;
  plan.begin.assign(rank, 0);
  plan.end.assign(rank, 0);
  plan.strides.assign(rank, 1);
  std::vector<bool> dense_begin_mask(rank, false);
  std::vector<bool> dense_end_mask(rank, false);
  std::vector<bool> dense_shrink(rank, false);
  std::vector<int64_t> dense_term(rank, -1);  // -1: from the ellipsis
  std::vector<int> gather;  // input dimension, kNewAxis or kShrunk
  int64_t full = 0;
  for (int64_t i = 0; i < sparse_terms; ++i) {
    if (Bit(ellipsis_mask, i)) {
      const int64_t next = std::min(
          rank - (sparse_terms - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) {
        dense_begin_mask[full] = dense_end_mask[full] = true;
        gather.push_back(static_cast<int>(full));
      }
    } else if (Bit(new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return errors::InvalidArgument(
            "slice term ", i, " indexes input dimension ", full,
            " but the input has only ", rank, " dimensions");
      }
      if (begin != nullptr) plan.begin[full] = (*begin)[i];
      if (end != nullptr) plan.end[full] = (*end)[i];
      if (strides != nullptr) plan.strides[full] = (*strides)[i];
      dense_begin_mask[full] = Bit(begin_mask, i);
      dense_end_mask[full] = Bit(end_mask, i);
      dense_term[full] = i;
      if (Bit(shrink_mask, i)) {
        dense_shrink[full] = true;
        gather.push_back(kShrunk);
      } else {
        gather.push_back(static_cast<int>(full));
      }
      ++full;
    }
  }

  plan.processing_shape.assign(rank, shape_inference::kUnknownDim);
  plan.takes_whole.assign(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t term = dense_term[i];
    // Dimensions the ellipsis covers take everything with stride 1.
    const bool from_ellipsis = term < 0;
    const bool stride_known = from_ellipsis || strides != nullptr;
    const bool begin_known = from_ellipsis || begin != nullptr;
    const bool end_known = from_ellipsis || end != nullptr;
    const int64_t stride = plan.strides[i];
    if (stride_known && stride == 0) {
      return errors::InvalidArgument("the stride of slice term ", term,
                                     " is 0; strides must be non-zero");
    }
    const int64_t dim = input_dims[i];
    if (dense_shrink[i]) {
      if (stride_known && stride <= 0) {
        return errors::InvalidArgument(
            "slice term ", term,
            " takes a single index (shrink_axis_mask) but its stride is ",
            stride, "; it must be positive");
      }
      if (dim >= 0 && begin_known) {
        const int64_t index = plan.begin[i];
        const int64_t fwd = index < 0 ? dim + index : index;
        if (fwd < 0 || fwd >= dim) {
          return errors::InvalidArgument("slice term ", term, " takes index ",
                                         index, " of input dimension ", i,
                                         " of size ", dim, ", out of bounds");
        }
        plan.begin[i] = fwd;
        plan.end[i] = fwd + 1;
      }
      plan.processing_shape[i] = 1;
      continue;
    }
    const bool begin_resolved = dense_begin_mask[i] || begin_known;
    const bool end_resolved = dense_end_mask[i] || end_known;
    if (dim < 0) {
      // Without the size only a full forward range is known: it keeps the
      // (unknown) size.
      plan.takes_whole[i] =
          stride_known && stride == 1 &&
          (dense_begin_mask[i] || (begin_known && plan.begin[i] == 0)) &&
          dense_end_mask[i];
      continue;
    }
    if (!stride_known || !begin_resolved || !end_resolved) continue;
    // Masked bounds take the full range in the stride's direction; given
    // ones count from the end when negative and clamp to the valid range.
    const int64_t lo = stride > 0 ? 0 : -1;
    const int64_t hi = stride > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (stride > 0) == is_begin ? lo : hi;
      const int64_t fwd = x < 0 ? dim + x : x;
      return std::clamp(fwd, lo, hi);
    };
    plan.begin[i] = canonical(plan.begin[i], dense_begin_mask[i], true);
    plan.end[i] = canonical(plan.end[i], dense_end_mask[i], false);
    const int64_t interval = plan.end[i] - plan.begin[i];
    int64_t size = 0;
    if (interval != 0 && (interval < 0) == (stride < 0)) {
      size = interval / stride + (interval % stride != 0 ? 1 : 0);
    }
    plan.processing_shape[i] = size;
    plan.takes_whole[i] = stride == 1 && plan.begin[i] == 0 && size == dim;
  }

  for (int g : gather) {
    if (g == kShrunk) continue;
    if (g == kNewAxis) {
      plan.final_shape.push_back(1);
      plan.final_source.push_back(-1);
    } else {
      plan.final_shape.push_back(plan.processing_shape[g]);
      plan.final_source.push_back(g);
    }
  }
  return plan;
}

// ---- Einsum -----------------------------------------------------------------

StatusOr<EinsumEquation> ParseEinsumEquation(absl::string_view equation) {
  const size_t arrow = equation.find("->");
  if (arrow == absl::string_view::npos ||
      equation.find("->", arrow + 2) != absl::string_view::npos) {
    return errors::InvalidArgument("einsum equation '", equation,
                                   "' must contain exactly one '->'");
  }
  EinsumEquation parsed;
  parsed.output = std::string(equation.substr(arrow + 2));
  for (absl::string_view input :
       absl::StrSplit(equation.substr(0, arrow), ',')) {
    parsed.inputs.emplace_back(input);
  }
  if (parsed.inputs.size() > 2) {
    return errors::InvalidArgument("einsum equation '", equation, "' has ",
                                   parsed.inputs.size(),
                                   " input subscripts; 1 or 2 are supported");
  }
  std::vector<const std::string*> subscripts;
  for (const std::string& in : parsed.inputs) subscripts.push_back(&in);
  subscripts.push_back(&parsed.output);
  for (const std::string* sub : subscripts) {
    const auto periods = std::count(sub->begin(), sub->end(), '.');
    if (periods != 0 &&
        (periods != 3 || sub->find("...") == std::string::npos)) {
      return errors::InvalidArgument(
          "einsum equation '", equation, "': subscript '", *sub,
          "' may hold one ellipsis (...) and no other periods");
    }
  }
  return parsed;
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
    // An input with 0 channels makes 0 groups: TensorFlow then gives an
    // all-zero output, so there is nothing to check.
    if (groups > 0 && c->ValueKnown(out_depth) &&
        c->Value(out_depth) % groups != 0) {
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

namespace {

// The strides/dilations checks every 2-D convolution shares: 4 values, and
// no striding or dilation over the batch or channel dimension.
Status GetConvWindowAttrs(InferenceContext* c, const WindowAttrs& attrs,
                          std::vector<int64_t>* strides,
                          std::vector<int64_t>* dilations) {
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "strides", strides));
  WEFT_RETURN_IF_ERROR(GetWindowAttr(c, "dilations", dilations));
  const int n_idx = FormatDimIndex(attrs.format, 'N');
  const int c_idx = FormatDimIndex(attrs.format, 'C');
  if ((*strides)[n_idx] != 1 || (*strides)[c_idx] != 1) {
    return errors::InvalidArgument(
        "attr 'strides' is ", ListString(*strides),
        " but striding over the batch or channel dimension is not supported");
  }
  if ((*dilations)[n_idx] != 1 || (*dilations)[c_idx] != 1) {
    return errors::InvalidArgument(
        "attr 'dilations' is ", ListString(*dilations),
        " but dilating the batch or channel dimension is not supported");
  }
  return Status();
}

}  // namespace

Status DepthwiseConv2DShapeOf(InferenceContext* c, ShapeHandle input,
                              const char* input_name, int filter_input,
                              ShapeHandle* output) {
  WindowAttrs attrs;
  WEFT_RETURN_IF_ERROR(GetPaddingAttrs(c, &attrs));
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  WEFT_RETURN_IF_ERROR(GetConvWindowAttrs(c, attrs, &strides, &dilations));
  ShapeHandle filter;
  WEFT_RETURN_IF_ERROR(c->WithRank(input, 4, &input));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(filter_input), 4, &filter));
  const int h_idx = FormatDimIndex(attrs.format, 'H');
  const int w_idx = FormatDimIndex(attrs.format, 'W');
  DimensionHandle in_depth;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(input, FormatDimIndex(attrs.format, 'C')),
               c->Dim(filter, 2), &in_depth),
      "the input depth of ", input_name, " ", c->DebugString(input),
      " must equal dimension 2 of the filter (input ", filter_input, " ",
      c->DebugString(c->input(filter_input)), ")");
  DimensionHandle out_depth;
  WEFT_RETURN_IF_ERROR(c->Multiply(in_depth, c->Dim(filter, 3), &out_depth));
  DimensionHandle out_rows;
  DimensionHandle out_cols;
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, h_idx), c->Dim(filter, 0),
                                   dilations[h_idx], strides[h_idx], attrs, 'H',
                                   &out_rows));
  WEFT_RETURN_IF_ERROR(WindowedDim(c, c->Dim(input, w_idx), c->Dim(filter, 1),
                                   dilations[w_idx], strides[w_idx], attrs, 'W',
                                   &out_cols));
  *output = MakeFormatShape(c, attrs.format,
                            c->Dim(input, FormatDimIndex(attrs.format, 'N')),
                            out_rows, out_cols, out_depth);
  return Status();
}

Status DepthwiseConv2DNativeShape(InferenceContext* c) {
  ShapeHandle output;
  WEFT_RETURN_IF_ERROR(
      DepthwiseConv2DShapeOf(c, c->input(0), "input 0", 1, &output));
  c->set_output(0, output);
  return Status();
}

Status Conv2DBackpropInputShape(InferenceContext* c) {
  WindowAttrs attrs;
  WEFT_RETURN_IF_ERROR(GetPaddingAttrs(c, &attrs));
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  WEFT_RETURN_IF_ERROR(GetConvWindowAttrs(c, attrs, &strides, &dilations));
  const int n_idx = FormatDimIndex(attrs.format, 'N');
  const int h_idx = FormatDimIndex(attrs.format, 'H');
  const int w_idx = FormatDimIndex(attrs.format, 'W');
  const int c_idx = FormatDimIndex(attrs.format, 'C');

  ShapeHandle filter;
  ShapeHandle out_backprop;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 4, &filter));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 4, &out_backprop));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(out_backprop, c_idx), c->Dim(filter, 3), &unused),
      "the depth of out_backprop (input 2 ", c->DebugString(c->input(2)),
      ") must equal the filter's output depth (input 1 ",
      c->DebugString(c->input(1)), " dimension 3)");

  ShapeHandle sizes;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &sizes));
  if (!c->RankKnown(sizes)) sizes = c->UnknownShapeOfRank(4);
  DimensionHandle batch = c->Dim(out_backprop, n_idx);
  DimensionHandle rows;
  DimensionHandle cols;
  DimensionHandle depth;
  if (c->Rank(sizes) == 4) {
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(c->Dim(sizes, n_idx), batch, &batch),
        "the batch size in input_sizes (input 0) must equal out_backprop's "
        "(input 2 ",
        c->DebugString(c->input(2)), ")");
    rows = c->Dim(sizes, h_idx);
    cols = c->Dim(sizes, w_idx);
    depth = c->Dim(sizes, c_idx);
    const DimensionHandle filter_in = c->Dim(filter, 2);
    if (c->ValueKnown(depth) && c->ValueKnown(filter_in) &&
        (c->Value(filter_in) == 0 ||
         c->Value(depth) % c->Value(filter_in) != 0)) {
      return errors::InvalidArgument(
          "input depth ", c->Value(depth),
          " in input_sizes (input 0) is not a multiple of the filter's input "
          "depth ",
          c->Value(filter_in), " (input 1 ", c->DebugString(c->input(1)), ")");
    }
  } else if (c->Rank(sizes) == 2) {
    rows = c->Dim(sizes, 0);
    cols = c->Dim(sizes, 1);
    depth = c->Dim(filter, 2);
  } else {
    return errors::InvalidArgument(
        "input_sizes (input 0) must hold 4 sizes (in data_format order) or 2 "
        "(height and width) but holds ",
        c->Rank(sizes));
  }

  // out_backprop must be what the forward convolution of the result gives.
  const std::pair<DimensionHandle, int> spatial[] = {{rows, h_idx},
                                                     {cols, w_idx}};
  for (const auto& [size, idx] : spatial) {
    const DimensionHandle window = c->Dim(filter, idx == h_idx ? 0 : 1);
    const DimensionHandle got = c->Dim(out_backprop, idx);
    if (!c->ValueKnown(size) || !c->ValueKnown(window) || !c->ValueKnown(got)) {
      continue;
    }
    StatusOr<WindowedOutputSize> expected = GetWindowedOutputSize(
        c->Value(size), c->Value(window), dilations[idx], strides[idx],
        attrs.padding, attrs.explicit_paddings[2 * idx],
        attrs.explicit_paddings[2 * idx + 1]);
    const char* name = idx == h_idx ? "height" : "width";
    if (!expected.ok()) {
      return AddContext(
          expected.status(),
          absl::StrCat("convolving input_sizes ", name, " ", c->Value(size)));
    }
    if (expected->size != c->Value(got)) {
      return errors::InvalidArgument(
          "out_backprop (input 2) ", c->DebugString(c->input(2)), " has ", name,
          " ", c->Value(got), " but convolving the ", name, " ", c->Value(size),
          " of input_sizes with window ", c->Value(window), ", stride ",
          strides[idx], " and dilation ", dilations[idx], " gives ",
          expected->size);
    }
  }
  c->set_output(0, MakeFormatShape(c, attrs.format, batch, rows, cols, depth));
  return Status();
}

Status FusedBatchNormV3Shape(InferenceContext* c) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  int rank = 0;
  int channel = 0;
  if (format == "NHWC" || format == "NDHWC") {
    rank = format.size();
    channel = rank - 1;
  } else if (format == "NCHW" || format == "NCDHW") {
    rank = format.size();
    channel = 1;
  } else {
    return errors::InvalidArgument(
        "data_format '", format,
        "' is not supported; expected NHWC, NCHW, NDHWC or NCDHW");
  }
  ShapeHandle x;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), rank, &x));
  bool is_training = true;
  float exponential_avg_factor = 1.0f;
  WEFT_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  WEFT_RETURN_IF_ERROR(
      c->GetAttr("exponential_avg_factor", &exponential_avg_factor));
  // Training with a plain batch average computes mean and variance itself;
  // otherwise the given ones are used and must be per channel too.
  const int vectors = (is_training && exponential_avg_factor == 1.0f) ? 2 : 4;
  static constexpr const char* kNames[] = {"scale", "offset", "mean",
                                           "variance"};
  DimensionHandle channels = c->Dim(x, channel);
  for (int i = 1; i <= vectors; ++i) {
    ShapeHandle vec;
    WEFT_RETURN_IF_ERROR(c->WithRank(c->input(i), 1, &vec));
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(channels, c->Dim(vec, 0), &channels), kNames[i - 1],
        " (input ", i, " ", c->DebugString(c->input(i)),
        ") must have one value per channel of x (input 0 ",
        c->DebugString(c->input(0)), ", channel dimension ", channel, ")");
  }
  ShapeHandle y = x;
  if (!channels.SameHandle(c->Dim(x, channel))) {
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(x, channel, channels, &y));
  }
  c->set_output(0, y);
  const ShapeHandle per_channel = c->Vector(channels);
  for (int i = 1; i <= 4; ++i) c->set_output(i, per_channel);
  c->set_output(5, c->UnknownShape());
  return Status();
}

Status EinsumShape(InferenceContext* c) {
  std::string equation;
  WEFT_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  WEFT_ASSIGN_OR_RETURN(const EinsumEquation parsed,
                        ParseEinsumEquation(equation));
  if (static_cast<int>(parsed.inputs.size()) != c->num_inputs()) {
    return errors::InvalidArgument(
        "einsum equation '", equation, "' has ", parsed.inputs.size(),
        " input subscripts but the node has ", c->num_inputs(), " inputs");
  }
  std::map<char, DimensionHandle> label_dims;
  std::vector<ShapeHandle> broadcast(c->num_inputs());
  for (int i = 0; i < c->num_inputs(); ++i) {
    const std::string& sub = parsed.inputs[i];
    const size_t ellipsis = sub.find("...");
    const bool has_ellipsis = ellipsis != std::string::npos;
    const int64_t named =
        static_cast<int64_t>(sub.size()) - (has_ellipsis ? 3 : 0);
    ShapeHandle shape = c->input(i);
    if (has_ellipsis) {
      WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(shape, named, &shape),
                               "subscript '", sub, "' of einsum equation '",
                               equation, "'");
    } else {
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(shape, named, &shape), "subscript '",
                               sub, "' of einsum equation '", equation, "'");
    }
    const bool rank_known = c->RankKnown(shape);
    const int64_t rank = c->Rank(shape);
    broadcast[i] = c->Scalar();
    if (has_ellipsis) {
      if (rank_known) {
        WEFT_RETURN_IF_ERROR(c->Subshape(
            shape, ellipsis, ellipsis + rank - named, &broadcast[i]));
      } else {
        broadcast[i] = c->UnknownShape();
      }
    }
    for (size_t k = 0; k < sub.size(); ++k) {
      if (has_ellipsis && k >= ellipsis && k < ellipsis + 3) continue;
      // Labels after the ellipsis count from the end of the shape.
      const int64_t axis = (has_ellipsis && k > ellipsis)
                               ? static_cast<int64_t>(k) - 3 + rank - named
                               : static_cast<int64_t>(k);
      const DimensionHandle dim =
          rank_known ? c->Dim(shape, axis) : c->UnknownDim();
      auto [it, inserted] = label_dims.emplace(sub[k], dim);
      if (!inserted) {
        WEFT_RETURN_IF_ERROR_CTX(c->Merge(it->second, dim, &it->second),
                                 "label '", std::string(1, sub[k]),
                                 "' of einsum equation '", equation,
                                 "' has two sizes");
      }
    }
  }
  ShapeHandle batch = broadcast[0];
  if (c->num_inputs() == 2) {
    WEFT_RETURN_IF_ERROR_CTX(
        BroadcastBinaryOpOutputShape(c, broadcast[0], broadcast[1], &batch),
        "the ellipsis dimensions of einsum equation '", equation,
        "' do not broadcast");
  }
  const size_t out_ellipsis = parsed.output.find("...");
  if (out_ellipsis == std::string::npos) {
    if (c->RankKnown(batch) && c->Rank(batch) > 0) {
      return errors::InvalidArgument(
          "einsum equation '", equation,
          "' has no ellipsis in its output but the inputs' ellipsis stands "
          "for dimensions ",
          c->DebugString(batch));
    }
  } else if (!c->RankKnown(batch)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  std::vector<DimensionHandle> dims;
  for (size_t k = 0; k < parsed.output.size(); ++k) {
    if (k == out_ellipsis) {
      for (int32_t j = 0; j < c->Rank(batch); ++j) {
        dims.push_back(c->Dim(batch, j));
      }
      k += 2;
      continue;
    }
    auto it = label_dims.find(parsed.output[k]);
    if (it == label_dims.end()) {
      return errors::InvalidArgument(
          "einsum equation '", equation, "' has output label '",
          std::string(1, parsed.output[k]), "' that no input subscript has");
    }
    dims.push_back(it->second);
  }
  if (static_cast<int64_t>(dims.size()) > kMaxRank) {
    return errors::InvalidArgument("einsum equation '", equation,
                                   "' gives an output of rank ", dims.size(),
                                   ", more than the maximum ", kMaxRank);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

}  // namespace shape_inference
}  // namespace weft
