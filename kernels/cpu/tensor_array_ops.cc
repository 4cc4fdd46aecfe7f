// The TF1 TensorArray ops on the CPU (ops/tensor_array_ops.cc).
//
// TensorArrayV3 makes a new TensorArray each time it runs, so every
// Session::Run (and every run of a loop body that creates one) has its own;
// the handle is a DT_RESOURCE vector of two whose elements both hold it
// (core/variant.h), the shape TensorFlow's shape function gives the handle,
// so that handles fed into function bodies match their inferred shapes. The
// array lives as long as some handle does. Its ops change it in place under
// its mutex, in the order the `flow` scalars they pass along impose;
// flow_out is flow_in.
//
// The semantics are TensorFlow's TensorArray (tensorflow/core/kernels/
// tensor_array.h), with its messages: an element is written once and never
// after it was read; with clear_after_read a read releases the element and
// reading it again is an error; reading an element never written gives
// zeros when the element shape is fully known, else an error; writes past
// the end grow a dynamic_size array and are an error otherwise;
// identical_element_shapes fixes the element shape at the first write.
// Elements are moved by bytes (any dtype a tensor holds in plain memory,
// strings and variants), so there is no template per dtype.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "core/tensor_list.h"
#include "core/variant.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

size_t ElementBytes(DataType dtype) {
  return dtype == DT_VARIANT ? sizeof(Variant) : copy_util::ElementBytes(dtype);
}

void CopyElements(DataType dtype, const void* src, void* dst, int64_t n) {
  if (dtype == DT_VARIANT) {
    const auto* s = static_cast<const Variant*>(src);
    auto* d = static_cast<Variant*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  copy_util::CopyElements(dtype, src, dst, n);
}

bool Supported(DataType dtype) {
  return dtype == DT_STRING || dtype == DT_VARIANT || DataTypeIsPod(dtype);
}

// A tensor of zeros (empty strings, empty variants) of `shape`.
Status Zeros(OpKernelContext* ctx, DataType dtype, const TensorShape& shape,
             Tensor* out) {
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(dtype, shape, out, MemorySpace::kHost));
  if (DataTypeIsPod(dtype) && out->TotalBytes() > 0) {
    std::memset(out->raw_data(), 0, out->TotalBytes());
  }
  return Status();
}

// The most elements an array may have. TensorFlow has no bound (an absurd
// size there is an out-of-memory abort); weft refuses sizes whose
// bookkeeping alone would take gigabytes, far beyond any sequence length or
// map_fn batch, with an error instead.
constexpr int64_t kMaxElements = int64_t{1} << 24;

// The array behind a handle. The handle's Variant gives const access only;
// the array is one mutable object its ops share, its state guarded by mu_.
class TensorArray : public VariantValue {
 public:
  struct Options {
    DataType dtype = DT_INVALID;
    PartialTensorShape element_shape;
    bool dynamic_size = false;
    bool clear_after_read = true;
    bool identical_element_shapes = false;
  };

  TensorArray(std::string name, const Options& options, int32_t size)
      : name_(std::move(name)),
        dtype_(options.dtype),
        dynamic_size_(options.dynamic_size),
        clear_after_read_(options.clear_after_read),
        identical_element_shapes_(options.identical_element_shapes),
        element_shape_(options.element_shape),
        elements_(static_cast<size_t>(size)) {}

