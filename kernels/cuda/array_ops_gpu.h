// Launchers of the CUDA data-movement kernels (array_ops_gpu.cu): Cast,
// Transpose, ConcatV2/Pack and Tile. Plain C++ with POD arguments, so that
// the .cu file includes nothing of weft, absl or Eigen; the OpKernel classes
// that plan and call them are in array_ops.cc and cast_op.cc, the
// per-element code in cast_body.h, transpose_body.h, concat_body.h and
// tile_body.h.
//
// Every launcher enqueues on `stream` and returns the launch error, not the
// kernel's outcome; an empty output enqueues nothing. The data-movement
// kernels never look at values, so they are compiled once per element size
// (1, 2, 4 or 8 bytes) rather than per dtype.
#ifndef WEFT_KERNELS_CUDA_ARRAY_OPS_GPU_H_
#define WEFT_KERNELS_CUDA_ARRAY_OPS_GPU_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/cast_body.h"
#include "kernels/cuda/concat_body.h"
#include "kernels/cuda/tile_body.h"
#include "kernels/cuda/transpose_body.h"

namespace weft::gpu {

// out[i] = Cast(in[i]) for i < n, from `src` to p.dst.
cudaError_t LaunchCast(CastType src, const CastParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream);

// out[i] = in[TransposeSource(p, i)] for i < n; element_size 1, 2, 4 or 8.
cudaError_t LaunchTranspose(int element_size, const TransposeParams& p,
                            const void* in, void* out, int64_t n,
                            cudaStream_t stream);

// The tiled swap of the last two dimensions: input [batch, rows, cols] to
// output [batch, cols, rows].
cudaError_t LaunchSwapTranspose(int element_size, const SwapParams& p,
                                const void* in, void* out, cudaStream_t stream);

// out[i] = in[TileSource(p, i)] for i < n.
cudaError_t LaunchTile(int element_size, const TileParams& p, const void* in,
                       void* out, int64_t n, cudaStream_t stream);

// Copies the rows x p.width elements of one ConcatLaunches entry.
cudaError_t LaunchConcat(int element_size, const ConcatParams& p, int64_t rows,
                         void* out, cudaStream_t stream);

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_ARRAY_OPS_GPU_H_
