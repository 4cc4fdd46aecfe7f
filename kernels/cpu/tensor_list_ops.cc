// The TensorList ops on the CPU (ops/list_ops.cc): lists are variant
// scalars holding a TensorList (core/tensor_list.h).
//
// Ops that return a changed list (SetItem, PushBack, PopBack, Resize,
// ScatterIntoExistingList) change the input list in place when they may take
// it over: the executor marked the input forwardable, no other tensor shares
// its buffer, and no other variant holds the list. Otherwise they copy the
// list, which copies its vector of item handles, never the items' data.
//
// Items keep their producers' buffers (SetItem, PushBack store the tensor
// they get); ops that cut a tensor into items (FromTensor, Split, Scatter)
// copy the rows. An item that was never set reads as zeros of the element
// shape, which must then be fully known from the list or the op's
// element_shape input.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "core/tensor_list.h"
#include "core/variant.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// ---- elements of any dtype ------------------------------------------------

size_t ElementBytes(DataType dtype) {
  return dtype == DT_VARIANT ? sizeof(Variant) : copy_util::ElementBytes(dtype);
}

// dst[i] = src[i], i < n, for the element type of `dtype`.
void CopyElements(DataType dtype, const void* src, void* dst, int64_t n) {
  if (dtype == DT_VARIANT) {
    const auto* s = static_cast<const Variant*>(src);
    auto* d = static_cast<Variant*>(dst);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
    return;
  }
  copy_util::CopyElements(dtype, src, dst, n);
}

// Whether the list ops can hold and move elements of `dtype`.
bool Supported(DataType dtype) {
  return dtype == DT_STRING || dtype == DT_VARIANT || DataTypeIsPod(dtype);
}

// A tensor of zeros (empty strings, empty variants).
Status Zeros(OpKernelContext* ctx, DataType dtype, const TensorShape& shape,
             Tensor* out) {
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(dtype, shape, out, MemorySpace::kHost));
  if (DataTypeIsPod(dtype) && out->TotalBytes() > 0) {
    std::memset(out->raw_data(), 0, out->TotalBytes());
  }
  return Status();
}

// Rows [begin, begin + count) of `t` along dimension 0: a view of them
// (Tensor::SharedRows) when they are aligned, else a copy.
Status Rows(OpKernelContext* ctx, const Tensor& t, int64_t begin, int64_t count,
            bool keep_dim, Tensor* out) {
  TensorShape shape;
  if (keep_dim) WEFT_RETURN_IF_ERROR(shape.AddDim(count));
  for (int d = 1; d < t.dims(); ++d) {
    WEFT_RETURN_IF_ERROR(shape.AddDim(t.dim_size(d)));
  }
  // Aligned rows are shared, as TensorFlow's Tensor::Slice shares them: a
  // list made from a sequence reads it where it is.
  *out = t.SharedRows(begin, count, shape);
  if (out->IsInitialized()) return Status();
  WEFT_RETURN_IF_ERROR(
      ctx->allocate_temp(t.dtype(), shape, out, MemorySpace::kHost));
  const int64_t row = t.dim_size(0) == 0 ? 0 : t.NumElements() / t.dim_size(0);
  const size_t bytes = ElementBytes(t.dtype());
  CopyElements(t.dtype(),
               static_cast<const char*>(t.raw_data()) +
                   static_cast<size_t>(begin * row) * bytes,
               out->raw_data(), count * row);
  return Status();
}

// ---- reading inputs ---------------------------------------------------------

// An element_shape input: a vector of dimensions (-1 unknown) or the scalar
// -1 (unknown rank).
Status ReadElementShape(const Tensor& t, absl::string_view what,
                        PartialTensorShape* out) {
  std::vector<int64_t> dims;
  if (t.dims() > 1) {
    return errors::InvalidArgument(what,
                                   " must be a scalar or a vector but has "
                                   "shape ",
                                   t.shape().DebugString());
  }
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(t, what, &dims));
  if (t.dims() == 0) {
    if (dims[0] != -1) {
      return errors::InvalidArgument(
          what, " is the scalar ", dims[0],
          "; the only scalar element shape is -1 (unknown rank)");
    }
    PartialTensorShape unknown;
    std::swap(*out, unknown);
    return Status();
  }
  for (int64_t d : dims) {
    if (d < -1) {
      return errors::InvalidArgument(what, " ", IndexListString(dims),
                                     " has dimension ", d,
                                     "; dimensions must be >= -1");
    }
  }
  auto shape = PartialTensorShape::Build(dims);
  if (!shape.ok()) return AddContext(shape.status(), what);
  *out = *std::move(shape);
  return Status();
}

