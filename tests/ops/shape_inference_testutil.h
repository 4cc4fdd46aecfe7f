// A compact way to test registered shape functions, in the spirit of
// TensorFlow's shape_inference_testutil:
//
//   ShapeInferenceTestOp op("MatMul");
//   INFER_OK(op, "[1,?];[?,2]", "[d0_0,d1_1]");
//   op.SetAttr("transpose_a", AttrValue::Bool(true));
//   INFER_ERROR("inner dimensions", op, "[2,3];[4,5]");
//
// Input shapes are separated by ';': "?" is unknown rank, "[]" a scalar,
// "[?,2]" a shape with an unknown dimension. Expected outputs, also ';'
// separated, are checked for identity as well as value:
//   "in0"      the output is the very shape handle of input 0;
//   "?"        unknown rank (a new shape, or an input of unknown rank);
//   "[a,b]"    a new shape whose dimensions are each:
//     "d0_1"   the very dimension handle of input 0, dimension 1;
//     "?"      a new unknown dimension (not one of the inputs');
//     "3"      a new known dimension of size 3 (not one of the inputs');
//     "d0_1|d1_0"  any one of the alternatives.
// The helper looks the op up in OpRegistry::Global(), fills the node's
// inputs and attr defaults with ValidateNode, builds an InferenceContext and
// runs the op's shape function.
#ifndef WEFT_TESTS_OPS_SHAPE_INFERENCE_TESTUTIL_H_
#define WEFT_TESTS_OPS_SHAPE_INFERENCE_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "gtest/gtest.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"

namespace weft {
namespace shape_inference {

struct ShapeInferenceTestOp {
  explicit ShapeInferenceTestOp(std::string op_name)
      : name(std::move(op_name)) {}

  ShapeInferenceTestOp& SetAttr(std::string attr_name, AttrValue value) {
    node_def.attr[std::move(attr_name)] = std::move(value);
    return *this;
  }

  std::string name;
  // Attrs (and, optionally, the node name). `op` is set from `name`; empty
  // `input` is filled with one entry per input shape given.
  NodeDef node_def;
  // Constant input values by input index (nullptr: unknown); must outlive
  // the checks.
  std::vector<const Tensor*> input_tensors;
  // Partially known values of shape-vector inputs (unknown rank: nothing).
  std::vector<PartialTensorShape> input_tensors_as_shapes;
};

// "[1,?]" -> {1,-1}; "?" -> unknown rank; "[]" -> scalar.
StatusOr<PartialTensorShape> ParseTestShape(absl::string_view text);

::testing::AssertionResult InferOk(const ShapeInferenceTestOp& op,
                                   absl::string_view input_shapes,
                                   absl::string_view expected_outputs);
// Passes when validation or inference fails with a message containing
// `error_substring`.
::testing::AssertionResult InferError(absl::string_view error_substring,
                                      const ShapeInferenceTestOp& op,
                                      absl::string_view input_shapes);

// Registration checks against the global registry. "(a: T, b: T) ->
// (product: T)", with "N * T" and fixed dtypes as in the spec; "<unknown op>"
// when the op is not registered.
std::string RegisteredSignature(absl::string_view op_name);
// One attr as "type[ in <allowed>][ >= min][ = default]", e.g.
// "bool = false", "type in [int32, int64] = int32", "list(int) >= 4";
// "<no attr>" when absent.
std::string RegisteredAttr(absl::string_view op_name,
                           absl::string_view attr_name);

// Small constant tensors for input_tensors.
Tensor Int32Tensor(const std::vector<int32_t>& values);
Tensor Int64Tensor(const std::vector<int64_t>& values);
Tensor Int32Scalar(int32_t value);
Tensor Int64Scalar(int64_t value);

}  // namespace shape_inference
}  // namespace weft

#define INFER_OK(op, input_shapes, expected_outputs) \
  EXPECT_TRUE(                                       \
      ::weft::shape_inference::InferOk(op, input_shapes, expected_outputs))
#define INFER_ERROR(error_substring, op, input_shapes) \
  EXPECT_TRUE(                                         \
      ::weft::shape_inference::InferError(error_substring, op, input_shapes))

#endif  // WEFT_TESTS_OPS_SHAPE_INFERENCE_TESTUTIL_H_
