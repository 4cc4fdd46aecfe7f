// CudaDevice: streams, copies, completion callbacks, the stream-ordered
// allocator with its cap, statistics and release. Needs a GPU; without one
// (or without CUDA in the build) every test skips with discovery's reason.
#include <atomic>
#include <cstring>
#include <future>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "device/device_info.h"
#include "gtest/gtest.h"

#if WEFT_HAVE_CUDA
#include "device/cuda/cuda_device.h"
#endif

namespace weft {
namespace {

#if WEFT_HAVE_CUDA

class CudaDeviceTest : public testing::Test {
 protected:
  void SetUp() override {
    Status usable = CheckCudaDevice(0);
    if (!usable.ok()) GTEST_SKIP() << usable.message();
  }

  static std::unique_ptr<CudaDevice> MakeDevice(
      CudaDeviceOptions options = {}) {
    auto device = CudaDevice::Create(options);
    EXPECT_TRUE(device.ok()) << device.status();
    return device.ok() ? *std::move(device) : nullptr;
  }
};

Status Await(const std::function<void(std::function<void(Status)>)>& start) {
  auto promise = std::make_shared<std::promise<Status>>();
  start([promise](Status s) { promise->set_value(s); });
  return promise->get_future().get();
}

TEST_F(CudaDeviceTest, DescribesItself) {
  auto device = MakeDevice();
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(device->name(), "cuda:0");
  EXPECT_EQ(device->device_type(), DEVICE_CUDA);
  EXPECT_TRUE(device->is_async());
  ASSERT_NE(device->device_context(), nullptr);
  EXPECT_EQ(device->device_context()->stream(), device->compute_stream());
  EXPECT_EQ(device->allocator()->memory_space(), MemorySpace::kDevice);
  EXPECT_EQ(device->host_allocator()->memory_space(), MemorySpace::kHost);
}

TEST_F(CudaDeviceTest, RunsOnAHostStreamWithoutOwningIt) {
  cudaStream_t host_stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&host_stream), cudaSuccess);
  {
    CudaDeviceOptions options;
    options.compute_stream = host_stream;
    auto device = MakeDevice(options);
    ASSERT_NE(device, nullptr);
    EXPECT_EQ(device->compute_stream(), host_stream);
    EXPECT_TRUE(device->uses_host_stream());
    EXPECT_EQ(device->device_context()->stream(), host_stream);
    // Work round-trips through the host's stream.
    Tensor host(DT_FLOAT, TensorShape({1000}));
    std::iota(host.data<float>(), host.data<float>() + 1000, 1.0f);
    auto dev = Tensor::Allocate(device->allocator(), DT_FLOAT, host.shape());
    ASSERT_TRUE(dev.ok()) << dev.status();
    DeviceContext* ctx = device->device_context();
    ASSERT_TRUE(Await([&](auto done) {
                  ctx->CopyHostToDevice(host, &*dev, done);
                }).ok());
    Tensor back(DT_FLOAT, host.shape());
    ASSERT_TRUE(Await([&](auto done) {
                  ctx->CopyDeviceToHost(*dev, &back, done);
                }).ok());
    EXPECT_EQ(std::memcmp(host.raw_data(), back.raw_data(), host.TotalBytes()),
              0);
  }
  // The device is gone; the host's stream is still usable.
  EXPECT_EQ(cudaStreamQuery(host_stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(host_stream), cudaSuccess);
}

TEST_F(CudaDeviceTest, RecordsWorkAndReplaysIt) {
  auto device = MakeDevice();
  ASSERT_NE(device, nullptr);
  Allocator* pool = device->allocator();
  cudaStream_t compute = device->compute_stream();
  ASSERT_TRUE(device->BeginCapture().ok());
  // While recording, this thread allocates from the recording's arena and
  // enqueues on the captured stream.
  EXPECT_NE(device->allocator(), pool);
  EXPECT_NE(device->compute_stream(), compute);
  auto t = Tensor::Allocate(device->allocator(), DT_INT32, TensorShape({256}));
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(cudaMemsetAsync(t->raw_data(), 0x01, t->TotalBytes(),
                            device->compute_stream()),
            cudaSuccess);
  auto work = device->EndCapture();
  ASSERT_TRUE(work.ok()) << work.status();
  EXPECT_EQ(device->allocator(), pool);
  EXPECT_EQ(device->compute_stream(), compute);
  // Nothing ran while recording; a launch fills the buffer.
  ASSERT_TRUE((*work)->Launch().ok());
  Tensor back(DT_INT32, t->shape());
  DeviceContext* ctx = device->device_context();
  ASSERT_TRUE(
      Await([&](auto done) { ctx->CopyDeviceToHost(*t, &back, done); }).ok());
  for (int i = 0; i < 256; ++i) ASSERT_EQ(back.data<int32_t>()[i], 0x01010101);
  *t = Tensor();  // before the recording that owns its memory
  work->reset();
  EXPECT_TRUE(device->Sync().ok());
}

TEST_F(CudaDeviceTest, CopiesRoundTrip) {
  auto device = MakeDevice();
  ASSERT_NE(device, nullptr);
  // Empty, smaller than a staging buffer, and several MiB.
  for (int64_t n : {int64_t{0}, int64_t{5}, int64_t{3} << 20}) {
    Tensor host(DT_FLOAT, TensorShape({n}));
    std::iota(host.data<float>(), host.data<float>() + n, 1.0f);
    auto dev = Tensor::Allocate(device->allocator(), DT_FLOAT, host.shape());
    ASSERT_TRUE(dev.ok()) << dev.status();
    DeviceContext* ctx = device->device_context();
    ASSERT_TRUE(Await([&](auto done) {
                  ctx->CopyHostToDevice(host, &*dev, done);
                }).ok());
    Tensor back(DT_FLOAT, host.shape());
    ASSERT_TRUE(Await([&](auto done) {
                  ctx->CopyDeviceToHost(*dev, &back, done);
                }).ok());
    EXPECT_EQ(std::memcmp(host.raw_data(), back.raw_data(), host.TotalBytes()),
              0)
        << n;
  }
  EXPECT_TRUE(device->Sync().ok());
}

TEST_F(CudaDeviceTest, ThenExecuteRunsInOrder) {
  auto device = MakeDevice();
  ASSERT_NE(device, nullptr);
  std::vector<int> order;
  std::mutex mu;
  for (int i = 0; i < 100; ++i) {
    device->device_context()->ThenExecute([&, i](Status) {
      std::lock_guard<std::mutex> lock(mu);
      order.push_back(i);
    });
  }
  ASSERT_TRUE(device->Sync().ok());
  std::vector<int> want(100);
  std::iota(want.begin(), want.end(), 0);
  EXPECT_EQ(order, want);
}

TEST_F(CudaDeviceTest, AllocatorKeepsStatsAndCap) {
  CudaDeviceOptions options;
  options.memory_limit = int64_t{8} << 20;
  auto device = MakeDevice(options);
  ASSERT_NE(device, nullptr);
  Allocator* a = device->allocator();
  void* p = a->AllocateRaw(kTensorAlignment, size_t{6} << 20);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kTensorAlignment, 0u);
  // Over the cap: refused before the driver is asked.
  EXPECT_EQ(a->AllocateRaw(kTensorAlignment, size_t{4} << 20), nullptr);
  void* zero = a->AllocateRaw(kTensorAlignment, 0);
  EXPECT_NE(zero, nullptr);
  AllocatorStats s = a->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, (int64_t{6} << 20) + 1);
  EXPECT_EQ(s.largest_alloc_size, int64_t{6} << 20);
  EXPECT_GE(device->cuda_allocator()->GetPoolStats().used_bytes,
            int64_t{6} << 20);
  a->DeallocateRaw(p, size_t{6} << 20);
  a->DeallocateRaw(zero, 0);
  EXPECT_EQ(a->GetStats().bytes_in_use, 0);
  EXPECT_EQ(a->GetStats().peak_bytes_in_use, (int64_t{6} << 20) + 1);
  // Freed memory stays cached in the pool until released.
  ASSERT_TRUE(device->Sync().ok());
  EXPECT_GT(device->cuda_allocator()->GetPoolStats().reserved_bytes, 0);
  ASSERT_TRUE(device->ReleaseCached().ok());
  EXPECT_EQ(device->cuda_allocator()->GetPoolStats().reserved_bytes, 0);
}

