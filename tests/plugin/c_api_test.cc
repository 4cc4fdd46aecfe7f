// The embedding C API (include/weft/c_api.h), called in-process: argument
// checking, ownership of wrapped buffers, and errors on every path.
#include "weft/c_api.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/plugin/package_testutil.h"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// y = x * 2 + 1, the embed example's graph.
std::string ScaleShiftGraph() {
  return std::string(WEFT_SOURCE_DIR) + "/examples/embed/scale_shift.pbtxt";
}

class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override { status_ = weft_status_new(); }
  void TearDown() override { weft_status_delete(status_); }

  weft_code code() const { return weft_status_code(status_); }
  std::string message() const { return weft_status_message(status_); }

  weft_status* status_ = nullptr;
};

TEST_F(CApiTest, StatusStartsOkAndCanBeSetAndCleared) {
  EXPECT_EQ(code(), WEFT_OK);
  EXPECT_EQ(message(), "");
  weft_status_set(status_, WEFT_NOT_FOUND, "no such thing");
  EXPECT_EQ(code(), WEFT_NOT_FOUND);
  EXPECT_EQ(message(), "no such thing");
  weft_status_set(status_, WEFT_OK, "ignored");
  EXPECT_EQ(code(), WEFT_OK);
  EXPECT_EQ(message(), "");
}

TEST_F(CApiTest, VersionsAndDtypes) {
  EXPECT_STREQ(weft_version(), WEFT_VERSION_STRING);
  EXPECT_EQ(weft_plugin_api_version(), 1u);
  EXPECT_STREQ(weft_dtype_name(WEFT_FLOAT), "float");
  EXPECT_STREQ(weft_dtype_name(WEFT_INT64), "int64");
  EXPECT_STREQ(weft_dtype_name(static_cast<weft_dtype>(99)), "invalid");
  EXPECT_EQ(weft_dtype_size(WEFT_DOUBLE), 8u);
  EXPECT_EQ(weft_dtype_size(WEFT_STRING), 0u);
}

