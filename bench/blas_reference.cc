#include "bench/blas_reference.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/kernel_runner.h"
#include "core/tensor_shape.h"

#ifdef WEFT_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace weft::bench {

#ifdef WEFT_HAVE_OPENBLAS

std::string BlasDescription() {
  std::string core = openblas_get_corename();
  std::string text = absl::StrCat(openblas_get_config(), " (core ", core, ")");
  // OPENBLAS_CORETYPE in the environment overrides OpenBLAS's detection;
  // an older core's kernels leave AVX-512 unused and halve the reference.
  const bool avx512_core = core.find("SkylakeX") != std::string::npos ||
                           core.find("Cooperlake") != std::string::npos ||
                           core.find("SapphireRapids") != std::string::npos;
  if (__builtin_cpu_supports("avx512f") && !avx512_core) {
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    absl::StrAppend(
        &text, "; this CPU has AVX-512, which core ", core, " leaves unused",
        forced != nullptr ? absl::StrCat(" (OPENBLAS_CORETYPE=", forced,
                                         " is set in the environment)")
                          : std::string());
  }
  return text;
}

void QueueSgemmReference(const std::string& name, int64_t batch, int64_t m,
                         int64_t n, int64_t k, int threads) {
  QueueBlasReference(name, [=](benchmark::State& state) {
    openblas_set_num_threads(threads);
    Tensor a = RandomFloatTensor(TensorShape({batch, m, k}), 1);
    Tensor b = RandomFloatTensor(TensorShape({batch, k, n}), 2);
    std::vector<float> c(static_cast<size_t>(batch * m * n));
    for (auto _ : state) {
      for (int64_t i = 0; i < batch; ++i) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    static_cast<int>(m), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, a.data<float>() + i * m * k,
                    static_cast<int>(k), b.data<float>() + i * k * n,
                    static_cast<int>(n), 0.0f, c.data() + i * m * n,
                    static_cast<int>(n));
      }
      benchmark::DoNotOptimize(c.data());
      benchmark::ClobberMemory();
    }
    SetGflops(state, 2.0 * batch * m * n * k);
  });
}

#else  // !WEFT_HAVE_OPENBLAS

std::string BlasDescription() {
  return "none: OpenBLAS was not found when bench/ was configured "
         "(Debian: libopenblas-dev, then re-run cmake)";
}

void QueueSgemmReference(const std::string& name, int64_t, int64_t, int64_t,
                         int64_t, int) {
  QueueBlasReference(name, [](benchmark::State& state) {
    state.SkipWithError(
        "OpenBLAS not found at build time: install libopenblas-dev and "
        "re-run cmake");
  });
}

#endif  // WEFT_HAVE_OPENBLAS

}  // namespace weft::bench
