// Shape functions of the indexing, scatter and partition ops of issue 13
// (ops/scatter_ops.cc, ops/partition_ops.cc, ops/legacy_array_ops.cc). Their
// signatures and attrs match TensorFlow 2.21's (checked against its op
// registry when they were written; see tests/ops/gen_tf_op_defs.py).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/shape_inference_testutil.h"

namespace weft {
namespace shape_inference {
namespace scatter_ops_shape_test {
namespace {

ShapeInferenceTestOp Op(const std::string& name, const std::string& attr = "T",
                        DataType t = DT_FLOAT) {
  ShapeInferenceTestOp op(name);
  op.SetAttr(attr, AttrValue::Type(t));
  return op;
}

TEST(ScatterOpsTest, GatherNd) {
  ShapeInferenceTestOp op = Op("GatherNd", "Tparams");
  op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
  INFER_OK(op, "[3,4,5];[7,2]", "[d1_0,d0_2]");
  INFER_OK(op, "[3,4];[2,6,2]", "[d1_0,d1_1]");
  INFER_OK(op, "[3,4];[6,0]", "[d1_0,d0_0,d0_1]");
  INFER_OK(op, "?;[7,2]", "?");
  INFER_OK(op, "[3,4];[7,?]", "?");
  INFER_ERROR("index into 3 dimensions", op, "[3,4];[7,3]");
  INFER_ERROR("indices (input 1)", op, "[3,4];[]");
}

TEST(ScatterOpsTest, ScatterNd) {
  ShapeInferenceTestOp op = Op("ScatterNd");
  op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
  const Tensor shape = Int32Tensor({5, 3});
  op.input_tensors = {nullptr, nullptr, &shape};
  INFER_OK(op, "[4,1];[4,3];[2]", "[5,3]");
  INFER_OK(op, "[4,2];[4];[2]", "[5,3]");
  INFER_ERROR("updates (input 1)", op, "[4,1];[4,2];[2]");
  INFER_ERROR("must have rank 2", op, "[4,1];[4];[2]");
  INFER_ERROR("index into 3 dimensions", op, "[4,3];[4];[2]");
  op.input_tensors = {};
  INFER_OK(op, "[4,1];[4,3];[2]", "[?,?]");
  INFER_ERROR("shape (input 2)", op, "[4,1];[4,3];[]");
}

TEST(ScatterOpsTest, TensorScatter) {
  for (const char* name :
       {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterSub",
        "TensorScatterMin", "TensorScatterMax"}) {
    SCOPED_TRACE(name);
    ShapeInferenceTestOp op = Op(name);
    op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
    INFER_OK(op, "[5,3];[4,1];[4,3]", "in0");
    INFER_OK(op, "[5,3];[4,1];?", "in0");
    INFER_OK(op, "?;[4,1];[4,3]", "in0");
    INFER_ERROR("dimension 1 differs", op, "[5,3];[4,1];[4,2]");
    INFER_ERROR("index into 3 dimensions", op, "[5,3];[4,3];[4]");
  }
}

TEST(ScatterOpsTest, SparseToDense) {
  ShapeInferenceTestOp op = Op("SparseToDense");
  op.SetAttr("Tindices", AttrValue::Type(DT_INT32));
  const Tensor shape = Int32Tensor({4, 6});
  op.input_tensors = {nullptr, &shape};
  INFER_OK(op, "[3,2];[2];[3];[]", "[4,6]");
  INFER_ERROR("default_value (input 3)", op, "[3,2];[2];[3];[1]");
  INFER_ERROR("sparse_indices (input 0)", op, "[3,2,1];[2];[3];[]");
  op.input_tensors = {};
  INFER_OK(op, "[3,2];[2];[3];[]", "[?,?]");
}

TEST(ScatterOpsTest, Unique) {
  ShapeInferenceTestOp op = Op("Unique");
  INFER_OK(op, "[7]", "[?];in0");
  INFER_ERROR("x (input 0)", op, "[2,3]");
  ShapeInferenceTestOp counts = Op("UniqueWithCounts");
  INFER_OK(counts, "[7]", "[?];in0;[?]");
}

TEST(ScatterOpsTest, DynamicPartition) {
  ShapeInferenceTestOp op = Op("DynamicPartition");
  op.SetAttr("num_partitions", AttrValue::Int(3));
  INFER_OK(op, "[5,2,3];[5,2]", "[?,d0_2];[?,d0_2];[?,d0_2]");
  INFER_OK(op, "[5,2,3];?", "?;?;?");
  INFER_ERROR("must start with that of partitions", op, "[5,2];[4]");
}

TEST(ScatterOpsTest, DynamicStitch) {
  ShapeInferenceTestOp op = Op("DynamicStitch");
  op.SetAttr("N", AttrValue::Int(2));
  INFER_OK(op, "[2];[3];[2,4];[3,4]", "[?,d2_1|d3_1]");
  const Tensor a = Int32Tensor({0, 4});
  const Tensor b = Int32Tensor({1, 2, 3});
  op.input_tensors = {&a, &b};
  INFER_OK(op, "[2];[3];[2,4];[3,4]", "[5,d2_1|d3_1]");
  INFER_ERROR("must start with that of indices", op, "[2];[3];[3,4];[3,4]");
  INFER_ERROR("must match the other data inputs", op, "[2];[3];[2,4];[3,5]");
}

TEST(ScatterOpsTest, Bincounts) {
  ShapeInferenceTestOp op = Op("Bincount");
  const Tensor size = Int32Scalar(6);
  op.input_tensors = {nullptr, &size};
  INFER_OK(op, "[9];[];[0]", "[6]");
  op.input_tensors = {};
  INFER_OK(op, "[9];[];[0]", "[?]");
  INFER_ERROR("size (input 1)", op, "[9];[1];[0]");
  ShapeInferenceTestOp dense = Op("DenseBincount");
  dense.SetAttr("Tidx", AttrValue::Type(DT_INT32));
  dense.input_tensors = {nullptr, &size};
  INFER_OK(dense, "[9];[];[0]", "[6]");
  INFER_OK(dense, "[3,9];[];[0]", "[d0_0,6]");
  INFER_OK(dense, "?;[];[0]", "?");
  INFER_ERROR("input (input 0)", dense, "[1,2,3];[];[0]");
}

TEST(ScatterOpsTest, ReverseSequence) {
  ShapeInferenceTestOp op = Op("ReverseSequence");
  op.SetAttr("seq_dim", AttrValue::Int(1));
  INFER_OK(op, "[?,5,3];[4]", "[d1_0,d0_1,d0_2]");
  INFER_ERROR("seq_lengths (input 1)", op, "[2,5,3];[4]");
  INFER_ERROR("seq_lengths (input 1)", op, "[2,5,3];[]");
  op.SetAttr("seq_dim", AttrValue::Int(3));
  INFER_ERROR("seq_dim must be < input rank: 3 vs. 3", op, "[2,5,3];[2]");
  op.SetAttr("seq_dim", AttrValue::Int(0));
  INFER_ERROR("batch_dim == seq_dim == 0", op, "[2,5,3];[2]");
}

TEST(ScatterOpsTest, LegacyGatherAndConcat) {
  ShapeInferenceTestOp gather = Op("Gather", "Tparams");
  gather.SetAttr("Tindices", AttrValue::Type(DT_INT32));
  INFER_OK(gather, "[5,3,2];[4,7]", "[d1_0,d1_1,d0_1,d0_2]");
  INFER_OK(gather, "[5];[]", "[]");
  INFER_ERROR("params (input 0)", gather, "[];[4]");
  ShapeInferenceTestOp concat = Op("Concat");
  concat.SetAttr("N", AttrValue::Int(2));
  const Tensor axis = Int32Scalar(-1);
  concat.input_tensors = {&axis};
  INFER_OK(concat, "[];[2,3];[2,5]", "[d1_0|d2_0,8]");
  INFER_ERROR("dimension 0 differs", concat, "[];[2,3];[3,5]");
  INFER_ERROR("scalars cannot be concatenated", concat, "[];[];[]");
  concat.input_tensors = {};
  INFER_OK(concat, "[];[2,3];[2,5]", "[?,?]");
  INFER_OK(concat, "[];?;?", "?");
}

}  // namespace
}  // namespace scatter_ops_shape_test
}  // namespace shape_inference
}  // namespace weft
