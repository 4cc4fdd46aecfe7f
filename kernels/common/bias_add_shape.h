// The attribute and shape contract of BiasAdd, shared by its kernels on
// every device so that they accept the same graphs and report the same
// errors.
#ifndef WEFT_KERNELS_COMMON_BIAS_ADD_SHAPE_H_
#define WEFT_KERNELS_COMMON_BIAS_ADD_SHAPE_H_

#include <cstdint>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/op_kernel.h"

namespace weft {

// Reads attr 'data_format': true for "NCHW" (channels in dimension 1),
// false for "NHWC" (channels last); anything else is an error.
StatusOr<bool> ReadBiasAddChannelsFirst(OpKernelConstruction* ctx);

// Where value's channels are and how many there are, after checking that
// value has rank >= 2 and bias is a vector of one value per channel.
struct BiasAddDims {
  int channel_dim = 0;
  int64_t channels = 0;
};
StatusOr<BiasAddDims> GetBiasAddDims(const Tensor& value, const Tensor& bias,
                                     bool channels_first);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_BIAS_ADD_SHAPE_H_
