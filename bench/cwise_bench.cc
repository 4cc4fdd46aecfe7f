// Elementwise ops from 1K to 64M float32 elements: unary, binary on equal
// shapes, and binary with broadcasting (a row vector, a column, a scalar).
// Bytes count each input read and the output written once; unary and
// broadcasting ops are judged against the Copy loop, binary ops on equal
// shapes against Triad, at the same size and thread count.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

constexpr int64_t kSizes[] = {int64_t{1} << 10, int64_t{1} << 15,
                              int64_t{1} << 20, int64_t{1} << 24,
                              int64_t{1} << 26};

// The width of the rows that row and column broadcasting use.
constexpr int64_t kRow = 1024;

enum class Kind { kUnary, kBinary, kRowVector, kColumn, kScalar };

void RegisterCwise(const char* op, Kind kind, int64_t n, int threads) {
  const char* variant = kind == Kind::kRowVector ? "/bcast_row"
                        : kind == Kind::kColumn  ? "/bcast_column"
                        : kind == Kind::kScalar  ? "/bcast_scalar"
                                                 : "";
  const std::string name =
      absl::StrCat(op, variant, "/n:", n, "/threads:", threads);
  const int64_t rows = n / kRow;
  Register(name, [=](benchmark::State& state) {
    std::vector<Tensor> inputs;
    switch (kind) {
      case Kind::kUnary:
        inputs = {RandomFloatTensor(TensorShape({n}), 1)};
        break;
      case Kind::kBinary:
        inputs = {RandomFloatTensor(TensorShape({n}), 1),
                  RandomFloatTensor(TensorShape({n}), 2)};
        break;
      case Kind::kRowVector:
        inputs = {RandomFloatTensor(TensorShape({rows, kRow}), 1),
                  RandomFloatTensor(TensorShape({kRow}), 2)};
        break;
      case Kind::kColumn:
        inputs = {RandomFloatTensor(TensorShape({rows, kRow}), 1),
                  RandomFloatTensor(TensorShape({rows, 1}), 2)};
        break;
      case Kind::kScalar:
        inputs = {RandomFloatTensor(TensorShape({n}), 1),
                  RandomFloatTensor(TensorShape({}), 2)};
        break;
    }
    AttrMap attrs;
    attrs["T"] = AttrValue::Type(DT_FLOAT);
    auto runner = KernelRunner::Create(op, attrs, std::move(inputs), threads);
    if (!TimeRuns(state, std::move(runner))) return;
    const int arrays = kind == Kind::kBinary ? 3 : 2;
    SetGBps(state, 4.0 * arrays * static_cast<double>(n));
  });
  ReferencePairs().push_back({name,
                              kind == Kind::kBinary ? TriadReference(n, threads)
                                                    : CopyReference(n, threads),
                              kGBps});
}

}  // namespace

void RegisterCwiseBenchmarks() {
  for (int threads : {1, 2}) {
    for (int64_t n : kSizes) {
      // Relu is the pure-bandwidth case; Exp, Tanh, Sigmoid and the fused
      // activations (_Swish, _Gelu: the exact GELU) show where the
      // arithmetic starts to cost more than the memory traffic.
      for (const char* op :
           {"Relu", "Exp", "Tanh", "Sigmoid", "_Swish", "_Gelu"}) {
        RegisterCwise(op, Kind::kUnary, n, threads);
      }
      for (const char* op : {"AddV2", "Mul"}) {
        RegisterCwise(op, Kind::kBinary, n, threads);
      }
      RegisterCwise("AddV2", Kind::kRowVector, n, threads);
      RegisterCwise("Mul", Kind::kColumn, n, threads);
      RegisterCwise("AddV2", Kind::kScalar, n, threads);
    }
  }
}

}  // namespace weft::bench
