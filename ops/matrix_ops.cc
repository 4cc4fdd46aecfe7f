// Matrix ops beyond MatMul: the diagonal family (MatrixDiag, MatrixDiagPart,
// MatrixSetDiag and their V2/V3 forms with a diagonal range k, an explicit
// output size, a padding value and, in V3, an alignment), MatrixDeterminant,
// and the BatchMatMul forms around BatchMatMulV2 (V1 without broadcasting,
// V3 with separate operand and output dtypes). Registered exactly as
// TensorFlow 2.21 defines them; the shape functions follow TensorFlow's,
// computing the diagonal sizes when k (and num_rows / num_cols) are
// constants and leaving the shape unknown otherwise.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;
using shape_inference::ShapeHandle;

// Reads k (input `idx`, a scalar or 1- or 2-element int32 vector) into
// [lower, upper] when it is a constant; *known is false otherwise.
Status ReadDiagIndex(InferenceContext* c, int idx, bool* known, int64_t* lower,
                     int64_t* upper) {
  ShapeHandle k;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtMost(c->input(idx), 1, &k), "k (input ",
                           idx, ") must be a scalar or vector");
  std::vector<int64_t> values;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(idx, 1, known, &values));
  if (!*known) return Status();
  if (values.empty() || values.size() > 2) {
    return errors::InvalidArgument("k (input ", idx,
                                   ") must have one or two elements, has ",
                                   values.size());
  }
  *lower = values[0];
  *upper = values.size() == 2 ? values[1] : values[0];
  if (*lower > *upper) {
    return errors::InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: ", *lower,
        " > ", *upper);
  }
  return Status();
}

// MatrixDiag: [..., n] -> [..., n, n].
Status MatrixDiagShape(InferenceContext* c) {
  ShapeHandle in;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &in),
                           "diagonal (input 0) must have rank >= 1");
  if (!c->RankKnown(in)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(in, c->Vector(c->Dim(in, -1)), &out));
  c->set_output(0, out);
  return Status();
}

// MatrixDiagV2/V3: diagonal [..., (num_diags,) max_diag_len], k, num_rows,
// num_cols and padding_value -> [..., num_rows, num_cols].
Status MatrixDiagV2Shape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 0, &unused),
                           "num_rows (input 2) must be a scalar");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(3), 0, &unused),
                           "num_cols (input 3) must be a scalar");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(4), 0, &unused),
                           "padding_value (input 4) must be a scalar");
  ShapeHandle diag;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &diag),
                           "diagonal (input 0) must have rank >= 1");
  bool k_known = false;
  int64_t lower = 0;
  int64_t upper = 0;
  WEFT_RETURN_IF_ERROR(ReadDiagIndex(c, 1, &k_known, &lower, &upper));
  std::vector<int64_t> rows_value;
  std::vector<int64_t> cols_value;
  bool rows_known = false;
  bool cols_known = false;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(2, 0, &rows_known, &rows_value));
  WEFT_RETURN_IF_ERROR(c->GetInputInts(3, 0, &cols_known, &cols_value));
  if (!k_known || !rows_known || !cols_known || !c->RankKnown(diag)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t rank = c->Rank(diag);
  if (lower != upper) {
    WEFT_RETURN_IF_ERROR_CTX(
        c->WithRankAtLeast(diag, 2, &diag),
        "diagonal (input 0) must have rank >= 2 when k is a range");
    const DimensionHandle num = c->Dim(diag, -2);
    if (c->ValueKnown(num) && c->Value(num) != upper - lower + 1) {
      return errors::InvalidArgument(
          "The number of diagonals provided in the input does not match the "
          "lower_diag_index and upper_diag_index range.");
    }
  }
  const DimensionHandle len = c->Dim(diag, -1);
  int64_t rows = rows_value[0];
  int64_t cols = cols_value[0];
  ShapeHandle batch;
  WEFT_RETURN_IF_ERROR(
      c->Subshape(diag, 0, rank - (lower == upper ? 1 : 2), &batch));
  if (!c->ValueKnown(len)) {
    ShapeHandle out;
    WEFT_RETURN_IF_ERROR(
        c->Concatenate(batch,
                       c->Matrix(rows >= 0 ? rows : kUnknownDim,
                                 cols >= 0 ? cols : kUnknownDim),
                       &out));
    c->set_output(0, out);
    return Status();
  }
  const int64_t max_len = c->Value(len);
  const int64_t min_rows = max_len - std::min<int64_t>(upper, 0);
  const int64_t min_cols = max_len + std::max<int64_t>(lower, 0);
  if (rows == -1 && cols == -1) {
    rows = cols = std::max(min_rows, min_cols);
  } else if (rows == -1) {
    rows = min_rows;
  } else if (cols == -1) {
    cols = min_cols;
  }
  if (rows < min_rows) {
    return errors::InvalidArgument("The number of rows is too small.");
  }
  if (cols < min_cols) {
    return errors::InvalidArgument("The number of columns is too small.");
  }
  if (rows != min_rows && cols != min_cols) {
    return errors::InvalidArgument(
        "The number of rows or columns is not consistent with the specified "
        "d_lower, d_upper, and diagonal.");
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return Status();
}

// MatrixDiagPart: [..., m, n] -> [..., min(m, n)].
Status MatrixDiagPartShape(InferenceContext* c) {
  ShapeHandle in;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &in),
                           "input (input 0) must have rank >= 2");
  if (!c->RankKnown(in)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const DimensionHandle m = c->Dim(in, -2);
  const DimensionHandle n = c->Dim(in, -1);
  DimensionHandle len = c->UnknownDim();
  if (c->ValueKnown(m) && c->ValueKnown(n)) {
    len = c->MakeDim(std::min(c->Value(m), c->Value(n)));
  }
  ShapeHandle batch;
  WEFT_RETURN_IF_ERROR(c->Subshape(in, 0, -2, &batch));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(batch, c->Vector(len), &out));
  c->set_output(0, out);
  return Status();
}

