// Runs a Plan: per-run state only (pending counts, input slots, the first
// error), kernels called inline on the thread that made them ready when
// cheap, handed to the arena's other threads when expensive (the CPU
// device's spin team, or oneTBB tasks without one).
#ifndef WEFT_EXECUTOR_EXECUTOR_H_
#define WEFT_EXECUTOR_EXECUTOR_H_

#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "executor/plan.h"
#include "executor/session.h"

namespace weft {

class CpuSpinTeam;

// `arena` null runs everything on the calling thread. `team` (null for
// none) is the spin team of `arena` (device/cpu_spin_team.h) that serves
// the run's fork-joins and spawned nodes. `feeds` follow the plan's feed
// order and have been checked.
Status ExecutePlan(const Plan& plan, tbb::task_arena* arena, CpuSpinTeam* team,
                   const std::vector<Tensor>& feeds,
                   std::vector<Tensor>* outputs, const RunOptions& options,
                   RunMetadata* metadata);

// ExecutePlan for a caller that gives its feeds up (Session::RunTakingFeeds):
// a feed that one kernel input alone reads (Plan::feed_sole_slot) moves into
// the run, and that kernel may forward its buffer when nothing else holds
// it. `feeds` is left with those tensors moved out.
Status ExecutePlanTakingFeeds(const Plan& plan, tbb::task_arena* arena,
                              CpuSpinTeam* team, std::vector<Tensor>* feeds,
                              std::vector<Tensor>* outputs,
                              const RunOptions& options, RunMetadata* metadata);

// Runs `plan`'s kernels once on the calling thread while its accelerator
// records them (executor/device_graph.h): each copy step to the device hands
// its consumers `device_inputs[step]` (indexed by plan node; the buffer a
// replay uploads the feed into) instead of copying, and each copy step to the
// host hands the device tensor itself to the fetch, so `outputs` holds device
// tensors there. Nothing waits for the device.
Status RecordPlan(const Plan& plan, const std::vector<Tensor>& feeds,
                  const std::vector<Tensor>& device_inputs,
                  std::vector<Tensor>* outputs);

}  // namespace weft

#endif  // WEFT_EXECUTOR_EXECUTOR_H_