Status ReadScalar(const Tensor& t, absl::string_view what, int64_t* out) {
  return ReadIndexScalar(t, what, /*allow_vector_of_one=*/false, out);
}

// The list that input `index` holds.
Status GetList(const OpKernelContext& ctx, int index, const TensorList** list) {
  const Tensor& t = ctx.input(index);
  if (t.dtype() != DT_VARIANT || t.dims() != 0) {
    return errors::InvalidArgument("input ", index,
                                   " (input_handle) must be a variant scalar "
                                   "holding a TensorList but is ",
                                   t.DebugString());
  }
  const Variant& v = VariantElements(t)[0];
  *list = v.get<TensorList>();
  if (*list == nullptr) {
    return errors::InvalidArgument("input ", index, " (input_handle) holds a ",
                                   v.TypeName(), ", not a TensorList");
  }
  return Status();
}

Status CheckDtype(const TensorList& list, DataType op_dtype) {
  if (list.element_dtype != op_dtype) {
    return errors::InvalidArgument(
        "the op's element_dtype is ", DataTypeName(op_dtype),
        " but the list holds ", DataTypeName(list.element_dtype), " elements");
  }
  return Status();
}

Status CheckSupported(DataType dtype) {
  if (!Supported(dtype)) {
    return errors::Unimplemented("TensorList elements of type ",
                                 DataTypeName(dtype), " are not supported");
  }
  return Status();
}

// An item of `shape` must fit the list's element shape.
Status CheckItemShape(const TensorList& list, const TensorShape& shape,
                      absl::string_view what) {
  if (!list.element_shape.IsCompatibleWith(shape)) {
    return errors::InvalidArgument(what, " has shape ", shape.DebugString(),
                                   " but the list's element shape is ",
                                   list.element_shape.DebugString());
  }
  return Status();
}

// ---- writing outputs --------------------------------------------------------

// Output `out_index` becomes a new list holding `list`.
Status OutputList(OpKernelContext* ctx, int out_index,
                  std::shared_ptr<TensorList> list) {
  Tensor* out = nullptr;
  WEFT_RETURN_IF_ERROR(ctx->allocate_output(out_index, TensorShape(), &out));
  VariantElements(*out)[0] = Variant(std::move(list));
  return Status();
}

// Output `out_index` as the list of input `in_index` (`in`, from GetList),
// ready to change: that very list when this kernel may take it over, else a
// copy. After the call only the returned list may be used, not `in`.
StatusOr<TensorList*> ForwardOrCopyList(OpKernelContext* ctx, int in_index,
                                        int out_index, const TensorList& in) {
  Tensor* out = nullptr;
  if (ctx->forward_input_to_output_with_shape(in_index, out_index,
                                              TensorShape(), &out)) {
    Variant& v = VariantElements(*out)[0];
    if (TensorList* mine = v.MutableIfUnique<TensorList>()) return mine;
    auto copy = std::make_shared<TensorList>(in);
    TensorList* raw = copy.get();
    v = Variant(std::move(copy));
    return raw;
  }
  auto copy = std::make_shared<TensorList>(in);
  TensorList* raw = copy.get();
  WEFT_RETURN_IF_ERROR(OutputList(ctx, out_index, std::move(copy)));
  return raw;
}

