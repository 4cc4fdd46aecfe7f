#include "arrays.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/tensor_shape.h"

namespace weft::python {
namespace {

namespace dlpack = nb::dlpack;
using ReadOnlyArray = nb::ndarray<nb::ro, nb::device::cpu>;

dlpack::dtype Dl(dlpack::dtype_code code, int bits) {
  return dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                       1};
}

// The DLPack spelling of the dtypes NumPy and weft share; false for the rest.
bool ToDlpack(DataType dtype, dlpack::dtype* out) {
  using C = dlpack::dtype_code;
  switch (dtype) {
    case DT_FLOAT:
      *out = Dl(C::Float, 32);
      return true;
    case DT_DOUBLE:
      *out = Dl(C::Float, 64);
      return true;
    case DT_HALF:
      *out = Dl(C::Float, 16);
      return true;
    case DT_INT8:
      *out = Dl(C::Int, 8);
      return true;
    case DT_INT16:
      *out = Dl(C::Int, 16);
      return true;
    case DT_INT32:
      *out = Dl(C::Int, 32);
      return true;
    case DT_INT64:
      *out = Dl(C::Int, 64);
      return true;
    case DT_UINT8:
      *out = Dl(C::UInt, 8);
      return true;
    case DT_UINT16:
      *out = Dl(C::UInt, 16);
      return true;
    case DT_UINT32:
      *out = Dl(C::UInt, 32);
      return true;
    case DT_UINT64:
      *out = Dl(C::UInt, 64);
      return true;
    case DT_BOOL:
      *out = Dl(C::Bool, 8);
      return true;
    case DT_COMPLEX64:
      *out = Dl(C::Complex, 64);
      return true;
    case DT_COMPLEX128:
      *out = Dl(C::Complex, 128);
      return true;
    default:
      return false;
  }
}

DataType FromDlpack(dlpack::dtype dt) {
  if (dt.lanes != 1) return DT_INVALID;
  using C = dlpack::dtype_code;
  switch (static_cast<C>(dt.code)) {
    case C::Float:
      return dt.bits == 32   ? DT_FLOAT
             : dt.bits == 64 ? DT_DOUBLE
             : dt.bits == 16 ? DT_HALF
                             : DT_INVALID;
    case C::Bfloat:
      return dt.bits == 16 ? DT_BFLOAT16 : DT_INVALID;
    case C::Int:
      return dt.bits == 8    ? DT_INT8
             : dt.bits == 16 ? DT_INT16
             : dt.bits == 32 ? DT_INT32
             : dt.bits == 64 ? DT_INT64
                             : DT_INVALID;
    case C::UInt:
      return dt.bits == 8    ? DT_UINT8
             : dt.bits == 16 ? DT_UINT16
             : dt.bits == 32 ? DT_UINT32
             : dt.bits == 64 ? DT_UINT64
                             : DT_INVALID;
    case C::Bool:
      return dt.bits == 8 ? DT_BOOL : DT_INVALID;
    case C::Complex:
      return dt.bits == 64    ? DT_COMPLEX64
             : dt.bits == 128 ? DT_COMPLEX128
                              : DT_INVALID;
    default:
      return DT_INVALID;
  }
}

// NumPy's objects, looked up once at import and kept for the life of the
// process (never released: the interpreter may be gone by the time static
// destructors run).
struct NumpyRefs {
  nb::object module;
  nb::object ndarray_type;
  nb::object asarray;
  nb::object ascontiguousarray;
  nb::object dtype;
};

NumpyRefs& Numpy() {
  static NumpyRefs* refs = [] {
    auto* r = new NumpyRefs;
    r->module = nb::module_::import_("numpy");
    r->ndarray_type = r->module.attr("ndarray");
    r->asarray = r->module.attr("asarray");
    r->ascontiguousarray = r->module.attr("ascontiguousarray");
    r->dtype = r->module.attr("dtype");
    return r;
  }();
  return *refs;
}

[[noreturn]] void RaiseTypeError(const std::string& message) {
  PyErr_SetString(PyExc_TypeError, message.c_str());
  throw nb::python_error();
}

// The buffer of a tensor that shares a NumPy array's memory. TensorBuffer
// asks it for memory once (and gets the array's) and gives it back once,
// when the last tensor viewing it is gone: then the reference to the array
// drops (nanobind takes the GIL for that, on whatever thread it happens) and
// this object, made for that one buffer, deletes itself.
class ArrayBuffer final : public Allocator {
 public:
  explicit ArrayBuffer(ReadOnlyArray array) : array_(std::move(array)) {}

