// Bad input at run time through Session: each mistake a caller can make
// with feeds and fetches returns an error that names the input (never a
// crash or a wrong result), and the session keeps working afterwards.
// The same mistakes through the C API, weft.hpp and the CLI are in
// tests/plugin/c_api_bad_feed_test.cc and tests/tools/bad_feed_cli_test.cc.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// x: float [-1, 4] -> r = Relu(x) -> s = Sum(r, axis 1): a batch of rows.
// y: int32 [3], fed by nobody in most tests, feeds n = Neg(y).
constexpr char kGraph[] = R"(
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "r" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { }
    int_val: 1 } } } }
node { name: "s" op: "Sum" input: "r" input: "axis"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "y" op: "Placeholder"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "n" op: "Neg" input: "y" attr { key: "T" value { type: DT_INT32 } } }
)";

std::shared_ptr<const Graph> LoadGraph() {
  auto def = ParseTextGraphDef(kGraph, "feeds.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "feeds.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "feeds.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

std::unique_ptr<Session> MakeSession(SessionOptions options = {}) {
  options.source_name = "feeds.pbtxt";
  auto s = Session::Create(LoadGraph(), options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

// rows x 4 floats: row i holds i, -1, 2, 0.5 (its Relu'd sum: i + 2.5).
Tensor Rows(int64_t rows) {
  Tensor t(DT_FLOAT, TensorShape({rows, 4}));
  float* p = t.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    p[i * 4 + 0] = static_cast<float>(i);
    p[i * 4 + 1] = -1;
    p[i * 4 + 2] = 2;
    p[i * 4 + 3] = 0.5f;
  }
  return t;
}

// The session still gives right answers after a failed run.
void ExpectStillWorks(const Session& session) {
  auto out = session.Run({{"x", Rows(3)}}, {"s"});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ((*out)[0].NumElements(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[0].data<float>()[i], i + 2.5f);
}

class BadFeedTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    SessionOptions options;
    options.threads = GetParam();
    session_ = MakeSession(options);
    ASSERT_NE(session_, nullptr);
  }
  std::unique_ptr<Session> session_;
};

TEST_P(BadFeedTest, WrongDtype) {
  Tensor ints(DT_INT32, TensorShape({2, 4}));
  auto out = session_->Run({{"x", ints}}, {"s"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "feeds.pbtxt: feed 'x': expected float [?,4], got int32 [2,4]");
  ExpectStillWorks(*session_);
}

TEST_P(BadFeedTest, ShapeContradictingThePlaceholder) {
  // The known dimension differs; the rank differs; a scalar.
  for (const TensorShape& shape : {TensorShape({2, 5}), TensorShape({8}),
                                   TensorShape({2, 4, 1}), TensorShape({})}) {
    SCOPED_TRACE(shape.DebugString());
    auto out = session_->Run({{"x", Tensor(DT_FLOAT, shape)}}, {"s"});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(),
              "feeds.pbtxt: feed 'x': expected float [?,4], got float " +
                  shape.DebugString());
  }
  // A fully known placeholder, fed through a prepared callable.
  auto callable = session_->Prepare({"y"}, {"n"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  std::vector<Tensor> outputs;
  Status s =
      session_->Run(**callable, {Tensor(DT_INT32, TensorShape({4}))}, &outputs);
  EXPECT_EQ(s.message(),
            "feeds.pbtxt: feed 'y': expected int32 [3], got int32 [4]");
  ExpectStillWorks(*session_);
}

TEST_P(BadFeedTest, EmptyTensorAndWrongFeedCount) {
  auto out = session_->Run({{"x", Tensor()}}, {"s"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "feeds.pbtxt: feed 'x': expected float [?,4], got an empty tensor");
  auto callable = session_->Prepare({"x"}, {"s"});
  ASSERT_TRUE(callable.ok()) << callable.status();
  std::vector<Tensor> outputs;
  Status s = session_->Run(**callable, {}, &outputs);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "feeds.pbtxt: expected 1 feeds, got 0");
  s = session_->Run(**callable, {Rows(1), Rows(1)}, &outputs);
  EXPECT_EQ(s.message(), "feeds.pbtxt: expected 1 feeds, got 2");
  ExpectStillWorks(*session_);
}

TEST_P(BadFeedTest, UnknownFeedName) {
  for (const char* name : {"nope", "x:1", "x:-1", "x:", ":0", ""}) {
    SCOPED_TRACE(name);
    auto out = session_->Run({{name, Rows(1)}}, {"s"});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(),
                HasSubstr(absl::StrCat("feed '", name, "'")));
  }
  auto out = session_->Run({{"nope", Rows(1)}}, {"s"});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(out.status().message(),
            "feeds.pbtxt: feed 'nope': no node named 'nope'");
  out = session_->Run({{"x:1", Rows(1)}}, {"s"});
  EXPECT_THAT(out.status().message(), HasSubstr("has 1 output"));
  ExpectStillWorks(*session_);
}

TEST_P(BadFeedTest, UnknownFetchName) {
  for (const char* name : {"nope", "s:1", "s:x", ""}) {
    SCOPED_TRACE(name);
    auto out = session_->Run({{"x", Rows(1)}}, {name});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(),
                HasSubstr(absl::StrCat("fetch '", name, "'")));
  }
  auto out = session_->Run({{"x", Rows(1)}}, {"nope"});
  EXPECT_EQ(out.status().message(),
            "feeds.pbtxt: fetch 'nope': no node named 'nope'");
  ExpectStillWorks(*session_);
}

TEST_P(BadFeedTest, FetchNeedingAnUnfedPlaceholder) {
  auto out = session_->Run({}, {"s"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "feeds.pbtxt: node 'x' (Placeholder) must be fed: node 'r' (Relu) "
            "needs it");
  // Fed x does not help a fetch that needs y; fetching the placeholder
  // itself needs it fed too.
  out = session_->Run({{"x", Rows(1)}}, {"s", "n"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("node 'y' (Placeholder) must be fed"));
  out = session_->Run({}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(),
              HasSubstr("node 'y' (Placeholder) must be fed"));
  ExpectStillWorks(*session_);
}

INSTANTIATE_TEST_SUITE_P(Threads, BadFeedTest, ::testing::Values(0, 2));

TEST(BadFeedMemoryLimitTest, BatchTooLargeForTheLimitNamesTheFeed) {
  SessionOptions options;
  options.host_memory_limit_bytes = 1 << 20;
  auto session = MakeSession(options);
  ASSERT_NE(session, nullptr);
  // 128 Ki rows of 4 floats: Relu's output alone is 2 MiB, twice the limit.
  auto out = session->Run({{"x", Rows(128 * 1024)}}, {"s"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(out.status().message(), HasSubstr("node 'r' (Relu)"));
  EXPECT_THAT(out.status().message(), HasSubstr("of its limit of 1048576"));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("feed 'x' float [131072,4]"));
  // A batch that fits runs on the same session.
  ExpectStillWorks(*session);
}

}  // namespace
}  // namespace weft
