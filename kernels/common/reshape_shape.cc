#include "kernels/common/reshape_shape.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<TensorShape> GetReshapeShape(const TensorShape& input,
                                      const Tensor& sizes) {
  // A scalar is TensorFlow's legacy spelling of a one-element shape.
  if (sizes.dims() > 1) {
    return errors::InvalidArgument(
        "shape (input 1) must be a vector but has shape ",
        sizes.shape().DebugString());
  }
  std::vector<int64_t> dims;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(sizes, "shape (input 1)", &dims));
  int unknown = -1;
  int64_t product = 1;  // of the known non-zero sizes
  bool sizes_have_zero = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == -1) {
      if (unknown >= 0) {
        return errors::InvalidArgument(
            "shape (input 1) is ", IndexListString(dims),
            "; only one size may be -1, but ", unknown, " and ", d, " are");
      }
      unknown = static_cast<int>(d);
    } else if (dims[d] < 0) {
      return errors::InvalidArgument(
          "shape (input 1) is ", IndexListString(dims), "; size ", d, " is ",
          dims[d], " but sizes must be >= 0, or -1 to infer one");
    } else if (dims[d] == 0) {
      sizes_have_zero = true;
    } else if (__builtin_mul_overflow(product, dims[d], &product)) {
      return errors::InvalidArgument("shape (input 1) ", IndexListString(dims),
                                     " has too many elements");
    }
  }
  if (unknown >= 0) {
    // Zero-size input dimensions are left out too when the target has a
    // zero (TensorFlow's rule), so the other sizes can still be inferred.
    int64_t input_count = 1;
    bool input_has_zero = false;
    for (int d = 0; d < input.dims(); ++d) {
      if (input.dim_size(d) == 0 && sizes_have_zero) {
        input_has_zero = true;
      } else if (__builtin_mul_overflow(input_count, input.dim_size(d),
                                        &input_count)) {
        return errors::InvalidArgument(
            "cannot infer the -1 in ", IndexListString(dims), " for input 0 ",
            input.DebugString(), ": its non-zero sizes overflow int64");
      }
    }
    const int64_t missing = input_count / product;
    if (!input_has_zero && missing * product != input_count) {
      return errors::InvalidArgument(
          "cannot reshape input 0 ", input.DebugString(), " (",
          input.num_elements(), " elements) to ", IndexListString(dims),
          ": the known sizes multiply to ", product, ", which does not divide ",
          input_count);
    }
    dims[unknown] = missing;
  }
  StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok() || shape->num_elements() != input.num_elements()) {
    return errors::InvalidArgument(
        "cannot reshape input 0 ", input.DebugString(), " (",
        input.num_elements(), " elements) to ", IndexListString(dims),
        shape.ok() ? " (" : "",
        shape.ok() ? absl::StrCat(shape->num_elements()) : "",
        shape.ok() ? " elements)" : "");
  }
  return shape;
}

StatusOr<TensorShape> GetExpandDimsShape(const TensorShape& input,
                                         const Tensor& dim_t) {
  if (dim_t.NumElements() != 1) {
    return errors::InvalidArgument(
        "dim (input 1) must hold exactly one value but has shape ",
        dim_t.shape().DebugString());
  }
  std::vector<int64_t> values;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(dim_t, "dim (input 1)", &values));
  const int64_t rank = input.dims();
  int64_t dim = values[0];
  if (dim < -rank - 1 || dim > rank) {
    return errors::InvalidArgument("dim (input 1) is ", dim,
                                   " but must be in [", -rank - 1, ", ", rank,
                                   "] for input 0 ", input.DebugString());
  }
  if (rank >= kMaxRank) {
    return errors::InvalidArgument("input 0 already has the maximum rank ",
                                   kMaxRank);
  }
  if (dim < 0) dim += rank + 1;
  std::vector<int64_t> dims(input.dim_sizes().begin(), input.dim_sizes().end());
  dims.insert(dims.begin() + dim, 1);
  return TensorShape::Build(dims);
}

StatusOr<TensorShape> GetSqueezeShape(const TensorShape& input,
                                      absl::Span<const int64_t> squeeze_dims) {
  const int64_t rank = input.dims();
  std::set<int64_t> wanted;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument(
          "attr 'squeeze_dims' names dimension ", d, " but input 0 ",
          input.DebugString(), " has rank ", rank, "; dimensions must be in [",
          -rank, ", ", rank, ")");
    }
    wanted.insert(d < 0 ? d + rank : d);
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t size = input.dim_size(static_cast<int>(d));
    if (wanted.count(d) > 0) {
      if (size != 1) {
        return errors::InvalidArgument("cannot squeeze dimension ", d,
                                       " of input 0 ", input.DebugString(),
                                       ": its size is ", size, ", not 1");
      }
      continue;
    }
    if (wanted.empty() && size == 1) continue;
    dims.push_back(size);
  }
  return TensorShape::Build(dims);
}

}  // namespace weft
