// The inference ops of issue 13 inside a graph run by Session: detection-
// style post-processing (TopKV2, Cumsum, Where, ClipByValue, CheckNumerics)
// and a causal mask (MatrixBandPart) import, infer shapes, run and give
// TensorFlow's values (computed by hand below), and a kernel's error names
// the node and its message: CheckNumerics on a NaN, TopKV2 with k > n.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace inference_ops_graph_test {

using ::testing::HasSubstr;

// scores: float [-1, 5] -> top = TopKV2(scores, k) -> csum = Cumsum(top
// values, axis -1, exclusive) -> checked = CheckNumerics(csum);
// keep = Where(Greater(clipped, 0.5)) with clipped = ClipByValue(scores, 0, 1);
// mask = MatrixBandPart(ones [4, 4], -1, 0) (lower triangle).
constexpr char kGraph[] = R"(
node { name: "scores" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 5 } } } } }
node { name: "k" op: "Placeholder"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape { } } } }
node { name: "post/top" op: "TopKV2" input: "scores" input: "k"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { }
    int_val: -1 } } } }
node { name: "post/csum" op: "Cumsum" input: "post/top" input: "axis"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "exclusive" value { b: true } } }
node { name: "post/checked" op: "CheckNumerics" input: "post/csum"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "message" value { s: "cumulative scores" } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { }
    float_val: 0 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { }
    float_val: 1 } } } }
node { name: "half" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { }
    float_val: 0.5 } } } }
node { name: "clipped" op: "ClipByValue" input: "scores" input: "zero"
  input: "one" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "above" op: "Greater" input: "clipped" input: "half"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "keep" op: "Where" input: "above"
  attr { key: "T" value { type: DT_BOOL } } }
node { name: "ones" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT
    tensor_shape { dim { size: 4 } dim { size: 4 } } float_val: 1 } } } }
node { name: "lower" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { }
    int64_val: -1 } } } }
node { name: "upper" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { }
    int64_val: 0 } } } }
node { name: "mask" op: "MatrixBandPart" input: "ones" input: "lower"
  input: "upper" attr { key: "T" value { type: DT_FLOAT } } }
)";

std::unique_ptr<Session> MakeSession() {
  auto def = ParseTextGraphDef(kGraph, "post.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "post.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "post.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  SessionOptions options;
  options.source_name = "post.pbtxt";
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*g)), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

Tensor Scores(const std::vector<float>& v) {
  Tensor t(DT_FLOAT, TensorShape({static_cast<int64_t>(v.size()) / 5, 5}));
  for (size_t i = 0; i < v.size(); ++i) t.data<float>()[i] = v[i];
  return t;
}

Tensor Scalar(int32_t k) {
  Tensor t(DT_INT32, TensorShape());
  t.data<int32_t>()[0] = k;
  return t;
}

TEST(InferenceOpsGraphTest, PostProcessingRuns) {
  std::unique_ptr<Session> session = MakeSession();
  ASSERT_NE(session, nullptr);
  auto out =
      session->Run({{"scores", Scores({0.25f, 0.75f, 2.0f, 0.75f, -1.0f,  //
                                       0.5f, 0.5f, 0.5f, 0.875f, 0.125f})},
                    {"k", Scalar(3)}},
                   {"post/top:1", "post/checked", "keep", "mask"});
  ASSERT_TRUE(out.ok()) << out.status();
  // Row 0: 2 (index 2), 0.75 (1), 0.75 (3), ties in index order; row 1:
  // 0.875 (3), then the three 0.5 in index order: 0, 1.
  const std::vector<int32_t> idx((*out)[0].data<int32_t>(),
                                 (*out)[0].data<int32_t>() + 6);
  EXPECT_EQ(idx, (std::vector<int32_t>{2, 1, 3, 3, 0, 1}));
  const std::vector<float> csum((*out)[1].data<float>(),
                                (*out)[1].data<float>() + 6);
  EXPECT_EQ(csum, (std::vector<float>{0, 2, 2.75f, 0, 0.875f, 1.375f}));
  // clipped > 0.5 at [0,1], [0,2], [0,3], [1,3].
  ASSERT_EQ((*out)[2].shape(), TensorShape({4, 2}));
  const std::vector<int64_t> keep((*out)[2].data<int64_t>(),
                                  (*out)[2].data<int64_t>() + 8);
  EXPECT_EQ(keep, (std::vector<int64_t>{0, 1, 0, 2, 0, 3, 1, 3}));
  const float* mask = (*out)[3].data<float>();
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(mask[i * 4 + j], j <= i ? 1 : 0);
  }
}

TEST(InferenceOpsGraphTest, ErrorsNameTheNode) {
  std::unique_ptr<Session> session = MakeSession();
  ASSERT_NE(session, nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  auto out =
      session->Run({{"scores", Scores({inf, 1, 2, 3, 4})}, {"k", Scalar(2)}},
                   {"post/checked"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("post/checked"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("cumulative scores : Tensor had Inf values"));
  out = session->Run({{"scores", Scores({0, 1, 2, 3, 4})}, {"k", Scalar(6)}},
                     {"post/top"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("post/top"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("at least k columns. Had 5, needed 6"));
  // Sorted inf, inf, 0, -inf, -inf: the last partial sum is inf - inf.
  out = session->Run(
      {{"scores", Scores({inf, inf, -inf, -inf, 0})}, {"k", Scalar(5)}},
      {"post/checked"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Tensor had Inf and NaN values"));
  // The session keeps working.
  out = session->Run({{"scores", Scores({0, 1, 2, 3, 4})}, {"k", Scalar(5)}},
                     {"post/checked"});
  EXPECT_TRUE(out.ok()) << out.status();
}

}  // namespace inference_ops_graph_test
}  // namespace weft
