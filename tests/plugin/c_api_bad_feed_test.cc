// Bad input at run time through the C API (include/weft/c_api.h) and its
// C++ sugar (include/weft/weft.hpp): wrong dtype, a shape contradicting the
// placeholder, a tensor made with too few (or too many, or overflowing)
// bytes, unknown feed and fetch names, a fetch needing an unfed
// placeholder, a batch too large for host_memory_limit_bytes. Each comes
// back as a status naming the input; no output is left set, and the
// session keeps working. tests/executor/bad_feed_test.cc has the same
// through Session.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "weft/c_api.h"
#include "weft/weft.hpp"

namespace {

using ::testing::HasSubstr;

// x: float [-1, 4] -> r = Relu(x) -> s = Sum(r, axis 1).
// y: int32 [3] -> n = Neg(y).
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

class CApiBadFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    status_ = weft_status_new();
    graph_ = weft_graph_load_buffer(kGraph, sizeof(kGraph) - 1, "feeds.pbtxt",
                                    nullptr, status_);
    ASSERT_NE(graph_, nullptr) << message();
    session_ = weft_session_new(graph_, 0, status_);
    ASSERT_NE(session_, nullptr) << message();
  }
  void TearDown() override {
    weft_session_delete(session_);
    weft_graph_delete(graph_);
    weft_status_delete(status_);
  }

  weft_code code() const { return weft_status_code(status_); }
  std::string message() const { return weft_status_message(status_); }

  // rows x 4 floats: row i is {i, -1, 2, 0.5}, whose Relu'd sum is i + 2.5.
  weft_tensor* Rows(int64_t rows) {
    std::vector<float> v;
    for (int64_t i = 0; i < rows; ++i) {
      v.insert(v.end(), {static_cast<float>(i), -1.0f, 2.0f, 0.5f});
    }
    const int64_t dims[] = {rows, 4};
    weft_tensor* t = weft_tensor_new(WEFT_FLOAT, dims, 2, v.data(),
                                     v.size() * sizeof(float), status_);
    EXPECT_NE(t, nullptr) << message();
    return t;
  }

  // Runs `fetch` with one feed; returns the output (NULL on error, when
  // the status says why). A non-NULL output on error is a test failure.
  weft_tensor* RunOne(const char* feed, const weft_tensor* value,
                      const char* fetch,
                      const weft_session* session = nullptr) {
    const char* feed_names[] = {feed};
    const weft_tensor* feeds[] = {value};
    const char* fetch_names[] = {fetch};
    weft_tensor* out[1] = {reinterpret_cast<weft_tensor*>(&sentinel_)};
    weft_session_run(session ? session : session_, feed_names, feeds,
                     value == nullptr && feed == nullptr ? 0 : 1, fetch_names,
                     1, out, status_);
    if (code() != WEFT_OK) EXPECT_EQ(out[0], nullptr);
    return out[0];
  }

  void ExpectStillWorks() {
    weft_tensor* x = Rows(3);
    weft_tensor* out = RunOne("x", x, "s");
    ASSERT_NE(out, nullptr) << message();
    ASSERT_EQ(weft_tensor_num_elements(out), 3);
    const float* p = static_cast<const float*>(weft_tensor_data(out));
    for (int i = 0; i < 3; ++i) EXPECT_EQ(p[i], i + 2.5f);
    weft_tensor_delete(out);
    weft_tensor_delete(x);
  }

  weft_status* status_ = nullptr;
  weft_graph* graph_ = nullptr;
  weft_session* session_ = nullptr;
  int sentinel_ = 0;
};

TEST_F(CApiBadFeedTest, WrongDtype) {
  const int64_t dims[] = {2, 4};
  weft_tensor* ints = weft_tensor_new(WEFT_INT32, dims, 2, nullptr,
                                      8 * sizeof(int32_t), status_);
  ASSERT_NE(ints, nullptr);
  RunOne("x", ints, "s");
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(message(),
            "feeds.pbtxt: feed 'x': expected float [?,4], got int32 [2,4]");
  weft_tensor_delete(ints);
  ExpectStillWorks();
}

TEST_F(CApiBadFeedTest, ShapeContradictingThePlaceholder) {
  for (std::vector<int64_t> dims :
       {std::vector<int64_t>{2, 5}, {8}, {2, 4, 1}, {}}) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    weft_tensor* t =
        weft_tensor_new(WEFT_FLOAT, dims.data(), static_cast<int>(dims.size()),
                        nullptr, n * sizeof(float), status_);
    ASSERT_NE(t, nullptr) << message();
    RunOne("x", t, "s");
    EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
    EXPECT_THAT(message(), HasSubstr("feed 'x': expected float [?,4], got "
                                     "float ["));
    weft_tensor_delete(t);
  }
  ExpectStillWorks();
}

