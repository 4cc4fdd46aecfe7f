// DenseToDenseSetOperation on the CPU, for TensorFlow's CPU dtypes (int8,
// int16, int32, int64, uint8, uint16, string): for every position of the
// leading n-1 dimensions, the set operation (a-b, b-a, intersection or
// union; the attr is read case-insensitively, as TensorFlow does) of the
// values of set1's and set2's last-dimension rows, as a sparse tensor:
// entry [group..., j] holds the j-th smallest element of that group's
// result, groups in row-major order, and the dense shape is the group shape
// plus the largest result size. Empty results leave no entries.
//
// Integers are handled as int64 (every registered integer type fits), so
// the set logic is compiled twice (int64 and string), not seven times.
// Groups are computed in parallel, then written in order.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

enum class SetOp { kAMinusB, kBMinusA, kIntersection, kUnion };

// Elements [begin, begin + n) of an integer tensor as int64.
template <typename T>
void LoadAs(const void* data, int64_t begin, int64_t n,
            std::vector<int64_t>* out) {
  const T* p = static_cast<const T*>(data) + begin;
  out->assign(p, p + n);
}

void LoadInts(DataType dtype, const void* data, int64_t begin, int64_t n,
              std::vector<int64_t>* out) {
  switch (dtype) {
    case DT_INT8:
      LoadAs<int8_t>(data, begin, n, out);
      break;
    case DT_INT16:
      LoadAs<int16_t>(data, begin, n, out);
      break;
    case DT_INT32:
      LoadAs<int32_t>(data, begin, n, out);
      break;
    case DT_UINT8:
      LoadAs<uint8_t>(data, begin, n, out);
      break;
    case DT_UINT16:
      LoadAs<uint16_t>(data, begin, n, out);
      break;
    default:
      LoadAs<int64_t>(data, begin, n, out);
      break;
  }
}

template <typename T>
void StoreAs(const std::vector<int64_t>& v, void* data, int64_t at) {
  T* p = static_cast<T*>(data) + at;
  for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
}

void StoreInts(DataType dtype, const std::vector<int64_t>& v, void* data,
               int64_t at) {
  switch (dtype) {
    case DT_INT8:
      StoreAs<int8_t>(v, data, at);
      break;
    case DT_INT16:
      StoreAs<int16_t>(v, data, at);
      break;
    case DT_INT32:
      StoreAs<int32_t>(v, data, at);
      break;
    case DT_UINT8:
      StoreAs<uint8_t>(v, data, at);
      break;
    case DT_UINT16:
      StoreAs<uint16_t>(v, data, at);
      break;
    default:
      StoreAs<int64_t>(v, data, at);
      break;
  }
}

template <typename E>
void Load(const Tensor& t, int64_t begin, int64_t n, std::vector<E>* out) {
  if constexpr (std::is_same_v<E, std::string>) {
    const std::string* p = t.data<std::string>() + begin;
    out->assign(p, p + n);
  } else {
    LoadInts(t.dtype(), t.raw_data(), begin, n, out);
  }
}

template <typename E>
void SortUnique(std::vector<E>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

template <typename E>
void Apply(SetOp op, const std::vector<E>& a, const std::vector<E>& b,
           std::vector<E>* out) {
  out->clear();
  auto into = std::back_inserter(*out);
  switch (op) {
    case SetOp::kAMinusB:
      std::set_difference(a.begin(), a.end(), b.begin(), b.end(), into);
      break;
    case SetOp::kBMinusA:
      std::set_difference(b.begin(), b.end(), a.begin(), a.end(), into);
      break;
    case SetOp::kIntersection:
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), into);
      break;
    case SetOp::kUnion:
      std::set_union(a.begin(), a.end(), b.begin(), b.end(), into);
      break;
  }
}

