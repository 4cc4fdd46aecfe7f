// Host planning of the CUDA reductions (kernels/cuda/reduce_ops.cc): the
// kernel launches that reduce an input, planned from the ReductionPlan and
// the pass order both devices share (kernels/common/reduction_shape.h); what is
// the GPU's own is the launch strategy of each pass and the cutting of
// long runs into pieces. Compiled in every build so that the host tests
// (tests/kernels/cuda_reduce_body_test.cc) run the same passes through the
// kernel bodies of kernels/cuda/reduce_body.h.
#ifndef WEFT_KERNELS_CUDA_PLAN_REDUCE_PLAN_H_
#define WEFT_KERNELS_CUDA_PLAN_REDUCE_PLAN_H_

#include <cstdint>
#include <vector>

#include "kernels/common/reduction_shape.h"
#include "kernels/cuda/reduce_body.h"

namespace weft {

// One kernel launch. The first pass reads the input (its dtype), later
// passes the float results of the pass before; the last pass (params.finish)
// writes the output, the others a float temporary of params.num_outputs()
// elements.
struct GpuReducePass {
  gpu::ReduceParams params;
};

// Rows at most this long take one thread each (kColumns); up to
// kGpuWarpRowMax a warp each, longer ones a block.
inline constexpr int64_t kGpuShortRow = 16;
inline constexpr int64_t kGpuWarpRowMax = 2048;

// The passes reducing an input of `input_elements` by `plan` (from
// PlanReduction) into `output_elements`, with op `op`. Empty when there is
// nothing to launch: no output elements, or plan.IsCopy() (the caller
// reshapes the input instead). An empty input with outputs is one pass of
// len 0 that writes the identity (NaN for Mean).
std::vector<GpuReducePass> PlanGpuReduction(const ReductionPlan& plan,
                                            int64_t input_elements,
                                            int64_t output_elements,
                                            gpu::ReduceOp op);

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_PLAN_REDUCE_PLAN_H_
