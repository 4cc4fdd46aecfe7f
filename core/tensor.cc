#include "core/tensor.h"

#include <cstdint>
#include <new>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/dtype_traits.h"
#include "core/logging.h"
#include "core/variant.h"

namespace weft {

TensorBuffer* TensorBuffer::Create(Allocator* allocator, DataType dtype,
                                   int64_t num_elements) {
  size_t elem = dtype == DT_STRING     ? sizeof(std::string)
                : HoldsVariants(dtype) ? sizeof(Variant)
                                       : DataTypeSize(dtype);
  if (num_elements < 0 ||
      (elem != 0 && static_cast<uint64_t>(num_elements) > SIZE_MAX / elem)) {
    return nullptr;
  }
  size_t bytes = static_cast<size_t>(num_elements) * elem;
  void* data = allocator->AllocateRaw(kTensorAlignment, bytes);
  if (data == nullptr) return nullptr;
  if (dtype == DT_STRING) {
    auto* s = static_cast<std::string*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (s + i) std::string();
  } else if (HoldsVariants(dtype)) {
    auto* v = static_cast<Variant*>(data);
    for (int64_t i = 0; i < num_elements; ++i) new (v + i) Variant();
  }
  return new TensorBuffer(allocator, dtype, data, bytes, num_elements);
}

TensorBuffer* TensorBuffer::CreateView(const TensorBuffer* parent,
                                       size_t offset, size_t bytes,
                                       int64_t num_elements) {
  parent->Ref();
  auto* view = new TensorBuffer(parent->allocator_, parent->dtype_,
                                static_cast<char*>(parent->data_) + offset,
                                bytes, num_elements);
  view->parent_ = parent;
  return view;
}

TensorBuffer::~TensorBuffer() {
  if (parent_ != nullptr) {
    parent_->Unref();
    return;
  }
  if (dtype_ == DT_STRING) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) s[i].~basic_string();
  } else if (HoldsVariants(dtype_)) {
    auto* v = static_cast<Variant*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) v[i].~Variant();
  }
  allocator_->DeallocateRaw(data_, num_bytes_);
}

void TensorBuffer::Unref() const {
  // A count of 1 is this Tensor's own reference: no other Tensor shares the
  // buffer, and no thread may copy this one while it is being released, so
  // the count cannot change under us and the buffer is freed without a
  // locked decrement (a full fence). The acquire pairs with the releases of
  // the Tensors that let go before, so their writes precede the free.
  if (refs_.load(std::memory_order_acquire) == 1 ||
      refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete this;
  }
}

bool TensorBuffer::UnrefOneOfTwo() const {
  // Acquire: a Tensor that let go before (leaving 2) wrote the buffer first;
  // release: whoever frees the buffer after reading our 1 sees those writes
  // too (our store ends their release sequence).
  if (refs_.load(std::memory_order_acquire) != 2) return false;
  refs_.store(1, std::memory_order_release);
  return true;
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) {
  auto t = Allocate(DefaultCpuAllocator(), dtype, shape);
  WEFT_CHECK_MSG(t.ok(), std::string(t.status().message()).c_str());
  *this = *std::move(t);
}

StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype,
                                  const TensorShape& shape) {
  if (dtype != DT_STRING && !HoldsVariants(dtype) && !DataTypeIsPod(dtype)) {
    return errors::InvalidArgument("cannot allocate a tensor of type ",
                                   DataTypeName(dtype));
  }
  TensorBuffer* buf =
      TensorBuffer::Create(allocator, dtype, shape.num_elements());
  if (buf == nullptr) {
    return errors::ResourceExhausted(
        "out of memory allocating a ", DataTypeName(dtype), " tensor of shape ",
        shape.DebugString(), " (", shape.num_elements(), " elements) on ",
        allocator->Name());
  }
  return Tensor(dtype, shape, buf);
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_) {
  if (buf_) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_) {
  other.buf_ = nullptr;
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    if (other.buf_) other.buf_->Ref();
    if (buf_) buf_->Unref();
    dtype_ = other.dtype_;
    shape_ = other.shape_;
    buf_ = other.buf_;
  }
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    if (buf_) buf_->Unref();
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    buf_ = other.buf_;
    other.buf_ = nullptr;
  }
  return *this;
}

Tensor::~Tensor() {
  if (buf_) buf_->Unref();
}

