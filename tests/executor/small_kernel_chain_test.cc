// The executor's handling of small real kernels (the AddV2 chain of
// bench/executor_bench.cc): constants and feeds are read in place and never
// forwarded, a forwarded input's buffer becomes the output's, and a fetched
// intermediate is not overwritten by its consumer. Values are exact sums in
// float, worked out by hand.
#include <memory>
#include <string>
#include <vector>

#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace small_kernel_chain_test {

std::string Placeholder(const std::string& name, int n) {
  return "node { name: \"" + name +
         "\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT "
         "} } attr { key: \"shape\" value { shape { dim { size: " +
         std::to_string(n) + " } } } } }\n";
}

std::string Const(const std::string& name, const std::vector<float>& v) {
  std::string s = "node { name: \"" + name +
                  "\" op: \"Const\" attr { key: \"dtype\" value { type: "
                  "DT_FLOAT } } attr { key: \"value\" value { tensor { dtype: "
                  "DT_FLOAT tensor_shape { dim { size: " +
                  std::to_string(v.size()) + " } } ";
  for (float f : v) s += "float_val: " + std::to_string(f) + " ";
  return s + "} } } }\n";
}

std::string Add(const std::string& name, const std::string& a,
                const std::string& b) {
  return "node { name: \"" + name + "\" op: \"AddV2\" input: \"" + a +
         "\" input: \"" + b +
         "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
}

std::unique_ptr<Session> MakeSession(const std::string& text, int threads) {
  auto def = ParseTextGraphDef(text, "chain.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  auto graph = ImportGraphDef(*def, ImportOptions());
  EXPECT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(InferShapes(graph->get(), ShapeInferenceOptions()).ok());
  SessionOptions options;
  options.threads = threads;
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*graph)), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return std::move(*session);
}

Tensor Floats(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

class SmallKernelChainTest : public ::testing::TestWithParam<int> {};

// x_{i+1} = x_i + c, 50 times: 1.5 + 50 * 0.5 = 26.5, exact in float. The
// feed and the constant keep their values across runs.
TEST_P(SmallKernelChainTest, AddChainIsExactAndLeavesFeedAndConstant) {
  std::string text = Placeholder("x", 1) + Const("c", {0.5f});
  std::string prev = "x";
  for (int i = 0; i < 50; ++i) {
    const std::string name = "a" + std::to_string(i);
    text += Add(name, prev, "c");
    prev = name;
  }
  auto session = MakeSession(text, GetParam());
  auto callable = session->Prepare({"x"}, {prev, "c"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  const std::vector<Tensor> feeds = {Floats({1.5f})};
  for (int run = 0; run < 3; ++run) {
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run(**callable, feeds, &out).ok());
    EXPECT_EQ(Values(out[0]), std::vector<float>({26.5f})) << run;
    EXPECT_EQ(Values(out[1]), std::vector<float>({0.5f})) << run;
    EXPECT_EQ(Values(feeds[0]), std::vector<float>({1.5f})) << run;
  }
}

// Both inputs presets (a constant and a feed, each held by someone else):
// neither may become the output's buffer.
TEST_P(SmallKernelChainTest, PresetInputsAreNeverForwarded) {
  auto session = MakeSession(Placeholder("x", 2) + Const("c", {1.0f, 2.0f}) +
                                 Add("y", "c", "x") + Add("z", "x", "x"),
                             GetParam());
  auto callable = session->Prepare({"x"}, {"y", "z", "c", "x"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  const std::vector<Tensor> feeds = {Floats({10.0f, 20.0f})};
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run(**callable, feeds, &out).ok());
    EXPECT_EQ(Values(out[0]), std::vector<float>({11.0f, 22.0f}));
    EXPECT_EQ(Values(out[1]), std::vector<float>({20.0f, 40.0f}));
    EXPECT_EQ(Values(out[2]), std::vector<float>({1.0f, 2.0f}));
    EXPECT_EQ(Values(out[3]), std::vector<float>({10.0f, 20.0f}));
    EXPECT_FALSE(out[0].SharesBufferWith(feeds[0]));
    EXPECT_FALSE(out[1].SharesBufferWith(feeds[0]));
  }
}

// a = x + c is fetched and also read by b = a + c: b must not take a's
// buffer (the fetch holds it), while c2 = b + c, read by nothing else, may
// take b's. Scalar-broadcast operands ([1] against [3]) take the same path.
TEST_P(SmallKernelChainTest, FetchedIntermediateIsNotOverwritten) {
  auto session = MakeSession(Placeholder("x", 3) + Const("c", {0.25f}) +
                                 Add("a", "x", "c") + Add("b", "a", "c") +
                                 Add("d", "c", "b"),
                             GetParam());
  auto callable = session->Prepare({"x"}, {"a", "d"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  std::vector<Tensor> out;
  ASSERT_TRUE(
      session->Run(**callable, {Floats({1.0f, 2.0f, 3.0f})}, &out).ok());
  EXPECT_EQ(Values(out[0]), std::vector<float>({1.25f, 2.25f, 3.25f}));
  EXPECT_EQ(Values(out[1]), std::vector<float>({1.75f, 2.75f, 3.75f}));
  EXPECT_FALSE(out[0].SharesBufferWith(out[1]));
}

INSTANTIATE_TEST_SUITE_P(Threads, SmallKernelChainTest,
                         ::testing::Values(0, 1, 2));

}  // namespace small_kernel_chain_test
}  // namespace weft