  std::string Name() const override { return "NumPy array"; }
  MemorySpace memory_space() const override { return MemorySpace::kHost; }
  void* AllocateRaw(size_t, size_t) override {
    return const_cast<void*>(static_cast<const void*>(array_.data()));
  }
  void DeallocateRaw(void*, size_t) override { delete this; }
  AllocatorStats GetStats() const override { return {}; }

 private:
  ReadOnlyArray array_;
};

bool IsCContiguous(const ReadOnlyArray& a) {
  int64_t expected = 1;  // strides are in elements
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) != 1 && a.stride(i) != expected) return false;
    expected *= static_cast<int64_t>(a.shape(i));
  }
  return true;
}

StatusOr<TensorShape> ShapeOf(const ReadOnlyArray& a) {
  std::vector<int64_t> dims(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    dims[i] = static_cast<int64_t>(a.shape(i));
  }
  return TensorShape::Build(dims);
}

// str(value) in Python.
std::string PyStr(nb::handle value) {
  return nb::cast<std::string>(nb::str(value));
}

std::string DtypeOf(nb::handle array) {
  nb::object dtype = array.attr("dtype");
  return PyStr(dtype);
}

std::string TypeName(nb::handle value) {
  return nb::cast<std::string>(nb::type_name(value.type()));
}

}  // namespace

FeedTensor TensorFromPython(nb::handle value, absl::string_view feed,
                            DataType expected) {
  NumpyRefs& np = Numpy();
  nb::object converted;
  nb::handle source = value;
  if (!nb::isinstance(value, np.ndarray_type)) {
    nb::object want = nb::none();
    if (dlpack::dtype unused;
        expected != DT_INVALID && ToDlpack(expected, &unused)) {
      want = NumpyDtype(expected);
    }
    try {
      converted = np.asarray(value, want);
    } catch (nb::python_error& e) {
      RaiseTypeError(absl::StrCat("feed '", feed,
                                  "': cannot make an array from a ",
                                  TypeName(value), ": ", e.what()));
    }
    source = converted;
  }
  ReadOnlyArray array;
  if (!nb::try_cast(source, array, /*convert=*/false)) {
    RaiseTypeError(absl::StrCat(
        "feed '", feed, "': an array of dtype ", DtypeOf(source),
        " is no tensor weft can take (numeric and bool dtypes only)"));
  }
  const DataType dtype = FromDlpack(array.dtype());
  if (dtype == DT_INVALID) {
    RaiseTypeError(absl::StrCat(
        "feed '", feed, "': an array of dtype ", DtypeOf(source),
        " is no tensor weft can take (numeric and bool dtypes only)"));
  }
  auto shape = ShapeOf(array);
  if (!shape.ok()) {
    PyErr_SetString(
        PyExc_ValueError,
        absl::StrCat("feed '", feed, "': ", shape.status().message()).c_str());
    throw nb::python_error();
  }

  const size_t bytes = array.nbytes();
  const auto address = reinterpret_cast<uintptr_t>(array.data());
  if (bytes > 0 && address % kTensorAlignment == 0 && IsCContiguous(array)) {
    auto* buffer = new ArrayBuffer(array);
    auto tensor = Tensor::Allocate(buffer, dtype, *shape);
    if (!tensor.ok()) {
      delete buffer;  // Allocate gave it back only if it took it: it did not
      RaiseTypeError(
          absl::StrCat("feed '", feed, "': ", tensor.status().message()));
    }
    return FeedTensor{*std::move(tensor), true};
  }

  // A copy: into aligned memory, in C order.
  if (!IsCContiguous(array)) {
    converted = np.ascontiguousarray(source);
    source = converted;
    array = nb::cast<ReadOnlyArray>(source, /*convert=*/false);
  }
  auto tensor = Tensor::Allocate(DefaultCpuAllocator(), dtype, *shape);
  if (!tensor.ok()) {
    PyErr_SetString(
        PyExc_MemoryError,
        absl::StrCat("feed '", feed, "': ", tensor.status().message()).c_str());
    throw nb::python_error();
  }
  if (bytes > 0) std::memcpy(tensor->raw_data(), array.data(), bytes);
  return FeedTensor{*std::move(tensor), false};
}

