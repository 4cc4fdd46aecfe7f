// What Shape, Size and Rank write, shared by their kernels on every
// device: input 0's dimensions, element count or rank as output 0 in the
// output's dtype (the out_type attr, int32 or int64). Only the input's
// metadata is read, never its buffer, and output 0 is written from the
// host, so a kernel on a device must keep its output in host memory.
//
// Errors (InvalidArgument): an int32 output refuses a value above
// INT32_MAX and names out_type int64 as the fix.
#ifndef WEFT_KERNELS_COMMON_SHAPE_SIZE_RANK_H_
#define WEFT_KERNELS_COMMON_SHAPE_SIZE_RANK_H_

#include "kernels/op_kernel.h"

namespace weft {

// Shape: a vector of input 0's dimension sizes.
void WriteShapeOutput(OpKernelContext* ctx);
// Size: a scalar, input 0's element count.
void WriteSizeOutput(OpKernelContext* ctx);
// Rank: a scalar, input 0's number of dimensions.
void WriteRankOutput(OpKernelContext* ctx);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_SHAPE_SIZE_RANK_H_
