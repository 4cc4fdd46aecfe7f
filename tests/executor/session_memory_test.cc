// The session's host memory: the caching allocator it owns by default, its
// limit, and the lifetime of tensors it hands out.
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "device/device.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace session_memory_test {

using ::testing::HasSubstr;

// The small CNN of tests/models at batch 8: conv, batch norm, pooling and a
// dense head, so that a run allocates activations of a few hundred KiB.
constexpr char kModel[] = WEFT_SOURCE_DIR "/tests/models/testdata/cnn.pb";
constexpr int kBatch = 8;

std::shared_ptr<const Graph> LoadCnn() {
  auto def = LoadGraphDef(kModel);
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions import_options;
  import_options.source_name = kModel;
  auto graph = ImportGraphDef(*def, import_options);
  EXPECT_TRUE(graph.ok()) << graph.status();
  ShapeInferenceOptions shape_options;
  shape_options.source_name = kModel;
  shape_options.input_shapes["x"] = PartialTensorShape({kBatch, 32, 32, 3});
  Status s = InferShapes(graph->get(), shape_options);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(*std::move(graph));
}

Tensor Input() {
  Tensor x(DT_FLOAT, TensorShape({kBatch, 32, 32, 3}));
  float* p = x.data<float>();
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    p[i] = std::sin(0.37f * static_cast<float>(i));
  }
  return x;
}

std::unique_ptr<Session> MakeSession(SessionOptions options) {
  options.source_name = kModel;
  auto session = Session::Create(LoadCnn(), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? *std::move(session) : nullptr;
}

AllocatorStats HostStats(const Session& session) {
  return session.devices()[0]->allocator()->GetStats();
}

StatusOr<std::vector<Tensor>> RunCnn(const Session& session) {
  return session.Run({{"x", Input()}}, {"Identity", "Identity_1"});
}

class SessionMemoryTest : public ::testing::TestWithParam<int> {};

TEST_P(SessionMemoryTest, ReservedMemoryIsStableAfterTheFirstRun) {
  SessionOptions options;
  options.threads = GetParam();
  auto session = MakeSession(options);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->devices()[0]->allocator()->Name(), "cpu_bfc");

  ASSERT_TRUE(RunCnn(*session).ok());
  const AllocatorStats first = HostStats(*session);
  EXPECT_GT(first.bytes_reserved, 0);
  EXPECT_GT(first.num_allocs, 0);
  for (int run = 0; run < 5; ++run) {
    auto outputs = RunCnn(*session);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
  }
  const AllocatorStats later = HostStats(*session);
  EXPECT_EQ(later.bytes_reserved, first.bytes_reserved);
  EXPECT_EQ(later.peak_bytes_reserved, first.peak_bytes_reserved);
  EXPECT_GT(later.num_allocs, first.num_allocs);
}

TEST_P(SessionMemoryTest, CachedAndPlainAllocatorsAgree) {
  SessionOptions cached;
  cached.threads = GetParam();
  SessionOptions plain = cached;
  plain.cache_host_memory = false;
  auto a = MakeSession(cached);
  auto b = MakeSession(plain);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->devices()[0]->allocator()->Name(), "cpu");
  for (int run = 0; run < 3; ++run) {
    auto x = RunCnn(*a);
    auto y = RunCnn(*b);
    ASSERT_TRUE(x.ok()) << x.status();
    ASSERT_TRUE(y.ok()) << y.status();
    for (size_t i = 0; i < x->size(); ++i) {
      const Tensor& u = (*x)[i];
      const Tensor& v = (*y)[i];
      ASSERT_EQ(u.shape(), v.shape());
      for (int64_t k = 0; k < u.NumElements(); ++k) {
        ASSERT_EQ(u.data<float>()[k], v.data<float>()[k]) << i << " " << k;
      }
    }
  }
}

