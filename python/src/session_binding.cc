#include "session_binding.h"

#include "nb_casters.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arrays.h"
#include "device/device.h"
#include "errors.h"
#include "executor/session.h"
#include "graph_binding.h"
#include "sigint_cancellation.h"

namespace weft::python {
namespace {

namespace nb = nanobind;

struct PySession {
  std::shared_ptr<Session> session;
  PyGraph graph;
};

struct PyCallable {
  std::shared_ptr<Session> session;
  std::shared_ptr<const Callable> callable;
  std::vector<DataType> feed_dtypes;
};

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

std::vector<std::string> Names(nb::handle names, const char* what) {
  std::vector<std::string> out;
  if (names.is_none()) return out;
  if (nb::isinstance<nb::str>(names)) {
    Raise(PyExc_TypeError,
          absl::StrCat(what, " must be a list of names, not a str"));
  }
  for (nb::handle n : names) {
    if (!nb::isinstance<nb::str>(n)) {
      Raise(PyExc_TypeError,
            absl::StrCat(what, " must be names (str), not ",
                         nb::cast<std::string>(nb::type_name(n.type()))));
    }
    out.push_back(nb::cast<std::string>(n));
  }
  return out;
}

RunOptions MakeRunOptions(nb::handle timeout) {
  RunOptions options;
  if (!timeout.is_none()) {
    const double seconds = nb::cast<double>(timeout);
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
      Raise(PyExc_ValueError,
            "timeout must be a finite number of seconds >= 0");
    }
    options.deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(seconds));
  }
  return options;
}

// Runs `run` (a Status-returning function) with the GIL released, under a
// token that Ctrl-C cancels on the main thread.
template <typename Fn>
Status RunInterruptibly(RunOptions* options, Fn&& run) {
  CancellationToken token;
  options->cancellation = &token;
  SigintCancellation sigint(&token);
  Status status;
  {
    nb::gil_scoped_release release;
    status = run();
  }
  sigint.Check();  // throws KeyboardInterrupt when Ctrl-C came
  return status;
}

nb::list Outputs(std::vector<Tensor>& tensors,
                 const std::vector<std::string>& names) {
  nb::list out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    out.append(ArrayFromTensor(std::move(tensors[i]), names[i], false));
  }
  return out;
}

constexpr char kSessionDoc[] = R"doc(Runs a weft.Graph.

    session = weft.Session(graph, threads=4)
    probs, = session.run({"x": image}, ["Identity_1"])

Every setting of weft's SessionOptions is a keyword argument:

  threads: threads that run kernels, the calling thread included; 0 runs
    everything on the calling thread, -1 (default) one per core.
  device: "cpu" (default), "cuda", "cuda:N" or "auto" (a GPU when one is
    usable, else the CPU). "cuda" fails with the reason when no GPU is
    usable (see weft.devices()).
  optimize: fold constants and fuse conv/matmul + bias + activation once
    per prepared signature (default True).
  cache_host_memory: reuse tensor memory across runs (default True).
  host_memory_limit_bytes: cap on the host memory the session's allocator
    holds; 0 (default) for none. A node whose output would pass it fails
    with MemoryError.
  allow_tf32, device_memory_limit_bytes, capture_device_graphs, cuda_stream
    (a cudaStream_t as an int): CUDA sessions only; setting one on a CPU
    session is a ValueError naming the field.
  max_loop_iterations: the most iterations one execution of a While loop
    may run (more fails with MemoryError naming the loop); 0 (default) for
    no cap.
  feeds, fetches, targets: when given, the signature is prepared at once,
    so that unfed placeholders and missing kernels are reported here.
  source_name: prefixes errors (default: the graph's path).

A session is safe to run from many Python threads at once: each run
releases the GIL. Arrays it returns own their memory and stay valid after
the session is gone.
)doc";

constexpr char kRunDoc[] = R"doc(Runs the graph once.

Args:
  feeds: {tensor name: array}; a name is "node" (output 0) or "node:i",
    usually a placeholder. Arrays that are C-contiguous and 64-byte aligned
    (weft.empty(), or an output of a previous run) are used without a copy;
    others are copied once. Lists and scalars are converted with the
    dtype the graph expects.
  fetches: a list of tensor names (returns a list of arrays), or one name
    (returns one array).
  targets: node names to run for their effects, fetching nothing.
  timeout: seconds; a run still going then stops with TimeoutError.
  trace: a path; writes the run's per-node timings there as Chrome trace
    JSON (Perfetto, chrome://tracing).

Returns NumPy arrays over weft's output buffers (no copy). An output that
weft still references elsewhere (a constant of the graph, a feed passed
through, a tensor fetched twice) is read-only.

Raises ValueError for a bad feed (its dtype or shape, naming the feed,
the expected and the given), KeyError for an unknown name or a missing
kernel, MemoryError past a memory limit, TimeoutError past the timeout,
KeyboardInterrupt when Ctrl-C cancels the run (main thread).
)doc";

