#include "tests/executor/fake_device_testutil.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "device/device_factory.h"
#include "kernels/common/matmul_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Host memory that claims to be device memory; new buffers hold NaN.
class FakeDeviceAllocator final : public Allocator {
 public:
  std::string Name() const override { return "fake_gpu"; }
  MemorySpace memory_space() const override { return MemorySpace::kDevice; }
  void* AllocateRaw(size_t alignment, size_t num_bytes) override {
    void* p = DefaultCpuAllocator()->AllocateRaw(alignment, num_bytes);
    if (p != nullptr) std::memset(p, 0xff, num_bytes);  // NaN as float
    return p;
  }
  void DeallocateRaw(void* ptr, size_t num_bytes) override {
    DefaultCpuAllocator()->DeallocateRaw(ptr, num_bytes);
  }
  AllocatorStats GetStats() const override { return AllocatorStats(); }
};

class FakeContext final : public DeviceContext {
 public:
  explicit FakeContext(FakeGpuDevice* device) : device_(device) {}
  void* stream() const override { return device_; }

  void CopyHostToDevice(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override {
    FakeGpu().copies_to_device++;
    Copy(src, *dst, MemorySpace::kHost, std::move(done));
  }
  void CopyDeviceToHost(const Tensor& src, Tensor* dst,
                        std::function<void(Status)> done) const override {
    FakeGpu().copies_to_host++;
    Copy(src, *dst, MemorySpace::kDevice, std::move(done));
  }
  void ThenExecute(std::function<void(Status)> fn) const override {
    device_->Enqueue([fn = std::move(fn)] {
      fn(FakeGpu().fail_stream
             ? errors::Internal("injected asynchronous device error")
             : Status());
    });
  }

 private:
  // The tensors are captured by value: their buffers stay alive until the
  // worker has copied, which is what DeviceContext promises its callers.
  void Copy(const Tensor& src, const Tensor& dst, MemorySpace src_space,
            std::function<void(Status)> done) const {
    if (src.memory_space() != src_space || dst.memory_space() == src_space ||
        src.TotalBytes() != dst.TotalBytes() || src.dtype() != dst.dtype()) {
      done(errors::Internal("fake copy: cannot copy ", src.DebugString(),
                            " into ", dst.DebugString()));
      return;
    }
    device_->Enqueue([src, dst, done = std::move(done)] {
      if (FakeGpu().fail_copies) {
        done(errors::Internal("injected copy failure"));
        return;
      }
      std::memcpy(dst.raw_data(), src.raw_data(), src.TotalBytes());
      done(Status());
    });
  }

  FakeGpuDevice* const device_;
};

FakeGpuDevice* Fake(OpKernelContext* ctx) {
  return static_cast<FakeGpuDevice*>(ctx->device());
}

// y's element for x's flat index i when y matches x's trailing dimensions.
bool TrailingMatch(const TensorShape& big, const TensorShape& small) {
  int offset = big.dims() - small.dims();
  if (offset < 0) return false;
  for (int d = 0; d < small.dims(); ++d) {
    if (small.dim_size(d) != big.dim_size(offset + d)) return false;
  }
  return true;
}

enum class BinaryKind { kAdd, kMul };

template <BinaryKind kKind>
class FakeBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    const bool x_big = TrailingMatch(x.shape(), y.shape());
    OP_REQUIRES(
        ctx, x_big || TrailingMatch(y.shape(), x.shape()),
        errors::InvalidArgument("fake kernel: shapes ", x.shape().DebugString(),
                                " and ", y.shape().DebugString()));
    Tensor big = x_big ? x : y;
    Tensor small = x_big ? y : x;
    Tensor* z = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, big.shape(), &z));
    Tensor out = *z;
    Fake(ctx)->Enqueue([big, small, out] {
      const float* a = big.data<float>();
      const float* b = small.data<float>();
      float* c = out.data<float>();
      const int64_t n = big.NumElements();
      const int64_t m = small.NumElements();
      for (int64_t i = 0; i < n; ++i) {
        c[i] = kKind == BinaryKind::kAdd ? a[i] + b[i % m] : a[i] * b[i % m];
      }
    });
  }
};

class FakeReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Tensor in = x;
    Tensor out = *y;
    Fake(ctx)->Enqueue([in, out] {
      const float* a = in.data<float>();
      float* b = out.data<float>();
      for (int64_t i = 0; i < in.NumElements(); ++i) {
        b[i] = a[i] > 0 ? a[i] : 0.0f;
      }
    });
  }
};

