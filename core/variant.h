// Variant: the element type of DT_VARIANT tensors. A variant element holds
// one value of any class derived from VariantValue (a TensorList, ...), or
// nothing. Copying a Variant shares the value; values are immutable while
// shared, so a kernel that wants to change one either owns it alone
// (MutableIfUnique) or makes a copy: copy-on-write.
//
// Only tensors of dtype DT_VARIANT and DT_RESOURCE construct and destroy
// Variant elements (core/tensor.cc); tensors of every other dtype never touch
// this header. A DT_RESOURCE element holds a mutable object its kernels
// share (a TensorArray, kernels/cpu/tensor_array_ops.cc): copying the handle
// shares the object, which lives as long as some handle holds it.
#ifndef WEFT_CORE_VARIANT_H_
#define WEFT_CORE_VARIANT_H_

#include <memory>
#include <string>
#include <utility>

#include "core/logging.h"
#include "core/tensor.h"
#include "core/types.h"

namespace weft {

class VariantValue {
 public:
  VariantValue() = default;
  VariantValue(const VariantValue&) = default;
  VariantValue& operator=(const VariantValue&) = default;
  virtual ~VariantValue() = default;

  // The name TensorFlow gives the value's type ("tensorflow::TensorList").
  virtual const char* TypeName() const = 0;
  // A short description for messages and SummarizeValue.
  virtual std::string DebugString() const = 0;
};

class Variant {
 public:
  Variant() = default;
  explicit Variant(std::shared_ptr<VariantValue> value)
      : value_(std::move(value)) {}

  bool empty() const { return value_ == nullptr; }
  const char* TypeName() const {
    return value_ ? value_->TypeName() : "<empty>";
  }
  std::string DebugString() const {
    return value_ ? value_->DebugString() : "<empty variant>";
  }

  // The value as a T, or null when it holds no T.
  template <typename T>
  const T* get() const {
    return dynamic_cast<const T*>(value_.get());
  }
  // The value as a T that may be changed in place: non-null only when this
  // Variant is the value's sole owner. The caller must own this Variant
  // alone too (a tensor buffer no other tensor shares).
  template <typename T>
  T* MutableIfUnique() {
    if (value_ == nullptr || value_.use_count() != 1) return nullptr;
    return dynamic_cast<T*>(value_.get());
  }

 private:
  std::shared_ptr<VariantValue> value_;
};

// Whether tensors of `dtype` hold Variant elements.
inline bool HoldsVariants(DataType dtype) {
  return dtype == DT_VARIANT || dtype == DT_RESOURCE;
}

// The elements of a DT_VARIANT tensor; aborts for any other dtype (a bug in
// the caller, which checks dtypes first).
inline Variant* VariantElements(const Tensor& t) {
  WEFT_CHECK(t.dtype() == DT_VARIANT);
  return static_cast<Variant*>(t.raw_data());
}

// The elements of a DT_RESOURCE tensor, each a handle to a shared object;
// aborts for any other dtype.
inline Variant* ResourceElements(const Tensor& t) {
  WEFT_CHECK(t.dtype() == DT_RESOURCE);
  return static_cast<Variant*>(t.raw_data());
}

}  // namespace weft

#endif  // WEFT_CORE_VARIANT_H_
