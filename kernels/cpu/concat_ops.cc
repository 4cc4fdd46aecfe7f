// ConcatV2, the legacy Concat (axis first) and Pack on the CPU. Both view every
// input as [rows, width_i] (rows = the product of the dimensions before the
// axis) and the output as [rows, sum width_i] (kernels/common/concat_shape.h,
// which checks the inputs and is shared with the CUDA kernels); each output row
// is the inputs' rows one after another, so the copy is a sequence of memcpy
// runs. Work is split over flat output ranges, so one huge row (axis 0)
// parallelizes as well as many small ones. Dtype-agnostic (element width only),
// strings and the quantized types TensorFlow registers included.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "device/cpu_isa.h"
#include "kernels/common/alias_output.h"
#include "kernels/common/concat_shape.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Rows of the output up to this many bytes are copied row by row
// (ConcatRows).
constexpr int64_t kShortRowBytes = 4096;

// Pieces up to this many bytes are copied inline (CopyPiece).
constexpr int64_t kInlinePieceBytes = 128;

// The short rows' copy loop (concat_rows.inc), moving 16, 32 or 64 bytes at
// a time, the widest the path has: two [8, 17, 17, 16] float inputs (64-byte
// pieces) took 8.8-15.2 us in 64-byte moves against 13.8-19.3 in 16-byte
// ones on the AVX-512 path (bench/RESULTS.md section 59).
namespace baseline {
constexpr int64_t kStep = 16;
#include "kernels/cpu/concat_rows.inc"
}  // namespace baseline

namespace avx2 {
WEFT_ISA_AVX2_BEGIN
constexpr int64_t kStep = 32;
#include "kernels/cpu/concat_rows.inc"
WEFT_ISA_END
}  // namespace avx2

namespace avx512 {
WEFT_ISA_AVX512_BEGIN
constexpr int64_t kStep = 64;
#include "kernels/cpu/concat_rows.inc"
WEFT_ISA_END
}  // namespace avx512

void CopyRows(const char* const* srcs, const int64_t* piece, int n,
              int64_t row_bytes, char* dst, int64_t begin, int64_t end) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      return avx512::CopyRows(srcs, piece, n, row_bytes, dst, begin, end);
    case CpuIsa::kAvx2:
      return avx2::CopyRows(srcs, piece, n, row_bytes, dst, begin, end);
    case CpuIsa::kBaseline:
      break;
  }
  baseline::CopyRows(srcs, piece, n, row_bytes, dst, begin, end);
}

// out[r, prefix_i + c] = in_i[r, c] for every input i; widths in elements.
void ConcatRows(const OpKernelContext& ctx, DataType dtype,
                const std::vector<const char*>& srcs,
                const std::vector<int64_t>& widths, int64_t rows, char* dst) {
  int64_t row_width = 0;
  for (int64_t w : widths) row_width += w;
  const int64_t total = rows * row_width;
  if (total == 0) return;
  const size_t bytes = copy_util::ElementBytes(dtype);
  const int n = static_cast<int>(srcs.size());
  if (dtype != DT_STRING && rows > 1 &&
      row_width * static_cast<int64_t>(bytes) <= kShortRowBytes) {
    // Many short rows (channels concatenated per pixel): whole rows per
    // range, each piece copied inline; a memcpy call a piece cost as much
    // as the bytes (section 58: 64-byte pieces at about 5 ns each).
    absl::InlinedVector<int64_t, 8> piece(n);
    for (int i = 0; i < n; ++i) piece[i] = widths[i] * bytes;
    const int64_t row_bytes = row_width * bytes;
    ctx.ParallelFor(rows, row_bytes / 8 + n, [&](int64_t begin, int64_t end) {
      CopyRows(srcs.data(), piece.data(), n, row_bytes, dst, begin, end);
    });
    return;
  }
  const int64_t cost = dtype == DT_STRING ? 40 : 1;
  ctx.ParallelFor(total, cost, [&](int64_t begin, int64_t end) {
    int64_t row = begin / row_width;
    int64_t col = begin % row_width;
    int seg = 0;
    while (col >= widths[seg]) col -= widths[seg++];
    int64_t pos = begin;
    while (pos < end) {
      const int64_t len = std::min(widths[seg] - col, end - pos);
      copy_util::CopyElements(dtype,
                              srcs[seg] + (row * widths[seg] + col) * bytes,
                              dst + pos * bytes, len);
      pos += len;
      col = 0;
      // Next non-empty segment, wrapping to the next row.
      do {
        if (++seg == n) {
          seg = 0;
          ++row;
        }
      } while (widths[seg] == 0 && pos < end);
    }
  });
}

