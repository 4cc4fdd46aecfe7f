// CudaDevice: one NVIDIA GPU as a weft Device. Compiled only when weft is
// built with CUDA (WEFT_HAVE_CUDA).
//
// Streams. Kernels enqueue on the compute stream. Host-to-device and
// device-to-host copies run on two copy streams of their own, ordered with
// the compute stream by events: a copy starts after the compute work
// enqueued before it (which produced or allocated its device tensor), and
// compute work enqueued after it starts after the copy. So every device
// buffer is used in the compute stream's order, which is what makes the
// stream-ordered allocator below safe.
//
// Memory. Device tensors come from CudaAllocator, a stream-ordered pool
// (cudaMallocFromPoolAsync / cudaFreeAsync on a cudaMemPool of the device's
// own, ordered on the compute stream): a freed block is reused by later work
// on that stream without a synchronization, and the pool keeps freed memory
// cached up to its release threshold. Host copies go through pinned staging
// buffers, so they are truly asynchronous and the host tensor may be dropped
// as soon as CopyHostToDevice returns. Destroying the device synchronizes
// and destroys the pool, which returns all of its memory to the driver.
//
// Completion. ThenExecute and the copies' `done` callbacks run on a thread
// the device owns (never inside a CUDA host callback, where CUDA calls are
// forbidden), in the order they were enqueued.
//
// Thread safety: every method may be called from any thread.
#ifndef WEFT_DEVICE_CUDA_CUDA_DEVICE_H_
#define WEFT_DEVICE_CUDA_CUDA_DEVICE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "core/allocator.h"
#include "core/status.h"
#include "device/cuda/cublas_loader.h"
#include "device/device.h"

namespace weft {

struct CudaDeviceOptions {
  // Which GPU (cudaGetDeviceCount order, after CUDA_VISIBLE_DEVICES).
  int ordinal = 0;
  // Bytes of freed memory the pool keeps cached instead of returning them to
  // the driver at the next synchronization; the default keeps everything
  // (cached memory is released by ReleaseCached or device destruction).
  uint64_t release_threshold = std::numeric_limits<uint64_t>::max();
  // Hard cap on the bytes of live device tensors; 0 for none. An allocation
  // that would exceed it fails (the kernel reports ResourceExhausted)
  // before the driver is asked.
  int64_t memory_limit = 0;
  // A stream of the host application's to use as the compute stream instead
  // of creating one (SessionOptions.cuda_stream states the contract). It
  // must belong to GPU `ordinal` and outlive the device, which never
  // destroys it but does synchronize it when destroyed.
  cudaStream_t compute_stream = nullptr;
  // float32 matrix products may round their inputs to TF32 (10-bit
  // mantissa) on tensor cores: several times faster on Ampere and later,
  // and about 1e-3 relative error instead of float32's 1e-7.
  bool allow_tf32 = false;
};

// What the pool itself reports, in bytes (cudaMemPoolGetAttribute): memory
// reserved from the driver (in use or cached) and memory handed out.
struct CudaPoolStats {
  int64_t reserved_bytes = 0;
  int64_t reserved_bytes_peak = 0;
  int64_t used_bytes = 0;
  int64_t used_bytes_peak = 0;
};

// Device memory from a stream-ordered pool (see the file comment).
class CudaAllocator final : public Allocator {
 public:
  // `pool` and `stream` belong to the device and outlive the allocator.
  CudaAllocator(int ordinal, cudaMemPool_t pool, cudaStream_t stream,
                int64_t memory_limit);

  std::string Name() const override;
  MemorySpace memory_space() const override { return MemorySpace::kDevice; }
  // Stream-ordered on the compute stream: the memory may be used by work
  // enqueued there from now on (or by other streams after an event).
  // nullptr when the cap or the GPU is out of memory.
  void* AllocateRaw(size_t alignment, size_t num_bytes) override;
  // Freed in the compute stream's order: work enqueued before still sees
  // valid memory.
  void DeallocateRaw(void* ptr, size_t num_bytes) override;
  AllocatorStats GetStats() const override;

  CudaPoolStats GetPoolStats() const;
  int64_t memory_limit() const { return memory_limit_; }

