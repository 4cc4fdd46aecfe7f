// Shape functions of the last ops of issue 13's anchor list:
// LSTMBlockCell (ops/rnn_ops.cc), SparseFillEmptyRows and SparseReshape
// (ops/sparse_ops.cc), DenseToDenseSetOperation (ops/set_ops.cc),
// ComplexAbs (ops/complex_ops.cc), FFT, RFFT and RFFT2D
// (ops/spectral_ops.cc).
#include <string>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace lstm_sparse_fft_ops_test {

ShapeInferenceTestOp Op(const std::string& name, const char* attr, DataType t) {
  ShapeInferenceTestOp op(name);
  op.SetAttr(attr, AttrValue::Type(t));
  return op;
}

TEST(LstmSparseFftOpsTest, LstmBlockCell) {
  ShapeInferenceTestOp op = Op("LSTMBlockCell", "T", DT_FLOAT);
  const std::string out = "[d0_0,d1_1]";
  const std::string all7 = out + ";" + out + ";" + out + ";" + out + ";" + out +
                           ";" + out + ";" + out;
  INFER_OK(op, "[2,3];[2,4];[2,4];[7,16];[4];[4];[4];[16]", all7);
  INFER_OK(op, "?;?;?;?;?;?;?;?", "[?,?];[?,?];[?,?];[?,?];[?,?];[?,?];[?,?]");
  INFER_ERROR("x (input 0) must be a matrix", op, "[2];?;?;?;?;?;?;?");
  INFER_ERROR("cs_prev (input 1) must be a matrix", op,
              "[2,3];[2,3,1];?;?;?;?;?;?");
  EXPECT_EQ(RegisteredAttr("LSTMBlockCell", "cell_clip"), "float = 3");
  EXPECT_EQ(RegisteredAttr("LSTMBlockCell", "T"), "type in [half, float]");
}

TEST(LstmSparseFftOpsTest, SparseFillEmptyRows) {
  ShapeInferenceTestOp op = Op("SparseFillEmptyRows", "T", DT_FLOAT);
  INFER_OK(op, "[5,2];[5];[2];[]", "[?,d0_1|d2_0];[?];[?];[d0_0|d1_0]");
  INFER_OK(op, "[?,?];[5];[3];[]", "[?,d2_0];[?];[?];[d1_0]");
  const Tensor shape = Int64Tensor({7, 4});
  op.input_tensors = {nullptr, nullptr, &shape, nullptr};
  INFER_OK(op, "[5,2];[5];[2];[]", "[?,d0_1|d2_0];[?];[7];[d0_0|d1_0]");
  op.input_tensors = {};
  INFER_ERROR("must have one entry per row", op, "[5,2];[4];[2];[]");
  INFER_ERROR("one column per entry of dense_shape", op, "[5,2];[5];[3];[]");
  INFER_ERROR("dense_shape must not be empty", op, "[?,?];[?];[0];[]");
  INFER_ERROR("default_value (input 3) must be a scalar", op,
              "[5,2];[5];[2];[1]");
}

TEST(LstmSparseFftOpsTest, SparseReshape) {
  ShapeInferenceTestOp op("SparseReshape");
  INFER_OK(op, "[5,3];[3];[2]", "[d0_0,d2_0];in2");
  INFER_OK(op, "?;?;?", "[?,?];[?]");
  INFER_ERROR("input_indices (input 0) must be a matrix", op, "[5];[3];[2]");
  INFER_ERROR("new_shape (input 2) must be a vector", op, "[5,3];[3];[]");
}

TEST(LstmSparseFftOpsTest, DenseToDenseSetOperation) {
  ShapeInferenceTestOp op = Op("DenseToDenseSetOperation", "T", DT_INT32);
  op.SetAttr("set_operation", AttrValue::String("union"));
  INFER_OK(op, "[2,3,4];[2,3,5]", "[?,3];[?];[3]");
  INFER_OK(op, "?;[2,5]", "[?,2];[?];[2]");
  INFER_OK(op, "?;?", "[?,?];[?];[?]");
  INFER_ERROR("set1 (input 0) must have rank >= 2", op, "[3];[2,3]");
  INFER_ERROR("must have the rank of set1", op, "[2,3];[2,3,4]");
  INFER_ERROR("agree in all but the last dimension", op, "[2,3];[3,3]");
}

TEST(LstmSparseFftOpsTest, ComplexAbs) {
  ShapeInferenceTestOp op = Op("ComplexAbs", "T", DT_COMPLEX64);
  INFER_OK(op, "[2,?]", "in0");
  EXPECT_EQ(RegisteredAttr("ComplexAbs", "Tout"),
            "type in [float, double] = float");
}

TEST(LstmSparseFftOpsTest, Fft) {
  ShapeInferenceTestOp op = Op("FFT", "Tcomplex", DT_COMPLEX64);
  INFER_OK(op, "[2,8]", "in0");
  INFER_ERROR("rank", op, "[]");
}

TEST(LstmSparseFftOpsTest, Rfft) {
  ShapeInferenceTestOp op = Op("RFFT", "Tcomplex", DT_COMPLEX64);
  INFER_OK(op, "[3,10];[1]", "[d0_0,?]");
  const Tensor n8 = Int32Tensor({8});
  const Tensor n0 = Int32Tensor({0});
  const Tensor neg = Int32Tensor({-1});
  op.input_tensors = {nullptr, &n8};
  INFER_OK(op, "[3,10];[1]", "[d0_0,5]");
  INFER_OK(op, "[3,?];[1]", "[d0_0,5]");
  INFER_ERROR("Input dimension 1 must have length of at least 8", op,
              "[3,5];[1]");
  op.input_tensors = {nullptr, &n0};
  INFER_OK(op, "[3,10];[1]", "[d0_0,0]");
  op.input_tensors = {nullptr, &neg};
  INFER_ERROR("fft_length[0] must >= 0, but got: -1", op, "[3,10];[1]");
  op.input_tensors = {};
  INFER_ERROR("fft_length (input 1) must have 1 elements", op, "[3,10];[2]");
  INFER_ERROR("input (input 0) must have rank >= 1", op, "[];[1]");
}

TEST(LstmSparseFftOpsTest, Rfft2d) {
  ShapeInferenceTestOp op = Op("RFFT2D", "Tcomplex", DT_COMPLEX128);
  op.SetAttr("Treal", AttrValue::Type(DT_DOUBLE));
  INFER_OK(op, "[2,6,8];[2]", "[d0_0,?,?]");
  const Tensor lengths = Int32Tensor({4, 6});
  op.input_tensors = {nullptr, &lengths};
  INFER_OK(op, "[2,6,8];[2]", "[d0_0,4,4]");
  INFER_ERROR("Input dimension 0 must have length of at least 4", op,
              "[3,6];[2]");
  INFER_ERROR("must have rank >= 2", op, "[6];[2]");
}

}  // namespace lstm_sparse_fft_ops_test
}  // namespace shape_inference
}  // namespace weft