void Tensor::ReleaseSharedWith(const Tensor& keeper) {
  if (buf_ != nullptr && buf_ == keeper.buf_ && buf_->UnrefOneOfTwo()) {
    buf_ = nullptr;
    return;
  }
  *this = Tensor();
}

size_t Tensor::TotalBytes() const {
  return static_cast<size_t>(NumElements()) * DataTypeSize(dtype_);
}

StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return errors::InvalidArgument(
        "cannot reshape a tensor with ", NumElements(), " elements to shape ",
        shape.DebugString(), " (", shape.num_elements(), " elements)");
  }
  if (buf_) buf_->Ref();
  return Tensor(dtype_, shape, buf_);
}

Tensor Tensor::SharedRows(int64_t begin, int64_t count,
                          const TensorShape& shape) const {
  if (buf_ == nullptr || !DataTypeIsPod(dtype_) || dims() < 1 || begin < 0 ||
      count < 0 || begin + count > dim_size(0)) {
    return Tensor();
  }
  const int64_t row = dim_size(0) == 0 ? 0 : NumElements() / dim_size(0);
  if (shape.num_elements() != count * row) return Tensor();
  const size_t elem = DataTypeSize(dtype_);
  const size_t offset = static_cast<size_t>(begin * row) * elem;
  if ((reinterpret_cast<uintptr_t>(buf_->data()) + offset) % kTensorAlignment !=
      0) {
    return Tensor();
  }
  return Tensor(
      dtype_, shape,
      TensorBuffer::CreateView(
          buf_, offset, static_cast<size_t>(count * row) * elem, count * row));
}

void Tensor::CheckType(DataType expected) const {
  if (dtype_ != expected) {
    std::string msg = absl::StrCat("tensor has type ", DataTypeName(dtype_),
                                   ", accessed as ", DataTypeName(expected));
    internal::CheckFailed(__FILE__, __LINE__, "dtype matches", msg.c_str());
  }
}

void Tensor::CheckRank(int expected) const {
  if (dims() != expected) {
    std::string msg = absl::StrCat("tensor of shape ", shape_.DebugString(),
                                   " accessed with rank ", expected);
    internal::CheckFailed(__FILE__, __LINE__, "rank matches", msg.c_str());
  }
}

std::string Tensor::DebugString() const {
  return absl::StrCat("Tensor<", DataTypeName(dtype_), " ",
                      shape_.DebugString(), ">");
}

namespace {

template <typename T>
void AppendValue(std::string* out, const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    absl::StrAppend(out, static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    absl::StrAppend(out, v ? "true" : "false");
  } else if constexpr (std::is_same_v<T, int8_t> ||
                       std::is_same_v<T, uint8_t>) {
    absl::StrAppend(out, static_cast<int>(v));
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    absl::StrAppend(out, "(", v.real(), ",", v.imag(), ")");
  } else {
    absl::StrAppend(out, v);
  }
}

}  // namespace

std::string Tensor::SummarizeValue(int64_t max_entries) const {
  if (!IsInitialized()) return "<uninitialized>";
  if (memory_space() != MemorySpace::kHost) return "<device memory>";
  int64_t n = NumElements();
  int64_t shown = std::min(n, max_entries);
  std::string out = "[";
  auto append_all = [&](const auto* p) {
    for (int64_t i = 0; i < shown; ++i) {
      if (i > 0) out.push_back(' ');
      AppendValue(&out, p[i]);
    }
  };
  if (dtype_ == DT_STRING) {
    const auto* s = static_cast<const std::string*>(raw_data());
    for (int64_t i = 0; i < shown; ++i) {
      absl::StrAppend(&out, i > 0 ? " \"" : "\"", s[i], "\"");
    }
  } else if (HoldsVariants(dtype_)) {
    const auto* v = static_cast<const Variant*>(raw_data());
    for (int64_t i = 0; i < shown; ++i) {
      absl::StrAppend(&out, i > 0 ? " " : "", v[i].DebugString());
    }
  } else {
    bool known = VisitNumericType(dtype_, [&](auto tag) {
      using T = typename decltype(tag)::type;
      append_all(static_cast<const T*>(raw_data()));
    });
    if (!known) return absl::StrCat("<", DataTypeName(dtype_), " values>");
  }
  if (shown < n) out += "...";
  out += "]";
  return out;
}

}  // namespace weft
