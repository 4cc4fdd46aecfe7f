#include "kernels/cpu/reduction_util.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "core/tensor.h"

namespace weft {
namespace {

// Rough cycles per element of a reduction step (a load, a conversion for
// narrow floats, an add), in ParallelFor's units.
constexpr int64_t kCostPerElement = 2;
// Outputs below this many leave too little to split across threads, so a
// long reduced run is cut into blocks instead...
constexpr int64_t kFewOutputs = 16;
// ...once the pass reads at least this many elements...
constexpr int64_t kMinBlockedElements = int64_t{1} << 15;
// ...into at most kMaxBlocks blocks of at least kMinBlockElements elements.
constexpr int64_t kMaxBlocks = 64;
constexpr int64_t kMinBlockElements = 8192;
// Column passes split their width into pieces of at least this many
// columns while there are fewer than kWantUnits pieces of work.
constexpr int64_t kMinWidth = 256;
constexpr int64_t kWantUnits = 64;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

const char* At(const void* p, int64_t elements, size_t elem_size) {
  return static_cast<const char*>(p) +
         elements * static_cast<int64_t>(elem_size);
}
char* At(void* p, int64_t elements, size_t elem_size) {
  return static_cast<char*>(p) + elements * static_cast<int64_t>(elem_size);
}

// One pass: dst[o, j] = R(src[o, r, j] for r < len) over the [outer, len,
// inner] view of src (T when from_input, else Acc); dst holds Acc.
Status ReducePass(OpKernelContext* ctx, const ReduceFns& fns, DataType in_dtype,
                  const void* src, bool from_input, int64_t outer, int64_t len,
                  int64_t inner, void* dst) {
  const size_t acc_size = DataTypeSize(fns.acc_dtype);
  const size_t src_size = from_input ? DataTypeSize(in_dtype) : acc_size;
  const auto rows = from_input ? fns.rows_from_input : fns.rows_from_acc;
  const auto cols = from_input ? fns.cols_from_input : fns.cols_from_acc;
  const int64_t outputs = outer * inner;
  const int64_t total = outputs * len;

  // Blocks of the reduced run, decided from the shape alone so that the
  // order of the arithmetic never depends on the thread count.
  int64_t block = len;
  if (outputs < kFewOutputs && total >= kMinBlockedElements) {
    block =
        std::max(CeilDiv(kMinBlockElements, inner), CeilDiv(len, kMaxBlocks));
  }
  const int64_t num_blocks = CeilDiv(len, block);

  if (num_blocks == 1) {
    if (inner == 1) {
      ctx->ParallelFor(outer, len * kCostPerElement,
                       [&](int64_t begin, int64_t end) {
                         rows(At(src, begin * len, src_size),
                              At(dst, begin, acc_size), end - begin, len);
                       });
      return Status();
    }
    int64_t pieces = 1;
    if (outer < kWantUnits) {
      pieces = std::min(CeilDiv(inner, kMinWidth), CeilDiv(kWantUnits, outer));
    }
    const int64_t width = CeilDiv(inner, pieces);
    pieces = CeilDiv(inner, width);
    ctx->ParallelFor(outer * pieces, len * width * kCostPerElement,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t u = begin; u < end; ++u) {
                         const int64_t o = u / pieces;
                         const int64_t j0 = (u % pieces) * width;
                         const int64_t w = std::min(width, inner - j0);
                         cols(At(src, o * len * inner + j0, src_size), inner,
                              At(dst, o * inner + j0, acc_size), len, w);
                       }
                     });
    return Status();
  }

  // Partial results [outer, num_blocks, inner], then combined in block
  // order.
  Tensor partial;
  WEFT_RETURN_IF_ERROR(ctx->allocate_temp(
      fns.acc_dtype, TensorShape({outer * num_blocks * inner}), &partial));
  void* part = partial.raw_data();
  ctx->ParallelFor(outer * num_blocks, block * inner * kCostPerElement,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t u = begin; u < end; ++u) {
                       const int64_t o = u / num_blocks;
                       const int64_t r0 = (u % num_blocks) * block;
                       const int64_t n = std::min(block, len - r0);
                       const void* from =
                           At(src, (o * len + r0) * inner, src_size);
                       void* to = At(part, u * inner, acc_size);
                       if (inner == 1) {
                         rows(from, to, 1, n);
                       } else {
                         cols(from, inner, to, n, inner);
                       }
                     }
                   });
  if (inner == 1) {
    fns.rows_from_acc(part, dst, outer, num_blocks);
  } else {
    for (int64_t o = 0; o < outer; ++o) {
      fns.cols_from_acc(At(part, o * num_blocks * inner, acc_size), inner,
                        At(dst, o * inner, acc_size), num_blocks, inner);
    }
  }
  return Status();
}

}  // namespace

Status RunReduction(OpKernelContext* ctx, const ReduceFns& fns,
                    const Tensor& in, const ReductionPlan& plan, Tensor* out) {
  const int64_t n = out->NumElements();
  if (n == 0) return Status();
  const size_t out_size = DataTypeSize(out->dtype());
  const size_t acc_size = DataTypeSize(fns.acc_dtype);
  if (in.NumElements() == 0) {
    ctx->ParallelFor(n, 1, [&](int64_t begin, int64_t end) {
      fns.fill_identity(At(out->raw_data(), begin, out_size), end - begin);
    });
    return Status();
  }
  ReductionPasses passes(plan);
  ReductionPassShape pass;
  const void* src = in.raw_data();
  bool from_input = true;
  Tensor held;  // keeps the partial results src points into
  while (passes.Next(&pass)) {
    void* dst = nullptr;
    Tensor next;
    if (pass.last && fns.acc_is_output) {
      dst = out->raw_data();
    } else {
      WEFT_RETURN_IF_ERROR(ctx->allocate_temp(
          fns.acc_dtype, TensorShape({pass.outer * pass.inner}), &next));
      dst = next.raw_data();
    }
    WEFT_RETURN_IF_ERROR(ReducePass(ctx, fns, in.dtype(), src, from_input,
                                    pass.outer, pass.len, pass.inner, dst));
    src = dst;
    from_input = false;
    held = std::move(next);
    passes.Reduced(1);
  }
  if (!fns.acc_is_output) {
    ctx->ParallelFor(n, kCostPerElement, [&](int64_t begin, int64_t end) {
      fns.finish(At(src, begin, acc_size), At(out->raw_data(), begin, out_size),
                 end - begin, plan.reduced_count);
    });
  }
  return Status();
}

ReductionOp::ReductionOp(OpKernelConstruction* ctx, const ReduceFns& fns)
    : OpKernel(ctx), fns_(fns) {
  OP_REQUIRES_OK(ctx, ctx->GetAttr("keep_dims", &keep_dims_));
}

void ReductionOp::Compute(OpKernelContext* ctx) const {
  ReductionPlan plan;
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, StartReduction(ctx, keep_dims_, &plan, &out));
  if (out == nullptr) return;
  OP_REQUIRES_OK(ctx, RunReduction(ctx, fns_, ctx->input(0), plan, out));
}

}  // namespace weft
