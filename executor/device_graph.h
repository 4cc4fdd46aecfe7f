// Whole-run capture on an accelerator (SessionOptions.capture_device_graphs):
// a prepared signature whose every kernel runs on the accelerator is recorded
// once (on CUDA, into a CUDA Graph) and replayed by later runs, so that a run
// costs one launch instead of one host call per node.
//
// A run then: uploads each feed into a device buffer the recording reads,
// launches the recorded work, and copies the fetched tensors back. The
// recording is made on the first run and again when the feeds' shapes
// change (shapes are fixed inside a recording). Captured runs of one
// signature are serialized: they share those buffers.
//
// A signature is captured only if all of its device work can be replayed
// without the host: every kernel node on the accelerator and synchronous,
// host-to-device copies of feeds only, device-to-host copies of fetches
// only. Otherwise, or when the device cannot record (a call that is not
// allowed in a graph), runs go node by node as usual, and status() says why.
#ifndef WEFT_EXECUTOR_DEVICE_GRAPH_H_
#define WEFT_EXECUTOR_DEVICE_GRAPH_H_

#include <memory>
#include <mutex>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "device/device.h"

namespace weft {

class Plan;
struct RunOptions;

class DeviceGraph {
 public:
  // Decides from `plan`'s layout whether it can be captured.
  explicit DeviceGraph(const Plan& plan);
  ~DeviceGraph();

  // OK when runs replay a recording (or will, from the next run); otherwise
  // why they run node by node, e.g. "node 'probs' (Softmax) runs on cpu:0".
  Status status() const;

  // Runs `plan` through its recording, recording it first where needed.
  // *replayed false (and OK) means the plan is not captured (see status());
  // the caller then runs it node by node. Errors are the run's: a kernel's,
  // a copy's, the device's.
  Status Run(const Plan& plan, const std::vector<Tensor>& feeds,
             std::vector<Tensor>* outputs, const RunOptions& options,
             bool* replayed);

 private:
  Status Record(const Plan& plan, const std::vector<Tensor>& feeds);
  Status Replay(const Plan& plan, const std::vector<Tensor>& feeds,
                std::vector<Tensor>* outputs);

  mutable std::mutex mu_;
  // Why the plan is not captured; OK while it is (or can be).
  Status status_;
  // Per plan node: the device buffer a feed upload step writes (uninitialized
  // for other nodes), and which feed goes there.
  std::vector<Tensor> feed_buffers_;
  std::vector<int> feed_of_step_;
  // The recording and what it was made for: the feeds' shapes, and per
  // fetch the device tensor holding it after a replay (uninitialized for
  // fetches known before the run, feeds and constants). Those tensors live
  // in memory the recording owns, so they are declared after it (destroyed
  // first).
  std::unique_ptr<CapturedWork> work_;
  std::vector<TensorShape> recorded_shapes_;
  std::vector<Tensor> fetch_sources_;
};

}  // namespace weft

#endif  // WEFT_EXECUTOR_DEVICE_GRAPH_H_
