// Outputs that alias an input's buffer, the same on every device: the
// buffer is never read, only shared or handed over.
#ifndef WEFT_KERNELS_COMMON_ALIAS_OUTPUT_H_
#define WEFT_KERNELS_COMMON_ALIAS_OUTPUT_H_

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "kernels/op_kernel.h"

namespace weft {

// Output 0 is input `index`'s buffer viewed as `shape`; nothing is copied.
// `shape` may be the error of the computation that gave it, which is set
// on `ctx` instead.
// Errors: `shape` holds a different number of elements than the input
// (Tensor::Reshaped's InvalidArgument), set on `ctx`.
void ForwardInputWithShape(OpKernelContext* ctx, int index,
                           const StatusOr<TensorShape>& shape);

// Snapshot's output 0, a value that later in-place writes to input 0 cannot
// change: input 0's buffer, taken over when nothing else holds it (as
// TensorFlow does), else a new buffer of its shape on the kernel's device.
// Returns that new output, whose elements the caller copies from input 0
// in the device's way; nullptr when there is nothing to copy (the buffer
// was taken over, the input is empty, or the allocation failed, which is
// set on `ctx`).
Tensor* SnapshotOutputToFill(OpKernelContext* ctx);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_ALIAS_OUTPUT_H_
