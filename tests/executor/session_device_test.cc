// SessionOptions.device: parsing, "cuda" failing with discovery's reason on
// a machine without a usable GPU, "auto" falling back to the CPU.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "device/device.h"
#include "device/device_info.h"
#include "executor/device_selection.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

// y = Neg(x), x: float [2].
std::shared_ptr<const Graph> NegGraph() {
  const char* text = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value { shape { dim { size: 2 } } }
      }
    }
    node {
      name: "y"
      op: "Neg"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  auto def = ParseTextGraphDef(text, "neg.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  ImportOptions io;
  io.source_name = "neg.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "neg.pbtxt";
  EXPECT_TRUE(InferShapes(g->get(), so).ok());
  return std::shared_ptr<const Graph>(std::move(*g));
}

StatusOr<std::unique_ptr<Session>> Create(const std::string& device) {
  SessionOptions options;
  options.threads = 0;
  options.source_name = "neg.pbtxt";
  options.device = device;
  return Session::Create(NegGraph(), options);
}

TEST(DeviceSelectionTest, ParsesTheAcceptedForms) {
  using Kind = DeviceRequest::Kind;
  EXPECT_EQ(ParseDeviceRequest("cpu")->kind, Kind::kCpu);
  EXPECT_EQ(ParseDeviceRequest("auto")->kind, Kind::kAuto);
  EXPECT_EQ(ParseDeviceRequest("cuda")->kind, Kind::kCuda);
  EXPECT_EQ(ParseDeviceRequest("cuda")->cuda_ordinal, 0);
  EXPECT_EQ(ParseDeviceRequest("cuda:3")->cuda_ordinal, 3);
  for (const char* bad : {"", "gpu", "CUDA", "cuda:", "cuda:-1", "cuda:x",
                          "cuda:+1", "cuda0", "cpu:0"}) {
    auto r = ParseDeviceRequest(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(),
                HasSubstr("expected cpu, cuda, cuda:N (N >= 0) or auto"));
  }
}

TEST(SessionDeviceTest, UnknownDeviceIsRejected) {
  auto s = Create("gpu");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "neg.pbtxt: device 'gpu': expected cpu, cuda, cuda:N (N >= 0) or "
            "auto");
}

TEST(SessionDeviceTest, CudaWithoutGpuFailsWithTheReason) {
  const CudaInfo& info = GetCudaInfo();
  if (info.status.ok()) {
    GTEST_SKIP() << "this machine has a usable GPU";
  }
  auto s = Create("cuda");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.status().message(),
            absl::StrCat("neg.pbtxt: device 'cuda': ", info.status.message()));
  auto s1 = Create("cuda:1");
  ASSERT_FALSE(s1.ok());
  EXPECT_THAT(s1.status().message(), HasSubstr("device 'cuda:1': "));
}

TEST(SessionDeviceTest, CudaOrdinalOutOfRange) {
  const CudaInfo& info = GetCudaInfo();
  if (!info.status.ok()) GTEST_SKIP() << info.status.message();
  auto s = Create(absl::StrCat("cuda:", info.devices.size()));
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("no CUDA device cuda:"));
}

TEST(SessionDeviceTest, CudaOnlyOptionsAreRejectedOnTheCpu) {
  std::vector<std::string> devices = {"cpu"};
  if (!CheckCudaDevice(0).ok()) devices.push_back("auto");  // resolves to cpu
  for (const std::string& device : devices) {
    SessionOptions options;
    options.threads = 0;
    options.source_name = "neg.pbtxt";
    options.device = device;
    int dummy = 0;
    options.cuda_stream = &dummy;  // never used: Create must refuse first
    auto s = Session::Create(NegGraph(), options);
    ASSERT_FALSE(s.ok()) << device;
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.status().message(),
                HasSubstr(absl::StrCat("device '", device,
                                       "': cuda_stream is set but the "
                                       "session runs on 'cpu'")));
    options.cuda_stream = nullptr;
    options.allow_tf32 = true;
    s = Session::Create(NegGraph(), options);
    ASSERT_FALSE(s.ok()) << device;
    EXPECT_THAT(s.status().message(), HasSubstr("allow_tf32 is set"));
    options.allow_tf32 = false;
    options.device_memory_limit_bytes = -5;
    s = Session::Create(NegGraph(), options);
    ASSERT_FALSE(s.ok()) << device;
    EXPECT_THAT(s.status().message(),
                HasSubstr("device_memory_limit_bytes -5 is negative"));
    options.device_memory_limit_bytes = 1 << 20;  // a limit alone is fine
    EXPECT_TRUE(Session::Create(NegGraph(), options).ok()) << device;
  }
}

TEST(SessionDeviceTest, AutoRunsOnTheCpuWithoutGpu) {
  if (CheckCudaDevice(0).ok()) GTEST_SKIP() << "cuda:0 is usable";
  for (const char* device : {"auto", "cpu"}) {
    auto s = Create(device);
    ASSERT_TRUE(s.ok()) << device << ": " << s.status();
    Tensor x(DT_FLOAT, TensorShape({2}));
    x.data<float>()[0] = 1.5f;
    x.data<float>()[1] = -2.0f;
    auto out = (*s)->Run({{"x", x}}, {"y"});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].data<float>()[0], -1.5f);
    EXPECT_EQ((*out)[0].data<float>()[1], 2.0f);
    ASSERT_EQ((*s)->devices().size(), 1u);
    EXPECT_EQ((*s)->devices()[0]->name(), "cpu:0");
  }
}

}  // namespace
}  // namespace weft
