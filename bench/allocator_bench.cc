// Host allocators compared: weft's plain allocator (aligned_alloc per
// tensor) against the caching BfcAllocator a session uses, with and without
// its small-request path through malloc.
//
//   build/bench/weft_allocator_bench
//
// BM_AllocFree times an allocation and its deallocation at 256 B, 64 KiB
// and 4 MiB, on one thread and on two at once (the contention of two
// concurrent Session::Run calls on one lock). BM_AllocTouchFree also writes
// one byte per 4 KiB page of a 64 MiB block, as a kernel writing its output
// does: what a fresh mapping costs in page faults against reused pages.
#include <cstddef>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "core/allocator.h"
#include "device/bfc_allocator.h"

namespace weft {
namespace {

enum Kind { kPlain = 0, kBfc = 1, kBfcSmallMalloc = 2 };

// One allocator per kind, shared by the threads of a benchmark.
Allocator* Get(Kind kind) {
  static Allocator* allocators[3] = {
      DefaultCpuAllocator(),
      [] {
        BfcAllocator::Options options = HostCachingAllocatorOptions();
        options.small_size_threshold = 0;
        return new BfcAllocator(std::make_unique<HostSubAllocator>(), options);
      }(),
      [] {
        BfcAllocator::Options options = HostCachingAllocatorOptions();
        options.small_size_threshold = 4096;
        return new BfcAllocator(std::make_unique<HostSubAllocator>(), options);
      }(),
  };
  return allocators[kind];
}

const char* KindName(Kind kind) {
  return kind == kPlain ? "plain" : kind == kBfc ? "bfc" : "bfc_small_malloc";
}

void BM_AllocFree(benchmark::State& state, Kind kind) {
  Allocator* a = Get(kind);
  const size_t bytes = static_cast<size_t>(state.range(0));
  // A live block beside the one cycled, so that the cached allocator's
  // region is never wholly free and its steady state is what is measured.
  void* other = a->AllocateRaw(kTensorAlignment, bytes);
  for (auto _ : state) {
    void* p = a->AllocateRaw(kTensorAlignment, bytes);
    benchmark::DoNotOptimize(p);
    a->DeallocateRaw(p, bytes);
  }
  a->DeallocateRaw(other, bytes);
  state.SetItemsProcessed(state.iterations());
}

void BM_AllocTouchFree(benchmark::State& state, Kind kind) {
  Allocator* a = Get(kind);
  const size_t bytes = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    auto* p = static_cast<char*>(a->AllocateRaw(kTensorAlignment, bytes));
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    benchmark::DoNotOptimize(p);
    a->DeallocateRaw(p, bytes);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}

void Register() {
  for (Kind kind : {kPlain, kBfc, kBfcSmallMalloc}) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark(
          (std::string("BM_AllocFree/") + KindName(kind)).c_str(),
          [kind](benchmark::State& s) { BM_AllocFree(s, kind); })
          ->Arg(256)
          ->Arg(64 << 10)
          ->Arg(4 << 20)
          ->Threads(threads)
          ->UseRealTime();
    }
    if (kind != kBfcSmallMalloc) {
      benchmark::RegisterBenchmark(
          (std::string("BM_AllocTouchFree/") + KindName(kind)).c_str(),
          [kind](benchmark::State& s) { BM_AllocTouchFree(s, kind); })
          ->Arg(64 << 20)
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  weft::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
