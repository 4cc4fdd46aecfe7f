#include "kernels/common/bias_add_shape.h"

#include <string>

namespace weft {

StatusOr<bool> ReadBiasAddChannelsFirst(OpKernelConstruction* ctx) {
  std::string format;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    return errors::InvalidArgument(
        "attr 'data_format' must be 'NHWC' or 'NCHW', got '", format, "'");
  }
  return format == "NCHW";
}

StatusOr<BiasAddDims> GetBiasAddDims(const Tensor& value, const Tensor& bias,
                                     bool channels_first) {
  if (value.dims() < 2) {
    return errors::InvalidArgument("value must have rank >= 2, but has shape ",
                                   value.shape().DebugString());
  }
  if (bias.dims() != 1) {
    return errors::InvalidArgument(
        "bias must be a vector (rank 1), but has shape ",
        bias.shape().DebugString());
  }
  BiasAddDims d;
  d.channel_dim = channels_first ? 1 : value.dims() - 1;
  d.channels = value.dim_size(d.channel_dim);
  if (bias.dim_size(0) != d.channels) {
    return errors::InvalidArgument(
        "bias has shape ", bias.shape().DebugString(), " but value has shape ",
        value.shape().DebugString(), " whose channel dimension (",
        d.channel_dim, ", data_format ", channels_first ? "NCHW" : "NHWC",
        ") has size ", d.channels);
  }
  return d;
}

}  // namespace weft