class DenseToDenseSetOperationOp : public OpKernel {
 public:
  explicit DenseToDenseSetOperationOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    std::string name;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("set_operation", &name));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (name == "a-b") {
      op_ = SetOp::kAMinusB;
    } else if (name == "b-a") {
      op_ = SetOp::kBMinusA;
    } else if (name == "intersection") {
      op_ = SetOp::kIntersection;
    } else if (name == "union") {
      op_ = SetOp::kUnion;
    } else {
      ctx->SetStatus(
          errors::InvalidArgument("Invalid set_operation ", name, "."));
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& set1 = ctx->input(0);
    const Tensor& set2 = ctx->input(1);
    for (const Tensor* t : {&set1, &set2}) {
      OP_REQUIRES(ctx, t->dims() >= 2,
                  errors::InvalidArgument(
                      "Shape [", absl::StrJoin(t->shape().dim_sizes(), ","),
                      "] has rank ", t->dims(), " < 2"));
    }
    const int rank = set1.dims();
    const absl::Span<const int64_t> d1 = set1.shape().dim_sizes();
    const absl::Span<const int64_t> d2 = set2.shape().dim_sizes();
    OP_REQUIRES(
        ctx,
        set2.dims() == rank && std::equal(d1.begin(), d1.end() - 1, d2.begin()),
        errors::InvalidArgument(
            "Mismatched shapes [",
            absl::StrJoin(d1.subspan(0, d1.size() - 1), ","), "] vs [",
            absl::StrJoin(d2.subspan(0, d2.size() - 1), ","), "]"));
    if (set1.dtype() == DT_STRING) {
      Run<std::string>(ctx, set1, set2);
    } else {
      Run<int64_t>(ctx, set1, set2);
    }
  }

 private:
  template <typename E>
  void Run(OpKernelContext* ctx, const Tensor& set1, const Tensor& set2) const {
    const int rank = set1.dims();
    const int64_t n1 = set1.dim_size(rank - 1);
    const int64_t n2 = set2.dim_size(rank - 1);
    // The product of the leading dimensions. It fits when a row is not
    // empty (one of the inputs holds that many rows); when both rows are
    // empty every result is, and no group is visited.
    int64_t g_count = 0;
    if (n1 > 0 || n2 > 0) {
      g_count = n1 > 0 ? set1.NumElements() / n1 : set2.NumElements() / n2;
    }
    std::vector<std::vector<E>> results(static_cast<size_t>(g_count));
    const SetOp op = op_;
    ctx->ParallelFor(g_count, 40 * (n1 + n2 + 1),
                     [&](int64_t begin, int64_t end) {
                       std::vector<E> a;
                       std::vector<E> b;
                       for (int64_t g = begin; g < end; ++g) {
                         Load<E>(set1, g * n1, n1, &a);
                         Load<E>(set2, g * n2, n2, &b);
                         SortUnique(&a);
                         SortUnique(&b);
                         Apply(op, a, b, &results[g]);
                       }
                     });
    int64_t total = 0;
    int64_t widest = 0;
    for (const std::vector<E>& r : results) {
      total += static_cast<int64_t>(r.size());
      widest = std::max<int64_t>(widest, static_cast<int64_t>(r.size()));
    }
    Tensor* indices = nullptr;
    Tensor* values = nullptr;
    Tensor* shape = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, rank}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({rank}), &shape));
    int64_t* shape_out = shape->data<int64_t>();
    for (int d = 0; d + 1 < rank; ++d) shape_out[d] = set1.dim_size(d);
    shape_out[rank - 1] = widest;
    int64_t* idx = indices->data<int64_t>();
    std::vector<int64_t> coords(static_cast<size_t>(rank - 1), 0);
    int64_t at = 0;
    for (int64_t g = 0; g < g_count; ++g) {
      if (g > 0) {  // Advance the group coordinates in row-major order.
        for (int d = rank - 2; d >= 0; --d) {
          if (++coords[d] < set1.dim_size(d)) break;
          coords[d] = 0;
        }
      }
      const std::vector<E>& r = results[g];
      for (size_t j = 0; j < r.size(); ++j) {
        int64_t* row = idx + (at + static_cast<int64_t>(j)) * rank;
        std::copy(coords.begin(), coords.end(), row);
        row[rank - 1] = static_cast<int64_t>(j);
      }
      if constexpr (std::is_same_v<E, std::string>) {
        std::copy(r.begin(), r.end(), values->data<std::string>() + at);
      } else {
        StoreInts(values->dtype(), r, values->raw_data(), at);
      }
      at += static_cast<int64_t>(r.size());
    }
  }

  SetOp op_ = SetOp::kUnion;
};

REGISTER_KERNEL_BUILDER(Name("DenseToDenseSetOperation")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", {DT_INT8, DT_INT16, DT_INT32,
                                                  DT_INT64, DT_UINT8, DT_UINT16,
                                                  DT_STRING}),
                        DenseToDenseSetOperationOp);

}  // namespace
}  // namespace weft
