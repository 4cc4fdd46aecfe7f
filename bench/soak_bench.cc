// Soak and load tests with MobileNetV2 (tests/models/testdata): memory that
// must stay flat, sessions and cancelled runs that must leave nothing
// behind, and latency under contention. Not part of the test suite: long
// by design; its figures go to bench/RESULTS.md.
//
//   weft_soak_bench runs THREADS RUNS     THREADS callers x RUNS runs each
//                                         through one session; RSS sampled
//                                         every second
//   weft_soak_bench sessions N            N sessions created, run once and
//                                         destroyed; RSS against the first
//   weft_soak_bench load THREADS RUNS     THREADS callers on one session:
//                                         outputs checked, p50/p99 latency
//   weft_soak_bench cancel N              N runs cancelled at random points:
//                                         every status OK or Cancelled
//
// Options (after the mode): --threads N (the session's kernel threads,
// default 2), --graph PATH, --input PATH (.npy).
//
// Every run's output is compared with the first, uncontended run's (the
// kernels compute each element the same way at any thread count, so it
// must match bit for bit); a difference, or any status other than OK (and
// Cancelled in `cancel`), ends the program with exit code 1.
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "tools/npy.h"

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

// Bytes malloc has handed out and not had back (glibc's mallinfo2), in MiB:
// unlike RSS, blind to pages the allocator keeps, so growth here is memory
// something still holds.
double HeapInUseMiB() {
  struct mallinfo2 mi = ::mallinfo2();
  return (mi.uordblks + mi.hblkhd) / (1024.0 * 1024.0);
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "weft_soak_bench: %s\n", what.c_str());
  std::exit(1);
}

struct Model {
  std::shared_ptr<const Graph> graph;
  Tensor input;
  std::string feed = "x";
  std::string fetch = "Identity_1";  // the softmax probabilities
};

Model LoadModel(const std::string& graph_path, const std::string& input_path) {
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
  return m;
}

std::unique_ptr<Session> NewSession(const Model& m, int threads) {
  SessionOptions options;
  options.threads = threads;
  options.source_name = "mobilenet_v2.pb";
  auto s = Session::Create(m.graph, options);
  if (!s.ok()) Die(s.status().ToString());
  return std::move(*s);
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// Prints "t  runs  RSS" once a second until `stop`; returns the samples.
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

 private:
  void Loop() {
    const Clock::time_point t0 = Clock::now();
    int second = 0;
    while (!stop_) {
      std::this_thread::sleep_until(t0 + std::chrono::seconds(second + 1));
      ++second;
      const double rss = RssMiB();
      samples_.push_back(rss);
      std::printf("  %4d s  %9lld runs  RSS %.1f MiB\n", second,
                  static_cast<long long>(runs_->load()), rss);
      std::fflush(stdout);
    }
  }

  const std::atomic<int64_t>* runs_;
  std::atomic<bool> stop_{false};
  std::vector<double> samples_;
  std::thread thread_;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * (v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int SoakRuns(const Model& m, int callers, int64_t runs, int threads) {
  auto session = NewSession(m, threads);
  auto callable = session->Prepare({m.feed}, {m.fetch});
  if (!callable.ok()) Die(callable.status().ToString());
  std::vector<Tensor> want;
  if (Status s = session->Run(**callable, {m.input}, &want); !s.ok()) {
    Die(s.ToString());
  }
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
    workers.emplace_back([&] {
      std::vector<Tensor> out;
      for (int64_t r = 0; r < runs; ++r) {
        Status s = session->Run(**callable, {m.input}, &out);
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
  const std::vector<double>& rss = sampler.samples();
  // Warm-up: the first tenth of the samples (at least one).
  const size_t warm = std::max<size_t>(1, rss.size() / 10);
  double lo = 1e300, hi = 0;
  for (size_t i = warm; i < rss.size(); ++i) {
    lo = std::min(lo, rss[i]);
    hi = std::max(hi, rss[i]);
  }
  std::printf(
      "runs: %lld runs in %.1f s (%.0f runs/s); RSS after warm-up "
      "%.1f to %.1f MiB, at the end %.1f MiB\n",
      static_cast<long long>(done.load()), seconds, done.load() / seconds,
      lo == 1e300 ? before : lo, hi == 0 ? before : hi, RssMiB());
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
    if (want.empty()) want = out;
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
  // most cancellations after the run): it waits for each run's cancel time,
  // spinning with yields, and cancels that run's token.
  std::atomic<CancellationToken*> target{nullptr};
  std::atomic<int64_t> cancel_at_ns{0};
  std::atomic<bool> quit{false};
  std::thread canceller([&] {
    while (!quit.load()) {
      CancellationToken* token = target.load();
      if (token == nullptr) {
        std::this_thread::yield();
        continue;
      }
      while (Clock::now().time_since_epoch().count() < cancel_at_ns.load()) {
        std::this_thread::yield();
      }
      token->Cancel();
      target.store(nullptr);
    }
  });
  for (int64_t i = 0; i < n; ++i) {
    CancellationToken token;
    RunOptions options;
    options.cancellation = &token;
    const int64_t delay_us = when(rng);
    cancel_at_ns.store((Clock::now() + std::chrono::microseconds(delay_us))
                           .time_since_epoch()
                           .count());
    target.store(&token);
    std::vector<Tensor> out;
    Status s = session->Run(**callable, {m.input}, &out, options);
    // The token must outlive the canceller's use of it.
    while (target.load() != nullptr) std::this_thread::yield();
    if (s.ok()) {
      ++ok;
      if (!SameBits(out[0], want[0])) Die("an output differs");
    } else if (absl::IsCancelled(s)) {
      ++cancelled;
    } else {
      Die("a cancelled run returned " + s.ToString());
    }
  }
  quit.store(true);
  canceller.join();
  // The session still runs right afterwards.
  std::vector<Tensor> out;
  if (Status s = session->Run(**callable, {m.input}, &out); !s.ok()) {
    Die(s.ToString());
  }
  if (!SameBits(out[0], want[0])) Die("an output differs after cancelling");
  std::printf(
      "cancel: %lld runs cancelled at random points in [0, %lld] us: "
      "%lld Cancelled, %lld finished first (OK, right output); RSS "
      "%.1f MiB before, %.1f MiB after\n",
      static_cast<long long>(n), static_cast<long long>(run_us),
      static_cast<long long>(cancelled), static_cast<long long>(ok), before,
      RssMiB());
  return 0;
}

int Usage() {
  std::fprintf(stderr,
               "usage: weft_soak_bench runs THREADS RUNS | sessions N | "
               "load THREADS RUNS | cancel N [--threads N] [--graph PATH] "
               "[--input PATH]\n");
  return 2;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string graph =
      std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/mobilenet_v2.pb";
  std::string input = std::string(WEFT_SOURCE_DIR) +
                      "/tests/models/testdata/mobilenet_v2_input.npy";
  int threads = 2;
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--threads" && i + 1 < args.size()) {
      if (!absl::SimpleAtoi(args[++i], &threads)) return Usage();
    } else if (args[i] == "--graph" && i + 1 < args.size()) {
      graph = args[++i];
    } else if (args[i] == "--input" && i + 1 < args.size()) {
      input = args[++i];
    } else {
      positional.push_back(args[i]);
    }
  }
  if (positional.empty()) return Usage();
  std::vector<int64_t> n;
  for (size_t i = 1; i < positional.size(); ++i) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(positional[i], &v) || v < 1) return Usage();
    n.push_back(v);
  }
  const std::string& mode = positional[0];
  Model m = LoadModel(graph, input);
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
