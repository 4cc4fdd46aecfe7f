// Shape functions of the segment ops (ops/segment_ops.cc) and the matrix
// ops (ops/matrix_ops.cc) of issue 13. Their signatures and attrs are
// checked against TensorFlow's by tf_op_defs_test.cc.
#include <string>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace segment_matrix_ops_test {
namespace {

ShapeInferenceTestOp SegMatOp(const std::string& name) {
  ShapeInferenceTestOp op(name);
  op.SetAttr("T", AttrValue::Type(DT_FLOAT));
  return op;
}

TEST(SegmentMatrixOpsTest, Segment) {
  for (const char* name : {"SegmentSum", "SegmentMean", "SegmentMax"}) {
    ShapeInferenceTestOp op = SegMatOp(name);
    op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
    INFER_OK(op, "[5,3,2];[5]", "[?,d0_1,d0_2]");
    INFER_OK(op, "[5];[?]", "[?]");
    INFER_OK(op, "?;[5]", "?");
    INFER_ERROR("segment_ids (input 1) must be a vector", op, "[5,3];[5,1]");
    INFER_ERROR("data (input 0) must have rank >= 1", op, "[];[1]");
    INFER_ERROR("one id per row", op, "[5,3];[4]");
  }
}

TEST(SegmentMatrixOpsTest, UnsortedSegment) {
  ShapeInferenceTestOp op = SegMatOp("UnsortedSegmentSum");
  op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
  INFER_OK(op, "[5,3,2];[5];[]", "[?,d0_1,d0_2]");
  const Tensor four = Int32Scalar(4);
  op.input_tensors = {nullptr, nullptr, &four};
  INFER_OK(op, "[5,3,2];[5];[]", "[4,d0_1,d0_2]");
  INFER_OK(op, "[5,3,2];[5,3];[]", "[4,d0_2]");
  INFER_OK(op, "[5,3];?;[]", "?");
  INFER_OK(op, "?;[5];[]", "?");
  INFER_ERROR("does not start with", op, "[5,3];[4];[]");
  INFER_ERROR("at least the rank", op, "[5];[5,1];[]");
  INFER_ERROR("num_segments (input 2) must be a scalar", op, "[5];[5];[1]");
  const Tensor negative = Int32Scalar(-1);
  op.input_tensors = {nullptr, nullptr, &negative};
  INFER_ERROR("must be >= 0", op, "[5];[5];[]");
}

TEST(SegmentMatrixOpsTest, SparseSegment) {
  ShapeInferenceTestOp op = SegMatOp("SparseSegmentMean");
  INFER_OK(op, "[10,3];[4];[4]", "[?,d0_1]");
  INFER_OK(op, "[10,3];[?];[4]", "[?,d0_1]");
  INFER_ERROR("same length", op, "[10,3];[4];[5]");
  INFER_ERROR("indices (input 1) must be a vector", op, "[10,3];[4,1];[4]");
  INFER_ERROR("data (input 0) must have rank >= 1", op, "[];[4];[4]");
  ShapeInferenceTestOp num = SegMatOp("SparseSegmentSumWithNumSegments");
  INFER_OK(num, "[10,3];[4];[4];[]", "[?,d0_1]");
  const Tensor seven = Int64Scalar(7);
  num.input_tensors = {nullptr, nullptr, nullptr, &seven};
  num.SetAttr("Tnumsegments", AttrValue::Type(DT_INT64));
  INFER_OK(num, "[10,3,2];[4];[4];[]", "[7,d0_1,d0_2]");
  INFER_ERROR("num_segments (input 3) must be a scalar", num,
              "[10,3];[4];[4];[1]");
}

TEST(SegmentMatrixOpsTest, MatrixDiag) {
  ShapeInferenceTestOp op = SegMatOp("MatrixDiag");
  INFER_OK(op, "[2,3]", "[d0_0,d0_1,d0_1]");
  INFER_OK(op, "?", "?");
  INFER_ERROR("rank >= 1", op, "[]");
}

TEST(SegmentMatrixOpsTest, MatrixDiagV3) {
  ShapeInferenceTestOp op = SegMatOp("MatrixDiagV3");
  // Without constant k, num_rows and num_cols the shape is unknown.
  INFER_OK(op, "[2,3];[];[];[];[]", "?");
  const Tensor k0 = Int32Scalar(0);
  const Tensor k_range = Int32Tensor({-1, 1});
  const Tensor k_bad = Int32Tensor({1, -1});
  const Tensor minus1 = Int32Scalar(-1);
  const Tensor five = Int32Scalar(5);
  const Tensor two = Int32Scalar(2);
  op.input_tensors = {nullptr, &k0, &minus1, &minus1};
  INFER_OK(op, "[2,3];[];[];[];[]", "[d0_0,3,3]");
  INFER_OK(op, "[2,?];[];[];[];[]", "[d0_0,?,?]");
  op.input_tensors = {nullptr, &k0, &minus1, &five};
  INFER_OK(op, "[2,3];[];[];[];[]", "[d0_0,3,5]");
  op.input_tensors = {nullptr, &k0, &two, &minus1};
  INFER_ERROR("number of rows is too small", op, "[2,3];[];[];[];[]");
  op.input_tensors = {nullptr, &k0, &five, &five};
  INFER_ERROR("not consistent", op, "[2,3];[];[];[];[]");
  op.input_tensors = {nullptr, &k_range, &minus1, &minus1};
  INFER_OK(op, "[4,3,2];[2];[];[];[]", "[d0_0,2,2]");
  INFER_ERROR("does not match", op, "[4,2,2];[2];[];[];[]");
  INFER_ERROR("rank >= 2 when k is a range", op, "[2];[2];[];[];[]");
  op.input_tensors = {nullptr, &k_bad, &minus1, &minus1};
  INFER_ERROR("must not be larger", op, "[4,3,2];[2];[];[];[]");
  INFER_ERROR("padding_value (input 4) must be a scalar", op,
              "[2,3];[];[];[];[1]");
}

TEST(SegmentMatrixOpsTest, MatrixDiagPart) {
  ShapeInferenceTestOp v1 = SegMatOp("MatrixDiagPart");
  INFER_OK(v1, "[2,3,4]", "[d0_0,3]");
  INFER_OK(v1, "[2,?,4]", "[d0_0,?]");
  INFER_ERROR("rank >= 2", v1, "[4]");
  ShapeInferenceTestOp op = SegMatOp("MatrixDiagPartV3");
  INFER_OK(op, "[2,3,4];[];[]", "?");
  const Tensor k_range = Int32Tensor({-1, 2});
  op.input_tensors = {nullptr, &k_range};
  INFER_OK(op, "[2,3,4];[2];[]", "[d0_0,4,3]");
  INFER_OK(op, "[2,?,4];[2];[]", "[d0_0,4,?]");
  const Tensor k_far = Int32Scalar(4);
  op.input_tensors = {nullptr, &k_far};
  INFER_ERROR("out of bound", op, "[2,3,4];[];[]");
}

TEST(SegmentMatrixOpsTest, MatrixSetDiagAndDeterminant) {
  ShapeInferenceTestOp set = SegMatOp("MatrixSetDiagV3");
  INFER_OK(set, "[2,3,4];[2,3];[]", "in0");
  INFER_ERROR("rank >= 2", set, "[4];[4];[]");
  INFER_ERROR("k (input 2) must be a scalar or vector", set, "[3,4];[3];[1,1]");
  ShapeInferenceTestOp det = SegMatOp("MatrixDeterminant");
  INFER_OK(det, "[2,5,3,3]", "[d0_0,d0_1]");
  INFER_OK(det, "[3,?]", "[]");
  INFER_ERROR("square", det, "[2,3,4]");
  INFER_ERROR("rank >= 2", det, "[3]");
}

TEST(SegmentMatrixOpsTest, BatchMatMul) {
  ShapeInferenceTestOp op = SegMatOp("BatchMatMul");
  op.SetAttr("adj_x", AttrValue::Bool(false));
  op.SetAttr("adj_y", AttrValue::Bool(false));
  INFER_OK(op, "[2,3,4];[2,4,5]", "[d0_0|d1_0,d0_1,d1_2]");
  INFER_ERROR("does not broadcast", op, "[2,3,4];[1,4,5]");
  INFER_ERROR("does not broadcast", op, "[2,3,4];[4,5]");
  INFER_ERROR("inner dimensions", op, "[2,3,4];[2,3,5]");
  ShapeInferenceTestOp v3("BatchMatMulV3");
  v3.SetAttr("Ta", AttrValue::Type(DT_INT8));
  v3.SetAttr("Tb", AttrValue::Type(DT_UINT8));
  v3.SetAttr("Tout", AttrValue::Type(DT_INT32));
  INFER_OK(v3, "[2,3,4];[4,5]", "[d0_0,d0_1,d1_1]");
}

}  // namespace
}  // namespace segment_matrix_ops_test
}  // namespace shape_inference
}  // namespace weft
