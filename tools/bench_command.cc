// weft bench GRAPH: times repeated runs of a graph file on one session.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/op_library.h"
#include "device/device.h"
#include "executor/session.h"
#include "tools/cli.h"
#include "tools/input_spec.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft bench GRAPH [--runs N] [--warmup N] [--threads N]\n"
    "                  [--device DEV]\n"
    "                  [--input NAME=SOURCE ...] [--output NAME ...]\n"
    "                  [--load LIB.so ...] [--no-memory-cache]\n"
    "                  [--no-optimize] [--allow-tf32] [--capture-graph]\n"
    "                  [--signature KEY] [--tag TAGS]\n"
    "\n"
    "Prepares a session once, then times N runs of a TensorFlow graph file\n"
    "or SavedModel directory (--signature, --tag: as for weft run)\n"
    "and prints the min, median, 90th-percentile and mean latency of one\n"
    "run and the runs per second. Runs longer than 2 s show a progress\n"
    "line on stderr when it is a terminal.\n"
    "\n"
    "  --runs N      timed runs (default 100)\n"
    "  --warmup N    untimed runs first (default 10)\n"
    "  --threads N   threads that run kernels; 0 runs everything on the\n"
    "                calling thread (default: one per core)\n"
    "  --no-memory-cache\n"
    "                allocate every tensor from the system rather than\n"
    "                reusing the previous run's buffers (to measure what\n"
    "                the session's caching allocator saves)\n"
    "  --device DEV  where nodes run: cpu (default), cuda, cuda:N, or auto\n"
    "                (a GPU when one is usable, else the CPU)\n"
    "  --no-optimize run the graph's nodes as they are: no constant\n"
    "                folding, no fusion (to measure what the optimizer saves)\n"
    "  --allow-tf32  with a CUDA device, let float32 matrix products use\n"
    "                TF32 tensor cores (faster, ~1e-3 relative error)\n"
    "  --capture-graph\n"
    "                record the run's device work once (a CUDA Graph) and\n"
    "                replay it: one launch per run; prints why when the\n"
    "                graph cannot be recorded\n"
    "  --input NAME=SOURCE, --output NAME, --load LIB.so\n"
    "                as for 'weft run' (see 'weft run --help')\n";

using Clock = std::chrono::steady_clock;

// "12.3 us", "4.56 ms", "1.2 s": three significant digits, in the unit that
// keeps the number readable.
std::string FormatSeconds(double s) {
  if (s < 1e-3) return absl::StrFormat("%.3g us", s * 1e6);
  if (s < 1) return absl::StrFormat("%.3g ms", s * 1e3);
  return absl::StrFormat("%.3g s", s);
}

StatusOr<int> ParseCount(const Args& args, const char* flag, int fallback,
                         int minimum) {
  if (!args.Has(flag)) return fallback;
  std::string text = args.Get(flag);
  int value;
  if (!absl::SimpleAtoi(text, &value) || value < minimum) {
    return errors::InvalidArgument("--", flag, " '", text,
                                   "': expected a count >= ", minimum);
  }
  return value;
}

// Redraws "\r..." at most ten times a second once the runs have taken more
// than two seconds, on a terminal only (a log file would collect every
// redraw).
class Progress {
 public:
  Progress(int total, Clock::time_point start)
      : total_(total), start_(start), enabled_(::isatty(2) != 0) {}

  void Update(int done, Clock::time_point now) {
    if (!enabled_) return;
    if (now - start_ < std::chrono::seconds(2) ||
        now - last_ < std::chrono::milliseconds(100)) {
      return;
    }
    last_ = now;
    shown_ = true;
    double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\rweft bench: %d/%d runs, %.1f s", done, total_,
                 elapsed);
    std::fflush(stderr);
  }

  void Finish() {
    if (shown_) std::fputs("\r\033[K", stderr);
  }

 private:
  int total_;
  Clock::time_point start_;
  Clock::time_point last_;
  bool enabled_;
  bool shown_ = false;
};

}  // namespace

int BenchMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  DeclareSavedModelFlags(&args);
  args.Flag("runs", true);
  args.Flag("warmup", true);
  args.Flag("threads", true);
  args.Flag("device", true);
  args.Flag("input", true);
  args.Flag("load", true);
  args.Flag("output", true);
  args.Flag("no-memory-cache", false);
  args.Flag("no-optimize", false);
  args.Flag("allow-tf32", false);
  args.Flag("capture-graph", false);
  if (Status s = args.Parse(); !s.ok()) return UsageError("bench", s.message());
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 1) {
    return UsageError(
        "bench", "expected exactly one GRAPH file or SavedModel directory");
  }
  auto runs = ParseCount(args, "runs", 100, 1);
  if (!runs.ok()) return UsageError("bench", runs.status().message());
  auto warmup = ParseCount(args, "warmup", 10, 0);
  if (!warmup.ok()) return UsageError("bench", warmup.status().message());
  SessionOptions options;
  options.cache_host_memory = !args.Has("no-memory-cache");
  options.optimize = !args.Has("no-optimize");
  options.allow_tf32 = args.Has("allow-tf32");
  options.capture_device_graphs = args.Has("capture-graph");
  if (args.Has("threads")) {
    auto threads = ParseCount(args, "threads", -1, 0);
    if (!threads.ok()) return UsageError("bench", threads.status().message());
    options.threads = *threads;
  }
  if (Status s = ParseDeviceFlag(args, &options.device); !s.ok()) {
    return UsageError("bench", absl::StrCat("--device: ", s.message()));
  }
  std::vector<InputSpec> inputs;
  for (const std::string& text : args.GetAll("input")) {
    auto spec = ParseInputSpec(text);
    if (!spec.ok()) return UsageError("bench", spec.status().message());
    inputs.push_back(*std::move(spec));
  }

  // Op libraries first: the graph may use the ops they add.
  for (const std::string& library : args.GetAll("load")) {
    if (Status s = LoadOpLibrary(library); !s.ok()) {
      return ReportError("bench", s);
    }
  }

  const std::string& path = args.positional()[0];
  auto setup =
      LoadRunSetup(path, inputs, args.GetAll("output"), SavedModelFlags(args));
  if (!setup.ok()) return ReportError("bench", setup.status());
  for (const std::string& note : setup->notes) {
    std::fprintf(stderr, "weft bench: note: %s\n", note.c_str());
  }
  options.source_name = path;
  options.feeds = setup->feed_names;
  options.fetches = setup->fetches;
  auto session = Session::Create(setup->graph, options);
  if (!session.ok()) return ReportError("bench", session.status());
  auto callable = (*session)->Prepare(setup->feed_names, setup->fetches);
  if (!callable.ok()) return ReportError("bench", callable.status());

  std::vector<Tensor> outputs;
  for (int k = 0; k < *warmup; ++k) {
    Status s = (*session)->Run(**callable, setup->feeds, &outputs);
    if (!s.ok()) return ReportError("bench", s);
  }
  std::vector<double> latencies;
  latencies.reserve(*runs);
  Clock::time_point start = Clock::now();
  Progress progress(*runs, start);
  for (int k = 0; k < *runs; ++k) {
    Clock::time_point t0 = Clock::now();
    Status s = (*session)->Run(**callable, setup->feeds, &outputs);
    Clock::time_point t1 = Clock::now();
    if (!s.ok()) {
      progress.Finish();
      return ReportError("bench", s);
    }
    latencies.push_back(std::chrono::duration<double>(t1 - t0).count());
    progress.Update(k + 1, t1);
  }
  double total = std::chrono::duration<double>(Clock::now() - start).count();
  progress.Finish();

  double sum = 0;
  for (double l : latencies) sum += l;
  std::sort(latencies.begin(), latencies.end());
  size_t n = latencies.size();
  double median = n % 2 == 1 ? latencies[n / 2]
                             : (latencies[n / 2 - 1] + latencies[n / 2]) / 2;
  // Nearest rank: the smallest latency at least 90% of runs did not exceed.
  size_t p90_rank = (9 * n + 9) / 10;  // ceil(0.9 * n)
  double p90 = latencies[p90_rank - 1];
  std::string out = absl::StrCat(
      path, ": ", n, " runs after ", *warmup, " warmup, ",
      (*session)->num_threads(), " thread(s)\n", "latency: min ",
      FormatSeconds(latencies.front()), ", median ", FormatSeconds(median),
      ", p90 ", FormatSeconds(p90), ", mean ", FormatSeconds(sum / n), "\n",
      absl::StrFormat("throughput: %.1f runs/s\n", n / total));
  const std::string optimized = (*callable)->optimizer_summary();
  absl::StrAppend(&out, "nodes per run: ", (*callable)->num_nodes(),
                  optimized.empty()
                      ? " (not optimized)"
                      : absl::StrCat(" (optimized: ", optimized, ")"),
                  "\n");
  if (options.capture_device_graphs) {
    const Status recorded = (*callable)->device_graph_status();
    absl::StrAppend(&out, "device graph: ",
                    recorded.ok()
                        ? "recorded, one launch per run"
                        : absl::StrCat("not used: ", recorded.message()),
                    "\n");
  }
  // What the host allocator saw over all runs: the peak of live tensors,
  // and for the caching allocator the memory it held to serve them.
  const AllocatorStats stats =
      (*session)->devices()[0]->allocator()->GetStats();
  constexpr double kMiB = 1024.0 * 1024.0;
  absl::StrAppend(&out, absl::StrFormat("host memory: peak %.1f MiB in use",
                                        stats.peak_bytes_in_use / kMiB));
  if (options.cache_host_memory) {
    absl::StrAppend(&out, absl::StrFormat(", %.1f MiB reserved",
                                          stats.peak_bytes_reserved / kMiB));
  }
  absl::StrAppend(&out, "\n");
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

}  // namespace weft::cli
