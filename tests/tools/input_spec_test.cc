#include "tools/input_spec.h"

#include <cmath>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(InputSpecTest, ParsesTheThreeSources) {
  auto file = ParseInputSpec("x=data/in.npy");
  ASSERT_TRUE(file.ok()) << file.status();
  EXPECT_EQ(file->name, "x");
  EXPECT_EQ(file->source, InputSpec::Source::kFile);
  EXPECT_EQ(file->path, "data/in.npy");

  auto random = ParseInputSpec("scope/img:1=random:1,28,28");
  ASSERT_TRUE(random.ok()) << random.status();
  EXPECT_EQ(random->name, "scope/img:1");
  EXPECT_EQ(random->source, InputSpec::Source::kRandom);
  ASSERT_TRUE(random->shape.has_value());
  EXPECT_EQ(*random->shape, TensorShape({1, 28, 28}));

  auto no_shape = ParseInputSpec("x=zeros");
  ASSERT_TRUE(no_shape.ok()) << no_shape.status();
  EXPECT_EQ(no_shape->source, InputSpec::Source::kZeros);
  EXPECT_FALSE(no_shape->shape.has_value());

  auto scalar = ParseInputSpec("x=zeros:");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  ASSERT_TRUE(scalar->shape.has_value());
  EXPECT_EQ(scalar->shape->dims(), 0);

  // Only the exact words are generators; anything else is a file name.
  auto named_like = ParseInputSpec("x=randomness.npy");
  ASSERT_TRUE(named_like.ok());
  EXPECT_EQ(named_like->source, InputSpec::Source::kFile);
}

TEST(InputSpecTest, RejectsMalformedSpecs) {
  for (const char* text : {"x", "=zeros", "x=", "x=random:1,,2", "x=zeros:-1",
                           "x=random:a", "x=zeros:4611686018427387904,4"}) {
    auto spec = ParseInputSpec(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(spec.status().message()),
                HasSubstr(std::string("--input '") + text + "'"));
  }
}

TEST(InputSpecTest, RandomIsReproducibleAndInRange) {
  TensorShape shape({1000});
  auto a = MakeRandomTensor(DT_FLOAT, shape, "x");
  auto b = MakeRandomTensor(DT_FLOAT, shape, "x");
  auto c = MakeRandomTensor(DT_FLOAT, shape, "y");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(std::memcmp(a->raw_data(), b->raw_data(), a->TotalBytes()), 0);
  EXPECT_NE(std::memcmp(a->raw_data(), c->raw_data(), a->TotalBytes()), 0);
  double sum = 0;
  for (int k = 0; k < 1000; ++k) {
    float v = a->data<float>()[k];
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    sum += v;
  }
  // 1000 uniform draws on [-1, 1): the mean has a standard deviation of
  // about 0.018, so 0.1 is more than five of them.
  EXPECT_LT(std::fabs(sum / 1000), 0.1);

  // Half and bfloat16 hold so few bits that a careless draw rounds to 1.
  for (DataType dtype : {DT_HALF, DT_BFLOAT16, DT_DOUBLE}) {
    auto t = MakeRandomTensor(dtype, shape, "h");
    ASSERT_TRUE(t.ok()) << DataTypeName(dtype);
    auto check = [&](const auto* p) {
      for (int k = 0; k < 1000; ++k) {
        double v = static_cast<double>(p[k]);
        EXPECT_GE(v, -1.0) << DataTypeName(dtype);
        EXPECT_LT(v, 1.0) << DataTypeName(dtype);
      }
    };
    if (dtype == DT_HALF) check(t->data<half>());
    if (dtype == DT_BFLOAT16) check(t->data<bfloat16>());
    if (dtype == DT_DOUBLE) check(t->data<double>());
  }

  auto ints = MakeRandomTensor(DT_INT8, shape, "i");
  auto uints = MakeRandomTensor(DT_UINT64, shape, "u");
  auto bools = MakeRandomTensor(DT_BOOL, shape, "b");
  ASSERT_TRUE(ints.ok() && uints.ok() && bools.ok());
  int trues = 0;
  for (int k = 0; k < 1000; ++k) {
    EXPECT_LE(std::abs(ints->data<int8_t>()[k]), 10);
    EXPECT_LE(uints->data<uint64_t>()[k], 10u);
    trues += bools->data<bool>()[k];
  }
  EXPECT_GT(trues, 400);
  EXPECT_LT(trues, 600);

  auto strings = MakeRandomTensor(DT_STRING, shape, "s");
  ASSERT_FALSE(strings.ok());
  EXPECT_THAT(std::string(strings.status().message()),
              HasSubstr("random values of type string"));
}

TEST(InputSpecTest, ZerosAreZero) {
  auto t = MakeZerosTensor(DT_DOUBLE, TensorShape({2, 2}));
  ASSERT_TRUE(t.ok());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(t->data<double>()[k], 0.0);
  auto s = MakeZerosTensor(DT_STRING, TensorShape({2}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->data<std::string>()[1], "");
}

TEST(InputSpecTest, DefaultFetchesAreUnconsumedOutputs) {
  std::string graph = std::string(WEFT_TOOLS_TESTDATA_DIR) + "/add_relu.pbtxt";
  auto x = ParseInputSpec("x=zeros:2,3");
  auto n = ParseInputSpec("n=random");
  ASSERT_TRUE(x.ok() && n.ok());
  auto setup = LoadRunSetup(graph, {*x, *n}, {});
  ASSERT_TRUE(setup.ok()) << setup.status();
  EXPECT_THAT(setup->fetches, ElementsAre("pair", "pair:1"));
  EXPECT_THAT(setup->feed_names, ElementsAre("x", "n"));
  ASSERT_EQ(setup->feeds.size(), 2u);
  EXPECT_EQ(setup->feeds[0].shape(), TensorShape({2, 3}));
  EXPECT_EQ(setup->feeds[1].dtype(), DT_INT32);
  EXPECT_EQ(setup->feeds[1].dims(), 0);
  EXPECT_TRUE(setup->notes.empty());
  // The given shape reached shape inference.
  const Node* relu = setup->graph->FindNode("layer/relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(setup->graph->output_shape(relu, 0).DebugString(), "[2,3]");

  // Feeding an inner node without a shape takes its inferred shape.
  auto inner = ParseInputSpec("layer/add=random");
  ASSERT_TRUE(inner.ok());
  auto fed_inner = LoadRunSetup(graph, {*x, *inner}, {"layer/relu"});
  ASSERT_TRUE(fed_inner.ok()) << fed_inner.status();
  EXPECT_EQ(fed_inner->feeds[1].shape(), TensorShape({2, 3}));
  EXPECT_THAT(fed_inner->fetches, ElementsAre("layer/relu"));
}

}  // namespace
}  // namespace weft::cli