nb::object ArrayFromTensor(Tensor tensor, absl::string_view fetch,
                           bool readonly) {
  if (tensor.memory_space() != MemorySpace::kHost) {
    RaiseTypeError(
        absl::StrCat("fetch '", fetch, "': the tensor is in device memory"));
  }
  dlpack::dtype dt;
  if (!ToDlpack(tensor.dtype(), &dt)) {
    RaiseTypeError(absl::StrCat("fetch '", fetch, "' is a ",
                                DataTypeName(tensor.dtype()),
                                " tensor, for which NumPy has no dtype"));
  }
  size_t shape[kMaxRank];
  const int ndim = tensor.dims();
  for (int i = 0; i < ndim; ++i) {
    shape[i] = static_cast<size_t>(tensor.dim_size(i));
  }
  auto* owned = new Tensor(std::move(tensor));
  // Memory weft still references elsewhere (a constant of the graph, a feed
  // passed through, the same tensor fetched twice) must not be written
  // through the array.
  readonly = readonly || !owned->RefCountIsOne();
  nb::capsule owner(owned,
                    [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  // An empty tensor may have no buffer; NumPy wants some address.
  alignas(kTensorAlignment) static const char kEmpty[kTensorAlignment] = {};
  void* data = owned->raw_data();
  if (data == nullptr) data = const_cast<char*>(kEmpty);
  if (readonly) {
    return nb::ndarray<nb::numpy, nb::ro>(data, ndim, shape, owner, nullptr, dt)
        .cast();
  }
  return nb::ndarray<nb::numpy>(data, ndim, shape, owner, nullptr, dt).cast();
}

nb::object NumpyDtype(DataType dtype) {
  const char* name = nullptr;
  switch (dtype) {
    case DT_FLOAT:
      name = "float32";
      break;
    case DT_DOUBLE:
      name = "float64";
      break;
    case DT_HALF:
      name = "float16";
      break;
    case DT_INT8:
      name = "int8";
      break;
    case DT_INT16:
      name = "int16";
      break;
    case DT_INT32:
      name = "int32";
      break;
    case DT_INT64:
      name = "int64";
      break;
    case DT_UINT8:
      name = "uint8";
      break;
    case DT_UINT16:
      name = "uint16";
      break;
    case DT_UINT32:
      name = "uint32";
      break;
    case DT_UINT64:
      name = "uint64";
      break;
    case DT_BOOL:
      name = "bool";
      break;
    case DT_COMPLEX64:
      name = "complex64";
      break;
    case DT_COMPLEX128:
      name = "complex128";
      break;
    default:
      return nb::str(DataTypeName(dtype).c_str());
  }
  return Numpy().dtype(name);
}

nb::object EmptyAligned(nb::handle shape, nb::handle dtype) {
  NumpyRefs& np = Numpy();
  // NumPy parses the dtype; a zero-size array of it says what it is.
  nb::object probe = np.module.attr("empty")(0, np.dtype(dtype));
  ReadOnlyArray a;
  DataType dt = DT_INVALID;
  if (nb::try_cast(probe, a, false)) dt = FromDlpack(a.dtype());
  if (dt == DT_INVALID || dt == DT_BFLOAT16) {
    RaiseTypeError(absl::StrCat("weft.empty: dtype ", DtypeOf(probe),
                                " is no tensor dtype weft and NumPy share"));
  }
  std::vector<int64_t> dims;
  for (nb::handle d : shape) dims.push_back(nb::cast<int64_t>(d));
  auto built = TensorShape::Build(dims);
  if (!built.ok()) {
    PyErr_SetString(
        PyExc_ValueError,
        absl::StrCat("weft.empty: ", built.status().message()).c_str());
    throw nb::python_error();
  }
  auto tensor = Tensor::Allocate(DefaultCpuAllocator(), dt, *built);
  if (!tensor.ok()) {
    PyErr_SetString(
        PyExc_MemoryError,
        absl::StrCat("weft.empty: ", tensor.status().message()).c_str());
    throw nb::python_error();
  }
  return ArrayFromTensor(*std::move(tensor), "", false);
}

}  // namespace weft::python