class FakeMatMulOp : public AsyncOpKernel {
 public:
  explicit FakeMatMulOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_a", &transpose_a_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("transpose_b", &transpose_b_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) const override {
    Fake(ctx)->Enqueue([this, ctx, done = std::move(done)] {
      Run(ctx);
      done();
    });
  }

 private:
  void Run(OpKernelContext* ctx) const {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    StatusOr<MatMulDims> dims = GetMatMulDims(a, b, transpose_a_, transpose_b_);
    OP_REQUIRES_OK(ctx, dims.status());
    const auto [m, k, n] = *dims;
    Tensor* c = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &c));
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* pc = c->data<float>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          float av = transpose_a_ ? pa[p * m + i] : pa[i * k + p];
          float bv = transpose_b_ ? pb[j * k + p] : pb[p * n + j];
          sum += static_cast<double>(av) * bv;
        }
        pc[i * n + j] = static_cast<float>(sum);
      }
    }
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// Reads its shape on the host; the output shares the input's device buffer.
class FakeReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    const Tensor& shape = ctx->input(1);
    OP_REQUIRES(ctx, shape.memory_space() == MemorySpace::kHost,
                errors::Internal("shape is not in host memory"));
    std::vector<int64_t> dims;
    int64_t known = 1;
    int unknown = -1;
    for (int64_t i = 0; i < shape.NumElements(); ++i) {
      int64_t d = shape.data<int32_t>()[i];
      if (d < 0) {
        unknown = static_cast<int>(i);
      } else {
        known *= d;
      }
      dims.push_back(d);
    }
    if (unknown >= 0 && known > 0) dims[unknown] = x.NumElements() / known;
    TensorShape out_shape;
    for (int64_t d : dims) OP_REQUIRES_OK(ctx, out_shape.AddDim(d));
    auto reshaped = x.Reshaped(out_shape);
    OP_REQUIRES_OK(ctx, reshaped.status());
    ctx->set_output(0, std::move(*reshaped));
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL_BUILDER(
    Name("AddV2").Device(DEVICE_FAKE_GPU).TypeConstraint<float>("T"),
    FakeBinaryOp<BinaryKind::kAdd>);
REGISTER_KERNEL_BUILDER(
    Name("Mul").Device(DEVICE_FAKE_GPU).TypeConstraint<float>("T"),
    FakeBinaryOp<BinaryKind::kMul>);
REGISTER_KERNEL_BUILDER(
    Name("Relu").Device(DEVICE_FAKE_GPU).TypeConstraint<float>("T"),
    FakeReluOp);
REGISTER_KERNEL_BUILDER(
    Name("MatMul").Device(DEVICE_FAKE_GPU).TypeConstraint<float>("T"),
    FakeMatMulOp);
REGISTER_KERNEL_BUILDER(Name("Reshape")
                            .Device(DEVICE_FAKE_GPU)
                            .TypeConstraint<float>("T")
                            .TypeConstraint<int32_t>("Tshape")
                            .HostMemory("shape"),
                        FakeReshapeOp);

}  // namespace

FakeGpuKnobs& FakeGpu() {
  static FakeGpuKnobs* knobs = new FakeGpuKnobs();
  return *knobs;
}

void RegisterFakeGpuDevice() {
  static const bool registered = [] {
    Status s = RegisterDeviceFactory(
        "fake_gpu",
        [](const DeviceFactoryArgs& args) -> StatusOr<std::unique_ptr<Device>> {
          return std::unique_ptr<Device>(
              new FakeGpuDevice(args.ordinal, args.host_allocator));
        });
    return s.ok();
  }();
  (void)registered;
}

FakeGpuDevice::FakeGpuDevice(int ordinal, Allocator* host_allocator)
    : Device("fake_gpu:" + std::to_string(ordinal), DEVICE_FAKE_GPU),
      host_allocator_(host_allocator),
      device_allocator_(std::make_unique<FakeDeviceAllocator>()),
      context_(std::make_unique<FakeContext>(this)),
      worker_([this] { Loop(); }) {}

FakeGpuDevice::~FakeGpuDevice() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

namespace {

// The device whose work the calling thread is recording, if any.
thread_local FakeGpuDevice* t_capturing = nullptr;

class FakeCapturedWork final : public CapturedWork {
 public:
  FakeCapturedWork(FakeGpuDevice* device,
                   std::vector<std::function<void()>> work)
      : device_(device), work_(std::move(work)) {}
  Status Launch() override {
    FakeGpu().capture_launches++;
    for (const auto& fn : work_) device_->Enqueue(fn);
    return Status();
  }

 private:
  FakeGpuDevice* const device_;
  const std::vector<std::function<void()>> work_;
};

}  // namespace

Status FakeGpuDevice::BeginCapture() {
  if (t_capturing != nullptr) {
    return errors::FailedPrecondition("fake capture: already capturing");
  }
  t_capturing = this;
  recording_.clear();
  return Status();
}

StatusOr<std::unique_ptr<CapturedWork>> FakeGpuDevice::EndCapture() {
  if (t_capturing != this) {
    return errors::FailedPrecondition("fake capture: not capturing");
  }
  t_capturing = nullptr;
  std::vector<std::function<void()>> work = std::move(recording_);
  recording_.clear();
  if (FakeGpu().fail_capture) {
    return errors::Internal("injected capture failure");
  }
  FakeGpu().captures++;
  return std::unique_ptr<CapturedWork>(
      new FakeCapturedWork(this, std::move(work)));
}

void FakeGpuDevice::Enqueue(std::function<void()> fn) {
  if (t_capturing == this) {
    recording_.push_back(std::move(fn));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

Status FakeGpuDevice::Sync() {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Enqueue([&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return Status();
}

void FakeGpuDevice::Loop() {
  while (true) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything is done
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    int delay = FakeGpu().delay_us.load();
    if (delay > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(delay));
    fn();
  }
}

}  // namespace weft