constexpr char kCallableDoc[] =
    R"doc(A prepared signature: fixed feeds and fetches, for the lowest per-call cost.

    predict = session.callable(feeds=["x"], fetches=["Identity_1"])
    probs, = predict(image)

Call it with the feeds as positional arrays, in its feed order; it returns
a list of arrays in its fetch order (see Session.run for copies, errors
and Ctrl-C). Safe to call from many threads at once.
)doc";

}  // namespace

void BindSession(nb::module_& m) {
  nb::class_<PySession>(m, "Session", nb::is_weak_referenceable(), kSessionDoc)
      .def(
          "__init__",
          [](PySession* self, const PyGraph& graph, int threads,
             const std::string& device, bool optimize, bool cache_host_memory,
             int64_t host_memory_limit_bytes, bool allow_tf32,
             int64_t device_memory_limit_bytes, bool capture_device_graphs,
             uintptr_t cuda_stream, int64_t max_loop_iterations,
             nb::handle feeds, nb::handle fetches, nb::handle targets,
             std::optional<std::string> source_name) {
            SessionOptions options;
            options.threads = threads;
            options.device = device;
            options.optimize = optimize;
            options.cache_host_memory = cache_host_memory;
            options.host_memory_limit_bytes = host_memory_limit_bytes;
            options.allow_tf32 = allow_tf32;
            options.device_memory_limit_bytes = device_memory_limit_bytes;
            options.capture_device_graphs = capture_device_graphs;
            options.cuda_stream = reinterpret_cast<void*>(cuda_stream);
            options.max_loop_iterations = max_loop_iterations;
            options.feeds = Names(feeds, "feeds");
            options.fetches = Names(fetches, "fetches");
            options.targets = Names(targets, "targets");
            options.source_name = source_name.value_or(graph.source);
            StatusOr<std::unique_ptr<Session>> session;
            {
              nb::gil_scoped_release release;
              session = Session::Create(graph.graph, options);
            }
            ThrowIfError(session.status());
            new (self)
                PySession{std::shared_ptr<Session>(*std::move(session)), graph};
          },
          nb::arg("graph"), nb::kw_only(), nb::arg("threads") = -1,
          nb::arg("device") = "cpu", nb::arg("optimize") = true,
          nb::arg("cache_host_memory") = true,
          nb::arg("host_memory_limit_bytes") = 0, nb::arg("allow_tf32") = false,
          nb::arg("device_memory_limit_bytes") = 0,
          nb::arg("capture_device_graphs") = false, nb::arg("cuda_stream") = 0,
          nb::arg("max_loop_iterations") = 0, nb::arg("feeds") = nb::none(),
          nb::arg("fetches") = nb::none(), nb::arg("targets") = nb::none(),
          nb::arg("source_name") = nb::none())
      .def(
          "run",
          [](const PySession& self, nb::handle feeds, nb::handle fetches,
             nb::handle targets, nb::handle timeout,
             std::optional<std::string> trace) -> nb::object {
            if (!nb::isinstance<nb::dict>(feeds)) {
              Raise(PyExc_TypeError,
                    "feeds must be a dict of tensor name to array");
            }
            const bool single = nb::isinstance<nb::str>(fetches);
            std::vector<std::string> fetch_names;
            if (single) {
              fetch_names.push_back(nb::cast<std::string>(fetches));
            } else {
              fetch_names = Names(fetches, "fetches");
            }
            const std::vector<std::string> target_names =
                Names(targets, "targets");
            std::vector<std::pair<std::string, Tensor>> in;
            std::vector<Tensor> shared;  // feeds over the caller's arrays
            for (auto [key, value] : nb::borrow<nb::dict>(feeds)) {
              if (!nb::isinstance<nb::str>(key)) {
                Raise(PyExc_TypeError, "feed names must be str");
              }
              std::string name = nb::cast<std::string>(key);
              FeedTensor feed =
                  TensorFromPython(value, name, TensorDtype(self.graph, name));
              if (feed.shares_caller_memory) shared.push_back(feed.tensor);
              in.emplace_back(std::move(name), std::move(feed.tensor));
            }
            RunOptions options = MakeRunOptions(timeout);
            options.trace = trace.has_value();
            RunMetadata metadata;
            StatusOr<std::vector<Tensor>> out;
            Status status = RunInterruptibly(&options, [&] {
              out = self.session->Run(in, fetch_names, target_names, options,
                                      trace ? &metadata : nullptr);
              if (out.ok() && trace) {
                return WriteChromeTrace(metadata, *trace);
              }
              return out.status();
            });
            ThrowIfError(status);
            in.clear();  // see ArrayFromTensor: only `shared` stays
            nb::list arrays = Outputs(*out, fetch_names);
            if (single) return arrays[0];
            return std::move(arrays);
          },
          nb::arg("feeds"), nb::arg("fetches"), nb::arg("targets") = nb::none(),
          nb::arg("timeout") = nb::none(), nb::arg("trace") = nb::none(),
          kRunDoc)
      .def(
          "callable",
          [](const PySession& self, nb::handle feeds, nb::handle fetches,
             nb::handle targets) {
            std::vector<std::string> feed_names = Names(feeds, "feeds");
            std::vector<std::string> fetch_names = Names(fetches, "fetches");
            std::vector<std::string> target_names = Names(targets, "targets");
            StatusOr<std::shared_ptr<const Callable>> callable;
            {
              nb::gil_scoped_release release;
              callable =
                  self.session->Prepare(feed_names, fetch_names, target_names);
            }
            ThrowIfError(callable.status());
            PyCallable result{self.session, *std::move(callable), {}};
            for (size_t i = 0; i < feed_names.size(); ++i) {
              result.feed_dtypes.push_back(
                  result.callable->feed_dtype(static_cast<int>(i)));
            }
            return result;
          },
          nb::arg("feeds") = nb::none(), nb::arg("fetches") = nb::none(),
          nb::arg("targets") = nb::none(),
          "Prepares a signature once (pruning, placement, optimization, "
          "kernels) and returns a weft.Callable that runs it with positional "
          "feeds.")
      .def_prop_ro(
          "graph", [](const PySession& self) { return self.graph; },
          "The weft.Graph the session runs.")
      .def_prop_ro(
          "num_threads",
          [](const PySession& self) { return self.session->num_threads(); },
          "Threads that may run kernels (1 when threads=0: the caller).")
      .def_prop_ro(
          "devices",
          [](const PySession& self) {
            std::vector<std::string> names;
            for (const Device* d : self.session->devices()) {
              names.push_back(d->name());
            }
            return names;
          },
          "The devices the session places nodes on, the CPU first.")
      .def("__repr__", [](const PySession& self) {
        std::vector<std::string> names;
        for (const Device* d : self.session->devices()) {
          names.push_back(d->name());
        }
        return absl::StrCat("<weft.Session '", self.graph.source, "' on ",
                            absl::StrJoin(names, ", "), ", ",
                            self.session->num_threads(), " threads>");
      });

  nb::class_<PyCallable>(m, "Callable", nb::is_weak_referenceable(),
                         kCallableDoc)
      .def(
          "__call__",
          [](const PyCallable& self, nb::args args, nb::handle timeout) {
            const std::vector<std::string>& feed_names = self.callable->feeds();
            if (args.size() != feed_names.size()) {
              Raise(PyExc_TypeError,
                    absl::StrCat("this callable takes ", feed_names.size(),
                                 " feeds (", absl::StrJoin(feed_names, ", "),
                                 "), ", args.size(), " given"));
            }
            std::vector<Tensor> in;
            std::vector<Tensor> shared;  // feeds over the caller's arrays
            in.reserve(args.size());
            for (size_t i = 0; i < args.size(); ++i) {
              FeedTensor feed =
                  TensorFromPython(args[i], feed_names[i], self.feed_dtypes[i]);
              if (feed.shares_caller_memory) shared.push_back(feed.tensor);
              in.push_back(std::move(feed.tensor));
            }
            RunOptions options = MakeRunOptions(timeout);
            std::vector<Tensor> out;
            Status status = RunInterruptibly(&options, [&] {
              return self.session->Run(*self.callable, in, &out, options);
            });
            ThrowIfError(status);
            in.clear();  // see ArrayFromTensor: only `shared` stays
            return Outputs(out, self.callable->fetches());
          },
          nb::arg("feeds"), nb::arg("timeout") = nb::none(),
          "Runs the prepared signature with the feeds in its feed order; "
          "returns the fetches as a list of arrays.")
      .def_prop_ro(
          "feeds",
          [](const PyCallable& self) { return self.callable->feeds(); },
          "Feed names, in the order __call__ takes them.")
      .def_prop_ro(
          "fetches",
          [](const PyCallable& self) { return self.callable->fetches(); },
          "Fetch names, in the order __call__ returns them.")
      .def_prop_ro(
          "num_nodes",
          [](const PyCallable& self) { return self.callable->num_nodes(); },
          "Kernel nodes a run executes, after optimization.")
      .def_prop_ro(
          "optimizer_summary",
          [](const PyCallable& self) {
            return self.callable->optimizer_summary();
          },
          "What the graph optimizer did, e.g. '734 nodes -> 72: ...'.")
      .def_prop_ro(
          "placement",
          [](const PyCallable& self) { return self.callable->placement(); },
          "(node name, device name) for each kernel node.");
}

}  // namespace weft::python