  const char* TypeName() const override { return "tensorflow::TensorArray"; }
  std::string DebugString() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return absl::StrCat("TensorArray<", DataTypeName(dtype_), " ",
                        element_shape_.DebugString(), ", ", elements_.size(),
                        elements_.size() == 1 ? " element>" : " elements>");
  }

  DataType dtype() const { return dtype_; }
  bool dynamic_size() const { return dynamic_size_; }

  Status Size(int32_t* size) const {
    std::lock_guard<std::mutex> lock(mu_);
    WEFT_RETURN_IF_ERROR(ReturnIfClosed());
    *size = static_cast<int32_t>(elements_.size());
    return Status();
  }

  // Merges `shape` into the element shape (Gather's element_shape attr).
  Status MergeElementShape(const PartialTensorShape& shape) const {
    std::lock_guard<std::mutex> lock(mu_);
    PartialTensorShape merged;
    Status s = MergeShapes(element_shape_, shape, &merged);
    if (!s.ok()) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": element shape ", shape.DebugString(),
          " is incompatible with the TensorArray's element shape ",
          element_shape_.DebugString());
    }
    element_shape_ = std::move(merged);
    return Status();
  }

  // Writes values[k] at indices[k] in order, stopping at the first error.
  Status WriteMany(absl::Span<const int32_t> indices,
                   absl::Span<const Tensor> values) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t k = 0; k < indices.size(); ++k) {
      WEFT_RETURN_IF_ERROR(LockedWrite(indices[k], values[k]));
    }
    return Status();
  }

  Status ReadMany(OpKernelContext* ctx, absl::Span<const int32_t> indices,
                  std::vector<Tensor>* values) const {
    std::lock_guard<std::mutex> lock(mu_);
    values->resize(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      WEFT_RETURN_IF_ERROR(LockedRead(ctx, indices[k], &(*values)[k]));
    }
    return Status();
  }

  void Close() const {
    std::lock_guard<std::mutex> lock(mu_);
    elements_.clear();
    closed_ = true;
  }

 private:
  struct Element {
    Tensor tensor;
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  Status ReturnIfClosed() const {
    if (closed_) {
      return errors::InvalidArgument("TensorArray ", name_,
                                     " has already been closed.");
    }
    return Status();
  }

  Status LockedWrite(int32_t index, const Tensor& value) const {
    WEFT_RETURN_IF_ERROR(ReturnIfClosed());
    const size_t at = static_cast<size_t>(index);
    if (index < 0 || (!dynamic_size_ && at >= elements_.size())) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Tried to write to index ", index,
          " but array is not resizeable and size is: ", elements_.size());
    }
    if (index >= kMaxElements) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Tried to write to index ", index,
          ", past weft's limit of ", kMaxElements, " elements");
    }
    if (at >= elements_.size()) elements_.resize(at + 1);
    if (value.dtype() != dtype_) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because the value dtype is ", DataTypeName(value.dtype()),
          " but TensorArray dtype is ", DataTypeName(dtype_), ".");
    }
    if (!element_shape_.IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because the value shape is ", value.shape().DebugString(),
          " which is incompatible with the TensorArray's inferred element "
          "shape: ",
          element_shape_.DebugString(),
          " (consider setting infer_shape=False).");
    }
    if (identical_element_shapes_ && !element_shape_.IsFullyDefined()) {
      element_shape_ = PartialTensorShape(value.shape());
    }
    Element& e = elements_[at];
    if (e.read) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because it has already been read.");
    }
    if (e.written) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not write to TensorArray index ",
          index, " because it has already been written to.");
    }
    e.tensor = value;
    e.shape = value.shape();
    e.written = true;
    return Status();
  }

  Status LockedRead(OpKernelContext* ctx, int32_t index, Tensor* value) const {
    WEFT_RETURN_IF_ERROR(ReturnIfClosed());
    if (index < 0 || static_cast<size_t>(index) >= elements_.size()) {
      return errors::InvalidArgument("Tried to read from index ", index,
                                     " but array size is: ", elements_.size());
    }
    Element& e = elements_[static_cast<size_t>(index)];
    if (!e.written) {
      // Zeros of the element shape, which must be fully known; the element
      // then counts as written with that shape.
      if (!element_shape_.IsFullyDefined()) {
        return errors::InvalidArgument(
            "TensorArray ", name_, ": Could not read from TensorArray index ",
            index, ".  Furthermore, the element shape is not fully defined: ",
            element_shape_.DebugString(),
            ".  It is possible you are working with a resizeable TensorArray "
            "and stop_gradients is not allowing the gradients to be written.  "
            "If you set the full element_shape property on the forward "
            "TensorArray, the proper all-zeros tensor will be returned "
            "instead of incurring this error.");
      }
      WEFT_ASSIGN_OR_RETURN(e.shape, element_shape_.ToTensorShape());
      e.written = true;
    }
    if (e.cleared) {
      return errors::InvalidArgument(
          "TensorArray ", name_, ": Could not read index ", index,
          " twice because it was cleared after a previous read (perhaps try "
          "setting clear_after_read = false?).");
    }
    if (!e.tensor.IsInitialized()) {
      WEFT_RETURN_IF_ERROR(Zeros(ctx, dtype_, e.shape, &e.tensor));
    }
    *value = e.tensor;
    if (clear_after_read_) {
      e.tensor = Tensor();
      e.cleared = true;
    }
    e.read = true;
    return Status();
  }

  const std::string name_;
  const DataType dtype_;
  const bool dynamic_size_;
  const bool clear_after_read_;
  const bool identical_element_shapes_;
  mutable std::mutex mu_;
  mutable bool closed_ = false;
  mutable PartialTensorShape element_shape_;
  mutable std::vector<Element> elements_;
};