// The element shape for reading the list's items: the list's merged with
// the op's element_shape input and, when `items` is set, with the shape of
// every set item.
Status ReadShape(const TensorList& list, const Tensor& shape_input,
                 bool merge_items, PartialTensorShape* out) {
  PartialTensorShape declared;
  WEFT_RETURN_IF_ERROR(
      ReadElementShape(shape_input, "element_shape", &declared));
  Status s = MergeShapes(list.element_shape, declared, out);
  if (!s.ok()) {
    return errors::InvalidArgument("element_shape ", declared.DebugString(),
                                   " does not fit the list's element shape ",
                                   list.element_shape.DebugString());
  }
  if (!merge_items || out->IsFullyDefined()) return Status();
  for (size_t i = 0; i < list.tensors.size(); ++i) {
    const Tensor& t = list.tensors[i];
    if (!t.IsInitialized()) continue;
    PartialTensorShape merged;
    if (!MergeShapes(*out, PartialTensorShape(t.shape()), &merged).ok()) {
      return errors::InvalidArgument(
          "item ", i, " has shape ", t.shape().DebugString(),
          " but the element shape is ", out->DebugString());
    }
    *out = std::move(merged);
  }
  return Status();
}

// Item `i` of the list, or zeros of `shape` when it was never set.
Status ItemOrZeros(OpKernelContext* ctx, const TensorList& list, int64_t i,
                   const PartialTensorShape& shape, Tensor* out) {
  const Tensor& t = list.tensors[i];
  if (t.IsInitialized()) {
    *out = t;
    return Status();
  }
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument(
        "item ", i,
        " was never set and the element shape is not fully defined: ",
        shape.DebugString());
  }
  WEFT_ASSIGN_OR_RETURN(TensorShape full, shape.ToTensorShape());
  return Zeros(ctx, list.element_dtype, full, out);
}

// Writes items `indices` of the list one after another as output 0 of shape
// [indices.size()] + element shape. `what` names the op's action.
void StackItems(OpKernelContext* ctx, const TensorList& list,
                const std::vector<int64_t>& indices,
                const PartialTensorShape& shape, absl::string_view what) {
  OP_REQUIRES_OK(ctx, CheckSupported(list.element_dtype));
  if (!shape.IsFullyDefined()) {
    bool any_set = false;
    for (int64_t i : indices) any_set |= list.tensors[i].IsInitialized();
    OP_REQUIRES(ctx, any_set,
                errors::InvalidArgument(
                    "cannot ", what,
                    indices.empty() ? " no items" : " only items never set",
                    " of a list whose element shape is not fully defined: ",
                    shape.DebugString()));
  }
  // Every set item fits `shape` (ReadShape merged them); without one, the
  // shape is fully defined.
  TensorShape element;
  if (shape.IsFullyDefined()) {
    auto full = shape.ToTensorShape();
    OP_REQUIRES_OK(ctx, full.status());
    element = *full;
  } else {
    for (int64_t i : indices) {
      if (list.tensors[i].IsInitialized()) {
        element = list.tensors[i].shape();
        break;
      }
    }
  }
  TensorShape out_shape;
  OP_REQUIRES_OK(ctx, out_shape.AddDim(static_cast<int64_t>(indices.size())));
  for (int d = 0; d < element.dims(); ++d) {
    OP_REQUIRES_OK(ctx, out_shape.AddDim(element.dim_size(d)));
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
  const int64_t n = element.num_elements();
  const size_t bytes = ElementBytes(list.element_dtype) * n;
  char* dst = static_cast<char*>(out->raw_data());
  for (int64_t i : indices) {
    const Tensor& t = list.tensors[i];
    if (t.IsInitialized()) {
      OP_REQUIRES(ctx, t.shape() == element,
                  errors::InvalidArgument(
                      "item ", i, " has shape ", t.shape().DebugString(),
                      " but the element shape is ", element.DebugString()));
      CopyElements(list.element_dtype, t.raw_data(), dst, n);
    } else if (DataTypeIsPod(list.element_dtype)) {
      std::memset(dst, 0, bytes);
    }
    dst += bytes;
  }
}

// ---- the kernels
// --------------------------------------------------------------

// A list about to hold the rows of `t` (FromTensor, Split): its dtype is
// t's, its element shape the `element_shape` input.
Status NewListOfRows(const Tensor& t, const Tensor& element_shape,
                     std::shared_ptr<TensorList>* list) {
  WEFT_RETURN_IF_ERROR(CheckSupported(t.dtype()));
  if (t.dims() < 1) {
    return errors::InvalidArgument(
        "tensor must be at least a vector but has shape ",
        t.shape().DebugString());
  }
  auto made = std::make_shared<TensorList>();
  made->element_dtype = t.dtype();
  WEFT_RETURN_IF_ERROR(
      ReadElementShape(element_shape, "element_shape", &made->element_shape));
  *list = std::move(made);
  return Status();
}

class ListOpKernel : public OpKernel {
 public:
  explicit ListOpKernel(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->HasAttr("element_dtype")) {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("element_dtype", &element_dtype_));
    }
  }
  // Lists move handles; the ops that copy rows are as cheap as a slice.
  bool IsExpensive() const override { return false; }

 protected:
  DataType element_dtype_ = DT_INVALID;
};

