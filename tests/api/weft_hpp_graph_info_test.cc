// weft.hpp's Graph::Inputs(), Outputs() and Output(name) on the hand-made
// fixture testdata/graph_info.pbtxt, whose header comment lists what each
// must report.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/api/api_testutil.h"
#include "weft/weft.hpp"

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using weft::testing::ApiTestdata;

std::vector<std::string> Names(const std::vector<weft::TensorInfo>& infos) {
  std::vector<std::string> names;
  for (const auto& info : infos) names.push_back(info.name);
  return names;
}

TEST(WeftHppGraphInfoTest, InputsAndOutputs) {
  weft::Graph graph = weft::Graph::Load(ApiTestdata("graph_info.pbtxt"));
  std::vector<weft::TensorInfo> inputs = graph.Inputs();
  ASSERT_THAT(Names(inputs), ElementsAre("x", "k", "u"));
  EXPECT_EQ(inputs[0].op, "Placeholder");
  EXPECT_EQ(inputs[0].dtype, WEFT_FLOAT);
  EXPECT_EQ(inputs[0].num_dims, 2);
  EXPECT_THAT(inputs[0].dims, ElementsAre(-1, 3));
  EXPECT_FALSE(inputs[0].has_default);
  EXPECT_EQ(inputs[1].op, "PlaceholderWithDefault");
  EXPECT_EQ(inputs[1].dtype, WEFT_INT32);
  EXPECT_EQ(inputs[1].num_dims, 0);
  EXPECT_TRUE(inputs[1].dims.empty());
  EXPECT_TRUE(inputs[1].has_default);
  EXPECT_EQ(inputs[2].num_dims, -1);
  EXPECT_TRUE(inputs[2].dims.empty());

  std::vector<weft::TensorInfo> outputs = graph.Outputs();
  // probs feeds a control edge and done has no outputs: neither is listed.
  ASSERT_THAT(Names(outputs), ElementsAre("halves", "halves:1", "k2", "u2"));
  EXPECT_EQ(outputs[1].op, "Split");
  EXPECT_THAT(outputs[1].dims, ElementsAre(-1, 1));
  EXPECT_EQ(outputs[2].dtype, WEFT_INT32);
  EXPECT_EQ(outputs[2].num_dims, 0);
  EXPECT_EQ(outputs[3].num_dims, -1);
}

TEST(WeftHppGraphInfoTest, OutputByNameAndLoadTimeShapes) {
  weft::Graph graph =
      weft::Graph::Load(ApiTestdata("graph_info.pbtxt"), {{"x", {8, 3}}});
  weft::TensorInfo probs = graph.Output("probs");
  EXPECT_EQ(probs.name, "probs");
  EXPECT_EQ(probs.op, "Softmax");
  EXPECT_EQ(probs.dtype, WEFT_FLOAT);
  EXPECT_THAT(probs.dims, ElementsAre(8, 2));
  EXPECT_THAT(graph.Output("logits:0").dims, ElementsAre(8, 2));
  EXPECT_THAT(graph.Inputs()[0].dims, ElementsAre(8, 3));
}

TEST(WeftHppGraphInfoTest, UnknownNamesFail) {
  weft::Graph graph = weft::Graph::Load(ApiTestdata("graph_info.pbtxt"));
  weft::Status status;
  weft::TensorInfo none = graph.Output("nope:0", &status);
  EXPECT_EQ(status.code(), WEFT_NOT_FOUND);
  EXPECT_THAT(status.message(), HasSubstr("graph_info.pbtxt: no node 'nope'"));
  EXPECT_EQ(none.name, "");
  EXPECT_EQ(none.num_dims, -1);

  graph.Output("k2:3", &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("node 'k2' (Mul) has 1 output"));
  EXPECT_THROW(graph.Output("nope"), weft::Error);

  // An empty Graph (a failed load) has nothing to list.
  weft::Graph empty;
  EXPECT_TRUE(empty.Inputs().empty());
  EXPECT_TRUE(empty.Outputs().empty());
  empty.Output("x", &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
}

// The tensors a Graph lists are what a Session runs on: zeros for every
// input without a default, every output fetched.
TEST(WeftHppGraphInfoTest, RunsFromTheDescription) {
  weft::Graph graph = weft::Graph::Load(ApiTestdata("graph_info.pbtxt"));
  std::vector<weft::Tensor> tensors;
  std::vector<std::string> names;
  for (const weft::TensorInfo& in : graph.Inputs()) {
    if (in.has_default) continue;
    std::vector<int64_t> dims;
    for (int64_t d : in.dims) dims.push_back(d < 0 ? 1 : d);
    tensors.push_back(weft::Tensor::Make(in.dtype, dims));
    names.push_back(in.name);
  }
  std::vector<weft::Feed> feeds;
  for (size_t i = 0; i < tensors.size(); ++i) {
    feeds.emplace_back(names[i], tensors[i]);
  }
  std::vector<std::string> fetches = Names(graph.Outputs());
  weft::Session session(graph, /*num_threads=*/0);
  std::vector<weft::Tensor> out = session.Run(feeds, fetches);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].dims(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(out[2].ToVector<int32_t>(), std::vector<int32_t>{49});
  EXPECT_EQ(out[3].num_dims(), 0);
}

}  // namespace
