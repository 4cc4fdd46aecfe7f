// Host-side launch planning of the CUDA data-movement kernels
// (kernels/cuda/cast_op.cc, array_ops.cc): the parameters of the kernel
// bodies in kernels/cuda/*_body.h, built from the shapes that the CPU and
// CUDA kernels share (kernels/common/transpose_shape.h, tile_shape.h,
// concat_shape.h), which check the inputs. Compiled in every build, with or
// without CUDA, so that tests/kernels/cuda_array_body_test.cc can build the
// same parameters as the OpKernel classes and run the bodies on the host.
#ifndef WEFT_KERNELS_CUDA_PLAN_ARRAY_PLAN_H_
#define WEFT_KERNELS_CUDA_PLAN_ARRAY_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "kernels/common/concat_shape.h"
#include "kernels/common/tile_shape.h"
#include "kernels/common/transpose_shape.h"
#include "kernels/cuda/cast_body.h"
#include "kernels/cuda/concat_body.h"
#include "kernels/cuda/tile_body.h"
#include "kernels/cuda/transpose_body.h"

namespace weft {

// The CUDA Cast kernel's launch for a cast from `src` to `dst`, two of its
// dtypes (float, half, int32, int64, bool).
struct CastPlan {
  gpu::CastType src = gpu::CastType::kFloat;
  gpu::CastParams params;
};
CastPlan PlanCast(DataType src, DataType dst, bool truncate);

struct TransposePlan {
  gpu::TransposeParams params;
  // Set when the move swaps the last two dimensions of [batch, rows, cols]
  // and both are at least kMinSwapSide, where staging tiles in shared
  // memory pays: the tiled kernel runs instead of the gather.
  bool swap = false;
  gpu::SwapParams swap_params;
  static constexpr int64_t kMinSwapSide = 16;
};

// The launch of a transpose of `input` that moves data (dims.moves_data),
// its dimensions merged where they move together.
// Errors: Unimplemented when more than gpu::kMaxTransposeRank dimensions
// are left after merging.
StatusOr<TransposePlan> PlanTranspose(const TensorShape& input,
                                      const TransposeDims& dims);

// The launch of a tile of `input` whose multiples are not all 1
// (!dims.same), its dimensions merged where they can be; rank 0 (nothing to
// launch) when the output is empty.
// Errors: Unimplemented when more than gpu::kMaxTileRank dimensions are
// left after merging.
StatusOr<gpu::TileParams> PlanTile(const TensorShape& input,
                                   const TileDims& dims);

// The launches that copy the non-empty inputs of a ConcatV2 or Pack
// (`inputs`, one pointer per input shape given to GetConcatV2Dims or
// GetPackDims) into the output: none when an input is forwarded or the
// output is empty, ceil(non-empty inputs / gpu::kMaxConcatInputs)
// otherwise.
std::vector<gpu::ConcatParams> ConcatLaunches(
    const ConcatDims& dims, absl::Span<const void* const> inputs);

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_PLAN_ARRAY_PLAN_H_