TEST_F(CudaDeviceTest, DestroyingTheDeviceReturnsItsMemory) {
  size_t free_before = 0, free_after = 0, total = 0;
  {
    // The first device on the GPU creates the primary context, whose own
    // memory stays; measure from a state where it exists.
    auto warm = MakeDevice();
    ASSERT_NE(warm, nullptr);
    ASSERT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
    auto device = MakeDevice();
    ASSERT_NE(device, nullptr);
    std::vector<Tensor> held;
    for (int i = 0; i < 8; ++i) {
      auto t = Tensor::Allocate(device->allocator(), DT_FLOAT,
                                TensorShape({int64_t{16} << 20}));
      ASSERT_TRUE(t.ok()) << t.status();
      held.push_back(*std::move(t));
    }
    held.clear();
    device.reset();
    ASSERT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  }
  // cuBLAS's workspace and the streams come and go with the device too; a
  // few MiB of slack cover the driver's own bookkeeping.
  EXPECT_GE(static_cast<int64_t>(free_after),
            static_cast<int64_t>(free_before) - (int64_t{8} << 20));
}

TEST_F(CudaDeviceTest, CublasIsBoundWhenAvailable) {
  auto device = MakeDevice();
  ASSERT_NE(device, nullptr);
  Status s = device->WithBlas([](const CublasApi& api, cublasHandle_t h) {
    return h != nullptr && api.version > 0
               ? Status()
               : errors::Internal("no handle or version");
  });
  if (!LoadCublas().ok()) {
    EXPECT_FALSE(s.ok());
    GTEST_SKIP() << LoadCublas().status().message();
  }
  EXPECT_TRUE(s.ok()) << s;
}

#else  // !WEFT_HAVE_CUDA

TEST(CudaDeviceTest, BuiltWithoutCuda) {
  GTEST_SKIP() << GetCudaInfo().status.message();
}

#endif

}  // namespace
}  // namespace weft
