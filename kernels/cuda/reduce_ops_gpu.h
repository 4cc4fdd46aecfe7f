// Launchers of the CUDA reductions and of Softmax / LogSoftmax
// (reduce_ops_gpu.cu). Plain C++ with POD arguments, like cwise_ops_gpu.h;
// the per-element code is in reduce_body.h and softmax_body.h, the OpKernel
// classes in reduce_ops.cc and softmax_op.cc.
//
// Every launcher enqueues on `stream` and returns the launch error, not the
// kernel's outcome; nothing is enqueued when there is no output element.
#ifndef WEFT_KERNELS_CUDA_REDUCE_OPS_GPU_H_
#define WEFT_KERNELS_CUDA_REDUCE_OPS_GPU_H_

#include <cstdint>

#include <cuda_runtime_api.h>

#include "kernels/cuda/cwise_ops_gpu.h"
#include "kernels/cuda/reduce_body.h"
#include "kernels/cuda/softmax_body.h"

namespace weft::gpu {

// One reduction pass (see reduce_body.h): `in` holds elements of in_type
// ([outer, len, inner]), `out` receives p.num_outputs() elements of
// out_type. Only the (float or half) -> (float or half) pairs exist.
cudaError_t LaunchReduce(const ReduceParams& p, ElementType in_type,
                         const void* in, ElementType out_type, void* out,
                         cudaStream_t stream);

// Softmax or LogSoftmax of p.rows rows of p.depth elements; x and y may be
// the same buffer.
cudaError_t LaunchSoftmax(const SoftmaxParams& p, ElementType type,
                          const void* x, void* y, cudaStream_t stream);

}  // namespace weft::gpu

#endif  // WEFT_KERNELS_CUDA_REDUCE_OPS_GPU_H_
