// Tensor: a dtype, a shape and a reference-counted, 64-byte-aligned buffer
// from an Allocator. Copying a Tensor shares the buffer. The typed Eigen views
// (flat<T>(), matrix<T>(), tensor<T, N>(), ...) are declared here and defined
// in core/tensor_types.h, so that only code doing math pays for Eigen's
// Tensor headers.
#ifndef WEFT_CORE_TENSOR_H_
#define WEFT_CORE_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/allocator.h"
#include "core/dtype_traits.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"

namespace weft {

template <typename T, int NDIMS = 1, typename IndexType = std::ptrdiff_t>
struct TTypes;

// A buffer shared by the tensors that view it. DT_STRING and DT_VARIANT
// elements are constructed and destroyed here; others are raw bytes.
class TensorBuffer {
 public:
  // Allocates `num_elements` of `dtype`; nullptr when the allocator fails or
  // the byte count overflows.
  static TensorBuffer* Create(Allocator* allocator, DataType dtype,
                              int64_t num_elements);
  // `bytes` of `parent`'s data from byte `offset` on (within it, at a
  // multiple of kTensorAlignment), for plain-data elements: a view that
  // holds a reference to `parent` instead of memory of its own. A view is
  // never its data's only holder (RefCountIsOne is false), so no kernel
  // writes it in place.
  static TensorBuffer* CreateView(const TensorBuffer* parent, size_t offset,
                                  size_t bytes, int64_t num_elements);

  void* data() const { return data_; }
  size_t size() const { return num_bytes_; }
  MemorySpace memory_space() const { return allocator_->memory_space(); }
  Allocator* allocator() const { return allocator_; }

  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const;
  // Unref for a caller that holds two of the references (two Tensors it
  // owns): when they are the only ones, no other thread can take a reference
  // meanwhile (it would have to copy one of the caller's Tensors), so the
  // count drops to 1 without a locked instruction. Returns false, changing
  // nothing, when others hold references too.
  bool UnrefOneOfTwo() const;
  bool RefCountIsOne() const {
    return parent_ == nullptr && refs_.load(std::memory_order_acquire) == 1;
  }

 private:
  TensorBuffer(Allocator* a, DataType dt, void* data, size_t bytes,
               int64_t elems)
      : allocator_(a),
        dtype_(dt),
        data_(data),
        num_bytes_(bytes),
        num_elements_(elems) {}
  ~TensorBuffer();

  Allocator* allocator_;
  DataType dtype_;
  void* data_;
  size_t num_bytes_;
  int64_t num_elements_;
  mutable std::atomic<int32_t> refs_{1};
  // The buffer a view (CreateView) reads, which it holds a reference to;
  // null for a buffer with memory of its own.
  const TensorBuffer* parent_ = nullptr;
};

class Tensor {
 public:
  // An empty float scalar with no buffer; IsInitialized() is false.
  Tensor() = default;

  // Allocates from the default CPU allocator. For sizes a caller controls
  // (tests, small constants); an allocation failure aborts. Code handling
  // user-sized tensors uses Allocate().
  Tensor(DataType dtype, const TensorShape& shape);

  // Allocates from `allocator`; ResourceExhausted names the size on failure.
  static StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype,
                                   const TensorShape& shape);

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes of element data (0 for DT_STRING's out-of-line characters).
  size_t TotalBytes() const;

  bool IsInitialized() const { return buf_ != nullptr; }
  MemorySpace memory_space() const {
    return buf_ ? buf_->memory_space() : MemorySpace::kHost;
  }
  // True when no other Tensor shares this buffer, so it may be written in
  // place (input forwarding).
  bool RefCountIsOne() const {
    return buf_ != nullptr && buf_->RefCountIsOne();
  }
  bool SharesBufferWith(const Tensor& other) const {
    return buf_ != nullptr && buf_ == other.buf_;
  }
  // Empties this tensor (as assigning Tensor() does) knowing that `keeper`,
  // which the caller also owns, shares its buffer; cheaper when the two hold
  // the buffer's only references (TensorBuffer::UnrefOneOfTwo). The executor
  // releases a forwarded input this way, its buffer now an output's.
  void ReleaseSharedWith(const Tensor& keeper);

  void* raw_data() const { return buf_ ? buf_->data() : nullptr; }
  // Typed pointer; aborts if T does not match dtype().
  template <typename T>
  T* data() const;

  // Shares this tensor's buffer under a new shape with the same element
  // count; InvalidArgument otherwise.
  StatusOr<Tensor> Reshaped(const TensorShape& shape) const;

  // Rows [begin, begin + count) of dimension 0, as a tensor of `shape`
  // (which has that many rows' elements) sharing this tensor's memory
  // (TensorBuffer::CreateView), when the dtype is plain data and the rows
  // start at a multiple of kTensorAlignment bytes; otherwise, or out of
  // range, an uninitialized Tensor, and the caller copies. The view keeps
  // the whole buffer alive.
  Tensor SharedRows(int64_t begin, int64_t count,
                    const TensorShape& shape) const;

  // Eigen views; T must match dtype() and the rank must fit (checked).
  template <typename T>
  typename TTypes<T>::Flat flat() const;
  template <typename T>
  typename TTypes<T>::Vec vec() const;
  template <typename T>
  typename TTypes<T>::Matrix matrix() const;
  template <typename T>
  typename TTypes<T>::Scalar scalar() const;
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor tensor() const;
  // The tensor viewed as [prod(leading dims), last dim].
  template <typename T>
  typename TTypes<T>::Matrix flat_inner_dims() const;
  // The tensor viewed with `NDIMS` dims whose product is NumElements().
  template <typename T, int NDIMS>
  typename TTypes<T, NDIMS>::Tensor shaped(
      absl::Span<const int64_t> new_sizes) const;

  // "Tensor<float [2,3]>"
  std::string DebugString() const;
  // Up to `max_entries` values, e.g. "[1 2 3...]"; host tensors only.
  std::string SummarizeValue(int64_t max_entries) const;

 private:
  Tensor(DataType dtype, const TensorShape& shape, TensorBuffer* buf)
      : dtype_(dtype), shape_(shape), buf_(buf) {}
  void CheckType(DataType expected) const;
  void CheckRank(int expected) const;

  DataType dtype_ = DT_FLOAT;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;
};

template <typename T>
T* Tensor::data() const {
  CheckType(DataTypeToEnum<T>::value);
  return static_cast<T*>(raw_data());
}

}  // namespace weft

#endif  // WEFT_CORE_TENSOR_H_
