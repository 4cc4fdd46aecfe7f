// weft_kernels_bench: weft's CPU kernels run one at a time through the
// OpKernel API, beside the references that tell how good a figure is
// (OpenBLAS sgemm for products and convolutions, the machine's FMA peak on
// the active CPU path for the same, STREAM-style loops for memory-bound
// ops), all measured in the same run.
//
//   build/bench/weft_kernels_bench                       # everything
//   build/bench/weft_kernels_bench --benchmark_filter='MatMul|sgemm/n'
//
// After Google Benchmark's own table, a Markdown table gives each weft
// kernel's figure as a fraction of its reference (the median over
// --benchmark_repetitions when there are several), for bench/RESULTS.md.
// Kernels that do not exist yet are skipped with "no kernel yet".
//
// Each kernel allocates its outputs from a caching allocator, as in a session
// (see bench/kernel_runner.h), so that large outputs reuse mapped pages;
// WEFT_BENCH_DEFAULT_ALLOCATOR=1 uses weft's default allocator instead, to
// see what fresh pages cost.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/blas_reference.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

// The console reporter, also keeping every run's counters for the summary.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      Result& r = results_[run.run_name.function_name];
      if (run.error_occurred) {
        r.error = run.error_message;
        continue;
      }
      for (const auto& [counter, value] : run.counters) {
        r.values[counter].push_back(value.value);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void PrintSummary() const {
    std::printf(
        "\nweft kernels as a fraction of their reference (same run, same "
        "threads)\n\n| benchmark | weft | reference | reference figure | "
        "fraction |\n|---|---:|---|---:|---:|\n");
    for (const ReferencePair& pair : ReferencePairs()) {
      auto weft = results_.find(pair.weft);
      if (weft == results_.end()) continue;  // filtered out
      std::string weft_text = Describe(weft->second, pair.counter);
      std::string ref_text = "not run";
      auto ref = results_.find(pair.reference);
      if (ref != results_.end()) ref_text = Describe(ref->second, pair.counter);
      std::string fraction = "";
      double w = Median(weft->second, pair.counter);
      double r =
          ref == results_.end() ? NaN() : Median(ref->second, pair.counter);
      if (w == w && r == r && r > 0) fraction = absl::StrFormat("%.2f", w / r);
      std::printf("| %s | %s | %s | %s | %s |\n", pair.weft.c_str(),
                  weft_text.c_str(), pair.reference.c_str(), ref_text.c_str(),
                  fraction.c_str());
    }
  }

 private:
  struct Result {
    std::map<std::string, std::vector<double>> values;
    std::string error;
  };

  static double NaN() { return std::numeric_limits<double>::quiet_NaN(); }

  static double Median(const Result& r, const std::string& counter) {
    auto it = r.values.find(counter);
    if (!r.error.empty() || it == r.values.end() || it->second.empty()) {
      return NaN();
    }
    std::vector<double> v = it->second;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  static std::string Describe(const Result& r, const std::string& counter) {
    if (!r.error.empty()) {
      // The registry's message lists every registered kernel: keep the
      // start, which says what is missing.
      std::string e = r.error.substr(0, 60);
      if (e.size() < r.error.size()) e += "...";
      return "skipped (" + e + ")";
    }
    double m = Median(r, counter);
    if (m != m) return "-";
    return absl::StrFormat("%.1f %s", m, counter);
  }

  std::map<std::string, Result> results_;
};

}  // namespace
}  // namespace weft::bench

int main(int argc, char** argv) {
  const char* env = std::getenv("WEFT_BENCH_DEFAULT_ALLOCATOR");
  const bool default_allocator =
      env != nullptr && *env != '\0' && std::string(env) != "0";
  weft::bench::SetUseDefaultAllocator(default_allocator);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("openblas", weft::bench::BlasDescription());
  benchmark::AddCustomContext(
      "allocator", default_allocator
                       ? "weft's default (WEFT_BENCH_DEFAULT_ALLOCATOR)"
                       : "caching bfc, as a session's (outputs reuse the "
                         "previous run's pages)");

  using namespace weft::bench;  // NOLINT: the registration functions
  RegisterMatMulBenchmarks();
  RegisterConvBenchmarks();
  RegisterCwiseBenchmarks();
  RegisterReduceBenchmarks();
  RegisterQueuedBlasReferences();

  SummaryReporter reporter(benchmark::ConsoleReporter::OO_Tabular);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary();
  benchmark::Shutdown();
  return 0;
}
