#include "core/tensor_shape.h"

#include <cstdlib>

#include "absl/strings/str_join.h"

namespace weft {

StatusOr<TensorShape> TensorShape::Build(absl::Span<const int64_t> dims) {
  if (dims.size() > kMaxRank) {
    return errors::InvalidArgument("shape has rank ", dims.size(),
                                   ", more than the maximum ", kMaxRank);
  }
  TensorShape shape;
  for (int64_t d : dims) WEFT_RETURN_IF_ERROR(shape.AddDim(d));
  return shape;
}

TensorShape::TensorShape(std::initializer_list<int64_t> dims) {
  for (int64_t d : dims) {
    if (!AddDim(d).ok()) std::abort();
  }
}

Status TensorShape::AddDim(int64_t size) {
  if (size < 0) {
    return errors::InvalidArgument("dimension ", dims_.size(), " of shape ",
                                   DebugString(), " extended by ", size,
                                   " is negative");
  }
  if (dims_.size() >= kMaxRank) {
    return errors::InvalidArgument("shape rank exceeds the maximum ",
                                   kMaxRank);
  }
  int64_t n = num_elements_;
  if (size != 0 && n > kMaxElements / size) {
    dims_.push_back(size);
    std::string s = DebugString();
    dims_.pop_back();
    return errors::InvalidArgument("shape ", s, " has more than 2^62 elements");
  }
  dims_.push_back(size);
  num_elements_ = n * size;
  return Status();
}

std::string TensorShape::DebugString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

StatusOr<PartialTensorShape> PartialTensorShape::Build(
    absl::Span<const int64_t> dims) {
  if (dims.size() > kMaxRank) {
    return errors::InvalidArgument("shape has rank ", dims.size(),
                                   ", more than the maximum ", kMaxRank);
  }
  PartialTensorShape shape;
  shape.unknown_rank_ = false;
  for (int64_t d : dims) {
    if (d < -1) {
      return errors::InvalidArgument("shape dimension ", shape.dims_.size(),
                                     " is ", d, "; expected -1 or >= 0");
    }
    shape.dims_.push_back(d);
  }
  // Check the known part for overflow the same way a full shape would.
  int64_t n = 1;
  for (int64_t d : shape.dims_) {
    if (d <= 0) continue;
    if (n > kMaxElements / d) {
      return errors::InvalidArgument("shape ", shape.DebugString(),
                                     " has more than 2^62 elements");
    }
    n *= d;
  }
  return shape;
}

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dims) {
  auto built = Build(std::vector<int64_t>(dims));
  if (!built.ok()) std::abort();
  *this = *std::move(built);
}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : unknown_rank_(false),
      dims_(shape.dim_sizes().begin(), shape.dim_sizes().end()) {}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

StatusOr<TensorShape> PartialTensorShape::ToTensorShape() const {
  if (!IsFullyDefined()) {
    return errors::InvalidArgument("shape ", DebugString(),
                                   " is not fully defined");
  }
  return TensorShape::Build(dims_);
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  if (unknown_rank_) return true;
  if (static_cast<int>(dims_.size()) != shape.dims()) return false;
  for (int i = 0; i < shape.dims(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != shape.dim_size(i)) return false;
  }
  return true;
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "<unknown>";
  return absl::StrCat(
      "[",
      absl::StrJoin(dims_, ",",
                    [](std::string* out, int64_t d) {
                      if (d < 0) {
                        out->push_back('?');
                      } else {
                        absl::StrAppend(out, d);
                      }
                    }),
      "]");
}

}  // namespace weft
