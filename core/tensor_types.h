// Eigen views of a Tensor: TTypes<T, N> names the TensorMap types, and this
// header defines Tensor's flat/vec/matrix/tensor accessors. Include it only
// where a kernel does math on tensors.
#ifndef WEFT_CORE_TENSOR_TYPES_H_
#define WEFT_CORE_TENSOR_TYPES_H_

#include <unsupported/Eigen/CXX11/Tensor>

#include "core/dtype_traits.h"
#include "core/logging.h"
#include "core/tensor.h"

namespace weft {

template <typename T, int NDIMS, typename IndexType>
struct TTypes {
  using Tensor = Eigen::TensorMap<
      Eigen::Tensor<T, NDIMS, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
  using ConstTensor = Eigen::TensorMap<
      Eigen::Tensor<const T, NDIMS, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using Scalar = Eigen::TensorMap<
      Eigen::TensorFixedSize<T, Eigen::Sizes<>, Eigen::RowMajor, IndexType>,
      Eigen::Aligned>;
  using Flat = Eigen::TensorMap<
      Eigen::Tensor<T, 1, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
  using ConstFlat = Eigen::TensorMap<
      Eigen::Tensor<const T, 1, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
  using Vec = Flat;
  using ConstVec = ConstFlat;
  using Matrix = Eigen::TensorMap<
      Eigen::Tensor<T, 2, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
  using ConstMatrix = Eigen::TensorMap<
      Eigen::Tensor<const T, 2, Eigen::RowMajor, IndexType>, Eigen::Aligned>;
};

template <typename T>
typename TTypes<T>::Flat Tensor::flat() const {
  return typename TTypes<T>::Flat(data<T>(), NumElements());
}

template <typename T>
typename TTypes<T>::Vec Tensor::vec() const {
  CheckRank(1);
  return typename TTypes<T>::Vec(data<T>(), dim_size(0));
}

template <typename T>
typename TTypes<T>::Matrix Tensor::matrix() const {
  CheckRank(2);
  return typename TTypes<T>::Matrix(data<T>(), dim_size(0), dim_size(1));
}

template <typename T>
typename TTypes<T>::Scalar Tensor::scalar() const {
  WEFT_CHECK_MSG(NumElements() == 1, "scalar() on a tensor with != 1 element");
  return typename TTypes<T>::Scalar(data<T>());
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::tensor() const {
  CheckRank(NDIMS);
  Eigen::array<std::ptrdiff_t, NDIMS> dims;
  for (int i = 0; i < NDIMS; ++i) dims[i] = dim_size(i);
  return typename TTypes<T, NDIMS>::Tensor(data<T>(), dims);
}

template <typename T>
typename TTypes<T>::Matrix Tensor::flat_inner_dims() const {
  int64_t inner = dims() == 0 ? 1 : dim_size(dims() - 1);
  int64_t outer = 1;
  for (int i = 0; i + 1 < dims(); ++i) outer *= dim_size(i);
  return typename TTypes<T>::Matrix(data<T>(), outer, inner);
}

template <typename T, int NDIMS>
typename TTypes<T, NDIMS>::Tensor Tensor::shaped(
    absl::Span<const int64_t> new_sizes) const {
  WEFT_CHECK(static_cast<int>(new_sizes.size()) == NDIMS);
  Eigen::array<std::ptrdiff_t, NDIMS> dims;
  int64_t n = 1;
  for (int i = 0; i < NDIMS; ++i) {
    dims[i] = new_sizes[i];
    n *= new_sizes[i];
  }
  WEFT_CHECK_MSG(n == NumElements(), "shaped() changes the element count");
  return typename TTypes<T, NDIMS>::Tensor(data<T>(), dims);
}

}  // namespace weft

#endif  // WEFT_CORE_TENSOR_TYPES_H_
