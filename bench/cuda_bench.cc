// GPU benchmarks (issue 7's figures), built only with CUDA:
//
//   build/bench/weft_cuda_bench --benchmark_counters_tabular=true
//
//  - BM_CudaMatMul/n:4096/mode:M: weft's MatMul kernel (kernels/cuda) on
//    device-resident [n,n] inputs, M = 0 float32, 1 float32 with TF32
//    allowed, 2 half; BM_CublasGemm is cublasGemmEx called directly with the
//    same arguments, the reference the kernel's figure is a ratio to.
//  - BM_CudaChain/nodes:N: Session::Run of a chain of N Relu nodes on a
//    one-element tensor with device "cuda": per-node overhead of launching
//    GPU kernels through the executor (ns_per_node), fetch included.
//
// Without a usable GPU every benchmark is skipped with discovery's reason,
// so the binary always runs to the end.
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/tensor.h"
#include "device/cuda/cuda_device.h"
#include "device/device_info.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

// Empty when cuda:0 is usable, else why not.
const std::string& SkipReason() {
  static const std::string* const reason = [] {
    Status s = CheckCudaDevice(0);
    return new std::string(s.ok() ? "" : std::string(s.message()));
  }();
  return *reason;
}

enum Mode { kFloat32 = 0, kTf32 = 1, kHalf = 2 };

// Two [n,n] device matrices of `mode`'s dtype with values in [-1, 1).
struct Operands {
  std::unique_ptr<CudaDevice> device;
  Tensor a, b;
  DataType dtype = DT_FLOAT;
};

StatusOr<Operands> MakeOperands(int64_t n, Mode mode) {
  Operands o;
  CudaDeviceOptions options;
  options.allow_tf32 = mode == kTf32;
  WEFT_ASSIGN_OR_RETURN(o.device, CudaDevice::Create(options));
  o.dtype = mode == kHalf ? DT_HALF : DT_FLOAT;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  for (Tensor* t : {&o.a, &o.b}) {
    Tensor host(o.dtype, TensorShape({n, n}));
    for (int64_t i = 0; i < n * n; ++i) {
      if (mode == kHalf) {
        host.data<half>()[i] = half(u(rng));
      } else {
        host.data<float>()[i] = u(rng);
      }
    }
    WEFT_ASSIGN_OR_RETURN(
        *t, Tensor::Allocate(o.device->allocator(), o.dtype, host.shape()));
    WEFT_RETURN_IF_ERROR(
        CudaCall(cudaMemcpy(t->raw_data(), host.raw_data(), host.TotalBytes(),
                            cudaMemcpyHostToDevice),
                 "cudaMemcpy"));
  }
  return o;
}

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["TFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations() / 1e12, benchmark::Counter::kIsRate);
}

// Skips the benchmark with `s`'s message; true when it did.
bool SkipIfError(benchmark::State& state, const Status& s) {
  if (s.ok()) return false;
  state.SkipWithError(std::string(s.message()).c_str());
  return true;
}

// The operands of state's (n, mode), or nothing after skipping.
std::optional<Operands> OperandsFor(benchmark::State& state) {
  if (!SkipReason().empty()) {
    state.SkipWithError(SkipReason().c_str());
    return std::nullopt;
  }
  auto o = MakeOperands(state.range(0), static_cast<Mode>(state.range(1)));
  if (SkipIfError(state, o.status())) return std::nullopt;
  return std::move(*o);
}

// One untimed call, then per iteration `call` and a wait for the device.
void TimeDeviceCalls(benchmark::State& state, CudaDevice* device,
                     const std::function<Status()>& call) {
  Status s = call();
  if (s.ok()) s = device->Sync();
  if (SkipIfError(state, s)) return;
  for (auto _ : state) {
    s = call();
    if (s.ok()) s = device->Sync();
    if (SkipIfError(state, s)) break;
  }
}