TEST_F(CApiTest, TensorNewCopiesAndChecksItsArguments) {
  const int64_t dims[] = {2, 3};
  float data[6] = {1, 2, 3, 4, 5, 6};
  weft_tensor* t =
      weft_tensor_new(WEFT_FLOAT, dims, 2, data, sizeof(data), status_);
  ASSERT_NE(t, nullptr) << message();
  data[0] = 100;  // a copy was taken
  EXPECT_EQ(weft_tensor_dtype(t), WEFT_FLOAT);
  EXPECT_EQ(weft_tensor_num_dims(t), 2);
  EXPECT_EQ(weft_tensor_dim(t, 1), 3);
  EXPECT_EQ(weft_tensor_dim(t, 2), -1);
  EXPECT_EQ(weft_tensor_num_elements(t), 6);
  EXPECT_EQ(weft_tensor_byte_size(t), sizeof(data));
  EXPECT_EQ(static_cast<float*>(weft_tensor_data(t))[0], 1.0f);
  weft_tensor_delete(t);

  // NULL data gives zeros.
  weft_tensor* zeros = weft_tensor_new(WEFT_INT32, dims, 2, nullptr,
                                       6 * sizeof(int32_t), status_);
  ASSERT_NE(zeros, nullptr) << message();
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(static_cast<int32_t*>(weft_tensor_data(zeros))[i], 0);
  }
  weft_tensor_delete(zeros);

  EXPECT_EQ(weft_tensor_new(WEFT_FLOAT, dims, 2, data, 20, status_), nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(message(),
            "weft_tensor_new: 20 bytes given for a float tensor of shape "
            "[2,3], which needs 24");

  EXPECT_EQ(weft_tensor_new(WEFT_STRING, dims, 2, nullptr, 0, status_),
            nullptr);
  EXPECT_THAT(message(), HasSubstr("dtype string has no plain-bytes layout"));

  const int64_t negative[] = {2, -1};
  EXPECT_EQ(weft_tensor_new(WEFT_FLOAT, negative, 2, nullptr, 0, status_),
            nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_THAT(message(), StartsWith("weft_tensor_new: "));

  EXPECT_EQ(weft_tensor_new(WEFT_FLOAT, nullptr, 1, nullptr, 0, status_),
            nullptr);
  EXPECT_THAT(message(), HasSubstr("dims is NULL"));
}

struct Freed {
  int calls = 0;
  void* data = nullptr;
  size_t bytes = 0;
};

void Free(void* data, size_t bytes, void* arg) {
  auto* f = static_cast<Freed*>(arg);
  f->calls++;
  f->data = data;
  f->bytes = bytes;
  std::free(data);
}

// An aligned buffer is used in place and freed once nothing uses it, which
// may be after the handle is deleted (a session output can share it).
TEST_F(CApiTest, WrappedAlignedBufferIsSharedAndFreedLast) {
  const int64_t dims[] = {4};
  auto* data = static_cast<float*>(std::aligned_alloc(64, 64));
  for (int i = 0; i < 4; ++i) data[i] = static_cast<float>(i);
  Freed freed;
  weft_tensor* x = weft_tensor_wrap(WEFT_FLOAT, dims, 1, data,
                                    4 * sizeof(float), Free, &freed, status_);
  ASSERT_NE(x, nullptr) << message();
  EXPECT_EQ(weft_tensor_data(x), data);

  // Fetching the fed tensor itself returns a tensor sharing the buffer.
  weft_graph* g =
      weft_graph_load_file(ScaleShiftGraph().c_str(), nullptr, status_);
  ASSERT_NE(g, nullptr) << message();
  weft_session* s = weft_session_new(g, 0, status_);
  ASSERT_NE(s, nullptr) << message();
  const char* feed_names[] = {"x"};
  const weft_tensor* feeds[] = {x};
  const char* fetch_names[] = {"x", "y"};
  weft_tensor* out[2];
  weft_session_run(s, feed_names, feeds, 1, fetch_names, 2, out, status_);
  ASSERT_EQ(code(), WEFT_OK) << message();
  // y = x * 2 + 1
  const float* y = static_cast<const float*>(weft_tensor_data(out[1]));
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{1, 3, 5, 7}));
  EXPECT_EQ(data[0], 0.0f);  // weft never writes into a wrapped buffer

  weft_tensor_delete(x);
  weft_tensor_delete(out[1]);
  weft_session_delete(s);
  weft_graph_delete(g);
  if (weft_tensor_data(out[0]) == data) {
    EXPECT_EQ(freed.calls, 0);  // out[0] still holds the buffer
  }
  weft_tensor_delete(out[0]);
  EXPECT_EQ(freed.calls, 1);
  EXPECT_EQ(freed.data, data);
  EXPECT_EQ(freed.bytes, 4 * sizeof(float));
}

TEST_F(CApiTest, WrappedMisalignedBufferIsCopiedAndFreedAtOnce) {
  const int64_t dims[] = {3};
  auto* block = static_cast<char*>(std::aligned_alloc(64, 128));
  // 4 bytes past a 64-byte boundary: float-aligned, not tensor-aligned.
  float* data = reinterpret_cast<float*>(block + 4);
  data[0] = 1.5f;
  data[1] = -2.0f;
  data[2] = 3.0f;
  float copy[3];
  std::memcpy(copy, data, sizeof(copy));
  // `data` is not the start of an allocation: the deallocator frees the
  // block it was carved from, passed as its argument.
  struct Block {
    char* block;
    int calls = 0;
  } b{block};
  weft_tensor* x = weft_tensor_wrap(
      WEFT_FLOAT, dims, 1, data, sizeof(copy),
      [](void*, size_t, void* arg) {
        auto* blk = static_cast<Block*>(arg);
        blk->calls++;
        std::free(blk->block);
      },
      &b, status_);
  ASSERT_NE(x, nullptr) << message();
  EXPECT_EQ(b.calls, 1);
  EXPECT_NE(weft_tensor_data(x), static_cast<void*>(data));
  EXPECT_EQ(std::memcmp(weft_tensor_data(x), copy, sizeof(copy)), 0);
  weft_tensor_delete(x);
  EXPECT_EQ(b.calls, 1);
}