// The array input 0 (a handle) holds.
Status GetTensorArray(const OpKernelContext& ctx, const TensorArray** out) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DT_RESOURCE || t.NumElements() < 1) {
    return errors::InvalidArgument(
        "input 0 (handle) must be a TensorArray handle but is ",
        t.DebugString());
  }
  const Variant& v = ResourceElements(t)[0];
  *out = v.get<TensorArray>();
  if (*out == nullptr) {
    return errors::InvalidArgument("input 0 (handle) holds a ", v.TypeName(),
                                   ", not a TensorArray");
  }
  return Status();
}

Status CheckReadDtype(const TensorArray& ta, DataType op_dtype) {
  if (ta.dtype() != op_dtype) {
    return errors::InvalidArgument(
        "TensorArray dtype is ", DataTypeName(ta.dtype()),
        " but Op requested dtype ", DataTypeName(op_dtype), ".");
  }
  return Status();
}

Status CheckWriteDtype(const TensorArray& ta, DataType value_dtype) {
  if (ta.dtype() != value_dtype) {
    return errors::InvalidArgument(
        "TensorArray dtype is ", DataTypeName(ta.dtype()),
        " but Op is trying to write dtype ", DataTypeName(value_dtype), ".");
  }
  return Status();
}

Status ReadIndex(const Tensor& t, int32_t* index) {
  if (t.dims() != 0) {
    return errors::InvalidArgument(
        "TensorArray index must be scalar, but had shape: ",
        t.shape().DebugString());
  }
  *index = *t.data<int32_t>();
  return Status();
}

// `shape` with `leading` put in front.
StatusOr<TensorShape> Prepend(int64_t leading, const TensorShape& shape) {
  TensorShape out;
  WEFT_RETURN_IF_ERROR(out.AddDim(leading));
  for (int d = 0; d < shape.dims(); ++d) {
    WEFT_RETURN_IF_ERROR(out.AddDim(shape.dim_size(d)));
  }
  return out;
}

// Rows [begin, begin + count) of `value` along dimension 0 as a tensor of
// `shape` (count rows of value's row shape, or one row without the
// dimension).
Status CopyRows(OpKernelContext* ctx, const Tensor& value, int64_t row_elems,
                int64_t begin, const TensorShape& shape, Tensor* out) {
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(value.dtype(), shape, out, MemorySpace::kHost));
  const size_t bytes = ElementBytes(value.dtype());
  CopyElements(value.dtype(),
               static_cast<const char*>(value.raw_data()) +
                   static_cast<size_t>(begin * row_elems) * bytes,
               out->raw_data(), shape.num_elements());
  return Status();
}

class TensorArrayKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  // The ops move handles and element handles; Gather, Concat, Scatter and
  // Split copy bytes, as cheap as a slice.
  bool IsExpensive() const override { return false; }
};