// MatrixDiagPartV2/V3: input [..., m, n], k and padding_value ->
// [..., (num_diags,) max_diag_len].
Status MatrixDiagPartV2Shape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 0, &unused),
                           "padding_value (input 2) must be a scalar");
  ShapeHandle in;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &in),
                           "input (input 0) must have rank >= 2");
  bool k_known = false;
  int64_t lower = 0;
  int64_t upper = 0;
  WEFT_RETURN_IF_ERROR(ReadDiagIndex(c, 1, &k_known, &lower, &upper));
  if (!k_known || !c->RankKnown(in)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const DimensionHandle m = c->Dim(in, -2);
  const DimensionHandle n = c->Dim(in, -1);
  DimensionHandle len = c->UnknownDim();
  if (c->ValueKnown(m) && c->ValueKnown(n)) {
    const int64_t rows = c->Value(m);
    const int64_t cols = c->Value(n);
    if (!((-rows < lower && lower < cols) || lower == 0)) {
      return errors::InvalidArgument(
          "lower_diag_index is out of bound: ", lower, ". It must be between ",
          -rows, " and ", cols);
    }
    if (!((-rows < upper && upper < cols) || upper == 0)) {
      return errors::InvalidArgument(
          "upper_diag_index is out of bound: ", upper, " It must be between ",
          -rows, " and ", cols);
    }
    len = c->MakeDim(std::min(rows + std::min<int64_t>(upper, 0),
                              cols - std::max<int64_t>(lower, 0)));
  }
  ShapeHandle batch;
  WEFT_RETURN_IF_ERROR(c->Subshape(in, 0, -2, &batch));
  ShapeHandle tail =
      lower == upper ? c->Vector(len) : c->Matrix(upper - lower + 1, len);
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(batch, tail, &out));
  c->set_output(0, out);
  return Status();
}

// MatrixSetDiag (all versions): the output has the input's shape.
Status MatrixSetDiagShape(InferenceContext* c) {
  ShapeHandle in;
  ShapeHandle diag;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &in),
                           "input (input 0) must have rank >= 2");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(1), 1, &diag),
                           "diagonal (input 1) must have rank >= 1");
  if (c->num_inputs() > 2) {
    bool k_known = false;
    int64_t lower = 0;
    int64_t upper = 0;
    WEFT_RETURN_IF_ERROR(ReadDiagIndex(c, 2, &k_known, &lower, &upper));
  }
  c->set_output(0, in);
  return Status();
}

// MatrixDeterminant: [..., m, m] -> [...].
Status MatrixDeterminantShape(InferenceContext* c) {
  ShapeHandle in;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &in),
                           "input (input 0) must have rank >= 2");
  if (!c->RankKnown(in)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  DimensionHandle square;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->Dim(in, -2), c->Dim(in, -1), &square),
                           "input (input 0) must be square matrices");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Subshape(in, 0, -2, &out));
  c->set_output(0, out);
  return Status();
}