// EmptyTensorList, TensorListReserve: a list of no items, or of
// num_elements items never set.
class NewListOp : public ListOpKernel {
 public:
  NewListOp(OpKernelConstruction* ctx, bool reserve)
      : ListOpKernel(ctx), reserve_(reserve) {}

  void Compute(OpKernelContext* ctx) const override {
    auto list = std::make_shared<TensorList>();
    list->element_dtype = element_dtype_;
    OP_REQUIRES_OK(ctx, ReadElementShape(ctx->input(0), "element_shape",
                                         &list->element_shape));
    int64_t n = 0;
    if (reserve_) {
      OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(1), "num_elements", &n));
      OP_REQUIRES(ctx, n >= 0,
                  errors::InvalidArgument(
                      "num_elements must be non-negative, got ", n));
      list->tensors.resize(n);
    } else {
      OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(1), "max_num_elements", &n));
      list->max_num_elements = n;
    }
    OP_REQUIRES_OK(ctx, OutputList(ctx, 0, std::move(list)));
  }

 private:
  const bool reserve_;
};

class EmptyTensorListOp : public NewListOp {
 public:
  explicit EmptyTensorListOp(OpKernelConstruction* ctx)
      : NewListOp(ctx, false) {}
};

class TensorListReserveOp : public NewListOp {
 public:
  explicit TensorListReserveOp(OpKernelConstruction* ctx)
      : NewListOp(ctx, true) {}
};

// One item per row of the tensor.
class TensorListFromTensorOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    std::shared_ptr<TensorList> list;
    OP_REQUIRES_OK(ctx, NewListOfRows(t, ctx->input(1), &list));
    std::vector<int64_t> row_dims(t.shape().dim_sizes().begin() + 1,
                                  t.shape().dim_sizes().end());
    auto row = PartialTensorShape::Build(row_dims);
    OP_REQUIRES_OK(ctx, row.status());
    OP_REQUIRES(ctx, ShapesCompatible(list->element_shape, *row),
                errors::InvalidArgument(
                    "element_shape ", list->element_shape.DebugString(),
                    " does not fit the rows of a tensor of shape ",
                    t.shape().DebugString()));
    list->tensors.resize(t.dim_size(0));
    for (int64_t i = 0; i < t.dim_size(0); ++i) {
      OP_REQUIRES_OK(ctx, Rows(ctx, t, i, 1, false, &list->tensors[i]));
    }
    OP_REQUIRES_OK(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

class TensorListGetItemOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(1), "index", &index));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, index >= 0 && index < size,
                errors::InvalidArgument("index ", index,
                                        " is out of range for a list of ", size,
                                        " items"));
    Tensor item;
    if (list->tensors[index].IsInitialized()) {
      item = list->tensors[index];
    } else {
      PartialTensorShape shape;
      OP_REQUIRES_OK(ctx, ReadShape(*list, ctx->input(2), true, &shape));
      OP_REQUIRES_OK(ctx, CheckSupported(element_dtype_));
      OP_REQUIRES_OK(ctx, ItemOrZeros(ctx, *list, index, shape, &item));
    }
    ctx->set_output(0, std::move(item));
  }
};

class TensorListSetItemOp : public ListOpKernel {
 public:
  explicit TensorListSetItemOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("resize_if_index_out_of_bounds",
                                     &resize_if_out_of_bounds_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    int64_t index = 0;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(1), "index", &index));
    const Tensor& item = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckItemShape(*in, item.shape(), "item"));
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    const bool resize = resize_if_out_of_bounds_ && index >= size;
    OP_REQUIRES(ctx, index >= 0 && (index < size || resize),
                errors::InvalidArgument("index ", index,
                                        " is out of range for a list of ", size,
                                        " items"));
    auto out = ForwardOrCopyList(ctx, 0, 0, *in);
    OP_REQUIRES_OK(ctx, out.status());
    TensorList* list = *out;
    if (resize) list->tensors.resize(index + 1);
    list->tensors[index] = item;
  }

 private:
  bool resize_if_out_of_bounds_ = false;
};

