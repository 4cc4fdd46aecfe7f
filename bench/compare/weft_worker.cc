// weft_compare_worker: weft's side of bench/compare/run.sh. Loads one graph
// into a session when told and runs it on command, so that the comparison
// script can interleave single runs of weft, TensorFlow and ONNX Runtime,
// each in a process of its own (own memory high-water mark, no shared
// thread pools). bench/compare/workers.py speaks the same protocol for the
// other two.
//
//   weft_compare_worker --graph G.pb --input x=IN.npy --output Identity
//                       [--output ...] --threads N
//   weft_compare_worker --graph SAVEDMODEL_DIR [--signature serving_default]
//                       [--tag serve] --input KEY=IN.npy --output KEY ...
//
// A SavedModel directory is loaded with savedmodel/saved_model.h
// (LoadSavedModel, ImportSavedModel: the path `weft run DIR` takes), one
// signature by key, its inputs and outputs named by the signature's keys;
// from there on it runs exactly as a GraphDef does.
//
// One command per line on stdin, one JSON object per line on stdout:
//
//   (at start)  {"ready": true, "rss_kb": R}      before anything is loaded
//   load        {"load_s": S}                     read, import, create
//   save DIR    {"saved": K, "run_s": S}          one run, outputs to
//                                                 DIR/0.npy ... DIR/K-1.npy
//   run N       {"times": [S, ...]}               N runs, each timed alone
//   warm MS     {"runs": K}                       untimed runs for MS ms,
//                                                 at least one
//   rss         {"rss_kb": R, "peak_rss_kb": P}   VmRSS and VmHWM
//   quit
//
// Any failure answers {"error": "..."} with weft's message; the process
// keeps reading commands.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "executor/session.h"
#include "savedmodel/saved_model.h"
#include "tools/input_spec.h"
#include "tools/npy.h"

namespace weft {
namespace {

using Clock = std::chrono::steady_clock;

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04x", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

void Reply(const std::string& json) {
  std::fputs((json + "\n").c_str(), stdout);
  std::fflush(stdout);
}

void ReplyError(const Status& s) {
  Reply(
      absl::StrCat("{\"error\": ", JsonString(std::string(s.message())), "}"));
}

// A field of /proc/self/status in kB ("VmHWM", "VmRSS"); -1 if absent.
int64_t ProcStatusKb(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream fields(line.substr(field.size() + 1));
      int64_t kb = -1;
      fields >> kb;
      return kb;
    }
  }
  return -1;
}

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Options {
  std::string graph;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  int threads = 1;
  SavedModelLoadOptions saved_model;  // used when `graph` is a directory
};

class Worker {
 public:
  explicit Worker(Options options) : options_(std::move(options)) {}

  Status Load() {
    Clock::time_point start = Clock::now();
    std::vector<cli::InputSpec> specs;
    for (const std::string& text : options_.inputs) {
      WEFT_ASSIGN_OR_RETURN(cli::InputSpec spec, cli::ParseInputSpec(text));
      specs.push_back(std::move(spec));
    }
    WEFT_ASSIGN_OR_RETURN(
        cli::RunSetup setup,
        cli::LoadRunSetup(options_.graph, specs, options_.outputs,
                          options_.saved_model));
    SessionOptions session_options;
    session_options.threads = options_.threads;
    session_options.source_name = options_.graph;
    session_options.feeds = setup.feed_names;
    session_options.fetches = setup.fetches;
    WEFT_ASSIGN_OR_RETURN(session_,
                          Session::Create(setup.graph, session_options));
    WEFT_ASSIGN_OR_RETURN(callable_,
                          session_->Prepare(setup.feed_names, setup.fetches));
    feeds_ = std::move(setup.feeds);
    load_s_ = Seconds(Clock::now() - start);
    return Status();
  }

  StatusOr<double> RunOnce() {
    if (session_ == nullptr) {
      return errors::FailedPrecondition("nothing loaded: send 'load' first");
    }
    Clock::time_point t0 = Clock::now();
    WEFT_RETURN_IF_ERROR(session_->Run(*callable_, feeds_, &outputs_));
    return Seconds(Clock::now() - t0);
  }