TEST_F(CApiBadFeedTest, TooFewBytesAreRefusedWhenTheTensorIsMade) {
  const int64_t dims[] = {2, 4};
  float data[8] = {};
  // Too few, too many, and no data for a non-empty count.
  EXPECT_EQ(
      weft_tensor_new(WEFT_FLOAT, dims, 2, data, 7 * sizeof(float), status_),
      nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(message(),
            "weft_tensor_new: 28 bytes given for a float tensor of shape "
            "[2,4], which needs 32");
  EXPECT_EQ(
      weft_tensor_new(WEFT_FLOAT, dims, 2, data, 9 * sizeof(float), status_),
      nullptr);
  EXPECT_THAT(message(), HasSubstr("36 bytes given"));
  EXPECT_EQ(
      weft_tensor_wrap(WEFT_FLOAT, dims, 2, data, 4, nullptr, nullptr, status_),
      nullptr);
  EXPECT_EQ(message(),
            "weft_tensor_wrap: 4 bytes given for a float tensor of shape "
            "[2,4], which needs 32");
  EXPECT_EQ(weft_tensor_wrap(WEFT_FLOAT, dims, 2, nullptr, 32, nullptr, nullptr,
                             status_),
            nullptr);
  EXPECT_THAT(message(), HasSubstr("data is NULL"));
}

TEST_F(CApiBadFeedTest, ByteCountsThatOverflowAreRefused) {
  // 2^61 doubles are 2^64 bytes, which wraps to 0 in a size_t: a byte
  // count of 0 must not pass for them. Likewise 2^62 floats.
  const int64_t huge[] = {int64_t{1} << 61};
  EXPECT_EQ(weft_tensor_new(WEFT_DOUBLE, huge, 1, nullptr, 0, status_),
            nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_THAT(message(), HasSubstr("weft_tensor_new"));
  EXPECT_THAT(message(), HasSubstr("[2305843009213693952]"));
  EXPECT_THAT(message(), HasSubstr("more bytes than"));
  const int64_t huge2[] = {int64_t{1} << 31, int64_t{1} << 31};
  EXPECT_EQ(weft_tensor_wrap(WEFT_FLOAT, huge2, 2, nullptr, 0, nullptr, nullptr,
                             status_),
            nullptr);
  EXPECT_THAT(message(), HasSubstr("weft_tensor_wrap"));
  // A dimension past what a shape may hold, and a negative one.
  const int64_t past[] = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(weft_tensor_new(WEFT_INT8, past, 2, nullptr, 0, status_), nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  const int64_t negative[] = {2, -4};
  EXPECT_EQ(weft_tensor_new(WEFT_FLOAT, negative, 2, nullptr, 0, status_),
            nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
}

TEST_F(CApiBadFeedTest, UnknownFeedAndFetchNames) {
  weft_tensor* x = Rows(1);
  RunOne("nope", x, "s");
  EXPECT_EQ(code(), WEFT_NOT_FOUND);
  EXPECT_EQ(message(), "feeds.pbtxt: feed 'nope': no node named 'nope'");
  RunOne("x:1", x, "s");
  EXPECT_THAT(message(), HasSubstr("feed 'x:1'"));
  RunOne("x", x, "nope");
  EXPECT_EQ(code(), WEFT_NOT_FOUND);
  EXPECT_EQ(message(), "feeds.pbtxt: fetch 'nope': no node named 'nope'");
  RunOne("x", x, "s:3");
  EXPECT_THAT(message(), HasSubstr("fetch 's:3'"));
  // NULL names and tensors are refused before anything runs.
  RunOne(nullptr, x, "s");
  EXPECT_THAT(message(), HasSubstr("feed 0 has a NULL name or tensor"));
  RunOne("x", x, nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  weft_tensor_delete(x);
  ExpectStillWorks();
}

TEST_F(CApiBadFeedTest, FetchNeedingAnUnfedPlaceholder) {
  const char* fetch_names[] = {"s"};
  weft_tensor* out[1];
  weft_session_run(session_, nullptr, nullptr, 0, fetch_names, 1, out, status_);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(message(),
            "feeds.pbtxt: node 'x' (Placeholder) must be fed: node 'r' (Relu) "
            "needs it");
  EXPECT_EQ(out[0], nullptr);
  weft_tensor* x = Rows(1);
  RunOne("x", x, "n");
  EXPECT_THAT(message(), HasSubstr("node 'y' (Placeholder) must be fed"));
  weft_tensor_delete(x);
  ExpectStillWorks();
}

TEST_F(CApiBadFeedTest, BatchTooLargeForTheMemoryLimit) {
  weft_session_options* options = weft_session_options_new();
  weft_session_options_set_threads(options, 0);
  weft_session_options_set_host_memory_limit(options, 1 << 20);
  weft_session* limited =
      weft_session_new_with_options(graph_, options, status_);
  weft_session_options_delete(options);
  ASSERT_NE(limited, nullptr) << message();
  weft_tensor* big = Rows(128 * 1024);  // Relu's output: 2 MiB
  RunOne("x", big, "s", limited);
  EXPECT_EQ(code(), WEFT_RESOURCE_EXHAUSTED);
  EXPECT_THAT(message(), HasSubstr("node 'r' (Relu)"));
  EXPECT_THAT(message(), HasSubstr("feed 'x' float [131072,4]"));
  weft_tensor_delete(big);
  weft_tensor* small = Rows(2);
  weft_tensor* out = RunOne("x", small, "s", limited);
  EXPECT_NE(out, nullptr) << message();
  weft_tensor_delete(out);
  weft_tensor_delete(small);
  weft_session_delete(limited);
}

// The same mistakes through weft.hpp: a weft::Status when one is passed,
// weft::Error otherwise; never a crash, never a half-filled result.
TEST(WeftHppBadFeedTest, ErrorsNameTheInput) {
  weft::Graph graph =
      weft::Graph::FromBuffer(kGraph, sizeof(kGraph) - 1, "feeds.pbtxt");
  weft::Session session(graph, 0);
  weft::Status status;

  weft::Tensor ints =
      weft::Tensor::FromVector<int32_t>({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0});
  std::vector<weft::Tensor> out = session.Run({{"x", ints}}, {"s"}, &status);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(status.message(),
            "feeds.pbtxt: feed 'x': expected float [?,4], got int32 [2,4]");

  weft::Tensor wide = weft::Tensor::FromVector<float>({1, 5}, {1, 2, 3, 4, 5});
  out = session.Run({{"x", wide}}, {"s"}, &status);
  EXPECT_TRUE(out.empty());
  EXPECT_THAT(status.message(), HasSubstr("feed 'x': expected float [?,4]"));

  weft::Tensor short_values =
      weft::Tensor::FromVector<float>({2, 4}, {1, 2, 3}, &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("3 values for a shape of 8"));

  // Absurd dims: refused by libweft, no overflow in the header.
  weft::Tensor::Make(WEFT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}, nullptr,
                     &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
  weft::Tensor::FromVector<float>({int64_t{1} << 32, int64_t{1} << 32}, {},
                                  &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);
  weft::Tensor::FromVector<float>({-1, 4}, {}, &status);
  EXPECT_EQ(status.code(), WEFT_INVALID_ARGUMENT);

  // A Tensor that holds nothing (default-constructed) as a feed.
  weft::Tensor nothing;
  out = session.Run({{"x", nothing}}, {"s"}, &status);
  EXPECT_TRUE(out.empty());
  EXPECT_THAT(status.message(), HasSubstr("feed 0 has a NULL name or tensor"));

  weft::Tensor row = weft::Tensor::FromVector<float>({1, 4}, {1, 2, 3, 4});
  out = session.Run({{"nope", row}}, {"s"}, &status);
  EXPECT_EQ(status.message(), "feeds.pbtxt: feed 'nope': no node named 'nope'");
  out = session.Run({{"x", row}}, {"nope"}, &status);
  EXPECT_EQ(status.message(),
            "feeds.pbtxt: fetch 'nope': no node named 'nope'");
  out = session.Run({}, {"s"}, &status);
  EXPECT_THAT(status.message(),
              HasSubstr("node 'x' (Placeholder) must be fed"));

  // Without a Status: weft::Error with the same message.
  try {
    session.Run({{"x", ints}}, {"s"});
    ADD_FAILURE() << "no weft::Error";
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), WEFT_INVALID_ARGUMENT);
    EXPECT_THAT(e.what(), HasSubstr("feed 'x'"));
  }

  weft::Session::Options options;
  options.threads = 0;
  options.host_memory_limit_bytes = 1 << 20;
  weft::Session limited(graph, options);
  std::vector<float> big(128 * 1024 * 4, 1.0f);
  weft::Tensor batch = weft::Tensor::FromVector<float>({128 * 1024, 4}, big);
  out = limited.Run({{"x", batch}}, {"s"}, &status);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status.code(), WEFT_RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.message(), HasSubstr("feed 'x' float [131072,4]"));

  // And the session still answers.
  out = session.Run({{"x", row}}, {"s"}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(out[0].ToVector<float>(), std::vector<float>{10.0f});
}

}  // namespace