void BM_CudaMatMul(benchmark::State& state) {
  std::optional<Operands> o = OperandsFor(state);
  if (!o) return;
  const int64_t n = state.range(0);
  NodeDef node;
  node.name = "bench/MatMul";
  node.op = "MatMul";
  node.input = {"a", "b"};
  node.attr["T"] = AttrValue::Type(o->dtype);
  auto kernel = [&]() -> StatusOr<std::unique_ptr<OpKernel>> {
    WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                          OpRegistry::Global()->LookUp("MatMul"));
    WEFT_ASSIGN_OR_RETURN(NodeTypes types, ValidateNode(reg->op_def, &node));
    return KernelRegistry::Global()->CreateKernel(node, reg->op_def, types,
                                                  o->device.get());
  }();
  if (SkipIfError(state, kernel.status())) return;
  std::vector<const Tensor*> inputs = {&o->a, &o->b};
  std::vector<Tensor> outputs(1);
  auto run = [&]() -> Status {
    outputs[0] = Tensor();
    OpKernelContext::Params params;
    params.device = o->device.get();
    params.device_context = o->device->device_context();
    params.kernel = kernel->get();
    params.inputs = inputs;
    params.outputs = absl::MakeSpan(outputs);
    OpKernelContext ctx(&params);
    (*kernel)->Compute(&ctx);
    return ctx.status();
  };
  TimeDeviceCalls(state, o->device.get(), run);
  outputs.clear();
  SetFlops(state, n);
}
BENCHMARK(BM_CudaMatMul)
    ->ArgNames({"n", "mode"})
    ->ArgsProduct({{1024, 4096}, {kFloat32, kTf32, kHalf}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_CublasGemm(benchmark::State& state) {
  std::optional<Operands> o = OperandsFor(state);
  if (!o) return;
  const int64_t n = state.range(0);
  const Mode mode = static_cast<Mode>(state.range(1));
  auto c =
      Tensor::Allocate(o->device->allocator(), o->dtype, TensorShape({n, n}));
  if (SkipIfError(state, c.status())) return;
  const cudaDataType type = mode == kHalf ? CUDA_R_16F : CUDA_R_32F;
  const cublasComputeType_t compute =
      mode == kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  const float alpha = 1, beta = 0;
  auto gemm = [&]() -> Status {
    return o->device->WithBlas([&](const CublasApi& api,
                                   cublasHandle_t handle) -> Status {
      cublasStatus_t s =
          api.gemm_ex(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha,
                      o->b.raw_data(), type, n, o->a.raw_data(), type, n, &beta,
                      c->raw_data(), type, n, compute, CUBLAS_GEMM_DEFAULT);
      if (s != CUBLAS_STATUS_SUCCESS) {
        return errors::Internal("cublasGemmEx: ", CublasStatusText(api, s));
      }
      return Status();
    });
  };
  TimeDeviceCalls(state, o->device.get(), gemm);
  *c = Tensor();
  SetFlops(state, n);
}
BENCHMARK(BM_CublasGemm)
    ->ArgNames({"n", "mode"})
    ->ArgsProduct({{1024, 4096}, {kFloat32, kTf32, kHalf}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// x -> Relu -> ... -> Relu (N nodes) on float [1].
std::string ReluChain(int n) {
  std::string text =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: 1 } } } "
      "} }\n";
  std::string prev = "x";
  for (int i = 0; i < n; ++i) {
    std::string name = absl::StrCat("n", i);
    absl::StrAppend(&text, "node { name: '", name, "' op: 'Relu' input: '",
                    prev, "' attr { key: 'T' value { type: DT_FLOAT } } }\n");
    prev = name;
  }
  return text;
}

void BM_CudaChain(benchmark::State& state) {
  if (!SkipReason().empty()) {
    state.SkipWithError(SkipReason().c_str());
    return;
  }
  const int n = static_cast<int>(state.range(0));
  auto def = ParseTextGraphDef(ReluChain(n), "chain");
  auto graph = ImportGraphDef(*def, ImportOptions());
  if (!graph.ok() || !InferShapes(graph->get(), ShapeInferenceOptions()).ok()) {
    state.SkipWithError("cannot build the chain graph");
    return;
  }
  SessionOptions options;
  options.threads = 0;
  options.device = "cuda";
  options.optimize = false;  // keep every node
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*graph)), options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  auto callable = (*session)->Prepare({"x"}, {absl::StrCat("n", n - 1)}, {});
  if (!callable.ok()) {
    state.SkipWithError(std::string(callable.status().message()).c_str());
    return;
  }
  Tensor x(DT_FLOAT, TensorShape({1}));
  x.data<float>()[0] = 1;
  std::vector<Tensor> feeds = {x}, outputs;
  for (auto _ : state) {
    Status s = (*session)->Run(**callable, feeds, &outputs);
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      break;
    }
  }
  state.counters["nodes"] = n;
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CudaChain)->ArgName("nodes")->Arg(1)->Arg(10)->Arg(100)->Arg(1000);

}  // namespace
}  // namespace weft

BENCHMARK_MAIN();
