// weft run GRAPH: runs a graph file once on given or generated inputs,
// prints a summary of every output and optionally saves them as .npy files.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "api/op_library.h"
#include "executor/session.h"
#include "tools/cli.h"
#include "tools/input_spec.h"
#include "tools/npy.h"

namespace weft::cli {
namespace {

constexpr char kHelp[] =
    "usage: weft run GRAPH [--input NAME=SOURCE ...] [--output NAME ...]\n"
    "                [--save DIR] [--threads N] [--trace FILE.json]\n"
    "                [--warmup N]\n"
    "                [--top K] [--device DEV] [--load LIB.so ...]\n"
    "                [--no-optimize] [--allow-tf32]\n"
    "                [--host-memory-limit BYTES]\n"
    "                [--signature KEY] [--tag TAGS]\n"
    "\n"
    "Runs a TensorFlow graph file (.pb or .pbtxt) or SavedModel directory\n"
    "once and prints each output's name, dtype, shape, min, max, mean and\n"
    "first values. A SavedModel's inputs and outputs are named by its\n"
    "signature's keys (node names work too).\n"
    "\n"
    "  --input NAME=FILE.npy        feed tensor NAME ('node' or 'node:i')\n"
    "                               from a NumPy file\n"
    "  --input NAME=random[:SHAPE]  reproducible values: uniform in [-1,1)\n"
    "                               for floats, small integers for ints\n"
    "  --input NAME=zeros[:SHAPE]   zeros\n"
    "                               SHAPE is like 1,28,28; without it the\n"
    "                               graph's shape is used, unknown dims as 1\n"
    "  --output NAME   fetch this tensor (repeatable); default: the outputs\n"
    "                  of every node nobody consumes\n"
    "  --save DIR      write each output to DIR/NAME.npy ('/' and ':' in\n"
    "                  NAME become '_')\n"
    "  --threads N     threads that run kernels; 0 runs everything on the\n"
    "                  calling thread (default: one per core)\n"
    "  --device DEV    where nodes run: cpu (default), cuda, cuda:N, or\n"
    "                  auto (a GPU when one is usable, else the CPU);\n"
    "                  see 'weft devices'\n"
    "  --top K         for each float output, also print the K largest\n"
    "                  values of its first row with their indices (the\n"
    "                  top-K classes of a classifier)\n"
    "  --trace FILE    write per-node timings as Chrome trace-event JSON\n"
    "                  (open in Perfetto or chrome://tracing); a fused node\n"
    "                  is named after the nodes it replaces\n"
    "  --warmup N      run N times first, untimed and unsaved, so outputs\n"
    "                  and --trace come from a warm run: buffers already\n"
    "                  touched, weights packed, caches filled (default 0:\n"
    "                  the trace then shows first-run costs too)\n"
    "  --no-optimize   run the graph's nodes as they are: no constant\n"
    "                  folding, no fusion\n"
    "  --allow-tf32    with a CUDA device, let float32 matrix products use\n"
    "                  TF32 tensor cores (faster, ~1e-3 relative error)\n"
    "  --load LIB.so   load an op library (ops and kernels built against\n"
    "                  weft/plugin.h) before reading the graph; repeatable\n"
    "  --host-memory-limit BYTES\n"
    "                  cap the host memory the run's tensors may take\n"
    "                  (SessionOptions.host_memory_limit_bytes); a node\n"
    "                  whose output would pass it fails the run\n"
    "  --signature KEY SavedModel: the signature to run (default\n"
    "                  serving_default, or the model's only one)\n"
    "  --tag TAGS      SavedModel: the meta graph's tags, comma-separated\n"
    "                  (default serve)\n";

constexpr int kShownValues = 6;

// "  top-5: 281 (0.41), 285 (0.22), ..." over the first row (the last
// dimension) of a float tensor; empty for other dtypes and empty tensors.
std::string TopK(const Tensor& t, int k) {
  if (t.dtype() != DT_FLOAT || t.NumElements() == 0 || t.dims() == 0 ||
      t.memory_space() != MemorySpace::kHost) {
    return "";
  }
  const int64_t row = t.dim_size(t.dims() - 1);
  const float* p = t.data<float>();
  std::vector<int64_t> index(row);
  for (int64_t i = 0; i < row; ++i) index[i] = i;
  const int64_t shown = std::min<int64_t>(k, row);
  std::partial_sort(index.begin(), index.begin() + shown, index.end(),
                    [p](int64_t a, int64_t b) { return p[a] > p[b]; });
  std::string out = absl::StrCat("  top-", shown, ":");
  for (int64_t i = 0; i < shown; ++i) {
    absl::StrAppend(&out, i > 0 ? "," : "", " ", index[i], " (", p[index[i]],
                    ")");
  }
  return out + "\n";
}

// "min -1.5 max 3 mean 0.25" over the real values of a numeric tensor, with
// NaNs counted apart; empty for other dtypes and empty tensors.
std::string Stats(const Tensor& t) {
  if (t.NumElements() == 0 || t.memory_space() != MemorySpace::kHost) {
    return "";
  }
  std::string out;
  VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, complex64> &&
                  !std::is_same_v<T, complex128>) {
      const T* p = static_cast<const T*>(t.raw_data());
      double lo = std::numeric_limits<double>::infinity();
      double hi = -lo;
      double sum = 0;
      int64_t nans = 0;
      for (int64_t k = 0; k < t.NumElements(); ++k) {
        double v = static_cast<double>(p[k]);
        if (std::isnan(v)) {
          ++nans;
          continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      int64_t counted = t.NumElements() - nans;
      if (counted > 0) {
        out = absl::StrFormat("min %g max %g mean %g", lo, hi, sum / counted);
      }
      if (nans > 0) {
        absl::StrAppend(&out, out.empty() ? "" : " ", nans, " NaN");
      }
    }
  });
  return out;
}

std::string SaveName(const std::string& tensor_name) {
  return absl::StrReplaceAll(tensor_name, {{"/", "_"}, {":", "_"}}) + ".npy";
}

Status SaveOutputs(const std::string& dir,
                   const std::vector<std::string>& names,
                   const std::vector<Tensor>& outputs) {
  absl::flat_hash_map<std::string, std::string> taken;
  for (const std::string& name : names) {
    auto [it, inserted] = taken.emplace(SaveName(name), name);
    if (!inserted) {
      return errors::InvalidArgument("--save: outputs '", it->second, "' and '",
                                     name, "' would both be saved as ",
                                     it->first);
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return errors::InvalidArgument("--save: cannot create directory ", dir,
                                   ": ", ec.message());
  }
  for (size_t k = 0; k < names.size(); ++k) {
    std::string path =
        (std::filesystem::path(dir) / SaveName(names[k])).string();
    Status s = WriteNpy(outputs[k], path);
    if (!s.ok()) {
      return AddContext(s, absl::StrCat("--save: output '", names[k], "'"));
    }
  }
  return Status();
}

}  // namespace

int RunMain(const std::vector<std::string>& argv) {
  Args args(argv);
  args.Flag("help", false);
  DeclareSavedModelFlags(&args);
  args.Flag("device", true);
  args.Flag("input", true);
  args.Flag("load", true);
  args.Flag("output", true);
  args.Flag("save", true);
  args.Flag("threads", true);
  args.Flag("trace", true);
  args.Flag("top", true);
  args.Flag("warmup", true);
  args.Flag("no-optimize", false);
  args.Flag("allow-tf32", false);
  args.Flag("host-memory-limit", true);
  if (Status s = args.Parse(); !s.ok()) return UsageError("run", s.message());
  if (args.Has("help")) {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  if (args.positional().size() != 1) {
    return UsageError(
        "run", "expected exactly one GRAPH file or SavedModel directory");
  }
  SessionOptions options;
  options.optimize = !args.Has("no-optimize");
  options.allow_tf32 = args.Has("allow-tf32");
  if (args.Has("threads")) {
    std::string text = args.Get("threads");
    if (!absl::SimpleAtoi(text, &options.threads) || options.threads < 0) {
      return UsageError(
          "run", absl::StrCat("--threads '", text, "': expected a count >= 0"));
    }
  }
  if (Status s = ParseDeviceFlag(args, &options.device); !s.ok()) {
    return UsageError("run", absl::StrCat("--device: ", s.message()));
  }
  if (args.Has("host-memory-limit")) {
    std::string text = args.Get("host-memory-limit");
    if (!absl::SimpleAtoi(text, &options.host_memory_limit_bytes) ||
        options.host_memory_limit_bytes < 1) {
      return UsageError("run", absl::StrCat("--host-memory-limit '", text,
                                            "': expected a byte count >= 1"));
    }
  }
  int top = 0;
  if (args.Has("top")) {
    std::string text = args.Get("top");
    if (!absl::SimpleAtoi(text, &top) || top < 1) {
      return UsageError(
          "run", absl::StrCat("--top '", text, "': expected a count >= 1"));
    }
  }
  int warmup = 0;
  if (args.Has("warmup")) {
    std::string text = args.Get("warmup");
    if (!absl::SimpleAtoi(text, &warmup) || warmup < 0) {
      return UsageError(
          "run", absl::StrCat("--warmup '", text, "': expected a count >= 0"));
    }
  }
  std::vector<InputSpec> inputs;
  for (const std::string& text : args.GetAll("input")) {
    auto spec = ParseInputSpec(text);
    if (!spec.ok()) return UsageError("run", spec.status().message());
    inputs.push_back(*std::move(spec));
  }

  // Op libraries first: the graph may use the ops they add.
  for (const std::string& library : args.GetAll("load")) {
    if (Status s = LoadOpLibrary(library); !s.ok()) {
      return ReportError("run", s);
    }
  }

  const std::string& path = args.positional()[0];
  auto setup =
      LoadRunSetup(path, inputs, args.GetAll("output"), SavedModelFlags(args));
  if (!setup.ok()) return ReportError("run", setup.status());
  for (const std::string& note : setup->notes) {
    std::fprintf(stderr, "weft run: note: %s\n", note.c_str());
  }

  options.source_name = path;
  options.feeds = setup->feed_names;
  options.fetches = setup->fetches;
  auto session = Session::Create(setup->graph, options);
  if (!session.ok()) return ReportError("run", session.status());
  auto callable = (*session)->Prepare(setup->feed_names, setup->fetches);
  if (!callable.ok()) return ReportError("run", callable.status());

  std::vector<Tensor> outputs;
  for (int k = 0; k < warmup; ++k) {
    Status s = (*session)->Run(**callable, setup->feeds, &outputs);
    if (!s.ok()) return ReportError("run", AddContext(s, "warm-up run"));
  }
  RunOptions run_options;
  run_options.trace = args.Has("trace");
  RunMetadata metadata;
  Status run = (*session)->Run(**callable, setup->feeds, &outputs, run_options,
                               &metadata);
  if (!run.ok()) return ReportError("run", run);

  std::string out;
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& t = outputs[k];
    std::string stats = Stats(t);
    absl::StrAppend(&out, setup->fetches[k], ": ", DataTypeName(t.dtype()), " ",
                    t.shape().DebugString(), stats.empty() ? "" : "  ", stats,
                    "  ", t.SummarizeValue(kShownValues), "\n");
    if (top > 0) absl::StrAppend(&out, TopK(t, top));
  }
  std::fputs(out.c_str(), stdout);

  if (args.Has("save")) {
    Status s = SaveOutputs(args.Get("save"), setup->fetches, outputs);
    if (!s.ok()) return ReportError("run", s);
  }
  if (args.Has("trace")) {
    Status s = WriteChromeTrace(metadata, args.Get("trace"));
    if (!s.ok()) return ReportError("run", AddContext(s, "--trace"));
  }
  return kExitOk;
}

}  // namespace weft::cli