// The items stacked into one tensor.
class TensorListStackOp : public ListOpKernel {
 public:
  explicit TensorListStackOp(OpKernelConstruction* ctx) : ListOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("num_elements", &num_elements_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    OP_REQUIRES(ctx, num_elements_ == -1 || num_elements_ == size,
                errors::InvalidArgument("attr num_elements is ", num_elements_,
                                        " but the list has ", size, " items"));
    PartialTensorShape shape;
    OP_REQUIRES_OK(ctx, ReadShape(*list, ctx->input(1), true, &shape));
    std::vector<int64_t> all(size);
    for (int64_t i = 0; i < size; ++i) all[i] = i;
    StackItems(ctx, *list, all, shape, "stack");
  }

 private:
  int64_t num_elements_ = -1;
};

class TensorListGatherOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, indices_t.dims() == 1,
                errors::InvalidArgument("indices must be a vector but has "
                                        "shape ",
                                        indices_t.shape().DebugString()));
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(indices_t, "indices", &indices));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    for (int64_t i : indices) {
      OP_REQUIRES(
          ctx, i >= 0 && i < size,
          errors::InvalidArgument(
              "index ", i, " is out of range for a list of ", size, " items"));
    }
    PartialTensorShape shape;
    OP_REQUIRES_OK(ctx, ReadShape(*list, ctx->input(2), true, &shape));
    StackItems(ctx, *list, indices, shape, "gather");
  }
};

class TensorListLengthOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    *out->data<int32_t>() = static_cast<int32_t>(list->tensors.size());
  }
};

// The list's element shape: a vector with -1 for unknown dimensions, or the
// scalar -1 for unknown rank.
class TensorListElementShapeOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    const PartialTensorShape& s = list->element_shape;
    Tensor* out = nullptr;
    if (s.unknown_rank()) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, {s.dims()}, &out));
    }
    const int n = s.unknown_rank() ? 1 : s.dims();
    for (int i = 0; i < n; ++i) {
      const int64_t d = s.unknown_rank() ? -1 : s.dim_size(i);
      if (out->dtype() == DT_INT32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(d);
      } else {
        out->data<int64_t>()[i] = d;
      }
    }
  }
};

class TensorListPushBackOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    const Tensor& item = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckItemShape(*in, item.shape(), "tensor"));
    const int64_t size = static_cast<int64_t>(in->tensors.size());
    OP_REQUIRES(ctx, in->max_num_elements < 0 || size < in->max_num_elements,
                errors::InvalidArgument("cannot push onto a full list: it has ",
                                        size, " items and max_num_elements ",
                                        in->max_num_elements));
    auto out = ForwardOrCopyList(ctx, 0, 0, *in);
    OP_REQUIRES_OK(ctx, out.status());
    (*out)->tensors.push_back(item);
  }
};

class TensorListPopBackOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    OP_REQUIRES(ctx, !in->tensors.empty(),
                errors::InvalidArgument("cannot pop from an empty list"));
    Tensor item;
    const int64_t last = static_cast<int64_t>(in->tensors.size()) - 1;
    if (in->tensors[last].IsInitialized()) {
      item = in->tensors[last];
    } else {
      PartialTensorShape shape;
      OP_REQUIRES_OK(ctx, ReadShape(*in, ctx->input(1), false, &shape));
      OP_REQUIRES_OK(ctx, CheckSupported(element_dtype_));
      OP_REQUIRES_OK(ctx, ItemOrZeros(ctx, *in, last, shape, &item));
    }
    auto out = ForwardOrCopyList(ctx, 0, 0, *in);
    OP_REQUIRES_OK(ctx, out.status());
    (*out)->tensors.pop_back();
    ctx->set_output(1, std::move(item));
  }
};

class TensorListResizeOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &in));
    int64_t size = 0;
    OP_REQUIRES_OK(ctx, ReadScalar(ctx->input(1), "size", &size));
    OP_REQUIRES(
        ctx, size >= 0,
        errors::InvalidArgument("size must be non-negative, got ", size));
    auto out = ForwardOrCopyList(ctx, 0, 0, *in);
    OP_REQUIRES_OK(ctx, out.status());
    (*out)->tensors.resize(size);
  }
};

// The items concatenated along their first dimension, and each item's
// length in it.
class TensorListConcatOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* list = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &list));
    OP_REQUIRES_OK(ctx, CheckDtype(*list, element_dtype_));
    OP_REQUIRES_OK(ctx, CheckSupported(element_dtype_));
    PartialTensorShape shape;
    OP_REQUIRES_OK(ctx, ReadShape(*list, ctx->input(1), false, &shape));
    OP_REQUIRES(ctx, shape.unknown_rank() || shape.dims() >= 1,
                errors::InvalidArgument(
                    "concatenating needs items of rank >= 1 but the element "
                    "shape is ",
                    shape.DebugString()));
    std::vector<int64_t> leading;
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(ctx->input(2), "leading_dims", &leading));
    const int64_t size = static_cast<int64_t>(list->tensors.size());
    // The shape every item has past its first dimension: from the element
    // shape, refined by the set items.
    PartialTensorShape rest;
    if (!shape.unknown_rank()) {
      std::vector<int64_t> dims(shape.dim_sizes().begin() + 1,
                                shape.dim_sizes().end());
      rest = *PartialTensorShape::Build(dims);
    }
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      if (!t.IsInitialized()) continue;
      OP_REQUIRES(ctx, t.dims() >= 1,
                  errors::InvalidArgument(
                      "concatenating needs items of rank >= 1 but item ", i,
                      " is a scalar"));
      std::vector<int64_t> dims(t.shape().dim_sizes().begin() + 1,
                                t.shape().dim_sizes().end());
      PartialTensorShape merged;
      OP_REQUIRES(
          ctx,
          MergeShapes(rest, *PartialTensorShape::Build(dims), &merged).ok(),
          errors::InvalidArgument(
              "item ", i, " has shape ", t.shape().DebugString(),
              " but the element shape is ", shape.DebugString()));
      rest = std::move(merged);
    }
    OP_REQUIRES(ctx, rest.IsFullyDefined(),
                errors::InvalidArgument(
                    "cannot concatenate a list whose items are all unset (or "
                    "none) while the element shape past the first dimension "
                    "is not fully defined: ",
                    shape.DebugString()));
    auto rest_shape = rest.ToTensorShape();
    OP_REQUIRES_OK(ctx, rest_shape.status());
    const int64_t row = rest_shape->num_elements();
    // Each item's first dimension.
    Tensor* lengths = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, {size}, &lengths));
    int64_t total = 0;
    for (int64_t i = 0; i < size; ++i) {
      const Tensor& t = list->tensors[i];
      int64_t len = 0;
      if (t.IsInitialized()) {
        len = t.dim_size(0);
      } else if (!shape.unknown_rank() && shape.dim_size(0) >= 0) {
        len = shape.dim_size(0);
      } else {
        OP_REQUIRES(ctx, i < static_cast<int64_t>(leading.size()),
                    errors::InvalidArgument(
                        "item ", i,
                        " was never set and its length is not "
                        "known: the element shape's first dimension is "
                        "unknown and leading_dims has ",
                        leading.size(), " entries"));
        len = leading[i];
        OP_REQUIRES(ctx, len >= 0,
                    errors::InvalidArgument("leading_dims[", i, "] is ", len));
      }
      lengths->data<int64_t>()[i] = len;
      total += len;
    }
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, out_shape.AddDim(total));
    for (int d = 0; d < rest_shape->dims(); ++d) {
      OP_REQUIRES_OK(ctx, out_shape.AddDim(rest_shape->dim_size(d)));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const size_t bytes = ElementBytes(element_dtype_);
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; i < size; ++i) {
      const int64_t n = lengths->data<int64_t>()[i] * row;
      const Tensor& t = list->tensors[i];
      if (t.IsInitialized()) {
        CopyElements(element_dtype_, t.raw_data(), dst, n);
      } else if (DataTypeIsPod(element_dtype_)) {
        std::memset(dst, 0, static_cast<size_t>(n) * bytes);
      }
      dst += static_cast<size_t>(n) * bytes;
    }
  }
};

