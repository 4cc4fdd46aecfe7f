// Errors of AdjustContrastv2, AdjustHue, AdjustSaturation,
// FakeQuantWithMinMaxArgs, FakeQuantWithMinMaxVars and CTCGreedyDecoder:
// bad ranks, channels, attrs and lengths give a Status naming the input or
// attr, never a crash.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
// Named so that its helpers stay distinct from other test files' in a
// unity build.
namespace image_quant_ops_test {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

void ExpectError(const std::string& op, const AttrMap& attrs,
                 std::vector<Tensor> inputs, const std::string& message) {
  StatusOr<std::vector<Tensor>> out = OpRunner(op, attrs).Run(inputs);
  ASSERT_FALSE(out.ok()) << op << " accepted bad inputs";
  EXPECT_NE(out.status().message().find(message), std::string::npos)
      << out.status();
}

Tensor Floats(const TensorShape& shape) {
  return AsTensor<float>(std::vector<float>(shape.num_elements(), 0.5f), shape);
}

TEST(CpuImageQuantOpsTest, AdjustErrors) {
  for (const char* op : {"AdjustContrastv2", "AdjustHue", "AdjustSaturation"}) {
    SCOPED_TRACE(op);
    ExpectError(op, {}, {Floats(TensorShape({4, 3})), AsScalar<float>(1)},
                "images (input 0) must be at least 3-D");
    ExpectError(op, {},
                {Floats(TensorShape({2, 2, 3})),
                 AsTensor<float>({1, 2}, TensorShape({2}))},
                "(input 1) must be scalar");
  }
  ExpectError("AdjustHue", {}, {Floats(TensorShape({2, 2, 4})), AsScalar(0.1f)},
              "must have 3 channels but instead has 4");
  ExpectError("AdjustSaturation", {},
              {Floats(TensorShape({2, 2, 1})), AsScalar(0.1f)},
              "must have 3 channels");
}

TEST(CpuImageQuantOpsTest, FakeQuantErrors) {
  AttrMap bad_range;
  bad_range["min"] = AttrValue::Float(2.0f);
  bad_range["max"] = AttrValue::Float(1.0f);
  ExpectError("FakeQuantWithMinMaxArgs", bad_range, {Floats(TensorShape({3}))},
              "min has to be smaller than max");
  for (int64_t bits : {1, 17}) {
    AttrMap attrs;
    attrs["num_bits"] = AttrValue::Int(bits);
    ExpectError("FakeQuantWithMinMaxArgs", attrs, {Floats(TensorShape({3}))},
                "num_bits must be between 2 and 16");
    ExpectError("FakeQuantWithMinMaxVars", attrs,
                {Floats(TensorShape({3})), AsScalar(-1.0f), AsScalar(1.0f)},
                "num_bits must be between 2 and 16");
  }
  ExpectError(
      "FakeQuantWithMinMaxVars", {},
      {Floats(TensorShape({3})), Floats(TensorShape({1})), AsScalar(1.0f)},
      "min (input 1) must be rank 0");
}

TEST(CpuImageQuantOpsTest, CtcGreedyDecoderErrors) {
  const Tensor x = Floats(TensorShape({4, 2, 3}));
  ExpectError("CTCGreedyDecoder", {},
              {Floats(TensorShape({4, 6})),
               AsTensor<int32_t>({4, 4}, TensorShape({2}))},
              "inputs (input 0) is not a 3-Tensor");
  ExpectError("CTCGreedyDecoder", {},
              {x, AsTensor<int32_t>({4, 4, 4}, TensorShape({3}))},
              "len(sequence_length) != batch_size");
  ExpectError("CTCGreedyDecoder", {},
              {x, AsTensor<int32_t>({4, 5}, TensorShape({2}))},
              "sequence_length(1) = 5 exceeds max_time = 4");
  ExpectError("CTCGreedyDecoder", {}, {x, AsScalar<int32_t>(4)},
              "sequence_length (input 1) is not a vector");
  ExpectError("CTCGreedyDecoder", {},
              {Floats(TensorShape({0, 2, 3})),
               AsTensor<int32_t>({0, 0}, TensorShape({2}))},
              "must not be empty");
  for (int64_t blank : {3, -4}) {
    AttrMap attrs;
    attrs["blank_index"] = AttrValue::Int(blank);
    ExpectError("CTCGreedyDecoder", attrs,
                {x, AsTensor<int32_t>({4, 4}, TensorShape({2}))},
                "blank_index expected to be between -3 and 2");
  }
}

}  // namespace
}  // namespace image_quant_ops_test
}  // namespace weft