  Status Save(const std::string& dir, double* run_s) {
    WEFT_ASSIGN_OR_RETURN(*run_s, RunOnce());
    for (size_t i = 0; i < outputs_.size(); ++i) {
      WEFT_RETURN_IF_ERROR(
          WriteNpy(outputs_[i], absl::StrCat(dir, "/", i, ".npy")));
    }
    return Status();
  }

  double load_s() const { return load_s_; }
  size_t num_outputs() const { return outputs_.size(); }

 private:
  Options options_;
  std::unique_ptr<Session> session_;
  std::shared_ptr<const Callable> callable_;
  std::vector<Tensor> feeds_;
  std::vector<Tensor> outputs_;
  double load_s_ = 0;
};

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "weft_compare_worker: %s needs a value\n",
                   flag.c_str());
      return 2;
    }
    std::string value = argv[++i];
    if (flag == "--graph") {
      options.graph = value;
    } else if (flag == "--input") {
      options.inputs.push_back(value);
    } else if (flag == "--output") {
      options.outputs.push_back(value);
    } else if (flag == "--signature") {
      options.saved_model.signature = value;
    } else if (flag == "--tag") {
      options.saved_model.tags = absl::StrSplit(value, ',', absl::SkipEmpty());
    } else if (flag == "--threads") {
      if (!absl::SimpleAtoi(value, &options.threads) || options.threads < 0) {
        std::fprintf(stderr, "weft_compare_worker: bad --threads %s\n",
                     value.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr, "weft_compare_worker: bad argument %s %s\n",
                   flag.c_str(), value.c_str());
      return 2;
    }
  }
  if (options.graph.empty()) {
    std::fprintf(stderr, "weft_compare_worker: --graph is required\n");
    return 2;
  }

  Worker worker(options);
  Reply(absl::StrCat("{\"ready\": true, \"rss_kb\": ", ProcStatusKb("VmRSS"),
                     "}"));
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command;
    words >> command;
    if (command == "load") {
      Status s = worker.Load();
      if (!s.ok()) {
        ReplyError(s);
      } else {
        Reply(absl::StrFormat("{\"load_s\": %.9g}", worker.load_s()));
      }
    } else if (command == "save") {
      std::string dir;
      words >> dir;
      double run_s = 0;
      Status s = worker.Save(dir, &run_s);
      if (!s.ok()) {
        ReplyError(s);
      } else {
        Reply(absl::StrFormat("{\"saved\": %d, \"run_s\": %.9g}",
                              worker.num_outputs(), run_s));
      }
    } else if (command == "run") {
      int n = 1;
      words >> n;
      std::string times;
      Status status;
      for (int k = 0; k < n && status.ok(); ++k) {
        auto t = worker.RunOnce();
        if (!t.ok()) {
          status = t.status();
        } else {
          absl::StrAppend(&times, k ? ", " : "", absl::StrFormat("%.9g", *t));
        }
      }
      if (!status.ok()) {
        ReplyError(status);
      } else {
        Reply("{\"times\": [" + times + "]}");
      }
    } else if (command == "warm") {
      double ms = 0;
      words >> ms;
      const Clock::time_point until =
          Clock::now() +
          std::chrono::microseconds(static_cast<int64_t>(ms * 1e3));
      int runs = 0;
      Status status;
      do {
        auto t = worker.RunOnce();
        if (!t.ok()) status = t.status();
        ++runs;
      } while (status.ok() && Clock::now() < until);
      if (!status.ok()) {
        ReplyError(status);
      } else {
        Reply(absl::StrCat("{\"runs\": ", runs, "}"));
      }
    } else if (command == "rss") {
      Reply(absl::StrCat("{\"rss_kb\": ", ProcStatusKb("VmRSS"),
                         ", \"peak_rss_kb\": ", ProcStatusKb("VmHWM"), "}"));
    } else if (command == "quit") {
      return 0;
    } else {
      ReplyError(errors::InvalidArgument("unknown command '", command, "'"));
    }
  }
  return 0;
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) { return weft::Main(argc, argv); }
