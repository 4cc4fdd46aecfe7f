#include "device/cuda/cuda_device.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "device/device_info.h"

namespace weft {

// device/cuda/cuda_probe.cu
cudaError_t ProbeKernelImage(int* binary_version, int* ptx_version);

namespace {

// cuBLAS's workspace for the compute stream: what cuBLAS itself recommends
// for Hopper (32 MiB); set explicitly so it comes from cudaMalloc once
// instead of from cuBLAS's own allocations per handle and stream.
constexpr size_t kBlasWorkspaceBytes = size_t{32} << 20;
// Staging buffers are powers of two from 64 KiB, so that a handful serve
// every copy size.
constexpr size_t kMinStagingBytes = size_t{64} << 10;

size_t StagingCapacity(size_t bytes) {
  size_t c = kMinStagingBytes;
  while (c < bytes) c <<= 1;
  return c;
}

void UpdateMax(std::atomic<int64_t>* target, int64_t value) {
  int64_t seen = target->load(std::memory_order_relaxed);
  while (value > seen && !target->compare_exchange_weak(
                             seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

std::string CudaErrorString(cudaError_t err) {
  return absl::StrCat(cudaGetErrorName(err), ": ", cudaGetErrorString(err));
}

Status CudaCall(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return Status();
  cudaGetLastError();  // clears a non-sticky error so later calls start clean
  return errors::Internal(what, ": ", CudaErrorString(err));
}

// ---------------------------------------------------------------------------
// CudaAllocator

CudaAllocator::CudaAllocator(int ordinal, cudaMemPool_t pool,
                             cudaStream_t stream, int64_t memory_limit)
    : ordinal_(ordinal),
      pool_(pool),
      stream_(stream),
      memory_limit_(memory_limit) {}

std::string CudaAllocator::Name() const {
  return absl::StrCat("cuda:", ordinal_);
}

void* CudaAllocator::AllocateRaw(size_t alignment, size_t num_bytes) {
  // A 0-byte request still gets a unique pointer; the pool's blocks are at
  // least 256-byte aligned, more than kTensorAlignment.
  const int64_t bytes = static_cast<int64_t>(std::max<size_t>(num_bytes, 1));
  if (alignment > 256) return nullptr;
  // Reserve under the cap before asking the driver, so that concurrent
  // allocations cannot together exceed it.
  int64_t in_use = bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed);
  if (memory_limit_ > 0 && in_use + bytes > memory_limit_) {
    bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  int current = -1;
  cudaGetDevice(&current);
  if (current != ordinal_) cudaSetDevice(ordinal_);
  void* ptr = nullptr;
  cudaError_t err =
      cudaMallocFromPoolAsync(&ptr, static_cast<size_t>(bytes), pool_, stream_);
  if (err != cudaSuccess) {
    cudaGetLastError();
    bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    return nullptr;
  }
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  UpdateMax(&peak_bytes_in_use_, in_use + bytes);
  UpdateMax(&largest_alloc_size_, bytes);
  return ptr;
}

void CudaAllocator::DeallocateRaw(void* ptr, size_t num_bytes) {
  if (ptr == nullptr) return;
  const int64_t bytes = static_cast<int64_t>(std::max<size_t>(num_bytes, 1));
  int current = -1;
  cudaGetDevice(&current);
  if (current != ordinal_) cudaSetDevice(ordinal_);
  // An error here means the context is broken (a kernel faulted); the
  // device's Sync reports that, and there is no caller to tell.
  if (cudaFreeAsync(ptr, stream_) != cudaSuccess) cudaGetLastError();
  bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
}

AllocatorStats CudaAllocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_bytes_in_use_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_alloc_size_.load(std::memory_order_relaxed);
  return s;
}

CudaPoolStats CudaAllocator::GetPoolStats() const {
  auto get = [this](cudaMemPoolAttr attr) -> int64_t {
    uint64_t value = 0;
    if (cudaMemPoolGetAttribute(pool_, attr, &value) != cudaSuccess) {
      cudaGetLastError();
      return -1;
    }
    return static_cast<int64_t>(value);
  };
  CudaPoolStats s;
  s.reserved_bytes = get(cudaMemPoolAttrReservedMemCurrent);
  s.reserved_bytes_peak = get(cudaMemPoolAttrReservedMemHigh);
  s.used_bytes = get(cudaMemPoolAttrUsedMemCurrent);
  s.used_bytes_peak = get(cudaMemPoolAttrUsedMemHigh);
  return s;
}

// ---------------------------------------------------------------------------
// CudaStreamContext

void* CudaStreamContext::stream() const { return device_->compute_stream(); }

void CudaStreamContext::CopyHostToDevice(
    const Tensor& src, Tensor* dst, std::function<void(Status)> done) const {
  StagedCopy(src, dst, /*to_device=*/true, std::move(done));
}

void CudaStreamContext::CopyDeviceToHost(
    const Tensor& src, Tensor* dst, std::function<void(Status)> done) const {
  StagedCopy(src, dst, /*to_device=*/false, std::move(done));
}

// Both directions go through a pinned staging buffer on their own copy
// stream, ordered with the compute stream both ways: the copy starts after
// the compute work enqueued so far (which allocated or wrote the device
// tensor), and compute work enqueued later (the device tensor's free among
// it) starts after the copy.
void CudaStreamContext::StagedCopy(const Tensor& src, Tensor* dst,
                                   bool to_device,
                                   std::function<void(Status)> done) const {
  const size_t bytes = src.TotalBytes();
  const MemorySpace from =
      to_device ? MemorySpace::kHost : MemorySpace::kDevice;
  const MemorySpace to = to_device ? MemorySpace::kDevice : MemorySpace::kHost;
  if (dst->TotalBytes() != bytes || src.dtype() != dst->dtype() ||
      src.memory_space() != from || dst->memory_space() != to) {
    done(errors::Internal(to_device ? "CopyHostToDevice" : "CopyDeviceToHost",
                          ": cannot copy ", src.DebugString(),
                          to_device ? " (host)" : " (device)", " into ",
                          dst->DebugString()));
    return;
  }
  if (bytes == 0) {
    done(Status());
    return;
  }
  CudaDevice* d = device_;
  d->MakeCurrent();
  size_t capacity = 0;
  StatusOr<void*> staging = d->GetStaging(bytes, &capacity);
  if (!staging.ok()) {
    done(staging.status());
    return;
  }
  void* buffer = *staging;
  // The host tensor is read now, so the caller may drop it on return.
  if (to_device) std::memcpy(buffer, src.raw_data(), bytes);
  const cudaStream_t stream =
      to_device ? d->host_to_device_stream() : d->device_to_host_stream();
  Status s = d->StreamWait(stream, d->compute_stream());
  if (s.ok()) {
    s = to_device ? CudaCall(cudaMemcpyAsync(dst->raw_data(), buffer, bytes,
                                             cudaMemcpyHostToDevice, stream),
                             "cudaMemcpyAsync (host to device)")
                  : CudaCall(cudaMemcpyAsync(buffer, src.raw_data(), bytes,
                                             cudaMemcpyDeviceToHost, stream),
                             "cudaMemcpyAsync (device to host)");
  }
  if (s.ok()) s = d->StreamWait(d->compute_stream(), stream);
  if (!s.ok()) {
    d->ReturnStaging(buffer, capacity);
    done(s);
    return;
  }
  void* out = to_device ? nullptr : dst->raw_data();
  d->ThenExecuteOn(stream, [d, buffer, capacity, out, bytes,
                            done = std::move(done)](Status st) {
    if (st.ok() && out != nullptr) std::memcpy(out, buffer, bytes);
    d->ReturnStaging(buffer, capacity);
    done(st);
  });
}

void CudaStreamContext::ThenExecute(std::function<void(Status)> fn) const {
  device_->ThenExecuteOn(device_->compute_stream(), std::move(fn));
}

// ---------------------------------------------------------------------------
// Capture

namespace {

// Device memory for the tensors a recording allocates: bump-allocated from
// chunks of cudaMalloc (allowed in relaxed capture mode), never reused, so
// that every replay finds each tensor where the recording put it. Freed
// with the recording.
class CudaCaptureArena final : public Allocator {
 public:
  explicit CudaCaptureArena(int ordinal) : ordinal_(ordinal) {}
  ~CudaCaptureArena() override {
    cudaSetDevice(ordinal_);
    for (void* chunk : chunks_) cudaFree(chunk);  // waits for the device
    cudaGetLastError();
  }
  std::string Name() const override {
    return absl::StrCat("cuda:", ordinal_, "_capture_arena");
  }
  MemorySpace memory_space() const override { return MemorySpace::kDevice; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    constexpr size_t kMinAlignment = 256;  // what cudaMalloc guarantees
    alignment = std::max(alignment, kMinAlignment);
    std::lock_guard<std::mutex> lock(mu_);
    size_t offset = (used_ + alignment - 1) / alignment * alignment;
    if (chunks_.empty() || offset + num_bytes > chunk_bytes_) {
      constexpr size_t kChunkBytes = size_t{64} << 20;
      const size_t bytes = std::max(kChunkBytes, num_bytes);
      void* chunk = nullptr;
      if (cudaMalloc(&chunk, bytes) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
      }
      chunks_.push_back(chunk);
      chunk_bytes_ = bytes;
      offset = 0;
    }
    used_ = offset + num_bytes;
    total_ += num_bytes;
    return static_cast<char*>(chunks_.back()) + offset;
  }
  // The memory belongs to the recording until it is destroyed.
  void DeallocateRaw(void*, size_t) override {}
  AllocatorStats GetStats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    AllocatorStats stats;
    stats.bytes_in_use = static_cast<int64_t>(total_);
    stats.peak_bytes_in_use = static_cast<int64_t>(total_);
    return stats;
  }

 private:
  const int ordinal_;
  mutable std::mutex mu_;
  std::vector<void*> chunks_;
  size_t chunk_bytes_ = 0;
  size_t used_ = 0;   // in the last chunk
  size_t total_ = 0;  // handed out
};

// What the calling thread is recording, if anything.
struct CudaCapture {
  const CudaDevice* device = nullptr;
  cudaStream_t stream = nullptr;
  std::shared_ptr<CudaCaptureArena> arena;
};
thread_local CudaCapture* t_capture = nullptr;

class CudaGraphWork final : public CapturedWork {
 public:
  CudaGraphWork(const CudaDevice* device, cudaStream_t stream,
                cudaGraph_t graph, cudaGraphExec_t exec,
                std::shared_ptr<CudaCaptureArena> arena)
      : device_(device),
        stream_(stream),
        graph_(graph),
        exec_(exec),
        arena_(std::move(arena)) {}
  ~CudaGraphWork() override {
    device_->MakeCurrent();
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
    cudaGetLastError();
    arena_.reset();  // after the graph: its kernels use this memory
  }
  Status Launch() override {
    device_->MakeCurrent();
    return CudaCall(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
  }

 private:
  const CudaDevice* const device_;
  cudaStream_t const stream_;
  cudaGraph_t const graph_;
  cudaGraphExec_t const exec_;
  std::shared_ptr<CudaCaptureArena> arena_;
};

}  // namespace

Allocator* CudaDevice::allocator() const {
  if (t_capture != nullptr && t_capture->device == this) {
    return t_capture->arena.get();
  }
  return allocator_.get();
}

cudaStream_t CudaDevice::compute_stream() const {
  if (t_capture != nullptr && t_capture->device == this) {
    return t_capture->stream;
  }
  return compute_;
}

Status CudaDevice::BeginCapture() {
  if (t_capture != nullptr) {
    return errors::FailedPrecondition(
        "this thread is already recording work for ",
        t_capture->device->name());
  }
  MakeCurrent();
  auto capture = std::make_unique<CudaCapture>();
  capture->device = this;
  capture->arena = std::make_shared<CudaCaptureArena>(ordinal_);
  WEFT_RETURN_IF_ERROR(CudaCall(
      cudaStreamCreateWithFlags(&capture->stream, cudaStreamNonBlocking),
      "cudaStreamCreate (capture)"));
  // Relaxed: the arena may call cudaMalloc while this thread captures.
  Status s = CudaCall(
      cudaStreamBeginCapture(capture->stream, cudaStreamCaptureModeRelaxed),
      "cudaStreamBeginCapture");
  if (!s.ok()) {
    cudaStreamDestroy(capture->stream);
    return s;
  }
  t_capture = capture.release();
  return Status();
}

StatusOr<std::unique_ptr<CapturedWork>> CudaDevice::EndCapture() {
  if (t_capture == nullptr || t_capture->device != this) {
    return errors::FailedPrecondition("this thread is not recording work for ",
                                      name());
  }
  std::unique_ptr<CudaCapture> capture(t_capture);
  t_capture = nullptr;
  MakeCurrent();
  cudaGraph_t graph = nullptr;
  cudaError_t err = cudaStreamEndCapture(capture->stream, &graph);
  cudaStreamDestroy(capture->stream);
  if (err != cudaSuccess || graph == nullptr) {
    cudaGetLastError();
    if (graph != nullptr) cudaGraphDestroy(graph);
    return errors::FailedPrecondition(
        "CUDA stream capture failed [", CudaErrorString(err),
        "]: a kernel of the run made a call that a CUDA graph cannot "
        "record (a synchronization, a synchronous copy or allocation)");
  }
  cudaGraphExec_t exec = nullptr;
  err = cudaGraphInstantiate(&exec, graph, 0);
  if (err != cudaSuccess) {
    cudaGetLastError();
    cudaGraphDestroy(graph);
    return errors::FailedPrecondition("cudaGraphInstantiate failed [",
                                      CudaErrorString(err), "]");
  }
  return std::unique_ptr<CapturedWork>(
      new CudaGraphWork(this, compute_, graph, exec, capture->arena));
}

// ---------------------------------------------------------------------------
// CudaDevice

CudaDevice::CudaDevice(std::string name, int ordinal)
    : Device(std::move(name), DEVICE_CUDA), ordinal_(ordinal) {}

StatusOr<std::unique_ptr<CudaDevice>> CudaDevice::Create(
    const CudaDeviceOptions& options) {
  WEFT_RETURN_IF_ERROR(CheckCudaDevice(options.ordinal));
  std::unique_ptr<CudaDevice> device(
      new CudaDevice(absl::StrCat("cuda:", options.ordinal), options.ordinal));
  Status s = device->Init(options);
  if (!s.ok()) {
    return AddContext(s, absl::StrCat("cuda:", options.ordinal));
  }
  return device;
}

void CudaDevice::MakeCurrent() const {
  int current = -1;
  cudaGetDevice(&current);
  if (current != ordinal_) cudaSetDevice(ordinal_);
}

Status CudaDevice::Init(const CudaDeviceOptions& options) {
  WEFT_RETURN_IF_ERROR(CudaCall(cudaSetDevice(ordinal_), "cudaSetDevice"));
  int binary = 0, ptx = 0;
  cudaError_t probe = ProbeKernelImage(&binary, &ptx);
  if (probe != cudaSuccess) {
    cudaGetLastError();
    return errors::FailedPrecondition(
        "this weft's GPU code does not load on this GPU [",
        CudaErrorString(probe), "]; it was built for CUDA architectures ",
        GetCudaInfo().compiled_architectures);
  }
  allow_tf32_ = options.allow_tf32;
  if (options.compute_stream != nullptr) {
    // A stream of another GPU would make every kernel launch fail with an
    // unhelpful "invalid resource handle"; say so once, here.
    int stream_device = -1;
    WEFT_RETURN_IF_ERROR(
        CudaCall(cudaStreamGetDevice(options.compute_stream, &stream_device),
                 "cudaStreamGetDevice(cuda_stream)"));
    if (stream_device != ordinal_) {
      return errors::InvalidArgument("cuda_stream belongs to GPU ",
                                     stream_device,
                                     ", but the session runs on ", name());
    }
    compute_ = options.compute_stream;
    owns_compute_ = false;
  }
  // Non-blocking: the streams do not synchronize with the legacy default
  // stream, which a host library might be using.
  for (cudaStream_t* s : {&compute_, &h2d_, &d2h_}) {
    if (*s != nullptr) continue;  // the host's compute stream
    WEFT_RETURN_IF_ERROR(
        CudaCall(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking),
                 "cudaStreamCreate"));
  }
  // A pool of the device's own (not the device's default pool) so that its
  // statistics and trimming concern this device object only, and destroying
  // it returns exactly its memory.
  cudaMemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = ordinal_;
  WEFT_RETURN_IF_ERROR(
      CudaCall(cudaMemPoolCreate(&pool_, &props), "cudaMemPoolCreate"));
  uint64_t threshold = options.release_threshold;
  WEFT_RETURN_IF_ERROR(
      CudaCall(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold,
                                       &threshold),
               "cudaMemPoolSetAttribute(ReleaseThreshold)"));
  allocator_ = std::make_unique<CudaAllocator>(ordinal_, pool_, compute_,
                                               options.memory_limit);
  context_ = std::make_unique<CudaStreamContext>(this);
  completion_thread_ = std::thread([this] { CompletionLoop(); });

  // cuBLAS is optional: without it only the BLAS kernels fail.
  StatusOr<const CublasApi*> api = LoadCublas();
  if (!api.ok()) {
    blas_status_ = api.status();
    return Status();
  }
  blas_api_ = *api;
  cublasStatus_t bs = blas_api_->create(&blas_);
  if (bs != CUBLAS_STATUS_SUCCESS) {
    blas_ = nullptr;
    blas_status_ = errors::FailedPrecondition("cublasCreate failed: ",
                                              CublasStatusText(*blas_api_, bs));
    return Status();
  }
  blas_api_->set_stream(blas_, compute_);
  if (cudaMalloc(&blas_workspace_, kBlasWorkspaceBytes) == cudaSuccess) {
    blas_api_->set_workspace(blas_, blas_workspace_, kBlasWorkspaceBytes);
  } else {
    cudaGetLastError();
    blas_workspace_ = nullptr;  // cuBLAS then allocates its own
  }
  // Plain float32 math by default (no TF32), so results match the CPU
  // kernels within float32 tolerance; TF32 only when the session opts in.
  blas_api_->set_math_mode(
      blas_, allow_tf32_ ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
  return Status();
}

CudaDevice::~CudaDevice() {
  MakeCurrent();
  if (compute_ != nullptr) Sync().IgnoreError();
  if (completion_thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    completion_thread_.join();
  }
  if (blas_ != nullptr) blas_api_->destroy(blas_);
  if (blas_workspace_ != nullptr) cudaFree(blas_workspace_);
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
  for (auto& [capacity, p] : free_staging_) cudaFreeHost(p);
  allocator_.reset();
  // Every tensor from the pool must be gone by now (tensors outliving their
  // device are a caller bug); destroying the pool returns its memory.
  if (pool_ != nullptr) {
    cudaMemPoolTrimTo(pool_, 0);
    cudaMemPoolDestroy(pool_);
  }
  for (cudaStream_t s : {compute_, h2d_, d2h_}) {
    if (s == compute_ && !owns_compute_) continue;  // the host's
    if (s != nullptr) cudaStreamDestroy(s);
  }
  cudaGetLastError();
}

Allocator* CudaDevice::host_allocator() const { return DefaultCpuAllocator(); }

void CudaDevice::ParallelFor(
    int64_t n, int64_t cost_per_unit,
    const std::function<void(int64_t begin, int64_t end)>& fn) const {
  if (n > 0) fn(0, n);
}

Status CudaDevice::Sync() {
  MakeCurrent();
  Status s;
  for (cudaStream_t stream : {compute_, h2d_, d2h_}) {
    Status st =
        CudaCall(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (s.ok()) s = st;
  }
  {
    std::unique_lock<std::mutex> lock(queue_mu_);
    idle_cv_.wait(lock, [this] { return in_flight_ == 0; });
  }
  if (!s.ok()) RecordAsyncError(s);
  std::lock_guard<std::mutex> lock(error_mu_);
  return async_error_;
}

Status CudaDevice::WithBlas(
    const std::function<Status(const CublasApi&, cublasHandle_t)>& fn) const {
  if (blas_ == nullptr) {
    return blas_status_.ok()
               ? errors::FailedPrecondition("cuBLAS is not initialized")
               : blas_status_;
  }
  std::lock_guard<std::mutex> lock(blas_mu_);
  MakeCurrent();
  // The handle follows the calling thread's stream: the stream being
  // captured while this thread records, the compute stream otherwise.
  const cudaStream_t stream = compute_stream();
  if (stream != compute_) blas_api_->set_stream(blas_, stream);
  Status s = fn(*blas_api_, blas_);
  if (stream != compute_) blas_api_->set_stream(blas_, compute_);
  return s;
}

Status CudaDevice::ReleaseCached() {
  MakeCurrent();
  WEFT_RETURN_IF_ERROR(
      CudaCall(cudaStreamSynchronize(compute_), "cudaStreamSynchronize"));
  {
    std::lock_guard<std::mutex> lock(staging_mu_);
    for (auto& [capacity, p] : free_staging_) cudaFreeHost(p);
    free_staging_.clear();
  }
  return CudaCall(cudaMemPoolTrimTo(pool_, 0), "cudaMemPoolTrimTo");
}

StatusOr<cudaEvent_t> CudaDevice::GetEvent() {
  {
    std::lock_guard<std::mutex> lock(events_mu_);
    if (!free_events_.empty()) {
      cudaEvent_t e = free_events_.back();
      free_events_.pop_back();
      return e;
    }
  }
  cudaEvent_t e = nullptr;
  // BlockingSync: the completion thread sleeps in cudaEventSynchronize
  // instead of spinning a core.
  WEFT_RETURN_IF_ERROR(
      CudaCall(cudaEventCreateWithFlags(
                   &e, cudaEventDisableTiming | cudaEventBlockingSync),
               "cudaEventCreate"));
  return e;
}

void CudaDevice::ReturnEvent(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(events_mu_);
  free_events_.push_back(event);
}

Status CudaDevice::StreamWait(cudaStream_t waiter, cudaStream_t signaller) {
  WEFT_ASSIGN_OR_RETURN(cudaEvent_t e, GetEvent());
  Status s = CudaCall(cudaEventRecord(e, signaller), "cudaEventRecord");
  if (s.ok()) {
    s = CudaCall(cudaStreamWaitEvent(waiter, e, 0), "cudaStreamWaitEvent");
  }
  // An event may be re-recorded once the wait is enqueued: the wait uses the
  // state captured at cudaStreamWaitEvent.
  ReturnEvent(e);
  return s;
}

void CudaDevice::ThenExecuteOn(cudaStream_t stream,
                               std::function<void(Status)> fn) {
  MakeCurrent();
  StatusOr<cudaEvent_t> e = GetEvent();
  Status s = e.status();
  if (s.ok()) s = CudaCall(cudaEventRecord(*e, stream), "cudaEventRecord");
  if (!s.ok()) {
    if (e.ok()) ReturnEvent(*e);
    RecordAsyncError(s);
    fn(s);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.push_back(Pending{*e, std::move(fn)});
    ++in_flight_;
  }
  queue_cv_.notify_one();
}

void CudaDevice::CompletionLoop() {
  cudaSetDevice(ordinal_);
  for (;;) {
    Pending p;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything has run
      p = std::move(queue_.front());
      queue_.pop_front();
    }
    // In enqueue order: events on one stream complete in order, and a later
    // event on another stream that completed first merely waits its turn.
    Status s =
        CudaCall(cudaEventSynchronize(p.event), "asynchronous CUDA work");
    ReturnEvent(p.event);
    if (!s.ok()) RecordAsyncError(s);
    p.fn(s);
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      --in_flight_;
    }
    idle_cv_.notify_all();
  }
}

void CudaDevice::RecordAsyncError(const Status& status) {
  std::lock_guard<std::mutex> lock(error_mu_);
  if (async_error_.ok()) async_error_ = AddContext(status, name());
}

StatusOr<void*> CudaDevice::GetStaging(size_t bytes, size_t* capacity) {
  const size_t want = StagingCapacity(bytes);
  {
    std::lock_guard<std::mutex> lock(staging_mu_);
    for (size_t i = 0; i < free_staging_.size(); ++i) {
      if (free_staging_[i].first == want) {
        void* p = free_staging_[i].second;
        free_staging_[i] = free_staging_.back();
        free_staging_.pop_back();
        *capacity = want;
        return p;
      }
    }
  }
  void* p = nullptr;
  cudaError_t err = cudaHostAlloc(&p, want, cudaHostAllocPortable);
  if (err != cudaSuccess) {
    cudaGetLastError();
    return errors::ResourceExhausted("cannot allocate ", want,
                                     " bytes of pinned host memory for a "
                                     "copy: ",
                                     CudaErrorString(err));
  }
  *capacity = want;
  return p;
}

void CudaDevice::ReturnStaging(void* buffer, size_t capacity) {
  std::lock_guard<std::mutex> lock(staging_mu_);
  free_staging_.emplace_back(capacity, buffer);
}

}  // namespace weft
