// Host-side planning of the CUDA data-movement kernels
// (kernels/cuda/cast_op.cc, array_ops.cc): the shape checks, with the CPU
// kernels' messages, and the launch parameters of the kernel bodies in
// kernels/cuda/*_body.h. Compiled in every build, with or without CUDA, so
// that tests/kernels/cuda_array_body_test.cc can build the same parameters
// as the OpKernel classes and run the bodies on the host.
//
// The checks repeat those of the CPU kernels in kernels/cpu/transpose_op.cc,
// concat_ops.cc and tile_ops.cc, which keep them inside their Compute
// methods; the host test compares the two on the same inputs.
#ifndef WEFT_KERNELS_ARRAY_PLAN_H_
#define WEFT_KERNELS_ARRAY_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
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
  TensorShape out_shape;
  // False when the dimensions larger than 1 keep their order: the output
  // is the input's buffer under out_shape.
  bool moves_data = false;
  // Set when moves_data.
  gpu::TransposeParams params;
  // Set when the move swaps the last two dimensions of [batch, rows, cols]
  // and both are at least kMinSwapSide, where staging tiles in shared
  // memory pays: the tiled kernel runs instead of the gather.
  bool swap = false;
  gpu::SwapParams swap_params;
  static constexpr int64_t kMinSwapSide = 16;
};

// Errors: perm not a vector of the input's rank, not a permutation (entries
// may be negative, counting from the end), or, as Unimplemented, more than
// gpu::kMaxTransposeRank dimensions left after merging.
StatusOr<TransposePlan> PlanTranspose(const TensorShape& input,
                                      const Tensor& perm);

struct TilePlan {
  TensorShape out_shape;
  // All multiples are 1: the output is the input.
  bool same = false;
  // Set when !same and the output is not empty.
  gpu::TileParams params;
};

StatusOr<TilePlan> PlanTile(const TensorShape& input, const Tensor& multiples);

struct ConcatPlan {
  TensorShape out_shape;
  // >= 0: the output is this input's buffer viewed as out_shape (it holds
  // all the data); nothing is copied.
  int forward_input = -1;
  // Every input viewed as [rows, widths[k]].
  int64_t rows = 0;
  std::vector<int64_t> widths;
};

// ConcatV2 of inputs of `shapes` along the value of `axis` (its last input,
// number shapes.size(), which names it in messages).
StatusOr<ConcatPlan> PlanConcatV2(absl::Span<const TensorShape> shapes,
                                  const Tensor& axis);
// Pack of inputs of `shapes` along a new dimension `axis` (the attr).
StatusOr<ConcatPlan> PlanPack(absl::Span<const TensorShape> shapes,
                              int64_t axis);

// The launches that copy a plan's non-empty inputs (`inputs`, one pointer
// per shape given to the plan) into the output: none when the output is
// empty, ceil(non-empty inputs / gpu::kMaxConcatInputs) otherwise.
std::vector<gpu::ConcatParams> ConcatLaunches(
    const ConcatPlan& plan, absl::Span<const void* const> inputs);

}  // namespace weft

#endif  // WEFT_KERNELS_ARRAY_PLAN_H_
