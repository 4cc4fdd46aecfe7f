#include "executor/device_graph.h"

#include <future>
#include <utility>

#include "absl/strings/str_cat.h"
#include "executor/executor.h"
#include "executor/plan.h"
#include "executor/session.h"

namespace weft {
namespace {

// Why `plan` cannot be replayed without the host, or OK.
Status CheckCapturable(const Plan& plan, std::vector<int>* feed_of_step) {
  Device* device = plan.accelerator();
  if (device == nullptr) {
    return errors::FailedPrecondition(
        "the session runs on the CPU only; there is no device work to "
        "capture");
  }
  // Which feed fills each input slot.
  std::vector<int> feed_of_slot(plan.num_input_slots(), -1);
  for (const PresetTensor& p : plan.presets()) {
    if (p.feed_index < 0) continue;
    for (int slot : p.slots) feed_of_slot[slot] = p.feed_index;
  }
  feed_of_step->assign(plan.nodes().size(), -1);
  for (size_t id = 0; id < plan.nodes().size(); ++id) {
    const PlanNode& pn = plan.nodes()[id];
    switch (pn.step) {
      case PlanStep::kKernel:
        if (pn.device != device) {
          return errors::FailedPrecondition("node ", pn.node->DebugName(),
                                            " runs on ", pn.device->name(),
                                            " (no ", device->name(),
                                            " kernel for its op and dtypes, or "
                                            "placed there), so a run is not ",
                                            device->name(), " work alone");
        }
        if (pn.is_async) {
          return errors::FailedPrecondition(
              "node ", pn.node->DebugName(),
              " has an asynchronous kernel, which completes through the "
              "host");
        }
        break;
      case PlanStep::kControlFlow:
        return errors::FailedPrecondition(
            "node ", pn.node->DebugName(),
            " runs its functions on the host, one call after another");
      case PlanStep::kCopyToDevice:
        if (feed_of_slot[pn.input_base] < 0) {
          return errors::FailedPrecondition(
              "output ", pn.copy_output, " of node ", pn.node->DebugName(),
              " is computed on the host during the run and copied to ",
              device->name());
        }
        (*feed_of_step)[id] = feed_of_slot[pn.input_base];
        break;
      case PlanStep::kCopyToHost:
        for (int e = plan.out_begin()[pn.out_base],
                 end = plan.out_begin()[pn.out_base + 1];
             e < end; ++e) {
          if (plan.edges()[e].dst_node >= 0) {
            return errors::FailedPrecondition(
                "output ", pn.copy_output, " of node ", pn.node->DebugName(),
                " is read on the host during the run");
          }
        }
        break;
    }
  }
  return Status();
}

// Counts callbacks and keeps the first error; Wait blocks until all came.
class Completions {
 public:
  std::function<void(Status)> Add() {
    auto promise = std::make_shared<std::promise<Status>>();
    pending_.push_back(promise->get_future());
    return [promise](Status s) { promise->set_value(std::move(s)); };
  }
  Status Wait() {
    Status first;
    for (auto& f : pending_) {
      Status s = f.get();
      if (first.ok()) first = std::move(s);
    }
    pending_.clear();
    return first;
  }