// The tensor cut along its first dimension into items of `lengths` rows.
class TensorListSplitOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    std::shared_ptr<TensorList> list;
    OP_REQUIRES_OK(ctx, NewListOfRows(t, ctx->input(1), &list));
    std::vector<int64_t> dims(t.shape().dim_sizes().begin(),
                              t.shape().dim_sizes().end());
    dims[0] = -1;
    OP_REQUIRES(
        ctx,
        ShapesCompatible(list->element_shape, *PartialTensorShape::Build(dims)),
        errors::InvalidArgument("element_shape ",
                                list->element_shape.DebugString(),
                                " does not fit pieces of a tensor of shape ",
                                t.shape().DebugString()));
    const Tensor& lengths_t = ctx->input(2);
    OP_REQUIRES(ctx, lengths_t.dims() == 1,
                errors::InvalidArgument("lengths must be a vector but has "
                                        "shape ",
                                        lengths_t.shape().DebugString()));
    std::vector<int64_t> lengths;
    OP_REQUIRES_OK(ctx, ReadIndexTensor(lengths_t, "lengths", &lengths));
    int64_t start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      OP_REQUIRES(ctx, lengths[i] >= 0 && lengths[i] <= t.dim_size(0) - start,
                  errors::InvalidArgument("lengths ", IndexListString(lengths),
                                          " do not cut a "
                                          "tensor of ",
                                          t.dim_size(0), " rows: length ", i,
                                          " is ", lengths[i], " with ",
                                          t.dim_size(0) - start, " rows left"));
      start += lengths[i];
    }
    OP_REQUIRES(ctx, start == t.dim_size(0),
                errors::InvalidArgument(
                    "lengths ", IndexListString(lengths), " sum to ", start,
                    " but the tensor has ", t.dim_size(0), " rows"));
    list->tensors.resize(lengths.size());
    start = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      OP_REQUIRES_OK(ctx,
                     Rows(ctx, t, start, lengths[i], true, &list->tensors[i]));
      start += lengths[i];
    }
    OP_REQUIRES_OK(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

// What a scatter writes: row i of the tensor becomes item indices[i] of a
// list of at least `size` items.
struct Scatter {
  std::vector<int64_t> indices;
  std::vector<Tensor> rows;
  int64_t size = 0;

  void ApplyTo(TensorList* list) {
    if (static_cast<int64_t>(list->tensors.size()) < size) {
      list->tensors.resize(size);
    }
    for (size_t i = 0; i < indices.size(); ++i) {
      list->tensors[indices[i]] = std::move(rows[i]);
    }
  }
};

// Checks the tensor and indices against `list` (its element shape) and cuts
// the rows; the list grows to hold the largest index, and to `min_size`.
Status PrepareScatter(OpKernelContext* ctx, const Tensor& t,
                      const Tensor& indices_t, const TensorList& list,
                      int64_t min_size, Scatter* out) {
  if (t.dims() < 1) {
    return errors::InvalidArgument(
        "tensor must be at least a vector but has shape ",
        t.shape().DebugString());
  }
  if (indices_t.dims() != 1) {
    return errors::InvalidArgument("indices must be a vector but has shape ",
                                   indices_t.shape().DebugString());
  }
  WEFT_RETURN_IF_ERROR(ReadIndexTensor(indices_t, "indices", &out->indices));
  if (static_cast<int64_t>(out->indices.size()) != t.dim_size(0)) {
    return errors::InvalidArgument("tensor has ", t.dim_size(0),
                                   " rows but there are ", out->indices.size(),
                                   " indices");
  }
  out->size =
      std::max<int64_t>(min_size, static_cast<int64_t>(list.tensors.size()));
  for (int64_t i : out->indices) {
    if (i < 0) {
      return errors::InvalidArgument("indices ", IndexListString(out->indices),
                                     " hold the negative index ", i);
    }
    out->size = std::max(out->size, i + 1);
  }
  std::vector<int64_t> row_dims(t.shape().dim_sizes().begin() + 1,
                                t.shape().dim_sizes().end());
  WEFT_ASSIGN_OR_RETURN(TensorShape row_shape, TensorShape::Build(row_dims));
  WEFT_RETURN_IF_ERROR(CheckItemShape(list, row_shape, "each row of tensor"));
  out->rows.resize(out->indices.size());
  for (size_t i = 0; i < out->indices.size(); ++i) {
    WEFT_RETURN_IF_ERROR(
        Rows(ctx, t, static_cast<int64_t>(i), 1, false, &out->rows[i]));
  }
  return Status();
}

class TensorListScatterOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckSupported(t.dtype()));
    auto list = std::make_shared<TensorList>();
    list->element_dtype = t.dtype();
    OP_REQUIRES_OK(ctx, ReadElementShape(ctx->input(2), "element_shape",
                                         &list->element_shape));
    int64_t num_elements = 0;
    OP_REQUIRES_OK(ctx,
                   ReadScalar(ctx->input(3), "num_elements", &num_elements));
    OP_REQUIRES(ctx, num_elements >= -1,
                errors::InvalidArgument("num_elements must be >= -1, got ",
                                        num_elements));
    Scatter scatter;
    OP_REQUIRES_OK(
        ctx, PrepareScatter(ctx, t, ctx->input(1), *list,
                            std::max<int64_t>(num_elements, 0), &scatter));
    OP_REQUIRES(ctx, num_elements < 0 || scatter.size <= num_elements,
                errors::InvalidArgument("index ", scatter.size - 1,
                                        " is out of range for a list of ",
                                        num_elements, " items (num_elements)"));
    scatter.ApplyTo(list.get());
    OP_REQUIRES_OK(ctx, OutputList(ctx, 0, std::move(list)));
  }
};

