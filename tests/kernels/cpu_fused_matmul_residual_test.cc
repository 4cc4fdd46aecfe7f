// _FusedMatMul's residual when the batch dimensions the optimizer could not
// see differ at run time: Relu(AddV2(MatMul(x, w), h)) with x and h of
// unknown batch is fused (the rule takes two unknown batch dimensions as
// equal), and a run where one of them is 1 must broadcast as the AddV2
// does: the same values as the graph run node by node, bit for bit, and a
// double reference within the dot product's bound; shapes that do not
// broadcast fail as AddV2 fails.
#include <cmath>
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
namespace cpu_fused_matmul_residual_test {
namespace {

constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT
         tensor_shape { dim { size: 2 } dim { size: 3 } }
         float_val: 0.5 float_val: -1.25 float_val: 0.375
         float_val: 1.5 float_val: 0.75 float_val: -2 } } } }
node { name: "mm" op: "MatMul" input: "x" input: "w"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sum" op: "AddV2" input: "mm" input: "h"
       attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Relu" input: "sum" attr { key: "T" value { type: DT_FLOAT } } }
)";
constexpr double kW[2][3] = {{0.5, -1.25, 0.375}, {1.5, 0.75, -2}};

std::shared_ptr<const Graph> LoadGraph() {
  auto def = ParseTextGraphDef(kGraph, "residual.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions import_options;
  auto graph = ImportGraphDef(*def, import_options);
  EXPECT_TRUE(graph.ok()) << graph.status();
  EXPECT_TRUE(InferShapes(graph->get(), ShapeInferenceOptions()).ok());
  return std::shared_ptr<const Graph>(*std::move(graph));
}

Tensor Floats(const TensorShape& shape, float start, float step) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = start + step * static_cast<float>(i);
  }
  return t;
}

struct Outcome {
  Status status;
  Tensor y;
  int nodes = 0;
};

Outcome RunGraph(bool optimize, const Tensor& x, const Tensor& h) {
  SessionOptions options;
  options.optimize = optimize;
  options.threads = 0;
  options.source_name = "residual.pbtxt";
  auto session = Session::Create(LoadGraph(), options);
  EXPECT_TRUE(session.ok()) << session.status();
  auto callable = (*session)->Prepare({"x", "h"}, {"y"});
  EXPECT_TRUE(callable.ok()) << callable.status();
  Outcome r;
  r.nodes = (*callable)->num_nodes();
  std::vector<Tensor> out;
  r.status = (*session)->Run(**callable, {x, h}, &out);
  if (r.status.ok()) r.y = out[0];
  return r;
}

TEST(CpuFusedMatMulResidualTest, BroadcastsBatchDimensionsOfOne) {
  struct Case {
    int64_t x_rows, h_rows;
  };
  for (const Case& c : {Case{1, 4}, Case{4, 1}, Case{3, 3}}) {
    const Tensor x = Floats(TensorShape({c.x_rows, 2}), -0.75f, 0.5f);
    const Tensor h = Floats(TensorShape({c.h_rows, 3}), 1.0f, -0.25f);
    const Outcome fused = RunGraph(true, x, h);
    const Outcome nodes = RunGraph(false, x, h);
    ASSERT_TRUE(fused.status.ok()) << fused.status;
    ASSERT_TRUE(nodes.status.ok()) << nodes.status;
    EXPECT_EQ(fused.nodes, 1);  // one _FusedMatMul
    EXPECT_EQ(nodes.nodes, 3);
    const int64_t rows = std::max(c.x_rows, c.h_rows);
    ASSERT_EQ(fused.y.shape(), TensorShape({rows, 3}));
    ASSERT_EQ(nodes.y.shape(), fused.y.shape());
    for (int64_t i = 0; i < rows; ++i) {
      for (int j = 0; j < 3; ++j) {
        const float* xr = x.data<float>() + (c.x_rows == 1 ? 0 : i) * 2;
        const float* hr = h.data<float>() + (c.h_rows == 1 ? 0 : i) * 3;
        double s = hr[j];
        double bound = std::fabs(hr[j]);
        for (int k = 0; k < 2; ++k) {
          s += double(xr[k]) * kW[k][j];
          bound += std::fabs(double(xr[k]) * kW[k][j]);
        }
        const double want = s < 0 ? 0 : s;
        const float got = fused.y.data<float>()[i * 3 + j];
        EXPECT_NEAR(got, want, 4 * 0x1p-24 * bound) << i << "," << j;
        EXPECT_EQ(got, nodes.y.data<float>()[i * 3 + j]) << i << "," << j;
      }
    }
  }
}

TEST(CpuFusedMatMulResidualTest, ShapesThatDoNotBroadcastFail) {
  const Tensor x = Floats(TensorShape({2, 2}), 0.5f, 0.25f);
  const Tensor h = Floats(TensorShape({3, 3}), 0.5f, 0.25f);
  const Outcome fused = RunGraph(true, x, h);
  ASSERT_FALSE(fused.status.ok());
  EXPECT_THAT(std::string(fused.status.message()),
              ::testing::HasSubstr("does not broadcast"));
  EXPECT_FALSE(RunGraph(false, x, h).status.ok());
}

}  // namespace
}  // namespace cpu_fused_matmul_residual_test
}  // namespace weft
