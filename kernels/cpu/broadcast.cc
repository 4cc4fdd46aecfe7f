#include "kernels/cpu/broadcast.h"

#include <algorithm>

namespace weft {
namespace {

// How one output dimension reads the inputs.
enum class Pattern { kBoth, kXRepeated, kYRepeated };

}  // namespace

Status BinaryBroadcast::Init(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  const int x_pad = rank - x.dims();
  const int y_pad = rank - y.dims();

  x_size_ = x.num_elements();
  y_size_ = y.num_elements();
  dims_.clear();
  x_strides_.clear();
  y_strides_.clear();

  TensorShape::Dims out_dims;
  Dims merged;
  absl::InlinedVector<Pattern, 6> patterns;
  for (int d = 0; d < rank; ++d) {
    const int64_t xd = d < x_pad ? 1 : x.dim_size(d - x_pad);
    const int64_t yd = d < y_pad ? 1 : y.dim_size(d - y_pad);
    int64_t od;
    Pattern p;
    if (xd == yd) {
      od = xd;
      p = Pattern::kBoth;
    } else if (xd == 1) {
      od = yd;
      p = Pattern::kXRepeated;
    } else if (yd == 1) {
      od = xd;
      p = Pattern::kYRepeated;
    } else {
      return errors::InvalidArgument(
          "x has shape ", x.DebugString(), " and y has shape ", y.DebugString(),
          ", which do not broadcast: in dimension ", d, " of the rank-", rank,
          " result x has size ", xd, " and y has size ", yd,
          "; broadcasting needs equal sizes or a 1");
    }
    out_dims.push_back(od);
    // A size-1 output dimension adds nothing to the loop nest.
    if (od == 1) continue;
    if (!patterns.empty() && patterns.back() == p) {
      merged.back() *= od;  // cannot overflow: bounded by the output size
    } else {
      patterns.push_back(p);
      merged.push_back(od);
    }
  }
  // Each input was a valid shape, and every output dimension equals one of
  // theirs, so only the product needs checking.
  WEFT_ASSIGN_OR_RETURN(output_shape_, TensorShape::Build(out_dims));
  if (output_shape_.num_elements() == 0) return Status();

  const int n = static_cast<int>(merged.size());
  dims_ = merged;
  x_strides_.assign(n, 0);
  y_strides_.assign(n, 0);
  int64_t x_stride = 1;
  int64_t y_stride = 1;
  for (int i = n - 1; i >= 0; --i) {
    if (patterns[i] != Pattern::kXRepeated) {
      x_strides_[i] = x_stride;
      x_stride *= merged[i];
    }
    if (patterns[i] != Pattern::kYRepeated) {
      y_strides_[i] = y_stride;
      y_stride *= merged[i];
    }
  }
  return Status();
}

}  // namespace weft