// Unlike TensorFlow, items the list grows by are unset (zeros when read),
// not empty float tensors that stacking then rejects, and rows that do not
// fit the list's element shape are an error.
class TensorListScatterIntoExistingListOp : public ListOpKernel {
 public:
  using ListOpKernel::ListOpKernel;

  void Compute(OpKernelContext* ctx) const override {
    const TensorList* in = nullptr;
    OP_REQUIRES_OK(ctx, GetList(*ctx, 0, &in));
    OP_REQUIRES_OK(ctx, CheckDtype(*in, element_dtype_));
    Scatter scatter;
    OP_REQUIRES_OK(ctx, PrepareScatter(ctx, ctx->input(1), ctx->input(2), *in,
                                       0, &scatter));
    auto out = ForwardOrCopyList(ctx, 0, 0, *in);
    OP_REQUIRES_OK(ctx, out.status());
    scatter.ApplyTo(*out);
  }
};

REGISTER_KERNEL_BUILDER(Name("EmptyTensorList").Device(DEVICE_CPU),
                        EmptyTensorListOp);
REGISTER_KERNEL_BUILDER(Name("TensorListReserve").Device(DEVICE_CPU),
                        TensorListReserveOp);
REGISTER_KERNEL_BUILDER(Name("TensorListFromTensor").Device(DEVICE_CPU),
                        TensorListFromTensorOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGetItem").Device(DEVICE_CPU),
                        TensorListGetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSetItem").Device(DEVICE_CPU),
                        TensorListSetItemOp);
REGISTER_KERNEL_BUILDER(Name("TensorListStack").Device(DEVICE_CPU),
                        TensorListStackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListGather").Device(DEVICE_CPU),
                        TensorListGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorListLength").Device(DEVICE_CPU),
                        TensorListLengthOp);
REGISTER_KERNEL_BUILDER(Name("TensorListElementShape").Device(DEVICE_CPU),
                        TensorListElementShapeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPushBack").Device(DEVICE_CPU),
                        TensorListPushBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListPopBack").Device(DEVICE_CPU),
                        TensorListPopBackOp);
REGISTER_KERNEL_BUILDER(Name("TensorListResize").Device(DEVICE_CPU),
                        TensorListResizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorListConcatV2").Device(DEVICE_CPU),
                        TensorListConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorListSplit").Device(DEVICE_CPU),
                        TensorListSplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorListScatterV2").Device(DEVICE_CPU),
                        TensorListScatterOp);
REGISTER_KERNEL_BUILDER(
    Name("TensorListScatterIntoExistingList").Device(DEVICE_CPU),
    TensorListScatterIntoExistingListOp);

}  // namespace
}  // namespace weft
