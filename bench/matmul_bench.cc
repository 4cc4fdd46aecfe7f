// Matrix products: MatMul on square float32 matrices and BatchMatMulV2 on
// the shapes of attention and batched dense layers, each against OpenBLAS's
// cblas_sgemm on the same shapes and thread count.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "bench/blas_reference.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

void RegisterMatMul(int64_t n, int threads) {
  const std::string suffix = absl::StrCat("/n:", n, "/threads:", threads);
  const std::string name = "MatMul" + suffix;
  Register(name, [=](benchmark::State& state) {
    AttrMap attrs;
    attrs["T"] = AttrValue::Type(DT_FLOAT);
    auto runner =
        KernelRunner::Create("MatMul", attrs,
                             {RandomFloatTensor(TensorShape({n, n}), 1),
                              RandomFloatTensor(TensorShape({n, n}), 2)},
                             threads);
    if (!TimeRuns(state, std::move(runner))) return;
    SetGflops(state, 2.0 * n * n * n);
  });
  const std::string reference = "OpenBLAS_sgemm" + suffix;
  QueueSgemmReference(reference, 1, n, n, n, threads);
  ReferencePairs().push_back({name, reference, kGflops});
  ReferencePairs().push_back({name, FmaPeakReference(threads), kGflops});
}

// x [batch, m, k] times y [batch, k, n], or y [k, n] broadcast over the
// batch when `broadcast_y`.
void RegisterBatchMatMul(int64_t batch, int64_t m, int64_t k, int64_t n,
                         bool broadcast_y, int threads) {
  const std::string suffix =
      absl::StrCat("/b:", batch, "/m:", m, "/k:", k, "/n:", n,
                   broadcast_y ? "/y_broadcast" : "", "/threads:", threads);
  const std::string name = "BatchMatMulV2" + suffix;
  Register(name, [=](benchmark::State& state) {
    AttrMap attrs;
    attrs["T"] = AttrValue::Type(DT_FLOAT);
    TensorShape y_shape =
        broadcast_y ? TensorShape({k, n}) : TensorShape({batch, k, n});
    auto runner =
        KernelRunner::Create("BatchMatMulV2", attrs,
                             {RandomFloatTensor(TensorShape({batch, m, k}), 1),
                              RandomFloatTensor(y_shape, 2)},
                             threads);
    if (!TimeRuns(state, std::move(runner))) return;
    SetGflops(state, 2.0 * batch * m * n * k);
  });
  // The reference is one sgemm per matrix of the batch; with y broadcast,
  // the single [batch*m, k] x [k, n] sgemm the product amounts to.
  const std::string reference = "OpenBLAS_sgemm_batched" + suffix;
  QueueSgemmReference(reference, broadcast_y ? 1 : batch,
                      broadcast_y ? batch * m : m, n, k, threads);
  ReferencePairs().push_back({name, reference, kGflops});
  ReferencePairs().push_back({name, FmaPeakReference(threads), kGflops});
}

}  // namespace

void RegisterMatMulBenchmarks() {
  for (int threads : {1, 2}) {
    for (int64_t n : {256, 512, 1024, 2048}) RegisterMatMul(n, threads);
  }
  for (int threads : {1, 2}) {
    // Attention scores and context for 8 sequences x 4 heads of 128 tokens,
    // head size 64; a square batch; a dense layer applied per time step.
    RegisterBatchMatMul(32, 128, 64, 128, false, threads);
    RegisterBatchMatMul(32, 128, 128, 64, false, threads);
    RegisterBatchMatMul(8, 256, 256, 256, false, threads);
    RegisterBatchMatMul(8, 128, 256, 256, true, threads);
  }
}

}  // namespace weft::bench
