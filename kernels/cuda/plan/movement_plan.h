// Host-side planning of the CUDA data-movement kernels (Slice,
// StridedSlice, Pad, PadV2, MirrorPad, GatherV2, Fill, OnesLike): the POD
// parameters of the per-element bodies in kernels/cuda/*_body.h, built from
// the input contracts the CPU kernels share (kernels/common/slice_shape.h,
// pad_shape.h, gather_shape.h, fill_shape.h), so both devices accept the
// same inputs and report the same errors. Compiled in every build, so that
// the host tests (tests/kernels/cuda_slice_body_test.cc) build the very
// parameters the CUDA kernel classes (kernels/cuda/) launch with, also
// where CUDA is off.
#ifndef WEFT_KERNELS_CUDA_PLAN_MOVEMENT_PLAN_H_
#define WEFT_KERNELS_CUDA_PLAN_MOVEMENT_PLAN_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "kernels/common/gather_shape.h"
#include "kernels/common/pad_shape.h"
#include "kernels/common/slice_shape.h"
#include "kernels/cuda/gather_body.h"
#include "kernels/cuda/pad_body.h"
#include "kernels/cuda/slice_body.h"
#include "ops/common_shape_fns.h"

namespace weft {

// The dtypes the CUDA data-movement kernels register: TensorFlow's GPU float
// types and the integer and bool types its GPU data-movement kernels take.
// All move as 1, 2, 4 or 8 byte elements.
inline std::vector<DataType> CudaMovementTypes() {
  return {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64, DT_BOOL};
}

struct GpuSlicePlan {
  TensorShape shape;
  // The slice is all of the input in order: the output is the input
  // reshaped, and nothing is launched.
  bool forward_input = false;
  // Meaningful when the output has elements and is not forwarded.
  gpu::StridedCopyParams copy;
};

// Slice(input, begin, size), resolved by ResolveSlice (slice_shape.h) with
// its errors; Unimplemented when the copy needs more than
// gpu::kMaxMoveRank dimensions after merging.
StatusOr<GpuSlicePlan> PlanGpuSlice(const Tensor& input, const Tensor& begin,
                                    const Tensor& size);

// StridedSlice(input, begin, end, strides), resolved by
// ResolveStridedSlice (slice_shape.h) with its errors; Unimplemented as
// PlanGpuSlice.
StatusOr<GpuSlicePlan> PlanGpuStridedSlice(const Tensor& input,
                                           const Tensor& begin,
                                           const Tensor& end,
                                           const Tensor& strides,
                                           const StridedSliceMasks& masks);

struct GpuPadPlan {
  TensorShape shape;
  // No padding anywhere: the output is the input.
  bool forward_input = false;
  gpu::PadParams pad;
};

// Pad, PadV2 (kConstant) and MirrorPad of `input` by `paddings` (input 1),
// checked by ResolvePad (pad_shape.h) with its errors; Unimplemented when
// the padded dimensions need more than gpu::kMaxMoveRank after merging.
StatusOr<GpuPadPlan> PlanGpuPad(const Tensor& input, const Tensor& paddings,
                                PadMode mode);

// PadV2's constant_values (input 2): a scalar (CheckPadConstant), as bits
// for the launcher; InvalidArgument for a dtype wider than 8 bytes.
StatusOr<uint64_t> PadConstantBits(const Tensor& constant_values);

struct GpuGatherPlan {
  TensorShape shape;
  gpu::GatherParams gather;
};

// GatherV2(params, indices, axis) with the batch_dims attr, checked by
// ResolveGather (gather_shape.h) with its errors. Index values are not
// looked at (they are in device memory; see gather_body.h).
StatusOr<GpuGatherPlan> PlanGpuGather(const Tensor& params,
                                      const Tensor& indices, const Tensor& axis,
                                      int64_t batch_dims);

struct GpuFillPlan {
  TensorShape shape;
  uint64_t value_bits = 0;
};

// Fill(dims, value), both read on the host: the shape by ResolveFillShape
// (fill_shape.h) with its errors, the value as bits for the launcher.
StatusOr<GpuFillPlan> PlanGpuFill(const Tensor& dims, const Tensor& value);

// The bits of one in `dtype` (OnesLike, by OneElement in fill_shape.h);
// InvalidArgument for a dtype without a one or wider than 8 bytes.
StatusOr<uint64_t> OneBits(DataType dtype);

}  // namespace weft

#endif  // WEFT_KERNELS_CUDA_PLAN_MOVEMENT_PLAN_H_
