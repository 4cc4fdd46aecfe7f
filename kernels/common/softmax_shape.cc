#include "kernels/common/softmax_shape.h"

namespace weft {

StatusOr<SoftmaxDims> GetSoftmaxDims(const TensorShape& logits) {
  if (logits.dims() < 1) {
    return errors::InvalidArgument("logits must have rank >= 1, but has shape ",
                                   logits.DebugString());
  }
  SoftmaxDims d;
  d.depth = logits.dim_size(logits.dims() - 1);
  // An empty row (depth 0) leaves no row to normalize either.
  d.rows = logits.num_elements() == 0 ? 0 : logits.num_elements() / d.depth;
  return d;
}

}  // namespace weft