// BatchMatMul (V1): no broadcasting, the batch dimensions of x and y are
// the same.
Status BatchMatMulV1Shape(InferenceContext* c) {
  ShapeHandle a;
  ShapeHandle b;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &a),
                           "x (input 0) must have rank >= 2");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(1), 2, &b),
                           "y (input 1) must have rank >= 2");
  bool adj_x = false;
  bool adj_y = false;
  WEFT_RETURN_IF_ERROR(c->GetAttr("adj_x", &adj_x));
  WEFT_RETURN_IF_ERROR(c->GetAttr("adj_y", &adj_y));
  if (!c->RankKnown(a) || !c->RankKnown(b)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const DimensionHandle rows = c->Dim(a, adj_x ? -1 : -2);
  const DimensionHandle cols = c->Dim(b, adj_y ? -2 : -1);
  DimensionHandle inner;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(a, adj_x ? -2 : -1), c->Dim(b, adj_y ? -1 : -2), &inner),
      "inner dimensions of x ", c->DebugString(a), " and y ", c->DebugString(b),
      " differ");
  ShapeHandle a_batch;
  ShapeHandle b_batch;
  WEFT_RETURN_IF_ERROR(c->Subshape(a, 0, -2, &a_batch));
  WEFT_RETURN_IF_ERROR(c->Subshape(b, 0, -2, &b_batch));
  ShapeHandle batch;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(a_batch, b_batch, &batch),
                           "BatchMatMul does not broadcast: the batch "
                           "dimensions of x ",
                           c->DebugString(a), " and y ", c->DebugString(b),
                           " must be the same");
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(batch, c->Matrix(rows, cols), &out));
  c->set_output(0, out);
  return Status();
}

}  // namespace

#define WEFT_DIAG_ALIGN                                                \
  "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = " \
  "'RIGHT_LEFT'"

REGISTER_OP("MatrixDiag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagShape);

REGISTER_OP("MatrixDiagV2")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagV2Shape);

REGISTER_OP("MatrixDiagV3")
    .Input("diagonal: T")
    .Input("k: int32")
    .Input("num_rows: int32")
    .Input("num_cols: int32")
    .Input("padding_value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr(WEFT_DIAG_ALIGN)
    .SetShapeFn(MatrixDiagV2Shape);

REGISTER_OP("MatrixDiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagPartShape);

REGISTER_OP("MatrixDiagPartV2")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn(MatrixDiagPartV2Shape);

REGISTER_OP("MatrixDiagPartV3")
    .Input("input: T")
    .Input("k: int32")
    .Input("padding_value: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .Attr(WEFT_DIAG_ALIGN)
    .SetShapeFn(MatrixDiagPartV2Shape);

REGISTER_OP("MatrixSetDiag")
    .Input("input: T")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixSetDiagShape);

REGISTER_OP("MatrixSetDiagV2")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(MatrixSetDiagShape);

REGISTER_OP("MatrixSetDiagV3")
    .Input("input: T")
    .Input("diagonal: T")
    .Input("k: int32")
    .Output("output: T")
    .Attr("T: type")
    .Attr(WEFT_DIAG_ALIGN)
    .SetShapeFn(MatrixSetDiagShape);

#undef WEFT_DIAG_ALIGN

REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {half, float, double, complex64, complex128}")
    .SetShapeFn(MatrixDeterminantShape);

REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr(
        "T: {bfloat16, half, float, double, int32, int64, complex64, "
        "complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(BatchMatMulV1Shape);

#define WEFT_BMM_V3_IN_TYPES                                           \
  "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, " \
  "complex64, complex128}"

REGISTER_OP("BatchMatMulV3")
    .Input("x: Ta")
    .Input("y: Tb")
    .Output("output: Tout")
    .Attr("Ta: " WEFT_BMM_V3_IN_TYPES)
    .Attr("Tb: " WEFT_BMM_V3_IN_TYPES)
    .Attr(
        "Tout: {bfloat16, half, float, double, int16, int32, int64, "
        "complex64, complex128}")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("grad_x: bool = false")
    .Attr("grad_y: bool = false")
    .SetShapeFn(shape_inference::BatchMatMulV2Shape);

#undef WEFT_BMM_V3_IN_TYPES

}  // namespace weft
