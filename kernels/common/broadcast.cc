#include "kernels/common/broadcast.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

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

Status MultiBroadcast::Init(absl::Span<const TensorShape* const> shapes,
                            absl::Span<const absl::string_view> names) {
  const int n = static_cast<int>(shapes.size());
  if (names.size() != shapes.size() || n > 64) {
    return errors::Internal("MultiBroadcast: ", n, " shapes and ", names.size(),
                            " names (at most 64 inputs)");
  }
  int rank = 0;
  for (const TensorShape* s : shapes) rank = std::max(rank, s->dims());
  dims_.clear();
  strides_.assign(n, Dims());

  // Per merged dimension: its size and which inputs are complete in it (a
  // bit per input).
  TensorShape::Dims out_dims;
  Dims merged;
  absl::InlinedVector<uint64_t, 6> masks;
  for (int d = 0; d < rank; ++d) {
    int64_t od = 1;
    int first = -1;  // the first input with a size other than 1
    for (int i = 0; i < n; ++i) {
      const int pad = rank - shapes[i]->dims();
      const int64_t size = d < pad ? 1 : shapes[i]->dim_size(d - pad);
      if (size == 1) continue;
      if (first < 0) {
        first = i;
        od = size;
      } else if (size != od) {
        std::string all;
        for (int j = 0; j < n; ++j) {
          absl::StrAppend(&all, j == 0 ? "" : (j + 1 == n ? " and " : ", "),
                          names[j], " has shape ", shapes[j]->DebugString());
        }
        return errors::InvalidArgument(
            all, ", which do not broadcast: in dimension ", d, " of the rank-",
            rank, " result ", names[first], " has size ", od, " and ", names[i],
            " has size ", size, "; broadcasting needs equal sizes or a 1");
      }
    }
    out_dims.push_back(od);
    if (od == 1) continue;
    uint64_t mask = 0;
    for (int i = 0; i < n; ++i) {
      const int pad = rank - shapes[i]->dims();
      if (d >= pad && shapes[i]->dim_size(d - pad) == od) {
        mask |= uint64_t{1} << i;
      }
    }
    if (!masks.empty() && masks.back() == mask) {
      // Cannot overflow: the inputs in `mask` (at least one) hold all the
      // merged dimensions, so the product is at most their element count.
      merged.back() *= od;
    } else {
      masks.push_back(mask);
      merged.push_back(od);
    }
  }
  WEFT_ASSIGN_OR_RETURN(output_shape_, TensorShape::Build(out_dims));
  if (output_shape_.num_elements() == 0) return Status();

  dims_ = merged;
  const int m = static_cast<int>(merged.size());
  for (int i = 0; i < n; ++i) {
    strides_[i].assign(m, 0);
    int64_t stride = 1;
    for (int d = m - 1; d >= 0; --d) {
      if (masks[d] & (uint64_t{1} << i)) {
        strides_[i][d] = stride;
        stride *= merged[d];
      }
    }
  }
  return Status();
}

}  // namespace weft