class TensorArrayV3Op : public TensorArrayKernel {
 public:
  explicit TensorArrayV3Op(OpKernelConstruction* ctx) : TensorArrayKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &options_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &options_.element_shape));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    OP_REQUIRES_OK(
        ctx, ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes",
                                     &options_.identical_element_shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &name_));
    if (name_.empty()) name_ = ctx->name();
    OP_REQUIRES(
        ctx, Supported(options_.dtype),
        errors::Unimplemented("TensorArrays of ", DataTypeName(options_.dtype),
                              " are not supported"));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, size.dims() == 0,
                errors::InvalidArgument(
                    "TensorArray size must be scalar, but had shape: ",
                    size.shape().DebugString()));
    const int32_t n = *size.data<int32_t>();
    OP_REQUIRES(ctx, n >= 0, errors::InvalidArgument("Size should be >= 0."));
    OP_REQUIRES(ctx, n <= kMaxElements,
                errors::InvalidArgument("TensorArray size ", n,
                                        " is past weft's limit of ",
                                        kMaxElements, " elements"));
    auto ta = std::make_shared<TensorArray>(name_, options_, n);
    Tensor* handle = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({2}), &handle));
    Variant* v = ResourceElements(*handle);
    v[0] = Variant(ta);
    v[1] = Variant(std::move(ta));
    Tensor* flow = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(), &flow));
    *flow->data<float>() = 0.0f;
  }

 private:
  TensorArray::Options options_;
  std::string name_;
};

class TensorArrayWriteOp : public TensorArrayKernel {
 public:
  using TensorArrayKernel::TensorArrayKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndex(ctx->input(1), &index));
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    OP_REQUIRES_OK(ctx, ta->WriteMany({index}, {value}));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayReadOp : public TensorArrayKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx)
      : TensorArrayKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ReadIndex(ctx->input(1), &index));
    OP_REQUIRES_OK(ctx, CheckReadDtype(*ta, dtype_));
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ta->ReadMany(ctx, {index}, &values));
    ctx->set_output(0, std::move(values[0]));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// Elements `indices` stacked: [len(indices)] + the element shape.
class TensorArrayGatherOp : public TensorArrayKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx)
      : TensorArrayKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckReadDtype(*ta, dtype_));
    OP_REQUIRES_OK(ctx, ta->MergeElementShape(element_shape_));
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument(
                    "Expected indices to be a vector, but received shape: ",
                    indices.shape().DebugString()));
    const int32_t* idx = indices.data<int32_t>();
    const int64_t n = indices.NumElements();
    if (n == 0) {
      OP_REQUIRES(ctx, element_shape_.IsFullyDefined(),
                  errors::Unimplemented(
                      "TensorArray has size zero, but element shape ",
                      element_shape_.DebugString(),
                      " is not fully defined. Currently only static shapes are "
                      "supported when packing zero-size TensorArrays."));
      auto element = element_shape_.ToTensorShape();
      OP_REQUIRES_OK(ctx, element.status());
      auto shape = Prepend(0, *element);
      OP_REQUIRES_OK(ctx, shape.status());
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      return;
    }
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx,
                   ta->ReadMany(ctx, absl::MakeConstSpan(idx, n), &values));
    const TensorShape& first = values[0].shape();
    OP_REQUIRES(
        ctx, element_shape_.IsCompatibleWith(first),
        errors::InvalidArgument("TensorArray was passed element_shape ",
                                element_shape_.DebugString(),
                                " which does not match the Tensor at index 0: ",
                                first.DebugString()));
    for (int64_t i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, values[i].shape() == first,
                  errors::InvalidArgument(
                      "TensorArray has inconsistent shapes.  Index 0 has "
                      "shape: ",
                      first.DebugString(), " but index ", i,
                      " has shape: ", values[i].shape().DebugString()));
    }
    auto shape = Prepend(n, first);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int64_t per = first.num_elements();
    const size_t bytes = ElementBytes(dtype_) * static_cast<size_t>(per);
    char* dst = static_cast<char*>(out->raw_data());
    for (const Tensor& v : values) {
      CopyElements(dtype_, v.raw_data(), dst, per);
      dst += bytes;
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape element_shape_;
};

