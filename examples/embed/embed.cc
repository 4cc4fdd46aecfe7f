// A host program that knows nothing about the graph it is given: it loads
// op libraries and a graph file, asks weft what the graph takes and gives,
// feeds every input zeros of the right dtype and shape (1 for each unknown
// dimension, so batch 1), fetches every output and prints what it got.
//
//   embed [--load LIB.so]... GRAPH [NAME=v1,v2,...]...
//
//   $ embed scale_shift.pbtxt x=1,2,3
//   inputs:
//     x: float [-1]
//   outputs:
//     y: float [-1]
//   y = float [3] 3 5 7
//
// NAME=v1,v2,... feeds input NAME a vector of those values instead of
// zeros, in the input's dtype (float, double, int32 or int64). Inputs with
// a default (PlaceholderWithDefault) are left to their default. Everything
// goes through weft/weft.hpp, which calls libweft's C API only.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace {

// Output tensors print at most this many values.
constexpr int64_t kMaxPrintedValues = 8;

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

std::string ShapeText(const weft::TensorInfo& info) {
  return info.num_dims < 0 ? "(unknown rank)" : DimsText(info.dims);
}

template <typename T>
weft::Tensor VectorOf(const std::string& name,
                      const std::vector<std::string>& values) {
  std::vector<T> v;
  for (const std::string& s : values) {
    std::istringstream in(s);
    T x{};
    if (!(in >> x) || !in.eof()) {
      throw std::runtime_error("input '" + name + "': bad value '" + s + "'");
    }
    v.push_back(x);
  }
  return weft::Tensor::FromVector<T>({static_cast<int64_t>(v.size())}, v);
}

// The values given for `info` on the command line, as a vector.
weft::Tensor ParseValues(const weft::TensorInfo& info,
                         const std::string& text) {
  std::vector<std::string> values = Split(text, ',');
  switch (info.dtype) {
    case WEFT_FLOAT:
      return VectorOf<float>(info.name, values);
    case WEFT_DOUBLE:
      return VectorOf<double>(info.name, values);
    case WEFT_INT32:
      return VectorOf<int32_t>(info.name, values);
    case WEFT_INT64:
      return VectorOf<int64_t>(info.name, values);
    default:
      throw std::runtime_error("input '" + info.name + "' is " +
                               weft_dtype_name(info.dtype) +
                               "; values can be given for float, double, "
                               "int32 and int64 inputs only");
  }
}

// Zeros of the input's dtype and shape: 1 for each unknown dimension, a
// scalar for an unknown rank.
weft::Tensor Zeros(const weft::TensorInfo& info) {
  if (weft_dtype_size(info.dtype) == 0) {
    throw std::runtime_error("input '" + info.name + "' is " +
                             weft_dtype_name(info.dtype) +
                             ", which the C API cannot feed");
  }
  std::vector<int64_t> dims;
  for (int64_t d : info.dims) dims.push_back(d < 0 ? 1 : d);
  return weft::Tensor::Make(info.dtype, dims);
}

template <typename T>
void PrintValues(const weft::Tensor& t) {
  const T* p = t.data<T>();
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n && i < kMaxPrintedValues; ++i) {
    std::ostringstream out;
    out << +p[i];  // + prints int8/uint8 as numbers
    std::printf(" %s", out.str().c_str());
  }
  if (n > kMaxPrintedValues) std::printf(" ...");
}

void Print(const std::string& name, const weft::Tensor& t) {
  std::printf("%s = %s %s", name.c_str(), weft_dtype_name(t.dtype()),
              DimsText(t.dims()).c_str());
  switch (t.dtype()) {
    case WEFT_FLOAT:
      PrintValues<float>(t);
      break;
    case WEFT_DOUBLE:
      PrintValues<double>(t);
      break;
    case WEFT_INT32:
      PrintValues<int32_t>(t);
      break;
    case WEFT_INT64:
      PrintValues<int64_t>(t);
      break;
    case WEFT_UINT8:
      PrintValues<uint8_t>(t);
      break;
    default:
      std::printf(" (%zu bytes)", t.byte_size());
      break;
  }
  std::printf("\n");
}

int Main(int argc, char** argv) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--load") == 0 && i + 1 < argc) {
      weft::LoadOpLibrary(argv[++i]);
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.empty()) {
    std::fprintf(stderr,
                 "usage: embed [--load LIB.so]... GRAPH [NAME=v1,v2,...]...\n");
    return 2;
  }
  std::map<std::string, std::string> given;  // input name -> "v1,v2,..."
  for (size_t i = 1; i < positional.size(); ++i) {
    size_t eq = positional[i].find('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "embed: '%s': expected NAME=v1,v2,...\n",
                   positional[i].c_str());
      return 2;
    }
    given[positional[i].substr(0, eq)] = positional[i].substr(eq + 1);
  }

  weft::Graph graph = weft::Graph::Load(positional[0]);
  const std::vector<weft::TensorInfo> inputs = graph.Inputs();
  const std::vector<weft::TensorInfo> outputs = graph.Outputs();

  std::vector<std::string> names;
  std::vector<weft::Tensor> tensors;
  std::printf("inputs:\n");
  for (const weft::TensorInfo& in : inputs) {
    std::printf("  %s: %s %s%s\n", in.name.c_str(), weft_dtype_name(in.dtype),
                ShapeText(in).c_str(), in.has_default ? " (has default)" : "");
    auto it = given.find(in.name);
    if (it != given.end()) {
      tensors.push_back(ParseValues(in, it->second));
      given.erase(it);
    } else if (in.has_default) {
      continue;  // the graph's default is the value a host knows nothing of
    } else {
      tensors.push_back(Zeros(in));
    }
    names.push_back(in.name);
  }
  if (!given.empty()) {
    std::fprintf(stderr, "embed: the graph has no input '%s'\n",
                 given.begin()->first.c_str());
    return 2;
  }
  std::vector<weft::Feed> feeds;
  for (size_t i = 0; i < tensors.size(); ++i) {
    feeds.emplace_back(names[i], tensors[i]);
  }

  std::vector<std::string> fetches;
  std::printf("outputs:\n");
  for (const weft::TensorInfo& out : outputs) {
    const bool fetchable = weft_dtype_size(out.dtype) != 0;
    std::printf("  %s: %s %s%s\n", out.name.c_str(), weft_dtype_name(out.dtype),
                ShapeText(out).c_str(),
                fetchable ? "" : " (not fetched: no plain-bytes layout)");
    if (fetchable) fetches.push_back(out.name);
  }

  weft::Session session(graph, /*num_threads=*/2);
  std::vector<weft::Tensor> results = session.Run(feeds, fetches);
  for (size_t i = 0; i < results.size(); ++i) Print(fetches[i], results[i]);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
  }
  return 1;
}
