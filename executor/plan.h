// Plan: one prepared signature (feeds, fetches, targets) flattened into
// arrays, so that a run needs no map lookups or graph walks. Node indices
// here are plan-local (0..num_nodes-1), not graph ids.
#ifndef WEFT_EXECUTOR_PLAN_H_
#define WEFT_EXECUTOR_PLAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "graph/graph.h"

namespace weft {

class Allocator;
class Device;
class DeviceGraph;
class OpKernel;
class OptimizedGraph;

// What a plan node does: run its kernel, move one tensor between host and
// device memory (a step BuildPlan inserts where an edge crosses memory
// spaces), or run a control-flow kernel (executor/control_flow.h), which
// gets the run's options.
enum class PlanStep : uint8_t {
  kKernel,
  kCopyToDevice,
  kCopyToHost,
  kControlFlow
};

struct PlanNode {
  // For a copy step: the node whose output (`copy_output`) it moves, the
  // producer or the fed or constant node, for messages.
  const Node* node = nullptr;
  // Null for copy steps.
  const OpKernel* kernel = nullptr;
  // For a copy step: the accelerator whose DeviceContext copies.
  Device* device = nullptr;
  // This node's inputs are run slots [input_base, input_base + num_inputs).
  int input_base = 0;
  int num_inputs = 0;
  int num_outputs = 0;
  // Output o's destinations are edges [out_begin[o], out_begin[o + 1]) of
  // Plan::edges, with out_begin stored at out_base.
  int out_base = 0;
  // Control successors: Plan::control_edges[ctrl_begin, ctrl_end).
  int ctrl_begin = 0;
  int ctrl_end = 0;
  // Producers (data and control) the node waits for. A node with one is
  // released by that one alone, without touching the run's atomic count.
  int initial_pending = 0;
  int copy_output = 0;
  bool expensive = true;
  bool is_async = false;
  PlanStep step = PlanStep::kKernel;
};

// Where a produced tensor goes: a consumer's input slot, or (dst_node < 0)
// fetch output `dst_slot`.
struct PlanEdge {
  int dst_node = -1;
  int dst_slot = 0;
};

// A tensor known before the run starts (a Const value or a feed) and the
// input slots and fetch outputs it fills.
struct PresetTensor {
  // For constants: the session-owned value. For feeds: nullptr, and
  // `feed_index` says which feed.
  const Tensor* value = nullptr;
  int feed_index = -1;
  std::vector<int> slots;
  std::vector<int> fetches;
};

// Built by BuildPlan (executor/plan.cc), which alone fills it; read by the
// executor, device graphs and the session. After BuildPlan only the session
// attaches what it owns: the optimized graph, the accelerator and the
// recording.
class Plan {
 public:
  Plan();
  ~Plan();

  const std::vector<PlanNode>& nodes() const { return nodes_; }
  // Per node output, plus one end marker per node.
  const std::vector<int>& out_begin() const { return out_begin_; }
  const std::vector<PlanEdge>& edges() const { return edges_; }
  const std::vector<int>& control_edges() const { return control_edges_; }
  const std::vector<int>& initial_ready() const { return initial_ready_; }
  const std::vector<PresetTensor>& presets() const { return presets_; }
  int num_input_slots() const { return num_input_slots_; }
  // Per input slot: the index in presets() of the tensor that fills it, or
  // -1 when a plan node's output does. The executor hands kernels a preset
  // in place (the session's constant, the caller's feed) instead of copying
  // it into the slot, so that no reference count moves for it; such an
  // input is never forwarded (others hold it).
  const std::vector<int>& slot_preset() const { return slot_preset_; }
  // Per input slot: whether a kernel may forward it (slot_preset() < 0), laid
  // out for OpKernelContext::Params::forwardable_inputs.
  absl::Span<const bool> slot_forwardable() const {
    return absl::MakeConstSpan(slot_forwardable_.get(), num_input_slots_);
  }
  // Per feed: the input slot it fills when one kernel input alone reads it
  // and no fetch does, else -1. A run that takes its feeds
  // (Session::RunTakingFeeds) moves such a feed into its slot, where the
  // kernel may forward it as it would a computed tensor.
  const std::vector<int>& feed_sole_slot() const { return feed_sole_slot_; }
  // slot_forwardable() with those feeds' slots forwardable too, for runs
  // that take their feeds.
  absl::Span<const bool> slot_forwardable_taking_feeds() const {
    return absl::MakeConstSpan(slot_forwardable_taking_feeds_.get(),
                               num_input_slots_);
  }
  int num_fetches() const { return num_fetches_; }
  int max_node_outputs() const { return max_node_outputs_; }

  // Per feed and fetch: what the graph declares, checked at run time.
  const std::vector<DataType>& feed_dtypes() const { return feed_dtypes_; }
  const std::vector<PartialTensorShape>& feed_shapes() const {
    return feed_shapes_;
  }
  const std::vector<DataType>& fetch_dtypes() const { return fetch_dtypes_; }
  const std::vector<PartialTensorShape>& fetch_shapes() const {
    return fetch_shapes_;
  }

