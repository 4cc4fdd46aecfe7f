// Soak and load tests with MobileNetV2 (tests/models/testdata): memory that
// must stay flat, sessions and cancelled runs that must leave nothing
// behind, and latency under contention. Not part of the test suite: long
// by design; its figures are in the README's "Reliability" section.
//
//   weft_soak_bench runs THREADS RUNS     THREADS callers x RUNS runs each
//                                         through one session; RSS sampled
//                                         every second; p50/p99 latency,
//                                         RSS slope after warm-up
//   weft_soak_bench sessions N            N sessions created, run once and
//                                         destroyed; RSS against the first
//   weft_soak_bench load THREADS RUNS     THREADS callers on one session:
//                                         outputs checked, p50/p99 latency
//   weft_soak_bench cancel N              N runs cancelled at random points:
//                                         every status OK or Cancelled
//   weft_soak_bench oplib N LIB [BAD]     N loads of the op library LIB
//                                         through the C API (by its path, a
//                                         path with "/./" and a symlink, in
//                                         turn): the first registers, every
//                                         later one is a no-op; then N loads
//                                         of BAD (a library whose
//                                         registration fails), each refused,
//                                         leaving nothing; registry sizes and
//                                         RSS checked
//
// Options (after the mode): --threads N (the session's kernel threads,
// default 2), --graph PATH, --input PATH (.npy), --expect PATH (.npy, the
// fetch's expected value; default TensorFlow's mobilenet_v2_probs.npy),
// --shared-arena (every session runs in one oneTBB arena of --threads
// threads that the program owns, instead of creating its own).
//
// The first run's output is checked against the expected one with the
// tolerance of tests/models; every later run's output is compared with the
// first, uncontended run's (the kernels compute each element the same way
// at any thread count, so it must match bit for bit); a difference, or any
// status other than OK (and Cancelled in `cancel`), ends the program with
// exit code 1.
#include <malloc.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "api/op_library.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "kernels/kernel_registry.h"
#include "oneapi/tbb/task_arena.h"
#include "ops/op_registry.h"
#include "tools/npy.h"
#include "weft/c_api.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

// Resident set size in MiB, from /proc/self/statm.
double RssMiB() {
  std::ifstream in("/proc/self/statm");
  long pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * static_cast<double>(::sysconf(_SC_PAGESIZE)) /
         (1024.0 * 1024.0);
}

// Bytes malloc has handed out and not had back, in MiB, over all of glibc's
// arenas (malloc_info's totals: the arenas' memory less their free chunks,
// plus mmapped chunks; mallinfo2 would count the main arena only, and
// kernel threads allocate from their own): unlike RSS, blind to pages the
// allocator keeps, so growth here is memory something still holds.
double HeapInUseMiB() {
  char* buf = nullptr;
  size_t size = 0;
  FILE* f = ::open_memstream(&buf, &size);
  if (f == nullptr) return 0;
  ::malloc_info(0, f);
  std::fclose(f);
  const std::string xml(buf, size);
  std::free(buf);
  // The totals follow the last </heap>.
  const size_t totals = xml.rfind("</heap>");
  auto value = [&](const std::string& tag) -> double {
    const size_t at = xml.find(tag, totals == std::string::npos ? 0 : totals);
    if (at == std::string::npos) return 0;
    const size_t q = xml.find("size=\"", at);
    return q == std::string::npos ? 0
                                  : std::strtod(xml.c_str() + q + 6, nullptr);
  };
  const double in_use =
      value("<system type=\"current\"") - value("<total type=\"fast\"") -
      value("<total type=\"rest\"") + value("<total type=\"mmap\"");
  return in_use / (1024.0 * 1024.0);
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "weft_soak_bench: %s\n", what.c_str());
  std::exit(1);
}

struct Model {
  std::shared_ptr<const Graph> graph;
  Tensor input;
  Tensor expected;  // TensorFlow's output for `input` (committed .npy)
  std::string feed = "x";
  std::string fetch = "Identity_1";  // the softmax probabilities
};

