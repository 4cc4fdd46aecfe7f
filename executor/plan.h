// Plan: one prepared signature (feeds, fetches, targets) flattened into
// arrays, so that a run needs no map lookups or graph walks. Node indices
// here are plan-local (0..num_nodes-1), not graph ids.
#ifndef WEFT_EXECUTOR_PLAN_H_
#define WEFT_EXECUTOR_PLAN_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

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

class Plan {
 public:
  Plan();
  ~Plan();

  std::vector<PlanNode> nodes;
  std::vector<int> out_begin;  // per node output, plus one end marker per node
  std::vector<PlanEdge> edges;
  std::vector<int> control_edges;
  std::vector<int> initial_ready;
  std::vector<PresetTensor> presets;
  int num_input_slots = 0;
  int num_fetches = 0;
  int max_node_outputs = 0;

  // Per feed: what the graph declares, checked at run time.
  std::vector<DataType> feed_dtypes;
  std::vector<PartialTensorShape> feed_shapes;
  std::vector<DataType> fetch_dtypes;
  std::vector<PartialTensorShape> fetch_shapes;

  // The optimized graph the plan runs, when the session optimized it: its
  // nodes, kernels and constants are what `nodes` and `presets` point at.
  std::shared_ptr<const OptimizedGraph> optimized;

  // Multi-device plans only (all empty or null on the CPU alone).
  // Keeps the device that `device_constants` live on.
  std::shared_ptr<Device> accelerator;
  // Device-memory copies of the constants that device kernels read, made
  // once when the plan was built; presets point at them.
  std::vector<std::unique_ptr<Tensor>> device_constants;
  // The asynchronous devices the plan's kernels run on: a run waits until
  // their streams have finished its work before it returns.
  std::vector<Device*> async_devices;
  // Where copies to the host allocate (the session's host allocator).
  Allocator* host_allocator = nullptr;
  int num_copies = 0;
  // With SessionOptions.capture_device_graphs and an accelerator: the
  // plan's recording, which runs replay (executor/device_graph.h).
  std::unique_ptr<DeviceGraph> device_graph;
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
  // inspected) copies them in every run instead.
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

}  // namespace weft

#endif  // WEFT_EXECUTOR_PLAN_H_
