// BinaryBroadcast: how the shapes of a binary element-wise op's two inputs
// combine under NumPy broadcasting, and the simplest loop nest that produces
// the result.
//
// Broadcasting right-aligns the shapes; in each dimension the sizes must be
// equal or one of them 1, and the output takes the larger. Before any math
// the shapes are simplified: dimensions where the output is 1 carry no
// information and are dropped, and runs of adjacent dimensions in which each
// input is either complete or broadcast in the same way are merged. A
// [8,1,3,4] + [3,4] pair becomes a [8,12] output with x complete and y
// repeated along the first dimension, so kernels need only a two-level loop
// whatever the original rank, and no rank limit arises.
//
// The class is plain shape arithmetic with no dtype, so every element-wise
// kernel (arithmetic, comparisons, selects) shares one compiled copy.
#ifndef WEFT_KERNELS_COMMON_BROADCAST_H_
#define WEFT_KERNELS_COMMON_BROADCAST_H_

#include <cstdint>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor_shape.h"

namespace weft {

class BinaryBroadcast {
 public:
  using Dims = absl::InlinedVector<int64_t, 6>;

  // Describes x and y broadcast together. InvalidArgument when they do not
  // broadcast, naming both shapes and the first dimension of the result
  // where they disagree: "x has shape [2,3] and y has shape [4], which do not
  // broadcast: in dimension 1 of the rank-2 result x has size 3 and y has
  // size 4; broadcasting needs equal sizes or a 1". Kept on the stack by
  // kernels (no allocation below rank 7), so it is filled in place.
  Status Init(const TensorShape& x, const TensorShape& y);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t output_size() const { return output_shape_.num_elements(); }

  // Each input covers the whole output by itself (same element count as the
  // output): a flat element-by-element loop, and either input may become the
  // output's buffer.
  bool x_complete() const { return x_size_ == output_size(); }
  bool y_complete() const { return y_size_ == output_size(); }
  // One element, repeated everywhere.
  bool x_is_scalar() const { return x_size_ == 1; }
  bool y_is_scalar() const { return y_size_ == 1; }

  // The merged loop nest (empty for a scalar or empty output): the output
  // dimensions and, per dimension, each input's stride in elements, 0 where
  // that input is repeated. Row-major: the last dimension is innermost, and
  // in it at least one input has stride 1 and the other stride 1 or 0.
  absl::Span<const int64_t> reduced_dims() const { return dims_; }
  absl::Span<const int64_t> x_strides() const { return x_strides_; }
  absl::Span<const int64_t> y_strides() const { return y_strides_; }

 private:
  TensorShape output_shape_;
  int64_t x_size_ = 0;
  int64_t y_size_ = 0;
  Dims dims_;
  Dims x_strides_;
  Dims y_strides_;
};

// The same for any number of inputs (SelectV2's condition, then and else):
// NumPy broadcasting of all the shapes together, simplified the same way
// (output dimensions of size 1 dropped, adjacent dimensions merged when every
// input is complete in both or repeated in both).
class MultiBroadcast {
 public:
  using Dims = BinaryBroadcast::Dims;

  // `names` name the inputs in errors, one per shape: "condition has shape
  // [2], t has shape [3] and e has shape [3], which do not broadcast: in
  // dimension 0 of the rank-1 result condition has size 2 and t has size 3;
  // broadcasting needs equal sizes or a 1".
  Status Init(absl::Span<const TensorShape* const> shapes,
              absl::Span<const absl::string_view> names);

  const TensorShape& output_shape() const { return output_shape_; }
  int64_t output_size() const { return output_shape_.num_elements(); }
  int num_inputs() const { return static_cast<int>(strides_.size()); }

  // The merged loop nest (empty for a scalar or empty output), row-major,
  // and per input its stride in elements in each of those dimensions, 0
  // where it is repeated.
  absl::Span<const int64_t> reduced_dims() const { return dims_; }
  absl::Span<const int64_t> strides(int i) const { return strides_[i]; }

 private:
  TensorShape output_shape_;
  Dims dims_;
  absl::InlinedVector<Dims, 3> strides_;
};

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_BROADCAST_H_
