// Launchers of the CUDA data-movement kernels of Slice, StridedSlice, Pad,
// PadV2, MirrorPad, GatherV2, Fill, ZerosLike and OnesLike
// (slice_ops_gpu.cu). Plain C++ with POD arguments, like cwise_ops_gpu.h;
// the OpKernel classes that plan and call them are slice_ops.cc, pad_ops.cc,
// gather_op.cc and fill_ops.cc, their planning
// kernels/cuda/plan/movement_plan.h.
//
// The kernels move elements without looking at them, so they take the
// element size in bytes (1, 2, 4 or 8; anything else is
// cudaErrorInvalidValue) instead of a dtype. Constants (the pad value, the
// fill value) are passed as their bit pattern in the low `element_bytes`
// bytes of a uint64_t. Every launcher enqueues on `stream` and returns the
// launch error; n == 0 enqueues nothing.
#ifndef WEFT_KERNELS_CUDA_SLICE_OPS_GPU_H_
#define WEFT_KERNELS_CUDA_SLICE_OPS_GPU_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/gather_body.h"
#include "kernels/cuda/pad_body.h"
#include "kernels/cuda/slice_body.h"

namespace weft::gpu {

// out[i] = in[StridedCopySource(params, i)] for i < n.
cudaError_t LaunchStridedCopy(int element_bytes, const void* in, void* out,
                              int64_t n, const StridedCopyParams& params,
                              cudaStream_t stream);

// out[i] = in[PadSource(params, i)], or the constant where that is -1.
cudaError_t LaunchPad(int element_bytes, const void* in, uint64_t value_bits,
                      void* out, int64_t n, const PadParams& params,
                      cudaStream_t stream);

// GatherElement for i < n; indices are int32 or, with index_is_64, int64.
cudaError_t LaunchGather(int element_bytes, bool index_is_64,
                         const void* params, const void* indices, void* out,
                         int64_t n, const GatherParams& gather,
                         cudaStream_t stream);

// out[i] = value for i < n.
cudaError_t LaunchFill(int element_bytes, uint64_t value_bits, void* out,
                       int64_t n, cudaStream_t stream);

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_SLICE_OPS_GPU_H_