// Output 0 from `dims`, unless an input was forwarded: the rows of the
// inputs (one per width, starting at input `first`) copied.
void CopyConcatRows(OpKernelContext* ctx, const ConcatDims& dims,
                    int first = 0) {
  if (dims.forward_input >= 0) return;
  const int n = static_cast<int>(dims.widths.size());
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, dims.out_shape, &out));
  std::vector<const char*> srcs(n);
  for (int i = 0; i < n; ++i) {
    srcs[i] = static_cast<const char*>(ctx->input(first + i).raw_data());
  }
  ConcatRows(*ctx, out->dtype(), srcs, dims.widths, dims.rows,
             static_cast<char*>(out->raw_data()));
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    ConcatDims dims;
    OP_REQUIRES_OK(ctx, StartConcatV2(ctx, &dims));
    CopyConcatRows(ctx, dims);
  }
};

// The legacy Concat: ConcatV2 with the axis (concat_dim) as input 0. The
// axis and the shapes are checked here, so that messages count inputs as
// this op does; GetConcatV2Dims then only lays out the copy.
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const int n = ctx->num_inputs() - 1;
    int64_t axis = 0;
    OP_REQUIRES_OK(ctx, ReadIndexScalar(ctx->input(0), "concat_dim (input 0)",
                                        /*allow_vector_of_one=*/true, &axis));
    std::vector<TensorShape> shapes(n);
    for (int i = 0; i < n; ++i) shapes[i] = ctx->input(1 + i).shape();
    const int rank = shapes[0].dims();
    OP_REQUIRES(ctx, rank > 0,
                errors::InvalidArgument("input 1 is a scalar; scalars cannot "
                                        "be concatenated (Pack stacks them)"));
    OP_REQUIRES(ctx, axis >= -rank && axis < rank,
                errors::InvalidArgument("concat_dim (input 0) is ", axis,
                                        " but must be in [", -rank, ", ", rank,
                                        ") for values of rank ", rank));
    const int64_t a = axis < 0 ? axis + rank : axis;
    for (int i = 1; i < n; ++i) {
      bool match = shapes[i].dims() == rank;
      for (int d = 0; match && d < rank; ++d) {
        match = d == a || shapes[i].dim_size(d) == shapes[0].dim_size(d);
      }
      OP_REQUIRES(ctx, match,
                  errors::InvalidArgument(
                      "input ", i + 1, " has shape ", shapes[i].DebugString(),
                      " but must match input 1 ", shapes[0].DebugString(),
                      " in rank and in every dimension but the axis ", a));
    }
    StatusOr<ConcatDims> dims = GetConcatV2Dims(shapes, ctx->input(0));
    OP_REQUIRES_OK(ctx, dims.status());
    if (dims->forward_input >= 0) {
      ForwardInputWithShape(ctx, 1 + dims->forward_input, dims->out_shape);
      return;
    }
    CopyConcatRows(ctx, *dims, 1);
  }
};

// N tensors of one shape stacked along a new dimension `axis` of size N.
class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) const override {
    ConcatDims dims;
    OP_REQUIRES_OK(ctx, StartPack(ctx, axis_, &dims));
    CopyConcatRows(ctx, dims);
  }

 private:
  int64_t axis_ = 0;
};

// TensorFlow's CPU kernels for both: all numeric types, bool, strings and
// the quantized types.
std::vector<DataType> ConcatTypes() {
  return NumericAndBoolTypesPlus(
      {DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT16, DT_QUINT16, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(
    Name("ConcatV2").Device(DEVICE_CPU).TypeConstraint("T", ConcatTypes()),
    ConcatV2Op);
REGISTER_KERNEL_BUILDER(
    Name("Concat").Device(DEVICE_CPU).TypeConstraint("T", ConcatTypes()),
    ConcatOp);
REGISTER_KERNEL_BUILDER(
    Name("Pack").Device(DEVICE_CPU).TypeConstraint("T", ConcatTypes()), PackOp);

}  // namespace
}  // namespace weft
