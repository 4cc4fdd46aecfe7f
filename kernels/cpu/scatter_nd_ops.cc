// ScatterNd and TensorScatterUpdate/Add/Sub/Min/Max on the CPU. indices
// [..., k] address slices output[i_0, ..., i_k-1, :] and updates hold one
// slice per index (updates.shape = indices.shape[:-1] + output.shape[k:]).
// ScatterNd adds its updates into zeros (duplicates sum; bools OR and
// strings concatenate, as TensorFlow's ADD does); TensorScatter* start
// from a copy of `tensor` and assign (the last duplicate wins), add,
// subtract, or keep the min or max (NaN in the tensor stays, NaN in an
// update is ignored, as Eigen's min/max do).
//
// Every index tuple is checked before anything is written
// (kernels/common/nd_index.h); a bad one is an error naming its position
// and value, or, with bad_indices_policy IGNORE, skipped. The work is split
// over slice columns, each worker applying every update to its columns in
// order, so duplicates resolve the same on any thread count. Assignment is
// dtype-agnostic (element width); the arithmetic is one template per dtype
// TensorFlow registers.
#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/nd_index.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

enum class Mode { kAssign, kAdd, kSub, kMin, kMax };

// The checked plan of one scatter: slice numbers (-1: skipped) and the
// slice length in elements.
struct ScatterPlan {
  std::vector<int64_t> rows;
  int64_t slice = 1;
};

Status PlanScatter(const Tensor& indices, int indices_input,
                   const Tensor& updates, int updates_input,
                   const TensorShape& out_shape, bool ignore_bad,
                   ScatterPlan* plan) {
  // Literals: nothing is formatted unless there is an error.
  const absl::string_view indices_name =
      indices_input == 0 ? "indices (input 0)" : "indices (input 1)";
  if (indices.dims() < 1) {
    return errors::InvalidArgument(indices_name,
                                   " must be at least a vector, got shape ",
                                   indices.shape().DebugString());
  }
  if (updates.dims() < 1) {
    return errors::InvalidArgument(
        "Updates shape must have rank at least one. Found:",
        updates.shape().DebugString());
  }
  const int64_t k = IndexDepth(indices);
  if (k > out_shape.dims()) {
    return errors::InvalidArgument(
        indices_name, " ", indices.shape().DebugString(), " hold ", k,
        " coordinates per index, more than the rank of the output ",
        out_shape.DebugString());
  }
  std::vector<int64_t> want(indices.shape().dim_sizes().begin(),
                            indices.shape().dim_sizes().end() - 1);
  plan->slice = 1;
  for (int d = static_cast<int>(k); d < out_shape.dims(); ++d) {
    want.push_back(out_shape.dim_size(d));
    plan->slice *= out_shape.dim_size(d);
  }
  if (absl::Span<const int64_t>(want) != updates.shape().dim_sizes()) {
    return errors::InvalidArgument(
        "updates (input ", updates_input, ") has shape ",
        updates.shape().DebugString(), " but must be indices.shape[:-1] + ",
        "output.shape[", k, ":] = ", IndexListString(want), " for ",
        indices_name, " ", indices.shape().DebugString(), " and output ",
        out_shape.DebugString());
  }
  int64_t num_rows = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) num_rows *= indices.dim_size(d);
  if (num_rows > 0 && (k == 0 || out_shape.num_elements() == 0)) {
    return errors::InvalidArgument(
        "Indices and updates specified for empty output shape");
  }
  return FlattenNdIndices(indices, out_shape, indices_name, "shape", ignore_bad,
                          &plan->rows);
}

// Wrapping integer arithmetic without signed overflow.
template <typename T>
T AddWrap(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return static_cast<T>(a + b);
  }
}

template <typename T>
T SubWrap(T a, T b) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return static_cast<T>(a - b);
  }
}

template <typename T>
void ApplyTyped(const OpKernelContext& ctx, Mode mode, const ScatterPlan& plan,
                const T* upd, T* out) {
  const int64_t slice = plan.slice;
  const int64_t n = static_cast<int64_t>(plan.rows.size());
  ctx.ParallelFor(slice, n + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = 0; r < n; ++r) {
      if (plan.rows[r] < 0) continue;
      T* to = out + plan.rows[r] * slice;
      const T* from = upd + r * slice;
      for (int64_t c = begin; c < end; ++c) {
        if constexpr (std::is_same_v<T, std::string>) {
          to[c] += from[c];
        } else {
          switch (mode) {
            case Mode::kAdd:
              to[c] = AddWrap(to[c], from[c]);
              break;
            case Mode::kSub:
              if constexpr (!std::is_same_v<T, bool>) {
                to[c] = SubWrap(to[c], from[c]);
              }
              break;
            case Mode::kMin:
              if constexpr (!std::is_same_v<T, bool> &&
                            !std::is_same_v<T, complex64> &&
                            !std::is_same_v<T, complex128>) {
                if (from[c] < to[c]) to[c] = from[c];
              }
              break;
            case Mode::kMax:
              if constexpr (!std::is_same_v<T, bool> &&
                            !std::is_same_v<T, complex64> &&
                            !std::is_same_v<T, complex128>) {
                if (to[c] < from[c]) to[c] = from[c];
              }
              break;
            case Mode::kAssign:
              to[c] = from[c];
              break;
          }
        }
      }
    }
  });
}

