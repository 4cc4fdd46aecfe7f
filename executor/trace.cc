#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "executor/graph_optimizer.h"
#include "executor/session.h"

namespace weft {
namespace {

void AppendJsonString(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppendFormat(out, "\\u%04x", c);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

}  // namespace

Status WriteChromeTrace(const RunMetadata& metadata, const std::string& path) {
  std::string out = "{\"traceEvents\": [\n";
  bool first = true;
  for (const NodeTrace& t : metadata.node_traces) {
    if (t.node == nullptr) continue;
    if (!first) out += ",\n";
    first = false;
    out += "  {\"name\": ";
    AppendJsonString(&out, t.node->name());
    out += ", \"cat\": ";
    AppendJsonString(&out, t.node->op());
    // Trace-event times are microseconds; keep sub-microsecond precision.
    absl::StrAppendFormat(&out,
                          ", \"ph\": \"X\", \"ts\": %.3f, \"dur\": %.3f, "
                          "\"pid\": 1, \"tid\": %u, \"args\": {\"op\": ",
                          t.start_ns / 1000.0, t.duration_ns / 1000.0,
                          static_cast<unsigned>(t.thread));
    AppendJsonString(&out, t.node->op());
    out += ", \"device\": ";
    AppendJsonString(&out, t.device);
    // A node made by the graph optimizer: the original nodes it runs, so a
    // profile maps back to the graph file.
    auto fused = t.node->attrs().find(kFusedNodesAttr);
    if (fused != t.node->attrs().end()) {
      out += ", \"fused_nodes\": [";
      for (size_t i = 0; i < fused->second.list->s.size(); ++i) {
        if (i > 0) out += ", ";
        AppendJsonString(&out, fused->second.list->s[i]);
      }
      out += "]";
    }
    out += "}}";
  }
  out += "\n], \"displayTimeUnit\": \"ns\"}\n";
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"),
                                          &std::fclose);
  if (f == nullptr) {
    return errors::FailedPrecondition("cannot write trace file '", path, "'");
  }
  if (std::fwrite(out.data(), 1, out.size(), f.get()) != out.size()) {
    return errors::FailedPrecondition("writing trace file '", path, "' failed");
  }
  return Status();
}

}  // namespace weft
