#include "kernels/common/batch_norm_shape.h"

#include <string>

namespace weft {

Status ReadBatchNormAttrs(OpKernelConstruction* ctx, BatchNormAttrs* attrs) {
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("epsilon", &attrs->epsilon));
  WEFT_RETURN_IF_ERROR(
      ctx->GetAttr("exponential_avg_factor", &attrs->exponential_avg_factor));
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("is_training", &attrs->is_training));
  std::string format;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NDHWC" && format != "NCHW" &&
      format != "NCDHW") {
    return errors::InvalidArgument(
        "data_format '", format,
        "' is not supported; expected NHWC, NCHW, NDHWC or NCDHW");
  }
  attrs->format = format;
  return Status();
}

bool BatchNormUsesEstimates(const BatchNormAttrs& attrs) {
  return !attrs.is_training || attrs.exponential_avg_factor != 1;
}

StatusOr<BatchNormLayout> GetBatchNormLayout(
    const BatchNormAttrs& attrs, const TensorShape& x,
    const TensorShape* const stats[4]) {
  const std::string& format = attrs.format;
  const int rank = static_cast<int>(format.size());
  if (x.dims() != rank) {
    return errors::InvalidArgument("x must have rank ", rank, " for ", format,
                                   " but has shape ", x.DebugString());
  }
  BatchNormLayout l;
  l.channels_last = format == "NHWC" || format == "NDHWC";
  l.channels = x.dim_size(l.channels_last ? rank - 1 : 1);
  if (l.channels_last) {
    l.outer = l.channels == 0 ? 0 : x.num_elements() / l.channels;
    l.inner = 1;
  } else {
    l.outer = x.dim_size(0);
    l.inner = 1;
    for (int d = 2; d < rank; ++d) l.inner *= x.dim_size(d);
  }
  const bool uses_estimates = BatchNormUsesEstimates(attrs);
  static constexpr const char* kNames[] = {"scale", "offset", "mean",
                                           "variance"};
  for (int i = 0; i < (uses_estimates ? 4 : 2); ++i) {
    const TensorShape& v = *stats[i];
    if (v.dims() != 1 || v.dim_size(0) != l.channels) {
      return errors::InvalidArgument(
          kNames[i], " (input ", i + 1, ") has shape ", v.DebugString(),
          " but must be [", l.channels, "], one value per channel of x ",
          x.DebugString(),
          attrs.is_training
              ? " (mean and variance are needed when training with "
                "exponential_avg_factor != 1)"
              : "");
    }
  }
  for (int i = 2; i < 4 && !uses_estimates; ++i) {
    if (stats[i]->dims() != 1) {
      return errors::InvalidArgument(kNames[i], " (input ", i + 1,
                                     ") must be a vector but has shape ",
                                     stats[i]->DebugString());
    }
  }
  return l;
}

}  // namespace weft
