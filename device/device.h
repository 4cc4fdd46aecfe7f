// Device: where a node's kernel runs and where its tensors live. A device has
// a name ("cpu:0", "cuda:0"), a type that kernels are registered for
// ("CPU", "CUDA"), allocators, and intra-op parallelism.
//
// Asynchronous devices (a GPU) do not finish work when a kernel returns: a
// kernel enqueues onto the device's stream and the executor learns of
// completion through a callback. Such a device returns true from is_async()
// and a DeviceContext from device_context(); the CPU device returns false and
// nullptr and completes everything inline. The executor is written against
// this interface only, so a CUDA device slots in without changing it.
#ifndef WEFT_DEVICE_DEVICE_H_
#define WEFT_DEVICE_DEVICE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "core/allocator.h"
#include "core/status.h"

namespace weft {

class Tensor;

// Device types, as kernels are registered for them and as messages print
// them. Strings rather than an enum so that a plugin can bring its own.
inline constexpr char DEVICE_CPU[] = "CPU";
inline constexpr char DEVICE_CUDA[] = "CUDA";

// The per-device execution context of an asynchronous device: one stream and
// the operations on it. Every call only enqueues; `done` callbacks run once
// the enqueued work has finished, possibly on another thread.
class DeviceContext {
 public:
  virtual ~DeviceContext() = default;

  // The native stream handle kernels enqueue their work on (a cudaStream_t
  // for CUDA), opaque to everything but the device's own kernels.
  virtual void* stream() const = 0;

  // Enqueues a copy of host tensor `src` into `dst`, which the caller has
  // allocated in device memory with the same dtype and shape. `done`
  // receives the copy's outcome.
  //
  // Ordering, which the executor relies on: work enqueued on this context
  // after CopyHostToDevice returns sees dst's new contents (so a device
  // kernel may consume `dst` at once, without waiting for `done`), and
  // CopyDeviceToHost reads `src` after all work enqueued before it. Only the
  // host must wait for `done` before reading a host `dst`. Lifetimes: the
  // caller may drop the Tensor objects as soon as the call returns, and a
  // device buffer (released in the stream's order, or kept by the context)
  // and a host `src` need no more care; only the buffer of a host `dst`
  // must stay alive until `done`.
  virtual void CopyHostToDevice(const Tensor& src, Tensor* dst,
                                std::function<void(Status)> done) const = 0;
  // The reverse: `dst` is a host tensor of the same dtype and shape.
  virtual void CopyDeviceToHost(const Tensor& src, Tensor* dst,
                                std::function<void(Status)> done) const = 0;

  // Runs `fn` once all work enqueued on the stream so far has completed
  // (an event recorded now and waited on elsewhere), with the stream's
  // outcome: OK, or the asynchronous error of work enqueued before (a
  // kernel that faulted; on a GPU such errors are sticky). How an async
  // kernel calls its `done`, and how the executor learns that a run's
  // device work failed.
  virtual void ThenExecute(std::function<void(Status)> fn) const = 0;
};

// Device work recorded once and replayed (on CUDA, a CUDA Graph): the same
// kernels on the same buffers, without the host enqueuing them one by one.
class CapturedWork {
 public:
  virtual ~CapturedWork() = default;
  // Enqueues the recorded work on the device's stream, after what is already
  // enqueued there (copies into its input buffers included); completion and
  // errors are observed as for any work, through ThenExecute.
  virtual Status Launch() = 0;
};

class Device {
 public:
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device();

  // "cpu:0": what a node's device field and messages name.
  const std::string& name() const { return name_; }
  // DEVICE_CPU, DEVICE_CUDA, ...: what kernels are registered for.
  const std::string& device_type() const { return device_type_; }

  // Where tensors this device computes on are allocated; its memory_space()
  // tells whether the host may read them.
  virtual Allocator* allocator() const = 0;
  // Host memory for the arguments a kernel declares HostMemory (shapes,
  // axes read by the host side of a GPU kernel) and for staging copies. The
  // CPU device has only host memory, so both are the same.
  virtual Allocator* host_allocator() const { return allocator(); }
  Allocator* GetAllocator(MemorySpace space) const {
    return space == MemorySpace::kHost ? host_allocator() : allocator();
  }

  // True when kernels on this device complete after they return (see the
  // file comment). The CPU device is synchronous.
  virtual bool is_async() const { return false; }
  // The stream context kernels enqueue on; nullptr on synchronous devices.
  virtual DeviceContext* device_context() const { return nullptr; }
  // Blocks until every piece of work enqueued on this device has finished,
  // and reports the first asynchronous failure. Immediate on the CPU.
  virtual Status Sync() { return Status(); }

  // Threads that intra-op work may use; 0 when it runs on the calling
  // thread only (a session created with threads = 0).
  virtual int num_threads() const = 0;

  // Calls fn(begin, end) over disjoint ranges covering [0, n) exactly once.
  // `cost_per_unit` is a rough cost of one unit in CPU cycles (about 1 for
  // an add, tens for an exp); small total work runs as a single inline
  // call, larger work is split so each piece amortizes scheduling. `fn`
  // may run concurrently on several threads and must not throw. Returns
  // when all of it is done.
  virtual void ParallelFor(
      int64_t n, int64_t cost_per_unit,
      const std::function<void(int64_t begin, int64_t end)>& fn) const = 0;

  // Stream capture, for SessionOptions.capture_device_graphs. Between
  // BeginCapture and EndCapture, work the calling thread enqueues on this
  // device (kernels; not copies) is recorded instead of run, and the device
  // memory that thread allocates comes from memory owned by the recording, so
  // that every replay finds its buffers where the recording put them (freeing
  // such a tensor is a no-op; the memory goes when the CapturedWork does, and
  // tensors allocated during capture must be released before it). Other
  // threads keep running as usual. Devices that cannot record return
  // Unimplemented.
  virtual Status BeginCapture();
  // Stops recording and returns the work, or why it could not be recorded
  // (a call that is not allowed while capturing, ...); either way the device
  // is out of capture mode on this thread afterwards.
  virtual StatusOr<std::unique_ptr<CapturedWork>> EndCapture();

 protected:
  Device(std::string name, std::string device_type);

 private:
  const std::string name_;
  const std::string device_type_;
};

}  // namespace weft

#endif  // WEFT_DEVICE_DEVICE_H_
