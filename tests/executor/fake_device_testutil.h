// A fake asynchronous accelerator for executor tests on machines without a
// GPU. Sessions created with SessionOptions.device "fake_gpu" (or
// "fake_gpu:N") get one, through the device factory registry
// (device/device_factory.h).
//
// Its memory is host memory tagged MemorySpace::kDevice, filled with NaN
// when allocated, so that a host read that does not wait for the device
// sees garbage. Its "stream" is one worker thread that runs enqueued work in
// order: kernels, copies and ThenExecute callbacks all complete there, after
// the call that enqueued them has returned, as on a GPU.
//
// Kernels registered for DEVICE_FAKE_GPU, float32 only:
//  - AddV2, Mul (same shapes, or one operand matching the other's trailing
//    dimensions, e.g. a scalar or a per-channel vector) and Relu: shapes are
//    checked on the host, the math is enqueued (like the CUDA kernels);
//  - MatMul: an AsyncOpKernel whose shape check and math run on the worker,
//    so its errors are found asynchronously;
//  - Reshape, with its `shape` input in host memory (HostMemory).
//
// Capture (Device::BeginCapture) records what the capturing thread enqueues
// and replays it on Launch; the recorded closures hold their tensors, so the
// buffers stay where the recording put them.
#ifndef WEFT_TESTS_EXECUTOR_FAKE_DEVICE_TESTUTIL_H_
#define WEFT_TESTS_EXECUTOR_FAKE_DEVICE_TESTUTIL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/allocator.h"
#include "device/device.h"

namespace weft {

inline constexpr char DEVICE_FAKE_GPU[] = "FAKE_GPU";

// Knobs shared by every fake device, for tests to set and reset.
struct FakeGpuKnobs {
  // Microseconds the worker sleeps before each piece of work, to make a
  // missing wait visible.
  std::atomic<int> delay_us{0};
  // Fail every copy (to the device or to the host) with Internal.
  std::atomic<bool> fail_copies{false};
  // Report Internal to every ThenExecute callback, as a GPU reports a
  // kernel that faulted after it was enqueued.
  std::atomic<bool> fail_stream{false};
  // Make EndCapture fail, as a GPU does when a captured call is not
  // allowed in a graph.
  std::atomic<bool> fail_capture{false};
  // Copies started, each direction.
  std::atomic<int64_t> copies_to_device{0};
  std::atomic<int64_t> copies_to_host{0};
  // Successful recordings, and launches of recorded work.
  std::atomic<int64_t> captures{0};
  std::atomic<int64_t> capture_launches{0};
  void Reset() {
    delay_us = 0;
    fail_copies = false;
    fail_stream = false;
    fail_capture = false;
    copies_to_device = 0;
    copies_to_host = 0;
    captures = 0;
    capture_launches = 0;
  }
};
FakeGpuKnobs& FakeGpu();

// Registers the "fake_gpu" device factory; idempotent. Kernels register at
// static-initialization time.
void RegisterFakeGpuDevice();

class FakeGpuDevice final : public Device {
 public:
  FakeGpuDevice(int ordinal, Allocator* host_allocator);
  // Finishes all enqueued work, then stops the worker.
  ~FakeGpuDevice() override;

  Allocator* allocator() const override { return device_allocator_.get(); }
  Allocator* host_allocator() const override { return host_allocator_; }
  bool is_async() const override { return true; }
  DeviceContext* device_context() const override { return context_.get(); }
  Status Sync() override;
  int num_threads() const override { return 0; }
  void ParallelFor(
      int64_t n, int64_t cost_per_unit,
      const std::function<void(int64_t, int64_t)>& fn) const override {
    if (n > 0) fn(0, n);
  }

  // Runs `fn` on the worker after everything enqueued before it; while the
  // calling thread captures, records it instead.
  void Enqueue(std::function<void()> fn);

  Status BeginCapture() override;
  StatusOr<std::unique_ptr<CapturedWork>> EndCapture() override;

 private:
  void Loop();

  Allocator* const host_allocator_;
  std::unique_ptr<Allocator> device_allocator_;
  std::unique_ptr<DeviceContext> context_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  // What the capturing thread has enqueued since BeginCapture.
  std::vector<std::function<void()>> recording_;
  std::thread worker_;
};

}  // namespace weft

#endif  // WEFT_TESTS_EXECUTOR_FAKE_DEVICE_TESTUTIL_H_