TEST_P(SessionMemoryTest, FetchedOutputsOutliveTheSession) {
  SessionOptions plain;
  plain.threads = GetParam();
  plain.cache_host_memory = false;
  auto reference_session = MakeSession(plain);
  ASSERT_NE(reference_session, nullptr);
  auto reference = RunCnn(*reference_session);
  ASSERT_TRUE(reference.ok()) << reference.status();

  std::vector<Tensor> kept;
  {
    SessionOptions options;
    options.threads = GetParam();
    auto session = MakeSession(options);
    ASSERT_NE(session, nullptr);
    auto outputs = RunCnn(*session);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    kept = *std::move(outputs);
  }
  // The session and its allocator's owner are gone; the tensors are not (a
  // read of freed memory fails under ASan).
  ASSERT_EQ(kept.size(), reference->size());
  for (size_t i = 0; i < kept.size(); ++i) {
    ASSERT_EQ(kept[i].shape(), (*reference)[i].shape());
    for (int64_t k = 0; k < kept[i].NumElements(); ++k) {
      ASSERT_EQ(kept[i].data<float>()[k], (*reference)[i].data<float>()[k]);
    }
  }
  // Copies and reshapes share the buffer and keep it as well.
  Tensor copy = kept[1];
  kept.clear();
  auto flat = copy.Reshaped(TensorShape({copy.NumElements()}));
  ASSERT_TRUE(flat.ok());
  copy = Tensor();
  float sum = 0;
  for (int64_t k = 0; k < flat->NumElements(); ++k) {
    sum += flat->data<float>()[k];
  }
  EXPECT_NEAR(sum, static_cast<float>(kBatch), 1e-3);  // softmax rows
}

TEST_P(SessionMemoryTest, ConcurrentRunsShareTheAllocator) {
  SessionOptions options;
  options.threads = GetParam();
  auto session = MakeSession(options);
  ASSERT_NE(session, nullptr);
  auto expected = RunCnn(*session);
  ASSERT_TRUE(expected.ok());
  // What `expected` holds, and anything the session keeps between runs.
  const int64_t held = HostStats(*session).bytes_in_use;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int run = 0; run < 10; ++run) {
        auto got = RunCnn(*session);
        if (!got.ok()) {
          mismatches++;
          continue;
        }
        const Tensor& a = (*got)[0];
        const Tensor& b = (*expected)[0];
        for (int64_t k = 0; k < a.NumElements(); ++k) {
          if (a.data<float>()[k] != b.data<float>()[k]) {
            mismatches++;
            break;
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(HostStats(*session).bytes_in_use, held);
}

INSTANTIATE_TEST_SUITE_P(Threads, SessionMemoryTest, ::testing::Values(0, 2),
                         [](const auto& info) {
                           return "threads" + std::to_string(info.param);
                         });

TEST(SessionMemoryLimitTest, ExceedingTheLimitNamesTheNode) {
  SessionOptions options;
  options.threads = 0;
  options.host_memory_limit_bytes = 64 * 1024;
  auto session = MakeSession(options);
  ASSERT_NE(session, nullptr);
  auto outputs = RunCnn(*session);
  ASSERT_FALSE(outputs.ok());
  const Status& s = outputs.status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(s.message(), HasSubstr("node '"));
  EXPECT_THAT(s.message(), HasSubstr("out of memory allocating"));
  EXPECT_THAT(s.message(), HasSubstr("allocator 'cpu_bfc'"));
  EXPECT_THAT(s.message(), HasSubstr("of its limit of 65536"));
  EXPECT_LE(HostStats(*session).bytes_reserved, 64 * 1024);

  // A limit that fits runs.
  options.host_memory_limit_bytes = 64 << 20;
  auto roomy = MakeSession(options);
  ASSERT_NE(roomy, nullptr);
  EXPECT_TRUE(RunCnn(*roomy).ok());
}

TEST(SessionMemoryLimitTest, BadLimitsAreRejected) {
  SessionOptions options;
  options.host_memory_limit_bytes = -1;
  auto s = Session::Create(LoadCnn(), options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("host_memory_limit_bytes"));

  options.host_memory_limit_bytes = 1 << 20;
  options.cache_host_memory = false;
  s = Session::Create(LoadCnn(), options);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("cache_host_memory is false"));
}

}  // namespace session_memory_test
}  // namespace weft
