// Unique and UniqueWithCounts on the CPU: the distinct elements of a vector
// in order of first appearance, each element's position among them, and
// (WithCounts) how often each occurs. Elements are compared by their bytes,
// which is value equality for every dtype but the floating ones; those are
// compared as TensorFlow's hash map compares them: -0 equals +0 (the first
// seen is kept) and every NaN is distinct. Strings hash their contents.
// One pass, one hash map; dtype-agnostic otherwise (element width only).
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The sign bit and the bits of +inf of a floating dtype (0, 0 otherwise):
// with the sign cleared, a value is zero when its bits are 0 and NaN when
// they exceed inf's.
void FloatMasks(DataType dtype, uint64_t* sign, uint64_t* inf) {
  switch (dtype) {
    case DT_HALF:
      *sign = 0x8000;
      *inf = 0x7C00;
      return;
    case DT_BFLOAT16:
      *sign = 0x8000;
      *inf = 0x7F80;
      return;
    case DT_FLOAT:
      *sign = 0x80000000u;
      *inf = 0x7F800000u;
      return;
    case DT_DOUBLE:
      *sign = uint64_t{1} << 63;
      *inf = 0x7FF0000000000000u;
      return;
    default:
      *sign = 0;
      *inf = 0;
  }
}

// first[j]: the position in x of the j-th distinct element; idx[i]: the
// distinct number of x[i].
template <typename E>
void FindUnique(const E* x, int64_t n, DataType dtype,
                std::vector<int64_t>* first, std::vector<int64_t>* idx) {
  idx->resize(n);
  if constexpr (std::is_same_v<E, std::string>) {
    absl::flat_hash_map<std::string_view, int64_t> seen;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = seen.try_emplace(x[i], first->size());
      if (inserted) first->push_back(i);
      (*idx)[i] = it->second;
    }
  } else if constexpr (sizeof(E) <= sizeof(uint64_t)) {
    uint64_t sign = 0;
    uint64_t inf = 0;
    FloatMasks(dtype, &sign, &inf);
    absl::flat_hash_map<uint64_t, int64_t> seen;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t key = 0;
      std::memcpy(&key, &x[i], sizeof(E));  // little-endian: zero-extended
      if (sign != 0) {
        const uint64_t magnitude = key & ~sign;
        if (magnitude > inf) {  // NaN: never equal to anything
          (*idx)[i] = static_cast<int64_t>(first->size());
          first->push_back(i);
          continue;
        }
        if (magnitude == 0) key = 0;
      }
      auto [it, inserted] = seen.try_emplace(key, first->size());
      if (inserted) first->push_back(i);
      (*idx)[i] = it->second;
    }
  }
}

template <typename Out>
void WriteIndices(const std::vector<int64_t>& values, Tensor* t) {
  Out* out = t->data<Out>();
  for (size_t i = 0; i < values.size(); ++i) {
    out[i] = static_cast<Out>(values[i]);
  }
}

class UniqueOp : public OpKernel {
 public:
  explicit UniqueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                errors::InvalidArgument(
                    "unique expects a 1D vector. x (input 0) has shape ",
                    x.shape().DebugString()));
    const int64_t n = x.NumElements();
    const DataType idx_type = ctx->expected_output_dtype(1);
    OP_REQUIRES(
        ctx, idx_type == DT_INT64 || n <= std::numeric_limits<int32_t>::max(),
        errors::InvalidArgument(
            "unique does not support input tensors larger than ",
            std::numeric_limits<int32_t>::max(),
            " elements with out_idx int32"));
    std::vector<int64_t> first;
    std::vector<int64_t> idx;
    copy_util::VisitElementType(x.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      FindUnique<E>(static_cast<const E*>(x.raw_data()), n, x.dtype(), &first,
                    &idx);
    });
    const int64_t m = static_cast<int64_t>(first.size());
    Tensor* y = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m}), &y));
    Tensor* idx_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, x.shape(), &idx_out));
    const size_t bytes = copy_util::ElementBytes(x.dtype());
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y->raw_data());
    for (int64_t j = 0; j < m; ++j) {
      copy_util::CopyElements(x.dtype(), src + first[j] * bytes,
                              dst + j * bytes, 1);
    }
    if (idx_type == DT_INT32) {
      WriteIndices<int32_t>(idx, idx_out);
    } else {
      WriteIndices<int64_t>(idx, idx_out);
    }
    if (ctx->num_outputs() < 3) return;
    std::vector<int64_t> count(m, 0);
    for (int64_t v : idx) ++count[v];
    Tensor* count_out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({m}), &count_out));
    if (idx_type == DT_INT32) {
      WriteIndices<int32_t>(count, count_out);
    } else {
      WriteIndices<int64_t>(count, count_out);
    }
  }
};

// TensorFlow's CPU kernels: the real number types, bool and strings.
std::vector<DataType> UniqueTypes() {
  std::vector<DataType> types;
  for (DataType dt : NumericAndBoolTypes()) {
    if (!DataTypeIsComplex(dt)) types.push_back(dt);
  }
  types.push_back(DT_STRING);
  return types;
}

REGISTER_KERNEL_BUILDER(Name("Unique")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", UniqueTypes())
                            .TypeConstraint("out_idx", {DT_INT32, DT_INT64}),
                        UniqueOp);
REGISTER_KERNEL_BUILDER(Name("UniqueWithCounts")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", UniqueTypes())
                            .TypeConstraint("out_idx", {DT_INT32, DT_INT64}),
                        UniqueOp);

}  // namespace
}  // namespace weft