 private:
  const int ordinal_;
  cudaMemPool_t const pool_;
  cudaStream_t const stream_;
  const int64_t memory_limit_;
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_bytes_in_use_{0};
  std::atomic<int64_t> largest_alloc_size_{0};
};

class CudaDevice;

// The DeviceContext kernels and the executor see: the compute stream.
class CudaStreamContext final : public DeviceContext {
 public:
  explicit CudaStreamContext(CudaDevice* device) : device_(device) {}
  void* stream() const override;
  void CopyHostToDevice(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override;
  void CopyDeviceToHost(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override;
  void ThenExecute(std::function<void(Status)> fn) const override;

 private:
  // What both copy directions share (see the .cc).
  void StagedCopy(const Tensor& src, Tensor* dst, bool to_device,
                  std::function<void(Status)> done) const;

  CudaDevice* const device_;
};

class CudaDevice final : public Device {
 public:
  // Creates the streams, the pool, the completion thread and, when cuBLAS
  // can be loaded, a cuBLAS handle bound to the compute stream (without it
  // the device still works; BLAS kernels report why). Errors: the device's
  // discovery status (CheckCudaDevice), no kernel image for the GPU, or the
  // failing CUDA call.
  static StatusOr<std::unique_ptr<CudaDevice>> Create(
      const CudaDeviceOptions& options);
  // Synchronizes, then releases everything; the pool's memory goes back to
  // the driver.
  ~CudaDevice() override;

  int ordinal() const { return ordinal_; }

  // The stream-ordered pool; while the calling thread records
  // (BeginCapture), memory owned by the recording instead.
  Allocator* allocator() const override;
  CudaAllocator* cuda_allocator() const { return allocator_.get(); }
  // Pageable host memory for HostMemory args (the CPU's allocator).
  Allocator* host_allocator() const override;
  bool is_async() const override { return true; }
  DeviceContext* device_context() const override { return context_.get(); }
  // Waits for all three streams and every pending completion callback;
  // returns the first asynchronous error seen (a faulting kernel), which is
  // sticky for a CUDA context.
  Status Sync() override;

  // Host-side work of GPU kernels is small and runs on the calling thread.
  int num_threads() const override { return 0; }
  void ParallelFor(
      int64_t n, int64_t cost_per_unit,
      const std::function<void(int64_t begin, int64_t end)>& fn) const override;

  // Where kernels enqueue: the compute stream, or while the calling thread
  // records (BeginCapture), the stream being captured.
  cudaStream_t compute_stream() const;
  // Whether the compute stream is the host's (CudaDeviceOptions).
  bool uses_host_stream() const { return !owns_compute_; }
  bool allow_tf32() const { return allow_tf32_; }
  cudaStream_t host_to_device_stream() const { return h2d_; }
  cudaStream_t device_to_host_stream() const { return d2h_; }

  // Runs `fn` with the cuBLAS handle (bound to the compute stream) under a
  // lock, so concurrent kernels do not interleave calls on one handle.
  // FailedPrecondition when cuBLAS could not be loaded or initialized.
  Status WithBlas(
      const std::function<Status(const CublasApi&, cublasHandle_t)>& fn) const;

  // CUDA Graph capture (Device::BeginCapture): the calling thread's kernels
  // go to a stream of its own in relaxed capture mode, and its allocations
  // to a bump arena the recording owns; the recording is instantiated as a
  // CUDA Graph and launched on the compute stream. Other threads use the
  // device as usual meanwhile.
  Status BeginCapture() override;
  StatusOr<std::unique_ptr<CapturedWork>> EndCapture() override;

  // Waits for the compute stream, then returns the pool's cached (free)
  // memory to the driver. Memory of live tensors stays.
  Status ReleaseCached();

  // Makes this device current on the calling thread (cudaSetDevice); every
  // method does so itself, kernels and tests call it before raw CUDA calls.
  void MakeCurrent() const;

  // Enqueues on `stream`: once the work before now has finished, `fn` runs
  // on the completion thread with the outcome (an asynchronous error, if
  // one occurred).
  void ThenExecuteOn(cudaStream_t stream, std::function<void(Status)> fn);

  // Makes `waiter` wait for the work enqueued on `signaller` so far.
  Status StreamWait(cudaStream_t waiter, cudaStream_t signaller);

  // A pinned host buffer of at least `bytes`, reused across copies; return
  // it with ReturnStaging once the copy that used it has completed.
  StatusOr<void*> GetStaging(size_t bytes, size_t* capacity);
  void ReturnStaging(void* buffer, size_t capacity);

 private:
  CudaDevice(std::string name, int ordinal);
  Status Init(const CudaDeviceOptions& options);
  void CompletionLoop();
  StatusOr<cudaEvent_t> GetEvent();
  void ReturnEvent(cudaEvent_t event);
  void RecordAsyncError(const Status& status);

  const int ordinal_;
  cudaStream_t compute_ = nullptr;
  bool owns_compute_ = true;
  bool allow_tf32_ = false;
  cudaStream_t h2d_ = nullptr;
  cudaStream_t d2h_ = nullptr;
  cudaMemPool_t pool_ = nullptr;
  std::unique_ptr<CudaAllocator> allocator_;
  std::unique_ptr<CudaStreamContext> context_;

  const CublasApi* blas_api_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  void* blas_workspace_ = nullptr;
  Status blas_status_;
  mutable std::mutex blas_mu_;

  // Free events (cudaEventDisableTiming), reused.
  std::mutex events_mu_;
  std::vector<cudaEvent_t> free_events_;

  // Free pinned staging buffers by capacity (powers of two).
  std::mutex staging_mu_;
  std::vector<std::pair<size_t, void*>> free_staging_;

  // The completion thread's queue: (event, callback) in enqueue order.
  struct Pending {
    cudaEvent_t event;
    std::function<void(Status)> fn;
  };
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::condition_variable idle_cv_;
  std::deque<Pending> queue_;
  int64_t in_flight_ = 0;  // queued or running callbacks
  bool stopping_ = false;
  std::thread completion_thread_;

  std::mutex error_mu_;
  Status async_error_;
};

// "cudaErrorMemoryAllocation: out of memory", for messages.
std::string CudaErrorString(cudaError_t err);

// OK, or Internal("<what>: <CUDA error>") after clearing the error.
Status CudaCall(cudaError_t err, const char* what);

}  // namespace weft

#endif  // WEFT_DEVICE_CUDA_CUDA_DEVICE_H_