// Assignment by element width: the last update of a slice wins.
void ApplyAssign(const OpKernelContext& ctx, DataType dtype,
                 const ScatterPlan& plan, const void* upd, void* out) {
  const size_t bytes = copy_util::ElementBytes(dtype);
  const int64_t slice = plan.slice;
  const int64_t n = static_cast<int64_t>(plan.rows.size());
  const char* src = static_cast<const char*>(upd);
  char* dst = static_cast<char*>(out);
  ctx.ParallelFor(slice, n + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = 0; r < n; ++r) {
      if (plan.rows[r] < 0) continue;
      copy_util::CopyElements(dtype, src + (r * slice + begin) * bytes,
                              dst + (plan.rows[r] * slice + begin) * bytes,
                              end - begin);
    }
  });
}

void Apply(const OpKernelContext& ctx, Mode mode, const ScatterPlan& plan,
           const Tensor& updates, Tensor* out) {
  if (plan.rows.empty() || plan.slice == 0) return;
  if (mode == Mode::kAssign) {
    ApplyAssign(ctx, updates.dtype(), plan, updates.raw_data(),
                out->raw_data());
    return;
  }
  if (updates.dtype() == DT_STRING) {
    ApplyTyped<std::string>(ctx, mode, plan, updates.data<std::string>(),
                            out->data<std::string>());
    return;
  }
  VisitNumericType(updates.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ApplyTyped<T>(ctx, mode, plan, updates.data<T>(), out->data<T>());
  });
}

Status GetPolicy(OpKernelConstruction* ctx, bool* ignore) {
  std::string policy;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("bad_indices_policy", &policy));
  return IgnoreBadIndices(policy, ignore);
}

class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, GetPolicy(ctx, &ignore_bad_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    std::vector<int64_t> dims;
    OP_REQUIRES(ctx, ctx->input(2).dims() == 1,
                errors::InvalidArgument("shape (input 2) must be a vector, got "
                                        "shape ",
                                        ctx->input(2).shape().DebugString()));
    OP_REQUIRES_OK(ctx,
                   ReadIndexTensor(ctx->input(2), "shape (input 2)", &dims));
    for (int64_t d : dims) {
      OP_REQUIRES(ctx, d >= 0,
                  errors::InvalidArgument("Dimension ", d, " must be >= 0"));
    }
    StatusOr<TensorShape> shape = TensorShape::Build(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    ScatterPlan plan;
    OP_REQUIRES_OK(
        ctx, PlanScatter(indices, 0, updates, 1, *shape, ignore_bad_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    // (No memset of an empty buffer: its pointer may be null.)
    if (out->dtype() != DT_STRING && out->NumElements() > 0) {
      std::memset(out->raw_data(), 0,
                  out->NumElements() * copy_util::ElementBytes(out->dtype()));
    }
    Apply(*ctx, Mode::kAdd, plan, updates, out);
  }

 private:
  bool ignore_bad_ = false;
};

class TensorScatterOp : public OpKernel {
 public:
  TensorScatterOp(OpKernelConstruction* ctx, Mode mode)
      : OpKernel(ctx), mode_(mode) {
    OP_REQUIRES_OK(ctx, GetPolicy(ctx, &ignore_bad_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    ScatterPlan plan;
    OP_REQUIRES_OK(ctx, PlanScatter(indices, 1, updates, 2, tensor.shape(),
                                    ignore_bad_, &plan));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, tensor.shape(), &out));
    copy_util::CopyElements(tensor.dtype(), tensor.raw_data(), out->raw_data(),
                            tensor.NumElements());
    Apply(*ctx, mode_, plan, updates, out);
  }

 private:
  Mode mode_;
  bool ignore_bad_ = false;
};

template <Mode M>
class TensorScatterModeOp : public TensorScatterOp {
 public:
  explicit TensorScatterModeOp(OpKernelConstruction* ctx)
      : TensorScatterOp(ctx, M) {}
};

std::vector<DataType> AssignTypes() {
  return NumericAndBoolTypesPlus({DT_STRING});
}

// TensorFlow's CPU kernels for Add and Sub: every number type, complex
// included, no bool.
std::vector<DataType> ArithmeticTypes() {
  std::vector<DataType> types;
  for (DataType dt : NumericAndBoolTypes()) {
    if (dt != DT_BOOL) types.push_back(dt);
  }
  return types;
}

// Min and Max: the real number types.
std::vector<DataType> RealTypes() {
  std::vector<DataType> types;
  for (DataType dt : ArithmeticTypes()) {
    if (!DataTypeIsComplex(dt)) types.push_back(dt);
  }
  return types;
}

REGISTER_KERNEL_BUILDER(Name("ScatterNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AssignTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        ScatterNdOp);
REGISTER_KERNEL_BUILDER(Name("TensorScatterUpdate")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AssignTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        TensorScatterModeOp<Mode::kAssign>);
REGISTER_KERNEL_BUILDER(Name("TensorScatterAdd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", ArithmeticTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        TensorScatterModeOp<Mode::kAdd>);
REGISTER_KERNEL_BUILDER(Name("TensorScatterSub")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", ArithmeticTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        TensorScatterModeOp<Mode::kSub>);
REGISTER_KERNEL_BUILDER(Name("TensorScatterMin")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", RealTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        TensorScatterModeOp<Mode::kMin>);
REGISTER_KERNEL_BUILDER(Name("TensorScatterMax")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", RealTypes())
                            .TypeConstraint("Tindices", {DT_INT32, DT_INT64}),
                        TensorScatterModeOp<Mode::kMax>);

}  // namespace
}  // namespace weft