  // The asynchronous devices the plan's kernels run on: a run waits until
  // their streams have finished its work before it returns.
  const std::vector<Device*>& async_devices() const { return async_devices_; }
  // Where copies to the host allocate (the session's host allocator).
  Allocator* host_allocator() const { return host_allocator_; }
  int num_copies() const { return num_copies_; }

  // The optimized graph the plan runs, when the session optimized it: its
  // nodes, kernels and constants are what `nodes` and `presets` point at.
  const std::shared_ptr<const OptimizedGraph>& optimized() const {
    return optimized_;
  }
  void set_optimized(std::shared_ptr<const OptimizedGraph> optimized);
  // The device that the plan's device constants live on (multi-device
  // plans only; null on the CPU alone), kept alive by the plan.
  Device* accelerator() const { return accelerator_.get(); }
  void set_accelerator(std::shared_ptr<Device> accelerator);
  // With SessionOptions.capture_device_graphs and an accelerator: the
  // plan's recording, which runs replay (executor/device_graph.h).
  DeviceGraph* device_graph() const { return device_graph_.get(); }
  void set_device_graph(std::unique_ptr<DeviceGraph> graph);

 private:
  friend class PlanBuilder;

  std::vector<PlanNode> nodes_;
  std::vector<int> out_begin_;
  std::vector<PlanEdge> edges_;
  std::vector<int> control_edges_;
  std::vector<int> initial_ready_;
  std::vector<PresetTensor> presets_;
  std::vector<int> slot_preset_;
  std::unique_ptr<bool[]> slot_forwardable_;
  std::vector<int> feed_sole_slot_;
  std::unique_ptr<bool[]> slot_forwardable_taking_feeds_;
  int num_input_slots_ = 0;
  int num_fetches_ = 0;
  int max_node_outputs_ = 0;
  std::vector<DataType> feed_dtypes_;
  std::vector<PartialTensorShape> feed_shapes_;
  std::vector<DataType> fetch_dtypes_;
  std::vector<PartialTensorShape> fetch_shapes_;
  std::shared_ptr<const OptimizedGraph> optimized_;
  // Multi-device plans only (all empty or null on the CPU alone).
  std::shared_ptr<Device> accelerator_;
  // Device-memory copies of the constants that device kernels read, made
  // once when the plan was built; presets point at them.
  std::vector<std::unique_ptr<Tensor>> device_constants_;
  std::vector<Device*> async_devices_;
  Allocator* host_allocator_ = nullptr;
  int num_copies_ = 0;
  std::unique_ptr<DeviceGraph> device_graph_;
};

// What BuildPlan needs from the session for each node it keeps.
class PlanResources {
 public:
  virtual ~PlanResources() = default;
  // The node's kernel and device, created on first use.
  virtual Status GetKernel(const Node* node, const OpKernel** kernel,
                           Device** device) = 0;
  // The node's value when it is a Const evaluated by the session, else null.
  virtual const Tensor* ConstValue(const Node* node) const = 0;
};

struct BuildPlanOptions {
  // Prefixes errors, usually the graph file's path.
  std::string source_name = "graph";
  // Host memory for tensors copied to the host; null for
  // DefaultCpuAllocator().
  Allocator* host_allocator = nullptr;
  // Copy the constants that device kernels read into device memory now,
  // once, blocking until the copies are done. false (for a plan that is only
  // inspected) copies them in every run instead, and makes kernels without
  // constant inputs (OpKernelConstruction::constant_input), so that they do
  // not prepare weights (a packed copy of each) for a plan that may never
  // run: an optimized session inspects the graph as given this way.
  bool upload_constants = true;
};

// Prunes `graph` to what `fetches` and `targets` need given `feeds`, and lays
// out the plan. Tensor names are "node" or "node:i". Errors name the source
// and what is wrong: unknown names, duplicate feeds, an unfed placeholder a
// fetch needs, a kernel that cannot be created.
//
// Memory spaces. A tensor lives in host memory, or in the memory of the
// device that produced it when its kernel's output is not HostMemory and the
// device's allocator is not host memory; a consumer reads each input in the
// space its kernel declares, and fetches are read on the host. Where the two
// differ the plan gets one copy step per tensor and destination space, shared
// by every consumer there (device to device goes through the host). Feeds and
// constants are host tensors; constants read on a device are uploaded once
// (see BuildPlanOptions::upload_constants).
StatusOr<std::unique_ptr<Plan>> BuildPlan(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const BuildPlanOptions& options);

// The nodes BuildPlan would give kernels, in its order, with its errors for
// feeds, fetches, targets and placeholders that must be fed; no kernel is
// made. What an optimizing session needs of the graph as given: the
// optimizer rewrites these, and only its graph's plan is built.
StatusOr<std::vector<const Node*>> PlanNodes(
    const Graph& graph, const std::vector<std::string>& feeds,
    const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets, PlanResources* resources,
    const BuildPlanOptions& options);

}  // namespace weft

#endif  // WEFT_EXECUTOR_PLAN_H_
