// StridedSlice with constant begin, end and strides resolves its view once
// per input shape (slice_ops.cc, ResolvedViews) and reuses it: through a
// session, inputs of more shapes than it keeps, visited in turn and again,
// at 0 and 2 threads and from two threads at once, must each give the
// slice that NumPy's indexing defines (computed here by loops); a run that
// feeds the Const begin must get its own slice, and the constant's after.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "executor/session.h"
#include "graph/graph_def.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

NodeDef IndexConst(const std::string& name, std::vector<int32_t> values) {
  NodeDef n;
  n.name = name;
  n.op = "Const";
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.data<int32_t>()[i] = values[i];
  n.attr["dtype"] = AttrValue::Type(DT_INT32);
  n.attr["value"] = AttrValue::TensorValue(t);
  return n;
}

NodeDef Slice(const std::string& name, const std::string& prefix,
              int64_t begin_mask, int64_t end_mask, int64_t shrink_mask) {
  NodeDef n;
  n.name = name;
  n.op = "StridedSlice";
  n.input = {"x", prefix + "_begin", prefix + "_end", prefix + "_strides"};
  n.attr["T"] = AttrValue::Type(DT_FLOAT);
  n.attr["Index"] = AttrValue::Type(DT_INT32);
  n.attr["begin_mask"] = AttrValue::Int(begin_mask);
  n.attr["end_mask"] = AttrValue::Int(end_mask);
  n.attr["ellipsis_mask"] = AttrValue::Int(0);
  n.attr["new_axis_mask"] = AttrValue::Int(0);
  n.attr["shrink_axis_mask"] = AttrValue::Int(shrink_mask);
  return n;
}

// x (any 2-D float shape) -> "rows" = x[1:-1, ::-2], "last" = x[-1].
std::shared_ptr<const Graph> SliceGraph() {
  GraphDef def;
  NodeDef x;
  x.name = "x";
  x.op = "Placeholder";
  x.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  x.attr["shape"] = AttrValue::Shape(PartialTensorShape({-1, -1}));
  def.node.push_back(std::move(x));
  def.node.push_back(IndexConst("rows_begin", {1, 0}));
  def.node.push_back(IndexConst("rows_end", {-1, 0}));
  def.node.push_back(IndexConst("rows_strides", {1, -2}));
  def.node.push_back(Slice("rows", "rows", /*begin_mask=*/2, /*end_mask=*/2,
                           /*shrink_mask=*/0));
  def.node.push_back(IndexConst("last_begin", {-1}));
  def.node.push_back(IndexConst("last_end", {0}));
  def.node.push_back(IndexConst("last_strides", {1}));
  def.node.push_back(Slice("last", "last", 0, 0, /*shrink_mask=*/1));
  auto g = ImportGraphDef(def, ImportOptions());
  EXPECT_TRUE(g.ok()) << g.status();
  Status s = InferShapes(g->get(), ShapeInferenceOptions());
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

Tensor Counting(int64_t rows, int64_t cols) {
  Tensor t(DT_FLOAT, TensorShape({rows, cols}));
  for (int64_t i = 0; i < rows * cols; ++i) t.data<float>()[i] = float(i);
  return t;
}

// x[r0:r1, ::-2] by loops: rows r0 .. r1 - 1, columns cols - 1, cols - 3, ...
std::vector<float> RowsBackwards(const Tensor& x, int64_t r0, int64_t r1) {
  const int64_t cols = x.dim_size(1);
  std::vector<float> out;
  for (int64_t i = r0; i < r1; ++i) {
    for (int64_t j = cols - 1; j >= 0; j -= 2) {
      out.push_back(x.data<float>()[i * cols + j]);
    }
  }
  return out;
}

std::vector<float> Values(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// Runs "rows" and "last" for x (rows >= 1) and checks them.
void Check(Session* session, const Tensor& x) {
  const int64_t rows = x.dim_size(0);
  const int64_t cols = x.dim_size(1);
  const std::string what = x.shape().DebugString();
  auto out = session->Run({{"x", x}}, {"rows", "last"});
  ASSERT_TRUE(out.ok()) << what << ": " << out.status();
  const int64_t kept = rows >= 2 ? rows - 2 : 0;
  EXPECT_EQ((*out)[0].shape(), TensorShape({kept, (cols + 1) / 2})) << what;
  EXPECT_EQ(Values((*out)[0]), RowsBackwards(x, 1, 1 + kept)) << what;
  EXPECT_EQ((*out)[1].shape(), TensorShape({cols})) << what;
  for (int64_t j = 0; j < cols; ++j) {
    EXPECT_EQ((*out)[1].data<float>()[j],
              x.data<float>()[(rows - 1) * cols + j])
        << what << " column " << j;
  }
}

// Shapes: more than the kernel keeps views for, then the first ones again.
std::vector<TensorShape> Shapes() {
  std::vector<TensorShape> shapes;
  for (int64_t i = 0; i < 11; ++i)
    shapes.push_back(TensorShape({2 + i, 1 + i}));
  for (int64_t i = 0; i < 4; ++i) shapes.push_back(TensorShape({2 + i, 1 + i}));
  shapes.push_back(TensorShape({1, 7}));  // x[1:-1] empty
  shapes.push_back(TensorShape({5, 0}));  // no columns
  return shapes;
}

TEST(CpuStridedSliceViewsTest, ConstantSpecEveryShapeInTurnAndAgain) {
  for (int threads : {0, 2}) {
    SessionOptions options;
    options.threads = threads;
    auto session = Session::Create(SliceGraph(), options);
    ASSERT_TRUE(session.ok()) << session.status();
    for (const TensorShape& shape : Shapes()) {
      Check(session->get(), Counting(shape.dim_size(0), shape.dim_size(1)));
    }
  }
}

TEST(CpuStridedSliceViewsTest, ConcurrentRunsOfSeveralShapes) {
  SessionOptions options;
  options.threads = 2;
  auto session = Session::Create(SliceGraph(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 20; ++round) {
        const int64_t rows = 3 + (round + c) % 10;
        Check(session->get(), Counting(rows, rows + c));
      }
    });
  }
  for (std::thread& t : callers) t.join();
}

TEST(CpuStridedSliceViewsTest, FedBeginGetsItsOwnSlice) {
  auto session = Session::Create(SliceGraph(), SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  const Tensor x = Counting(6, 5);
  Check(session->get(), x);
  // x[2:-1, ::-2]: begin fed as [2, 0] (begin_mask still takes column 0's
  // place from the stride's direction).
  Tensor begin(DT_INT32, TensorShape({2}));
  begin.data<int32_t>()[0] = 2;
  begin.data<int32_t>()[1] = 0;
  auto fed = (*session)->Run({{"x", x}, {"rows_begin", begin}}, {"rows"});
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_EQ((*fed)[0].shape(), TensorShape({3, 3}));
  EXPECT_EQ(Values((*fed)[0]), RowsBackwards(x, 2, 5));
  Check(session->get(), x);
}

}  // namespace
}  // namespace weft
