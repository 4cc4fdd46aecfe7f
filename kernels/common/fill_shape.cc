#include "kernels/common/fill_shape.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/dtype_traits.h"
#include "kernels/common/copy_util.h"

namespace weft {

StatusOr<TensorShape> ResolveFillShape(const Tensor& dims_t,
                                       const Tensor& value) {
  if (dims_t.dims() != 1) {
    return errors::InvalidArgument("dims (input 0) must be a vector but has ",
                                   "shape ", dims_t.shape().DebugString());
  }
  if (!(value.dims() == 0 || (value.dims() == 1 && value.dim_size(0) == 1))) {
    return errors::InvalidArgument("value (input 1) must be a scalar but has ",
                                   "shape ", value.shape().DebugString());
  }
  std::vector<int64_t> dims;
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(dims_t, "dims (input 0)", &dims));
  StatusOr<TensorShape> shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    return errors::InvalidArgument(
        "dims (input 0) are ", IndexListString(dims),
        ", which is not a valid shape: ", shape.status().message());
  }
  return shape;
}

Status OneElement(DataType dtype, unsigned char one[16]) {
  const bool known = VisitNumericType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = static_cast<T>(1);
    static_assert(sizeof(T) <= 16);
    std::memcpy(one, &value, sizeof(T));
  });
  if (!known) {
    return errors::InvalidArgument("OnesLike has no one for ",
                                   DataTypeName(dtype));
  }
  return Status();
}

}  // namespace weft