Model LoadModel(const std::string& graph_path, const std::string& input_path,
                const std::string& expected_path) {
  Model m;
  auto def = LoadGraphDef(graph_path);
  if (!def.ok()) Die(def.status().ToString());
  ImportOptions io;
  io.source_name = graph_path;
  auto g = ImportGraphDef(*def, io);
  if (!g.ok()) Die(g.status().ToString());
  ShapeInferenceOptions so;
  so.source_name = graph_path;
  if (Status s = InferShapes(g->get(), so); !s.ok()) Die(s.ToString());
  m.graph = std::shared_ptr<const Graph>(std::move(*g));
  auto x = ReadNpy(input_path);
  if (!x.ok()) Die(x.status().ToString());
  m.input = *x;
  auto e = ReadNpy(expected_path);
  if (!e.ok()) Die(e.status().ToString());
  m.expected = *e;
  return m;
}

// With --shared-arena: one oneTBB arena that every session uses
// (SessionOptions.arena) instead of creating its own.
tbb::task_arena* shared_arena = nullptr;

std::unique_ptr<Session> NewSession(const Model& m, int threads) {
  SessionOptions options;
  options.threads = threads;
  options.arena = shared_arena;
  options.source_name = "mobilenet_v2.pb";
  auto s = Session::Create(m.graph, options);
  if (!s.ok()) Die(s.status().ToString());
  return std::move(*s);
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// The first run's output against TensorFlow's, with tests/models'
// tolerance (1e-4 relative plus 5e-5 of the largest expected value): every
// later run is compared with this one bit for bit.
void CheckAgainstExpected(const Model& m, const Tensor& got) {
  const Tensor& e = m.expected;
  if (got.dtype() != DT_FLOAT || e.dtype() != DT_FLOAT ||
      !(got.shape() == e.shape())) {
    Die("the first run's output differs in dtype or shape from the expected");
  }
  const float* a = static_cast<const float*>(got.raw_data());
  const float* b = static_cast<const float*>(e.raw_data());
  const int64_t n = e.TotalBytes() / sizeof(float);
  double scale = 0, worst = 0, worst_ratio = 0;
  for (int64_t i = 0; i < n; ++i)
    scale = std::max(scale, std::fabs(b[i] * 1.0));
  for (int64_t i = 0; i < n; ++i) {
    const double diff = std::fabs(a[i] * 1.0 - b[i]);
    const double bound = 1e-4 * std::fabs(b[i] * 1.0) + 5e-5 * scale;
    worst = std::max(worst, diff);
    worst_ratio = std::max(worst_ratio, diff / bound);
  }
  std::printf(
      "first run vs TensorFlow's output: max |diff| %.3g, %.3f of the "
      "bound\n",
      worst, worst_ratio);
  if (worst_ratio > 1) Die("the first run's output is not TensorFlow's");
}

// Least-squares slope of v[from..] against their index (seconds), per hour.
double SlopePerHour(const std::vector<double>& v, size_t from) {
  const size_t k = v.size() > from ? v.size() - from : 0;
  if (k < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = from; i < v.size(); ++i) {
    const double x = static_cast<double>(i + 1), y = v[i];
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (k * sxy - sx * sy) / (k * sxx - sx * sx) * 3600.0;
}

// Prints "t  runs  RSS  heap" once a second until `stop`; returns the samples.
class RssSampler {
 public:
  explicit RssSampler(const std::atomic<int64_t>* runs) : runs_(runs) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~RssSampler() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    stop_ = true;
    thread_.join();
  }
  const std::vector<double>& samples() const { return samples_; }
  const std::vector<double>& heap_samples() const { return heap_samples_; }

 private:
  void Loop() {
    const Clock::time_point t0 = Clock::now();
    int second = 0;
    while (!stop_) {
      std::this_thread::sleep_until(t0 + std::chrono::seconds(second + 1));
      ++second;
      const double rss = RssMiB();
      const double heap = HeapInUseMiB();
      samples_.push_back(rss);
      heap_samples_.push_back(heap);
      std::printf("  %4d s  %9lld runs  RSS %.1f MiB  heap in use %.2f MiB\n",
                  second, static_cast<long long>(runs_->load()), rss, heap);
      std::fflush(stdout);
    }
  }

  const std::atomic<int64_t>* runs_;
  std::atomic<bool> stop_{false};
  std::vector<double> samples_;
  std::vector<double> heap_samples_;
  std::thread thread_;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Latencies in whole microseconds, one counter per microsecond up to
// 100 ms (one more for longer runs), allocated and touched before the RSS
// samples start so that recording them grows no memory.
class LatencyHistogram {
 public:
  static constexpr int64_t kBins = 100000;
  LatencyHistogram() : counts_(kBins + 1, 0) {}
  void Add(Clock::duration d) {
    const int64_t us =
        std::chrono::duration_cast<std::chrono::microseconds>(d).count();
    ++counts_[std::min<int64_t>(std::max<int64_t>(us, 0), kBins)];
    max_us_ = std::max(max_us_, us);
  }
  void Merge(const LatencyHistogram& o) {
    for (int64_t i = 0; i <= kBins; ++i) counts_[i] += o.counts_[i];
    max_us_ = std::max(max_us_, o.max_us_);
  }
  // The p-quantile in ms (the upper edge of its 1 us bin).
  double Quantile(double p) const {
    int64_t total = 0;
    for (int64_t c : counts_) total += c;
    const int64_t rank = static_cast<int64_t>(std::ceil(p * total));
    int64_t seen = 0;
    for (int64_t i = 0; i < kBins; ++i) {
      seen += counts_[i];
      if (seen >= std::max<int64_t>(rank, 1)) return (i + 1) / 1000.0;
    }
    return max_us_ / 1000.0;
  }
  double MaxMs() const { return max_us_ / 1000.0; }

 private:
  std::vector<int64_t> counts_;
  int64_t max_us_ = 0;
};

int SoakRuns(const Model& m, int callers, int64_t runs, int threads) {
  auto session = NewSession(m, threads);
  auto callable = session->Prepare({m.feed}, {m.fetch});
  if (!callable.ok()) Die(callable.status().ToString());
  std::vector<Tensor> want;
  if (Status s = session->Run(**callable, {m.input}, &want); !s.ok()) {
    Die(s.ToString());
  }
  CheckAgainstExpected(m, want[0]);
  std::vector<LatencyHistogram> latencies(callers);
  const double before = RssMiB();
  std::printf(
      "runs: %d callers x %lld runs, session threads %d; RSS after "
      "the first run %.1f MiB\n",
      callers, static_cast<long long>(runs), threads, before);
  std::atomic<int64_t> done{0};
  RssSampler sampler(&done);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::thread> workers;
  for (int c = 0; c < callers; ++c) {
    workers.emplace_back([&, c] {
      std::vector<Tensor> out;
      for (int64_t r = 0; r < runs; ++r) {
        const Clock::time_point t = Clock::now();
        Status s = session->Run(**callable, {m.input}, &out);
        latencies[c].Add(Clock::now() - t);
        if (!s.ok()) Die(s.ToString());
        if (!SameBits(out[0], want[0])) Die("an output differs");
        done++;
      }
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(Clock::now() - t0).count();
  sampler.Stop();
  for (int c = 1; c < callers; ++c) latencies[0].Merge(latencies[c]);
  const std::vector<double>& rss = sampler.samples();
  // Warm-up: the first tenth of the samples (at least one).
  const size_t warm = std::max<size_t>(1, rss.size() / 10);
  double lo = 1e300, hi = 0, peak = before;
  for (double r : rss) peak = std::max(peak, r);
  for (size_t i = warm; i < rss.size(); ++i) {
    lo = std::min(lo, rss[i]);
    hi = std::max(hi, rss[i]);
  }
  const std::vector<double>& heap = sampler.heap_samples();
  const size_t half = rss.size() / 2;
  std::printf(
      "runs: %lld runs in %.1f s (%.0f runs/s), every output equal to the "
      "first run's; latency p50 %.3f ms, p99 %.3f ms, max %.2f ms\n"
      "runs: RSS after the first run %.1f MiB, first sample %.1f MiB, peak "
      "%.1f MiB, after warm-up (%zu of %zu samples) %.1f to %.1f MiB, slope "
      "%+.2f MiB/h (over the second half %+.2f MiB/h), last sample %.1f "
      "MiB, at the end %.1f MiB\n"
      "runs: heap in use: first sample %.2f MiB, last %.2f MiB, slope after "
      "warm-up %+.2f MiB/h (second half %+.2f MiB/h)\n",
      static_cast<long long>(done.load()), seconds, done.load() / seconds,
      latencies[0].Quantile(0.5), latencies[0].Quantile(0.99),
      latencies[0].MaxMs(), before, rss.empty() ? before : rss.front(), peak,
      warm, rss.size(), lo == 1e300 ? before : lo, hi == 0 ? before : hi,
      SlopePerHour(rss, warm), SlopePerHour(rss, half),
      rss.empty() ? before : rss.back(), RssMiB(),
      heap.empty() ? 0 : heap.front(), heap.empty() ? 0 : heap.back(),
      SlopePerHour(heap, warm), SlopePerHour(heap, half));
  return 0;
}

int SoakSessions(const Model& m, int64_t n, int threads) {
  double baseline = 0, heap_baseline = 0;
  const Clock::time_point t0 = Clock::now();
  std::vector<Tensor> want;
  for (int64_t i = 0; i < n; ++i) {
    auto session = NewSession(m, threads);
    std::vector<Tensor> out;
    auto callable = session->Prepare({m.feed}, {m.fetch});
    if (!callable.ok()) Die(callable.status().ToString());
    if (Status s = session->Run(**callable, {m.input}, &out); !s.ok()) {
      Die(s.ToString());
    }
    if (want.empty()) {
      want = out;
      CheckAgainstExpected(m, want[0]);
    }
    if (!SameBits(out[0], want[0])) Die("an output differs");
    session.reset();
    // The baseline: after 10 sessions, once allocator pools and code pages
    // are warm.
    if (i == 9) {
      baseline = RssMiB();
      heap_baseline = HeapInUseMiB();
    }
    if (i >= 9 && (i + 1) % std::max<int64_t>(1, n / 10) == 0) {
      std::printf("  %7lld sessions  RSS %.1f MiB  heap in use %.2f MiB\n",
                  static_cast<long long>(i + 1), RssMiB(), HeapInUseMiB());
      std::fflush(stdout);
    }
  }
  const double seconds =
      std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf(
      "sessions: %lld created, run and destroyed in %.1f s; RSS "
      "after 10: %.1f MiB, at the end: %.1f MiB; heap in use after 10: "
      "%.2f MiB, at the end: %.2f MiB\n",
      static_cast<long long>(n), seconds, baseline, RssMiB(), heap_baseline,
      HeapInUseMiB());
  return 0;
}

int Load(const Model& m, int callers, int64_t runs, int threads) {
  auto session = NewSession(m, threads);
  auto callable = session->Prepare({m.feed}, {m.fetch});
  if (!callable.ok()) Die(callable.status().ToString());
  std::vector<Tensor> want;
  if (Status s = session->Run(**callable, {m.input}, &want); !s.ok()) {
    Die(s.ToString());
  }
  CheckAgainstExpected(m, want[0]);
  // Uncontended latency first, for comparison.
  std::vector<double> alone;
  for (int i = 0; i < 50; ++i) {
    std::vector<Tensor> out;
    const Clock::time_point t = Clock::now();
    if (Status s = session->Run(**callable, {m.input}, &out); !s.ok()) {
      Die(s.ToString());
    }
    alone.push_back(
        std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  std::vector<std::vector<double>> latencies(callers);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::thread> workers;
  for (int c = 0; c < callers; ++c) {
    workers.emplace_back([&, c] {
      std::vector<Tensor> out;
      for (int64_t r = 0; r < runs; ++r) {
        const Clock::time_point t = Clock::now();
        Status s = session->Run(**callable, {m.input}, &out);
        latencies[c].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t)
                .count());
        if (!s.ok()) Die(s.ToString());
        if (!SameBits(out[0], want[0])) Die("an output differs");
      }
    });
  }
  for (std::thread& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::printf(
      "load: %d callers x %lld runs on one session (threads %d) in "
      "%.1f s, %.0f runs/s, every output equal to the first run's\n"
      "load: latency p50 %.2f ms, p99 %.2f ms, max %.2f ms "
      "(alone: p50 %.2f ms, p99 %.2f ms)\n",
      callers, static_cast<long long>(runs), threads, seconds,
      all.size() / seconds, Percentile(all, 0.5), Percentile(all, 0.99),
      Percentile(all, 1.0), Percentile(alone, 0.5), Percentile(alone, 0.99));
  return 0;
}

int Cancel(const Model& m, int64_t n, int threads) {
  auto session = NewSession(m, threads);
  auto callable = session->Prepare({m.feed}, {m.fetch});
  if (!callable.ok()) Die(callable.status().ToString());
  std::vector<Tensor> want;
  if (Status s = session->Run(**callable, {m.input}, &want); !s.ok()) {
    Die(s.ToString());
  }
  CheckAgainstExpected(m, want[0]);
  // How long a run takes (the median of 21), to spread the cancellations
  // over it.
  std::vector<double> times;
  for (int i = 0; i < 21; ++i) {
    std::vector<Tensor> out;
    const Clock::time_point t = Clock::now();
    (void)session->Run(**callable, {m.input}, &out);
    times.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t).count());
  }
  const int64_t run_us = static_cast<int64_t>(Percentile(times, 0.5));
  const double before = RssMiB();
  std::mt19937 rng(20);
  std::uniform_int_distribution<int64_t> when(0, std::max<int64_t>(1, run_us));
  int64_t ok = 0, cancelled = 0;
  // One canceller thread for all runs (starting a thread per run would land
  // most cancellations after the run): it blocks until a run is handed to
  // it, sleeps until that run's cancel time and cancels its token. It
  // sleeps rather than spins: on 2 busy cores a spinning thread uses up its
  // share and the scheduler lets it run again only after the run has ended
  // (measured: 0 of 2,000 runs cancelled), where a thread waking from a
  // sleep is scheduled at once. Timer slack 1 us (the default is 50 us).
  std::mutex mu;
  std::condition_variable cv;
  CancellationToken* target = nullptr;
  Clock::time_point cancel_at;
  bool quit = false;
  std::thread canceller([&] {
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      cv.wait(lock, [&] { return quit || target != nullptr; });
      if (quit) break;
      CancellationToken* token = target;
      const Clock::time_point at = cancel_at;
      lock.unlock();
      std::this_thread::sleep_until(at);
      token->Cancel();
      lock.lock();
      target = nullptr;
      cv.notify_all();
    }
  });
  double longest_ms = 0;
  const double heap_before = HeapInUseMiB();
  for (int64_t i = 0; i < n; ++i) {
    CancellationToken token;
    RunOptions options;
    options.cancellation = &token;
    const int64_t delay_us = when(rng);
    const Clock::time_point start = Clock::now();
    {
      std::lock_guard<std::mutex> lock(mu);
      cancel_at = start + std::chrono::microseconds(delay_us);
      target = &token;
    }
    cv.notify_all();
    std::vector<Tensor> out;
    Status s = session->Run(**callable, {m.input}, &out, options);
    longest_ms =
        std::max(longest_ms,
                 std::chrono::duration<double, std::milli>(Clock::now() - start)
                     .count());
    {
      // The token must outlive the canceller's use of it.
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return target == nullptr; });
    }
    if (s.ok()) {
      ++ok;
      if (!SameBits(out[0], want[0])) Die("an output differs");
    } else if (absl::IsCancelled(s)) {
      ++cancelled;
    } else {
      Die("a cancelled run returned " + s.ToString());
    }
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    quit = true;
  }
  cv.notify_all();
  canceller.join();
  // The session still runs right afterwards.
  std::vector<Tensor> out;
  if (Status s = session->Run(**callable, {m.input}, &out); !s.ok()) {
    Die(s.ToString());
  }
  if (!SameBits(out[0], want[0])) Die("an output differs after cancelling");
  std::printf(
      "cancel: %lld runs cancelled at random points in [0, %lld] us: "
      "%lld Cancelled, %lld finished first (OK, right output); the longest "
      "run %.2f ms; RSS %.1f MiB before, %.1f MiB after; heap in use %.2f "
      "MiB before, %.2f MiB after\n",
      static_cast<long long>(n), static_cast<long long>(run_us),
      static_cast<long long>(cancelled), static_cast<long long>(ok), longest_ms,
      before, RssMiB(), heap_before, HeapInUseMiB());
  return 0;
}

// What the process-wide registries hold: ops, kernels, loaded libraries.
struct RegistryState {
  size_t ops = 0;
  size_t kernels = 0;
  std::vector<std::string> libraries;
  bool operator==(const RegistryState& o) const {
    return ops == o.ops && kernels == o.kernels && libraries == o.libraries;
  }
};

RegistryState Registries() {
  RegistryState r;
  for (const OpRegistrationData* op : OpRegistry::Global()->ListOps()) {
    ++r.ops;
    r.kernels += KernelRegistry::Global()->KernelsForOp(op->op_def.name).size();
  }
  r.libraries = LoadedOpLibraries();
  return r;
}

// Loads `path` through the C API; returns the code and sets `message`.
weft_code LoadThroughCApi(const std::string& path, std::string* message) {
  weft_status* status = weft_status_new();
  weft_load_op_library(path.c_str(), status);
  const weft_code code = weft_status_code(status);
  *message = weft_status_message(status);
  weft_status_delete(status);
  return code;
}

int OpLib(int64_t n, const std::string& lib, const std::string& bad) {
  if (lib.empty() || lib[0] != '/') Die("oplib: LIB must be an absolute path");
  // Three spellings of one file: as given, with "/./" before its name, and
  // a symlink to it in a fresh directory. The API documents a load of an
  // already loaded file, by whatever path, as a no-op returning OK.
  const size_t slash = lib.rfind('/');
  char dir_template[] = "/tmp/weft_soak_oplib_XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) Die("oplib: mkdtemp failed");
  const std::string link =
      std::string(dir_template) + "/" + lib.substr(slash + 1);
  if (::symlink(lib.c_str(), link.c_str()) != 0) Die("oplib: symlink failed");
  const std::vector<std::string> paths = {
      lib, lib.substr(0, slash) + "/." + lib.substr(slash), link};

  const RegistryState before = Registries();
  std::string message;
  const Clock::time_point t0 = Clock::now();
  if (LoadThroughCApi(lib, &message) != WEFT_OK) Die(message);
  const RegistryState loaded = Registries();
  if (loaded.ops <= before.ops ||
      loaded.libraries.size() != before.libraries.size() + 1) {
    Die("oplib: the first load registered nothing");
  }
  std::printf(
      "oplib: %s: first load OK, registry %zu ops / %zu kernels / %zu "
      "libraries before, %zu / %zu / %zu after\n",
      lib.c_str(), before.ops, before.kernels, before.libraries.size(),
      loaded.ops, loaded.kernels, loaded.libraries.size());
  double baseline = 0, heap_baseline = 0;
  int64_t no_ops = 0;
  for (int64_t i = 1; i < n; ++i) {
    const std::string& path = paths[i % paths.size()];
    if (LoadThroughCApi(path, &message) != WEFT_OK) {
      Die("oplib: load " + std::to_string(i + 1) + " by " + path + ": " +
          message);
    }
    if (!(Registries() == loaded)) {
      Die("oplib: load " + std::to_string(i + 1) + " by " + path +
          " changed the registries");
    }
    ++no_ops;
    if (i == 9) {
      baseline = RssMiB();
      heap_baseline = HeapInUseMiB();
    }
    if (i >= 9 && (i + 1) % std::max<int64_t>(1, n / 5) == 0) {
      std::printf("  %7lld loads  RSS %.1f MiB  heap in use %.2f MiB\n",
                  static_cast<long long>(i + 1), RssMiB(), HeapInUseMiB());
      std::fflush(stdout);
    }
  }
  std::printf(
      "oplib: %lld loads in %.2f s: the first registered, %lld later ones "
      "(by 3 spellings of the path) returned OK and changed nothing; RSS "
      "after 10: %.1f MiB, at the end: %.1f MiB; heap in use after 10: "
      "%.2f MiB, at the end: %.2f MiB\n",
      static_cast<long long>(n),
      std::chrono::duration<double>(Clock::now() - t0).count(),
      static_cast<long long>(no_ops), baseline, RssMiB(), heap_baseline,
      HeapInUseMiB());
  ::unlink(link.c_str());
  ::rmdir(dir_template);
  if (bad.empty()) return 0;

  // A library whose registration fails: each load must be refused with the
  // same error ("op library '<path>': ..."), nothing registered, the
  // library not remembered as loaded.
  const Clock::time_point t1 = Clock::now();
  std::string first_message;
  weft_code first_code = WEFT_OK;
  for (int64_t i = 0; i < n; ++i) {
    const weft_code code = LoadThroughCApi(bad, &message);
    if (code == WEFT_OK) Die("oplib: " + bad + " loaded");
    if (!absl::StartsWith(message, "op library '" + bad + "'")) {
      Die("oplib: unexpected message: " + message);
    }
    if (i == 0) {
      first_code = code;
      first_message = message;
    } else if (code != first_code || message != first_message) {
      Die("oplib: load " + std::to_string(i + 1) + " of " + bad +
          " failed differently: " + message);
    }
    if (!(Registries() == loaded)) {
      Die("oplib: a refused load of " + bad + " changed the registries");
    }
    if (i == 9) {
      baseline = RssMiB();
      heap_baseline = HeapInUseMiB();
    }
  }
  std::printf(
      "oplib: %lld loads of %s in %.2f s, each refused with code %d: "
      "\"%s\"; registries unchanged; RSS after 10: %.1f MiB, at the end: "
      "%.1f MiB; heap in use after 10: %.2f MiB, at the end: %.2f MiB\n",
      static_cast<long long>(n), bad.c_str(),
      std::chrono::duration<double>(Clock::now() - t1).count(),
      static_cast<int>(first_code), first_message.c_str(), baseline, RssMiB(),
      heap_baseline, HeapInUseMiB());
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: weft_soak_bench runs THREADS RUNS | sessions N | "
               "load THREADS RUNS | cancel N | oplib N LIB [BAD] "
               "[--threads N] [--graph PATH] [--input PATH] [--expect PATH] "
               "[--shared-arena]\n");
  return 2;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string graph =
      std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/mobilenet_v2.pb";
  std::string input = std::string(WEFT_SOURCE_DIR) +
                      "/tests/models/testdata/mobilenet_v2_input.npy";
  std::string expected = std::string(WEFT_SOURCE_DIR) +
                         "/tests/models/testdata/mobilenet_v2_probs.npy";
  int threads = 2;
  bool shared_arena_flag = false;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--threads" && i + 1 < args.size()) {
      if (!absl::SimpleAtoi(args[++i], &threads)) return Usage();
    } else if (args[i] == "--graph" && i + 1 < args.size()) {
      graph = args[++i];
    } else if (args[i] == "--input" && i + 1 < args.size()) {
      input = args[++i];
    } else if (args[i] == "--expect" && i + 1 < args.size()) {
      expected = args[++i];
    } else if (args[i] == "--shared-arena") {
      shared_arena_flag = true;
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.empty()) return Usage();
  if (positional[0] == "oplib") {
    int64_t v = 0;
    if (positional.size() < 3 || positional.size() > 4 ||
        !absl::SimpleAtoi(positional[1], &v) || v < 1) {
      return Usage();
    }
    return OpLib(v, positional[2], positional.size() == 4 ? positional[3] : "");
  }
  std::vector<int64_t> n;
  for (size_t i = 1; i < positional.size(); ++i) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(positional[i], &v) || v < 1) return Usage();
    n.push_back(v);
  }
  const std::string& mode = positional[0];
  Model m = LoadModel(graph, input, expected);
  std::unique_ptr<tbb::task_arena> arena;
  if (shared_arena_flag) {
    arena = std::make_unique<tbb::task_arena>(threads);
    arena->initialize();
    shared_arena = arena.get();
  }
  if (mode == "runs" && n.size() == 2) {
    return SoakRuns(m, static_cast<int>(n[0]), n[1], threads);
  }
  if (mode == "sessions" && n.size() == 1) {
    return SoakSessions(m, n[0], threads);
  }
  if (mode == "load" && n.size() == 2) {
    return Load(m, static_cast<int>(n[0]), n[1], threads);
  }
  if (mode == "cancel" && n.size() == 1) return Cancel(m, n[0], threads);
  return Usage();
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
