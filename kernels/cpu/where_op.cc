// Where (the one-input form) on the CPU: the coordinates of the input's
// non-zero (true) elements as an int64 matrix [count, rank], in row-major
// order of the elements. NaN counts as non-zero, -0.0 as zero, as in
// TensorFlow. A scalar input is an error, as in TensorFlow. Every dtype
// TensorFlow's CPU kernel takes: the numbers and bool, not half (which
// TensorFlow refuses on the CPU).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

template <typename T>
bool NonZero(const T& v) {
  return v != T();
}

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.dims() >= 1,
                errors::InvalidArgument("input 0 must have rank at least 1 "
                                        "but is a scalar"));
    const bool known = VisitNumericType(input.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      Run<T>(ctx, input);
    });
    OP_REQUIRES(ctx, known,
                errors::InvalidArgument("Where has no CPU kernel for ",
                                        DataTypeName(input.dtype())));
  }

 private:
  template <typename T>
  static void Run(OpKernelContext* ctx, const Tensor& input) {
    const T* v = input.data<T>();
    const int64_t n = input.NumElements();
    const int rank = input.dims();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += NonZero(v[i]) ? 1 : 0;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({count, rank}), &out));
    if (count == 0) return;
    int64_t* o = out->data<int64_t>();
    // The coordinates of element i, advanced like an odometer.
    std::vector<int64_t> index(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (NonZero(v[i])) {
        for (int d = 0; d < rank; ++d) *o++ = index[d];
      }
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < input.dim_size(d)) break;
        index[d] = 0;
      }
    }
  }
};

std::vector<DataType> WhereTypes() {
  std::vector<DataType> types = NumericAndBoolTypes();
  types.erase(std::remove(types.begin(), types.end(), DT_HALF), types.end());
  return types;
}

REGISTER_KERNEL_BUILDER(
    Name("Where").Device(DEVICE_CPU).TypeConstraint("T", WhereTypes()),
    WhereOp);

}  // namespace
}  // namespace weft
