// TensorShape: a fully known shape. PartialTensorShape: a shape that may have
// unknown rank or unknown dimensions (-1), as graph files and shape inference
// use them.
#ifndef WEFT_CORE_TENSOR_SHAPE_H_
#define WEFT_CORE_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/status.h"

namespace weft {

// Upper bound on a tensor's element count (2^62), far above any memory but
// low enough that byte counts of 8-byte elements cannot overflow int64.
inline constexpr int64_t kMaxElements = int64_t{1} << 62;
inline constexpr int kMaxRank = 254;

class TensorShape {
 public:
  using Dims = absl::InlinedVector<int64_t, 4>;

  TensorShape() = default;  // a scalar

  // Checks every dimension (>= 0), the rank and the element count
  // (<= kMaxElements, computed without overflow).
  static StatusOr<TensorShape> Build(absl::Span<const int64_t> dims);

  // For dims known to be valid (tests, literals); invalid dims abort.
  TensorShape(std::initializer_list<int64_t> dims);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // Appends a dimension; fails on a negative size or element overflow.
  Status AddDim(int64_t size);

  // An element loop rather than the InlinedVector's ==, which compiles to a
  // call to memcmp: kernels compare a few dimensions on every run (the
  // binary element-wise kernels' equal-shape path).
  bool operator==(const TensorShape& o) const {
    if (dims_.size() != o.dims_.size() || num_elements_ != o.num_elements_) {
      return false;
    }
    for (size_t i = 0; i < dims_.size(); ++i) {
      if (dims_[i] != o.dims_[i]) return false;
    }
    return true;
  }
  bool operator!=(const TensorShape& o) const { return !(*this == o); }

  // "[2,3]"; a scalar prints as "[]".
  std::string DebugString() const;

 private:
  Dims dims_;
  int64_t num_elements_ = 1;
};

class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  // -1 marks an unknown dimension; other negatives are rejected.
  static StatusOr<PartialTensorShape> Build(absl::Span<const int64_t> dims);
  PartialTensorShape(std::initializer_list<int64_t> dims);
  explicit PartialTensorShape(const TensorShape& shape);

  static PartialTensorShape UnknownRank() { return PartialTensorShape(); }
  // Note `PartialTensorShape({})` is the default constructor (unknown rank);
  // a known scalar shape is spelled Scalar().
  static PartialTensorShape Scalar() {
    return PartialTensorShape(TensorShape());
  }

  bool unknown_rank() const { return unknown_rank_; }
  // -1 when the rank is unknown.
  int dims() const {
    return unknown_rank_ ? -1 : static_cast<int>(dims_.size());
  }
  int64_t dim_size(int i) const { return dims_[i]; }
  absl::Span<const int64_t> dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // Fails unless fully defined.
  StatusOr<TensorShape> ToTensorShape() const;
  // Whether a tensor of `shape` fits this partial shape.
  bool IsCompatibleWith(const TensorShape& shape) const;

  bool operator==(const PartialTensorShape& o) const {
    return unknown_rank_ == o.unknown_rank_ && dims_ == o.dims_;
  }
  bool operator!=(const PartialTensorShape& o) const { return !(*this == o); }

  // "[2,?]", "<unknown>" for unknown rank.
  std::string DebugString() const;

 private:
  bool unknown_rank_ = true;
  TensorShape::Dims dims_;
};

}  // namespace weft

#endif  // WEFT_CORE_TENSOR_SHAPE_H_