// Row k of value written at indices[k].
class TensorArrayScatterOp : public TensorArrayKernel {
 public:
  using TensorArrayKernel::TensorArrayKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    const Tensor& indices = ctx->input(1);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    OP_REQUIRES(ctx, value.dims() > 0,
                errors::InvalidArgument("Input value for unpack must be at "
                                        "least a vector but received shape: ",
                                        value.shape().DebugString()));
    OP_REQUIRES(ctx, indices.dims() == 1,
                errors::InvalidArgument(
                    "Expected indices to be a vector, but received shape: ",
                    indices.shape().DebugString()));
    const int64_t n = indices.NumElements();
    OP_REQUIRES(ctx, n == value.dim_size(0),
                errors::InvalidArgument(
                    "Expected len(indices) == values.shape[0], but saw: ", n,
                    " vs. ", value.dim_size(0)));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    const int32_t* idx = indices.data<int32_t>();
    const int32_t max_index = n == 0 ? -1 : *std::max_element(idx, idx + n);
    if (ta->dynamic_size() && size <= max_index) size = max_index + 1;
    OP_REQUIRES(
        ctx, max_index < size,
        errors::InvalidArgument("Max scatter index must be < array size (",
                                max_index, " vs. ", size, ")"));
    TensorShape row;
    for (int d = 1; d < value.dims(); ++d) {
      OP_REQUIRES_OK(ctx, row.AddDim(value.dim_size(d)));
    }
    std::vector<Tensor> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, CopyRows(ctx, value, row.num_elements(), i, row,
                                   &rows[static_cast<size_t>(i)]));
    }
    OP_REQUIRES_OK(ctx, ta->WriteMany(absl::MakeConstSpan(idx, n), rows));
    ctx->set_output(0, ctx->input(3));
  }
};

// Every element concatenated along dimension 0, and their lengths.
class TensorArrayConcatOp : public TensorArrayKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx)
      : TensorArrayKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape_except0", &except0_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckReadDtype(*ta, dtype_));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    Tensor* out = nullptr;
    Tensor* lengths = nullptr;
    if (size == 0) {
      OP_REQUIRES(ctx, except0_.IsFullyDefined(),
                  errors::Unimplemented(
                      "TensorArray has size zero, but element_shape_except0 ",
                      except0_.DebugString(),
                      " is not fully defined. Currently only static shapes are "
                      "supported when concatenating zero-size TensorArrays."));
      auto rest = except0_.ToTensorShape();
      OP_REQUIRES_OK(ctx, rest.status());
      auto shape = Prepend(0, *rest);
      OP_REQUIRES_OK(ctx, shape.status());
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &lengths));
      return;
    }
    std::vector<int32_t> all(static_cast<size_t>(size));
    for (int32_t i = 0; i < size; ++i) all[static_cast<size_t>(i)] = i;
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ta->ReadMany(ctx, all, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({size}), &lengths));
    int64_t* len = lengths->data<int64_t>();
    TensorShape rest;
    int64_t total = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, s.dims() >= 1,
                  errors::InvalidArgument(
                      "Concat saw a scalar shape at index ", i,
                      " but requires at least vectors.  Did you mean to call "
                      "pack?"));
      TensorShape except0;
      for (int d = 1; d < s.dims(); ++d) {
        OP_REQUIRES_OK(ctx, except0.AddDim(s.dim_size(d)));
      }
      if (i == 0) {
        rest = except0;
        OP_REQUIRES(ctx, except0_.IsCompatibleWith(rest),
                    errors::InvalidArgument(
                        "TensorArray was passed element_shape_except0 ",
                        except0_.DebugString(),
                        " but index 0 has (excepting dimension 0) shape: ",
                        rest.DebugString(), " which does not match."));
      } else {
        OP_REQUIRES(
            ctx, except0 == rest,
            errors::InvalidArgument(
                "TensorArray has inconsistent shapes.  Index 0 has "
                "(excepting dimension 0) shape: ",
                rest.DebugString(), " but index ", i,
                " has (excepting dimension 0) shape: ", except0.DebugString()));
      }
      // Elements of shape [n, 0] hold no data: their n may be anything.
      OP_REQUIRES(ctx,
                  s.dim_size(0) <= std::numeric_limits<int64_t>::max() - total,
                  errors::InvalidArgument(
                      "the elements' first dimensions sum past int64"));
      len[i] = s.dim_size(0);
      total += s.dim_size(0);
    }
    auto shape = Prepend(total, rest);
    OP_REQUIRES_OK(ctx, shape.status());
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    const size_t bytes = ElementBytes(dtype_);
    for (const Tensor& v : values) {
      CopyElements(dtype_, v.raw_data(), dst, v.NumElements());
      dst += bytes * static_cast<size_t>(v.NumElements());
    }
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialTensorShape except0_;
};

