// Reductions, Softmax and Transpose on float32. Reductions read their input
// once and are judged against the Read loop; Softmax and Transpose read and
// write every element once and are judged against Copy, at the same size
// and thread count.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

std::string ShapeText(const std::vector<int64_t>& dims) {
  return absl::StrJoin(dims, "x");
}

int64_t Elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Runs `op` on a random input of `dims` plus, when `second` is given, an
// int32 vector (axes, a permutation).
void RegisterShaped(const std::string& op, const std::string& what,
                    const std::vector<int64_t>& dims,
                    const std::vector<int32_t>& second, bool has_second,
                    double bytes, const std::string& reference, int threads) {
  const std::string name =
      absl::StrCat(op, "/", what, "/", ShapeText(dims), "/threads:", threads);
  Register(name, [=](benchmark::State& state) {
    auto shape = TensorShape::Build(dims);
    if (!shape.ok()) return SkipWithStatus(state, shape.status());
    std::vector<Tensor> inputs = {RandomFloatTensor(*shape, 1)};
    if (has_second) inputs.push_back(Int32Vector(second));
    AttrMap attrs;
    attrs["T"] = AttrValue::Type(DT_FLOAT);
    auto runner = KernelRunner::Create(op, attrs, std::move(inputs), threads);
    if (!TimeRuns(state, std::move(runner))) return;
    SetGBps(state, bytes);
  });
  ReferencePairs().push_back({name, reference, kGBps});
}

void RegisterReduction(const char* op, const char* what,
                       const std::vector<int64_t>& dims,
                       const std::vector<int32_t>& axes, int threads) {
  const int64_t n = Elements(dims);
  RegisterShaped(op, what, dims, axes, true, 4.0 * n, ReadReference(n, threads),
                 threads);
}

void RegisterSoftmax(const char* what, const std::vector<int64_t>& dims,
                     int threads) {
  const int64_t n = Elements(dims);
  RegisterShaped("Softmax", what, dims, {}, false, 8.0 * n,
                 CopyReference(n, threads), threads);
}

void RegisterTranspose(const char* what, const std::vector<int64_t>& dims,
                       const std::vector<int32_t>& perm, int threads) {
  const int64_t n = Elements(dims);
  RegisterShaped("Transpose", what, dims, perm, true, 8.0 * n,
                 CopyReference(n, threads), threads);
}

}  // namespace

void RegisterReduceBenchmarks() {
  constexpr int64_t k1M = int64_t{1} << 20;
  constexpr int64_t k16M = int64_t{1} << 24;
  for (int threads : {1, 2}) {
    for (int64_t n : {k1M, k16M}) {
      RegisterReduction("Sum", "all", {n}, {0}, threads);
      RegisterReduction("Sum", "rows", {n / 1024, 1024}, {1}, threads);
      RegisterReduction("Sum", "columns", {n / 1024, 1024}, {0}, threads);
      RegisterReduction("Max", "rows", {n / 1024, 1024}, {1}, threads);
    }
    // LayerNorm's statistics over a transformer's 64-wide features, and
    // the global average pool at the end of ResNet50 (batch 8).
    RegisterReduction("Mean", "layernorm_rows", {16384, 64}, {1}, threads);
    RegisterReduction("Mean", "global_pool", {8, 7, 7, 2048}, {1, 2}, threads);

    // Classifier heads and attention weights.
    RegisterSoftmax("classes", {1024, 1000}, threads);
    RegisterSoftmax("attention", {8192, 128}, threads);
    RegisterSoftmax("attention", {131072, 128}, threads);

    RegisterTranspose("matrix", {1024, 1024}, {1, 0}, threads);
    RegisterTranspose("matrix", {4096, 4096}, {1, 0}, threads);
    RegisterTranspose("nhwc_to_nchw", {8, 56, 56, 64}, {0, 3, 1, 2}, threads);
    RegisterTranspose("attention_heads", {8, 128, 4, 64}, {0, 2, 1, 3},
                      threads);
  }
}

}  // namespace weft::bench