TEST_F(CApiTest, FailedWrapLeavesTheBufferWithTheCaller) {
  const int64_t dims[] = {4};
  auto* data = static_cast<float*>(std::aligned_alloc(64, 64));
  Freed freed;
  EXPECT_EQ(
      weft_tensor_wrap(WEFT_FLOAT, dims, 1, data, 15, Free, &freed, status_),
      nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_EQ(freed.calls, 0);
  std::free(data);
}

TEST_F(CApiTest, GraphErrorsNameTheSource) {
  EXPECT_EQ(weft_graph_load_file("/nonexistent/model.pb", nullptr, status_),
            nullptr);
  EXPECT_NE(code(), WEFT_OK);
  EXPECT_THAT(message(), HasSubstr("/nonexistent/model.pb"));

  const char text[] = "node { name: 'a' op: 'NoSuchOp' }";
  EXPECT_EQ(weft_graph_load_buffer(text, sizeof(text) - 1, "mine.pbtxt",
                                   nullptr, status_),
            nullptr);
  EXPECT_THAT(message(), StartsWith("mine.pbtxt"));
  EXPECT_THAT(message(), HasSubstr("NoSuchOp"));

  // A placeholder shape that contradicts the file's.
  weft_graph_options* options = weft_graph_options_new();
  const int64_t dims[] = {2, 2};
  weft_graph_options_set_input_shape(options, "x", dims, 2);
  EXPECT_EQ(weft_graph_load_file(ScaleShiftGraph().c_str(), options, status_),
            nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
  EXPECT_THAT(message(), HasSubstr("'x'"));
  weft_graph_options_delete(options);
}

TEST_F(CApiTest, RunErrorsLeaveNoOutputs) {
  weft_graph* g =
      weft_graph_load_file(ScaleShiftGraph().c_str(), nullptr, status_);
  ASSERT_NE(g, nullptr) << message();
  EXPECT_EQ(weft_graph_num_nodes(g), 5);
  weft_session* s = weft_session_new(g, 2, status_);
  ASSERT_NE(s, nullptr) << message();
  weft_graph_delete(g);  // the session keeps what it needs

  const int64_t dims[] = {2};
  const int32_t ints[] = {1, 2};
  weft_tensor* wrong =
      weft_tensor_new(WEFT_INT32, dims, 1, ints, sizeof(ints), status_);
  const char* feed_names[] = {"x"};
  const weft_tensor* feeds[] = {wrong};
  const char* fetch_names[] = {"y", "no_such_node"};
  weft_tensor* out[2] = {reinterpret_cast<weft_tensor*>(1),
                         reinterpret_cast<weft_tensor*>(1)};
  weft_session_run(s, feed_names, feeds, 1, fetch_names, 1, out, status_);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT) << message();
  EXPECT_THAT(message(), HasSubstr("int32"));
  EXPECT_EQ(out[0], nullptr);

  const float floats[] = {1, 2};
  weft_tensor* x =
      weft_tensor_new(WEFT_FLOAT, dims, 1, floats, sizeof(floats), status_);
  feeds[0] = x;
  weft_session_run(s, feed_names, feeds, 1, fetch_names, 2, out, status_);
  EXPECT_NE(code(), WEFT_OK);
  EXPECT_THAT(message(), HasSubstr("no_such_node"));
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(out[1], nullptr);

  weft_session_run(s, feed_names, feeds, 1, nullptr, 1, out, status_);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);

  weft_tensor_delete(wrong);
  weft_tensor_delete(x);
  weft_session_delete(s);
}

// y of the scale-shift graph for x = {1, 2, 3, 4}, through a session made
// with `options`; empty (with the status set) when something fails.
std::vector<float> RunScaleShift(const weft_session_options* options,
                                 weft_status* status) {
  std::vector<float> y;
  weft_graph* g =
      weft_graph_load_file(ScaleShiftGraph().c_str(), nullptr, status);
  if (g == nullptr) return y;
  weft_session* s = weft_session_new_with_options(g, options, status);
  weft_graph_delete(g);
  if (s == nullptr) return y;
  const int64_t dims[] = {4};
  const float xs[] = {1, 2, 3, 4};
  weft_tensor* x = weft_tensor_new(WEFT_FLOAT, dims, 1, xs, sizeof(xs), status);
  const char* feed_names[] = {"x"};
  const weft_tensor* feeds[] = {x};
  const char* fetch_names[] = {"y"};
  weft_tensor* out[1] = {nullptr};
  weft_session_run(s, feed_names, feeds, 1, fetch_names, 1, out, status);
  if (out[0] != nullptr) {
    const float* data = static_cast<const float*>(weft_tensor_data(out[0]));
    y.assign(data, data + 4);
    weft_tensor_delete(out[0]);
  }
  weft_tensor_delete(x);
  weft_session_delete(s);
  return y;
}

