// TensorList: the value behind TensorFlow's TensorList* ops (a variant
// scalar per list), as Keras RNN loops and tf.TensorArray in TF2 graphs use
// it. A list holds its element dtype, the element shape every item must fit
// (partial: unknown rank or dimensions allowed), its items, and an optional
// bound on its length (max_num_elements, -1 for none).
//
// An item is an ordinary Tensor that shares its buffer with whoever produced
// it; an uninitialized Tensor is an item not yet set (TensorListReserve,
// TensorListResize), read as zeros of the element shape. Lists are values:
// the ops return new lists, copying only the vector of item handles, and
// change a list in place only when they hold its sole reference
// (Variant::MutableIfUnique).
#ifndef WEFT_CORE_TENSOR_LIST_H_
#define WEFT_CORE_TENSOR_LIST_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "core/variant.h"

namespace weft {

class TensorList : public VariantValue {
 public:
  TensorList() = default;
  TensorList(DataType element_dtype, PartialTensorShape element_shape)
      : element_dtype(element_dtype), element_shape(std::move(element_shape)) {}

  const char* TypeName() const override { return "tensorflow::TensorList"; }
  // "TensorList<float [?,4], 3 items>"
  std::string DebugString() const override;

  DataType element_dtype = DT_INVALID;
  PartialTensorShape element_shape;
  std::vector<Tensor> tensors;
  int64_t max_num_elements = -1;
};

// The most specific shape that fits both `a` and `b`; InvalidArgument
// naming both when their ranks or a known dimension differ.
Status MergeShapes(const PartialTensorShape& a, const PartialTensorShape& b,
                   PartialTensorShape* out);

// Whether some tensor shape fits both.
bool ShapesCompatible(const PartialTensorShape& a, const PartialTensorShape& b);

}  // namespace weft

#endif  // WEFT_CORE_TENSOR_LIST_H_
