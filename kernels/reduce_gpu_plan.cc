#include "kernels/reduce_gpu_plan.h"

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

struct Run {
  int64_t size;
  bool reduced;
};

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
  std::vector<Run> runs;
  for (size_t i = 0; i < plan.runs.size(); ++i) {
    runs.push_back({plan.runs[i], (i % 2 == 0) == plan.first_reduced});
  }
  // Innermost reduced run first, as the CPU kernel: each pass leaves the
  // kept runs around it in place, so no transpose is needed.
  while (true) {
    int i = static_cast<int>(runs.size()) - 1;
    while (i >= 0 && !runs[i].reduced) --i;
    if (i < 0) break;
    int64_t outer = 1;
    int64_t inner = 1;
    for (int j = 0; j < i; ++j) outer *= runs[j].size;
    for (size_t j = i + 1; j < runs.size(); ++j) inner *= runs[j].size;
    const int64_t len = runs[i].size;
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
    if (p.segments > 1) {
      // The pieces' results stay a reduced run, of `segments` elements.
      runs[i].size = p.segments;
    } else if (i > 0 && i + 1 < static_cast<int>(runs.size())) {
      // The kept neighbours of the removed run become one run.
      runs[i - 1].size *= runs[i + 1].size;
      runs.erase(runs.begin() + i, runs.begin() + i + 2);
    } else {
      runs.erase(runs.begin() + i);
    }
    bool more = false;
    for (const Run& r : runs) more = more || r.reduced;
    p.finish = !more;
    p.count = plan.reduced_count;
    passes.push_back({p});
  }
  return passes;
}

}  // namespace weft
