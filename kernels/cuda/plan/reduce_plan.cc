#include "kernels/cuda/plan/reduce_plan.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace weft {
namespace {

// A row pass with fewer outputs than this leaves most of the GPU idle, so a
// row longer than kSplitRowLen is first cut into pieces of kRowPiece.
constexpr int64_t kFewRows = 256;
constexpr int64_t kSplitRowLen = 16384;
constexpr int64_t kRowPiece = 8192;
// Likewise a column pass with fewer outputs than kFewColumns and a run
// longer than kSplitColumnLen is cut into pieces of at least kMinColumnPiece
// rows, aiming at about kWantColumnThreads threads.
constexpr int64_t kFewColumns = 2048;
constexpr int64_t kSplitColumnLen = 1024;
constexpr int64_t kMinColumnPiece = 256;
constexpr int64_t kWantColumnThreads = 65536;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::vector<GpuReducePass> PlanGpuReduction(const ReductionPlan& plan,
                                            int64_t input_elements,
                                            int64_t output_elements,
                                            gpu::ReduceOp op) {
  std::vector<GpuReducePass> passes;
  if (output_elements == 0 || plan.IsCopy()) return passes;
  if (input_elements == 0) {
    GpuReducePass pass;
    pass.params.op = op;
    pass.params.strategy = gpu::ReduceStrategy::kColumns;
    pass.params.outer = 1;
    pass.params.len = 0;
    pass.params.inner = output_elements;
    pass.params.segment_len = 1;
    pass.params.finish = true;
    pass.params.count = 0;
    passes.push_back(pass);
    return passes;
  }
  // In the CPU kernel's order (ReductionPasses).
  ReductionPasses runs(plan);
  ReductionPassShape pass;
  while (runs.Next(&pass)) {
    const int64_t outer = pass.outer;
    const int64_t len = pass.len;
    const int64_t inner = pass.inner;
    gpu::ReduceParams p;
    p.op = op;
    p.outer = outer;
    p.len = len;
    p.inner = inner;
    p.segments = 1;
    p.segment_len = len;
    if (inner == 1) {
      if (len <= kGpuShortRow) {
        p.strategy = gpu::ReduceStrategy::kColumns;
      } else if (len <= kGpuWarpRowMax) {
        p.strategy = gpu::ReduceStrategy::kWarpRows;
      } else {
        p.strategy = gpu::ReduceStrategy::kBlockRows;
      }
      if (outer < kFewRows && len > kSplitRowLen) {
        p.segment_len = kRowPiece;
        p.segments = CeilDiv(len, kRowPiece);
      }
    } else {
      p.strategy = gpu::ReduceStrategy::kColumns;
      if (outer * inner < kFewColumns && len > kSplitColumnLen) {
        const int64_t want =
            std::min(CeilDiv(len, kMinColumnPiece),
                     CeilDiv(kWantColumnThreads, outer * inner));
        p.segment_len = CeilDiv(len, want);
        p.segments = CeilDiv(len, p.segment_len);
      }
    }
    // The pieces' results stay a reduced run, of `segments` elements.
    runs.Reduced(p.segments);
    p.finish = pass.last && p.segments == 1;
    p.count = plan.reduced_count;
    passes.push_back({p});
  }
  return passes;
}

}  // namespace weft
