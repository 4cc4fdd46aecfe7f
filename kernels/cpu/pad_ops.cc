// Pad, PadV2 and MirrorPad on the CPU. The paddings and the output shape
// come from kernels/common/pad_shape.h, which the CUDA kernels share.
//
// Trailing dimensions without padding are folded into a "unit" of
// contiguous elements, so padding H and W of an NHWC tensor moves whole
// C-element units. The output is then a sequence of rows (the outer
// dimensions) of units along the last padded dimension; each row is a
// left region, the input's row copied as one memcpy run, and a right region
// (the constant, or MirrorPad's reflected units), and rows lying in an outer
// dimension's padding are the constant throughout (or, for MirrorPad, the
// reflected input row). The work is split over flat unit ranges, so any
// shape parallelizes. No padding at all returns the input itself.
// Dtype-agnostic (element width only), strings and the quantized types
// TensorFlow registers included.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/pad_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Where an output index i (already shifted by the padding before) reads in a
// dimension of size n.
inline int64_t MirrorIndex(int64_t i, int64_t n, PadMode mode) {
  const int64_t sym = mode == PadMode::kSymmetric ? 1 : 0;
  if (i < 0) return -i - sym;
  if (i >= n) return 2 * n - 2 + sym - i;
  return i;
}

// Pads `input` into output 0. `value` is the constant (kConstant only).
void PadCompute(OpKernelContext* ctx, const Tensor& input, PadMode mode,
                const void* value) {
  StatusOr<PadShape> pad = ResolvePad(input, ctx->input(1), mode);
  OP_REQUIRES_OK(ctx, pad.status());
  if (!pad->padded) {
    ctx->set_output(0, input);
    return;
  }
  const std::vector<int64_t>& before = pad->before;
  const int rank = input.dims();
  int last = -1;  // the last padded dimension
  for (int d = 0; d < rank; ++d) {
    if (before[d] != 0 || pad->after[d] != 0) last = d;
  }
  const TensorShape& shape = pad->shape;
  const absl::Span<const int64_t> out_dims = shape.dim_sizes();
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  if (shape.num_elements() == 0) return;

  const DataType dtype = input.dtype();
  const size_t bytes = copy_util::ElementBytes(dtype);
  int64_t unit = 1;
  for (int d = last + 1; d < rank; ++d) unit *= input.dim_size(d);
  const copy_util::Dims in_strides = copy_util::RowMajorStrides(input.shape());
  const int64_t in_l = input.dim_size(last);
  const int64_t b_l = before[last];
  const int64_t out_l = out_dims[last];
  int64_t rows = 1;
  for (int d = 0; d < last; ++d) rows *= out_dims[d];
  const char* src = static_cast<const char*>(input.raw_data());
  char* dst = static_cast<char*>(out->raw_data());
  const bool empty_input = input.NumElements() == 0;

  const int64_t cost =
      std::max<int64_t>(1, unit * (dtype == DT_STRING ? 40 : 1));
  ctx->ParallelFor(rows * out_l, cost, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(last, 0);
    int64_t r = begin / out_l;
    for (int d = last - 1; d >= 0; --d) {
      index[d] = r % out_dims[d];
      r /= out_dims[d];
    }
    int64_t row = begin / out_l;
    int64_t o = begin % out_l;
    int64_t pos = begin;
    while (pos < end) {
      // The input row this output row reads, if any.
      bool inside = !empty_input;
      int64_t src_row = 0;  // in elements
      for (int d = 0; d < last && inside; ++d) {
        int64_t i = index[d] - before[d];
        if (mode == PadMode::kConstant) {
          inside = i >= 0 && i < input.dim_size(d);
        } else {
          i = MirrorIndex(i, input.dim_size(d), mode);
        }
        src_row += i * in_strides[d];
      }
      const int64_t o_end = std::min(out_l, o + (end - pos));
      char* drow = dst + row * out_l * unit * bytes;
      auto outside_units = [&](int64_t from, int64_t to) {
        if (from >= to) return;
        if (mode == PadMode::kConstant || !inside) {
          copy_util::FillElements(dtype, value, drow + from * unit * bytes,
                                  (to - from) * unit);
          return;
        }
        for (int64_t u = from; u < to; ++u) {
          const int64_t s = MirrorIndex(u - b_l, in_l, mode);
          copy_util::CopyElements(dtype, src + (src_row + s * unit) * bytes,
                                  drow + u * unit * bytes, unit);
        }
      };
      if (!inside) {
        outside_units(o, o_end);
      } else {
        outside_units(o, std::min(o_end, b_l));
        const int64_t m0 = std::max(o, b_l);
        const int64_t m1 = std::min(o_end, b_l + in_l);
        if (m0 < m1) {
          copy_util::CopyElements(dtype,
                                  src + (src_row + (m0 - b_l) * unit) * bytes,
                                  drow + m0 * unit * bytes, (m1 - m0) * unit);
        }
        outside_units(std::max(o, b_l + in_l), o_end);
      }
      pos += o_end - o;
      o = 0;
      ++row;
      for (int d = last - 1; d >= 0; --d) {
        if (++index[d] < out_dims[d]) break;
        index[d] = 0;
      }
    }
  });
}

// Zero of every plain-bytes dtype is all zero bits.
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    if (input.dtype() == DT_STRING) {
      const std::string empty;
      PadCompute(ctx, input, PadMode::kConstant, &empty);
    } else {
      alignas(16) const unsigned char zero[16] = {};
      PadCompute(ctx, input, PadMode::kConstant, zero);
    }
  }
};

class PadV2Op : public OpKernel {
 public:
  explicit PadV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckPadConstant(value));
    PadCompute(ctx, ctx->input(0), PadMode::kConstant, value.raw_data());
  }
};

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    StatusOr<PadMode> mode = ReadMirrorPadMode(ctx);
    OP_REQUIRES_OK(ctx, mode.status());
    mode_ = *mode;
  }

  void Compute(OpKernelContext* ctx) const override {
    PadCompute(ctx, ctx->input(0), mode_, nullptr);
  }

 private:
  PadMode mode_ = PadMode::kReflect;
};

std::vector<DataType> PadTypes() {
  return NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(
    Name("Pad").Device(DEVICE_CPU).TypeConstraint("T", PadTypes()), PadOp);
REGISTER_KERNEL_BUILDER(
    Name("PadV2").Device(DEVICE_CPU).TypeConstraint("T", PadTypes()), PadV2Op);
REGISTER_KERNEL_BUILDER(
    Name("MirrorPad").Device(DEVICE_CPU).TypeConstraint("T", PadTypes()),
    MirrorPadOp);

}  // namespace
}  // namespace weft