// value cut along dimension 0 into pieces of `lengths`, element i the i-th.
class TensorArraySplitOp : public TensorArrayKernel {
 public:
  using TensorArrayKernel::TensorArrayKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths = ctx->input(2);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument(
                    "Expected lengths to be a vector, received shape: ",
                    lengths.shape().DebugString()));
    OP_REQUIRES(ctx,
                lengths.NumElements() <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(
                    "Expected lengths to have < max int32 entries"));
    OP_REQUIRES(
        ctx, value.dims() >= 1,
        errors::InvalidArgument(
            "Expected value to be at least a vector, but received shape: ",
            value.shape().DebugString()));
    const int64_t* len = lengths.data<int64_t>();
    const int32_t n = static_cast<int32_t>(lengths.NumElements());
    int64_t total = 0;
    for (int32_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, len[i] >= 0,
                  errors::InvalidArgument("lengths[", i, "] is ", len[i],
                                          "; lengths must be non-negative"));
      OP_REQUIRES(
          ctx, len[i] <= std::numeric_limits<int64_t>::max() - total,
          errors::InvalidArgument("the sum of lengths overflows int64"));
      total += len[i];
    }
    OP_REQUIRES(
        ctx, total == value.dim_size(0),
        errors::InvalidArgument(
            "Expected sum of lengths to be equal to values.shape[0], "
            "but sum of lengths is ",
            total, " and value's shape is: ", value.shape().DebugString()));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    if (ta->dynamic_size() && size < n) size = n;
    OP_REQUIRES(ctx, size == n,
                errors::InvalidArgument(
                    "TensorArray's size is not equal to the size of lengths (",
                    size, " vs. ", n,
                    "), and the TensorArray is not marked as dynamically "
                    "resizeable"));
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    std::vector<Tensor> pieces(static_cast<size_t>(n));
    std::vector<int32_t> indices(static_cast<size_t>(n));
    TensorShape row;
    for (int d = 1; d < value.dims(); ++d) {
      OP_REQUIRES_OK(ctx, row.AddDim(value.dim_size(d)));
    }
    int64_t begin = 0;
    for (int32_t i = 0; i < n; ++i) {
      auto shape = Prepend(len[i], row);
      OP_REQUIRES_OK(ctx, shape.status());
      OP_REQUIRES_OK(ctx, CopyRows(ctx, value, row.num_elements(), begin,
                                   *shape, &pieces[static_cast<size_t>(i)]));
      indices[static_cast<size_t>(i)] = i;
      begin += len[i];
    }
    OP_REQUIRES_OK(ctx, ta->WriteMany(indices, pieces));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArraySizeOp : public TensorArrayKernel {
 public:
  using TensorArrayKernel::TensorArrayKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    int32_t size = 0;
    OP_REQUIRES_OK(ctx, ta->Size(&size));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *out->data<int32_t>() = size;
  }
};

// Releases the elements; the array refuses every op after.
class TensorArrayCloseOp : public TensorArrayKernel {
 public:
  using TensorArrayKernel::TensorArrayKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorArray* ta = nullptr;
    OP_REQUIRES_OK(ctx, GetTensorArray(*ctx, &ta));
    ta->Close();
  }
};

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU),
                        TensorArrayV3Op);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU),
                        TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU),
                        TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU),
                        TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU),
                        TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU),
                        TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU),
                        TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU),
                        TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU),
                        TensorArrayCloseOp);

}  // namespace
}  // namespace weft