 private:
  std::vector<std::future<Status>> pending_;
};

}  // namespace

DeviceGraph::DeviceGraph(const Plan& plan) {
  status_ = CheckCapturable(plan, &feed_of_step_);
}

DeviceGraph::~DeviceGraph() = default;

Status DeviceGraph::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

Status DeviceGraph::Run(const Plan& plan, const std::vector<Tensor>& feeds,
                        std::vector<Tensor>* outputs, const RunOptions& options,
                        bool* replayed) {
  *replayed = false;
  std::lock_guard<std::mutex> lock(mu_);
  if (!status_.ok()) return Status();
  bool same_shapes =
      work_ != nullptr && recorded_shapes_.size() == feeds.size();
  for (size_t i = 0; same_shapes && i < feeds.size(); ++i) {
    same_shapes = feeds[i].shape() == recorded_shapes_[i];
  }
  if (!same_shapes) {
    Status s = Record(plan, feeds);
    if (!s.ok()) {
      if (work_ == nullptr && !status_.ok()) return Status();  // not capturable
      *replayed = true;  // the run's own error: report it
      return s;
    }
  }
  if (options.cancellation != nullptr && options.cancellation->IsCancelled()) {
    *replayed = true;
    return absl::CancelledError("run cancelled");
  }
  *replayed = true;
  return Replay(plan, feeds, outputs);
}

Status DeviceGraph::Record(const Plan& plan, const std::vector<Tensor>& feeds) {
  Device* device = plan.accelerator();
  // The old recording's tensors go before the recording that owns them.
  fetch_sources_.clear();
  work_.reset();
  recorded_shapes_.clear();
  feed_buffers_.assign(plan.nodes().size(), Tensor());
  for (size_t id = 0; id < plan.nodes().size(); ++id) {
    const int feed = feed_of_step_[id];
    if (feed < 0) continue;
    WEFT_ASSIGN_OR_RETURN(
        feed_buffers_[id],
        Tensor::Allocate(device->allocator(), feeds[feed].dtype(),
                         feeds[feed].shape()));
  }
  Status begun = device->BeginCapture();
  if (!begun.ok()) {
    status_ = AddContext(begun, "capturing the run");
    return begun;
  }
  std::vector<Tensor> recorded;
  Status ran = RecordPlan(plan, feeds, feed_buffers_, &recorded);
  StatusOr<std::unique_ptr<CapturedWork>> work = device->EndCapture();
  if (!ran.ok()) {
    // A kernel refused the inputs: the run's error, not the recording's;
    // the next run records again.
    return ran;
  }
  if (!work.ok()) {
    recorded.clear();
    status_ = AddContext(work.status(), "capturing the run");
    return work.status();
  }
  work_ = std::move(*work);
  // Fetches known before the run are taken from the plan in each replay;
  // the others are device tensors the recording fills, or host tensors a
  // device kernel derived from shapes alone (Shape on the device), which
  // stay valid while the shapes do.
  std::vector<bool> preset(plan.num_fetches(), false);
  for (const PresetTensor& p : plan.presets()) {
    for (int f : p.fetches) preset[f] = true;
  }
  fetch_sources_.assign(plan.num_fetches(), Tensor());
  for (int f = 0; f < plan.num_fetches(); ++f) {
    if (!preset[f]) fetch_sources_[f] = std::move(recorded[f]);
  }
  for (const Tensor& t : feeds) recorded_shapes_.push_back(t.shape());
  return Status();
}

Status DeviceGraph::Replay(const Plan& plan, const std::vector<Tensor>& feeds,
                           std::vector<Tensor>* outputs) {
  Device* device = plan.accelerator();
  DeviceContext* context = device->device_context();
  Completions done;
  for (size_t id = 0; id < plan.nodes().size(); ++id) {
    const int feed = feed_of_step_[id];
    if (feed >= 0) {
      context->CopyHostToDevice(feeds[feed], &feed_buffers_[id], done.Add());
    }
  }
  Status launched = work_->Launch();
  outputs->assign(plan.num_fetches(), Tensor());
  // Fetches known before the run: feeds and constants.
  for (const PresetTensor& p : plan.presets()) {
    const Tensor& t = p.value ? *p.value : feeds[p.feed_index];
    for (int f : p.fetches) (*outputs)[f] = t;
  }
  if (launched.ok()) {
    for (int f = 0; f < plan.num_fetches(); ++f) {
      const Tensor& src = fetch_sources_[f];
      if (!src.IsInitialized()) continue;
      if (src.memory_space() == MemorySpace::kHost) {
        (*outputs)[f] = src;
        continue;
      }
      StatusOr<Tensor> host = Tensor::Allocate(plan.host_allocator() != nullptr
                                                   ? plan.host_allocator()
                                                   : DefaultCpuAllocator(),
                                               src.dtype(), src.shape());
      if (!host.ok()) {
        launched = host.status();
        break;
      }
      (*outputs)[f] = std::move(*host);
      context->CopyDeviceToHost(src, &(*outputs)[f], done.Add());
    }
  }
  // Also the stream's outcome: a replayed kernel that faulted.
  context->ThenExecute(done.Add());
  Status s = done.Wait();
  if (s.ok()) s = launched;
  if (!s.ok()) {
    outputs->clear();
    return AddContext(
        s, absl::StrCat("replaying the recorded run on ", device->name()));
  }
  return Status();
}

}  // namespace weft
