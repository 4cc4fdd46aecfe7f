// Matrix products: MatMul on square float32 matrices and BatchMatMulV2 on
// the shapes of attention and batched dense layers, each against OpenBLAS's
// cblas_sgemm on the same shapes and thread count; and the packed GEMM
// alone against an op(b) packed ahead, as a 1x1 convolution's filter is.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/blas_reference.h"
#include "bench/kernel_runner.h"
#include "kernels/cpu/gemm.h"

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

// GemmSerial of an m x k op(a) by a k x n op(b) packed ahead (GemmPackedRhs),
// on the calling thread: the product of a 1x1 convolution over m pixels
// with its filter packed at Prepare, without the op's dispatch or a
// per-call packing of op(b) (which MatMul/n above includes). `locality`
// as the caller would say it: kCached for an op(b) read again run after
// run, kMemory for one streamed from memory. With `filters` > 1 the calls
// take that many different filters in turn, so that each reads its filter
// from memory, as a batch-1 network reads its layers' weights one after
// the other (filters x k x n floats are meant to exceed the caches).
// With `activation` (not kNone): a bias and that activation in the
// epilogue, as a convolution that batch normalization and its activation
// were folded into. With `cold_output`, the calls write their product to
// outputs taken in turn from a ring of kColdOutputBytes, so that each finds
// its output in memory rather than in cache, as a layer inside a model
// does when it writes a tensor that no recent node touched.
constexpr int64_t kColdOutputBytes = int64_t{256} << 20;
void RegisterPackedRhsGemm(
    int64_t m, int64_t k, int64_t n, GemmRhsLocality locality, int filters = 1,
    GemmEpilogue::Activation activation = GemmEpilogue::Activation::kNone,
    bool cold_output = false) {
  using Act = GemmEpilogue::Activation;
  const char* act_name = activation == Act::kRelu    ? "/relu"
                         : activation == Act::kSwish ? "/swish"
                                                     : "";
  const std::string name =
      absl::StrCat("GemmPackedRhs/m:", m, "/k:", k, "/n:", n,
                   filters > 1 ? absl::StrCat("/filters:", filters)
                   : locality == GemmRhsLocality::kMemory ? "/memory"
                                                          : "",
                   act_name, cold_output ? "/cold_output" : "", "/threads:1");
  Register(name, [=](benchmark::State& state) {
    const Tensor a = RandomFloatTensor(TensorShape({m, k}), 1);
    // A GemmPackedRhs keeps its operand: the originals stay alive beside it.
    std::vector<Tensor> originals;
    std::vector<std::unique_ptr<GemmPackedRhs>> packed;
    for (int i = 0; i < filters; ++i) {
      originals.push_back(RandomFloatTensor(TensorShape({k, n}), 2 + i));
      packed.push_back(std::make_unique<GemmPackedRhs>(
          k, n, GemmOperand<float>{originals.back().data<float>(), n}));
    }
    const int64_t outputs =
        cold_output ? std::max<int64_t>(2, kColdOutputBytes /
                                               (m * n * int64_t{sizeof(float)}))
                    : 1;
    std::vector<float> c(outputs * m * n);
    const Tensor bias = RandomFloatTensor(TensorShape({n}), 99);
    GemmEpilogue ep;
    if (activation != Act::kNone) {
      ep.bias = bias.data<float>();
      ep.activation = activation;
    }
    size_t next = 0;
    int64_t output = 0;
    for (auto _ : state) {
      float* out = c.data() + output * m * n;
      GemmSerial(m, GemmOperand<float>{a.data<float>(), k}, *packed[next], out,
                 n, ep, locality);
      benchmark::DoNotOptimize(out);
      next = (next + 1) % packed.size();
      output = (output + 1) % outputs;
    }
    SetGflops(state, 2.0 * m * k * n);
  });
  ReferencePairs().push_back({name, FmaPeakReference(1), kGflops});
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
  // In L2 (a row block of 12 micro-tiles against 256 columns); a 1x1
  // convolution of 1024 channels over a band of 231 pixels (Xception's exit
  // flow and DeepLab's at 33 x 33), its 4 MiB filter read from L3 or
  // memory; the same with 256 output channels.
  RegisterPackedRhsGemm(168, 256, 256, GemmRhsLocality::kCached);
  RegisterPackedRhsGemm(231, 1024, 1024, GemmRhsLocality::kCached);
  RegisterPackedRhsGemm(231, 1024, 1024, GemmRhsLocality::kMemory);
  RegisterPackedRhsGemm(231, 1024, 256, GemmRhsLocality::kCached);
  // Few-row products against filters streamed from memory: Xception's
  // middle flow at 6 x 6 pixels (36 rows, 728 x 728 filters, 85 MB in all)
  // and its exit flow at 3 x 3 (9 rows, 1536 x 2048, 100 MB).
  RegisterPackedRhsGemm(36, 728, 728, GemmRhsLocality::kMemory, 40);
  RegisterPackedRhsGemm(9, 1536, 2048, GemmRhsLocality::kMemory, 8);
  // Products of two row tiles against filters streamed from memory: a 4 x 4
  // map (Inception-ResNetV2's 17-blocks at 96 x 96, batch 1: 16 rows, two
  // tiles on the AVX-512 path) and 12 rows (two tiles on the AVX2 path),
  // 1024 x 1024 filters, 84 MB in all.
  RegisterPackedRhsGemm(16, 1024, 1024, GemmRhsLocality::kMemory, 20);
  RegisterPackedRhsGemm(12, 1024, 1024, GemmRhsLocality::kMemory, 20);
  // EfficientNetB0's first expansion at 96 x 96, batch 8 (24 x 24 pixels,
  // 24 -> 144 channels): a short product whose epilogue, the swish above
  // all, is a large part of its time; plain, with a ReLU and with a swish.
  for (GemmEpilogue::Activation act :
       {GemmEpilogue::Activation::kNone, GemmEpilogue::Activation::kRelu,
        GemmEpilogue::Activation::kSwish}) {
    RegisterPackedRhsGemm(4608, 24, 144, GemmRhsLocality::kCached, 1, act);
  }
  // A band of 225 pixels from 32 channels to 128: 32 steps per tile, where
  // a tile's fixed cost (the call, its masks, its epilogue) weighs most.
  RegisterPackedRhsGemm(225, 32, 128, GemmRhsLocality::kCached, 1,
                        GemmEpilogue::Activation::kRelu);
  // Xception's first separable layer at 96 x 96, batch 8 (45 x 45 pixels,
  // 64 -> 128 channels, a band of 5 rows) and its middle flow (288 pixels,
  // 728 -> 728), each with its output in cache and in memory: inside the
  // model the layers write tensors no recent node touched.
  for (bool cold : {false, true}) {
    RegisterPackedRhsGemm(225, 64, 128, GemmRhsLocality::kCached, 1,
                          GemmEpilogue::Activation::kRelu, cold);
    RegisterPackedRhsGemm(288, 728, 728, GemmRhsLocality::kMemory, 1,
                          GemmEpilogue::Activation::kNone, cold);
  }
  // Products of few rows: an LSTM(128) step at batch 1, 2 and 8 (its
  // recurrent weights, 256 KiB, read from L2 every step), a classifier's
  // 1024 -> 1000 Dense layer at batch 1 (4 MB, from L3), and a 4096 x 4096
  // layer taken in turn with 3 others (256 MB, from memory).
  RegisterPackedRhsGemm(1, 128, 512, GemmRhsLocality::kCached);
  RegisterPackedRhsGemm(2, 128, 512, GemmRhsLocality::kCached);
  RegisterPackedRhsGemm(8, 128, 512, GemmRhsLocality::kCached);
  RegisterPackedRhsGemm(1, 1024, 1000, GemmRhsLocality::kMemory);
  RegisterPackedRhsGemm(1, 4096, 4096, GemmRhsLocality::kMemory, 4);
}

}  // namespace weft::bench