TEST_F(CApiTest, SessionOptionsReachTheSession) {
  const std::vector<float> expected = {3, 5, 7, 9};  // x * 2 + 1
  EXPECT_EQ(RunScaleShift(nullptr, status_), expected) << message();

  weft_session_options* o = weft_session_options_new();
  ASSERT_NE(o, nullptr);
  weft_session_options_set_threads(o, 0);
  weft_session_options_set_optimize(o, 0);
  weft_session_options_set_host_memory_cache(o, 0);
  weft_session_options_set_device(o, "auto");
  EXPECT_EQ(RunScaleShift(o, status_), expected) << message();
  weft_session_options_set_threads(o, 2);
  weft_session_options_set_optimize(o, 1);
  // Accepted on the CPU: runs go node by node.
  weft_session_options_set_capture_device_graphs(o, 1);
  weft_session_options_set_host_memory_cache(o, 1);
  weft_session_options_set_host_memory_limit(o, int64_t{1} << 20);
  weft_session_options_set_device(o, "cpu");
  EXPECT_EQ(RunScaleShift(o, status_), expected) << message();

  // Each bad value is reported when the session is made, naming the field.
  weft_session_options_set_device(o, "tpu");
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT) << message();
  EXPECT_THAT(message(), HasSubstr("tpu"));
  weft_session_options_set_device(o, "cpu");
  weft_session_options_set_threads(o, -7);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT) << message();
  EXPECT_THAT(message(), HasSubstr("threads"));
  weft_session_options_set_threads(o, 1);
  weft_session_options_set_host_memory_limit(o, -1);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT) << message();
  EXPECT_THAT(message(), HasSubstr("host_memory_limit_bytes"));
  weft_session_options_set_host_memory_limit(o, 0);
  // The CUDA-only settings are refused on a CPU session.
  int not_a_stream = 0;
  weft_session_options_set_cuda_stream(o, &not_a_stream);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT) << message();
  EXPECT_THAT(message(), HasSubstr("cuda_stream is set"));
  weft_session_options_set_cuda_stream(o, nullptr);
  weft_session_options_set_allow_tf32(o, 1);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_THAT(message(), HasSubstr("allow_tf32 is set"));
  weft_session_options_set_allow_tf32(o, 0);
  weft_session_options_set_device_memory_limit(o, -1);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_THAT(message(), HasSubstr("device_memory_limit_bytes -1"));
  weft_session_options_set_device_memory_limit(o, 0);

  // A limit too small for y's 16 bytes fails the run, naming the node.
  weft_session_options_set_host_memory_limit(o, 8);
  EXPECT_TRUE(RunScaleShift(o, status_).empty());
  EXPECT_EQ(code(), WEFT_RESOURCE_EXHAUSTED) << message();
  EXPECT_THAT(message(), HasSubstr("out of memory"));

  // NULL objects are ignored by the setters.
  weft_session_options_set_threads(nullptr, 1);
  weft_session_options_set_device(nullptr, "cpu");
  weft_session_options_delete(o);
  weft_session_options_delete(nullptr);
  EXPECT_EQ(weft_session_new_with_options(nullptr, nullptr, status_), nullptr);
  EXPECT_EQ(code(), WEFT_INVALID_ARGUMENT);
}

TEST_F(CApiTest, LoadOpLibraryReportsThroughTheStatus) {
  weft_load_op_library("/nonexistent/libop.so", status_);
  EXPECT_EQ(code(), WEFT_NOT_FOUND);
  EXPECT_EQ(message(), "op library '/nonexistent/libop.so': no such file");
  weft_load_op_library(WEFT_TEST_NEGATE_PLUGIN, status_);
  EXPECT_EQ(code(), WEFT_OK) << message();
}

}  // namespace
