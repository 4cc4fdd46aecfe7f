// A minimal host program: loads op libraries and a graph file, feeds vectors
// given on the command line, runs the graph and prints what it fetched.
//
//   embed [--load LIB.so]... GRAPH FETCH[,FETCH...] [NAME=DTYPE:v1,v2,...]...
//
//   $ embed scale_shift.pbtxt y x=float:1,2,3
//   y = float [3] 3 5 7
//
// DTYPE is float, double, int32 or int64; each feed is a vector of the
// values listed. Everything goes through weft/weft.hpp, which calls libweft's
// C API only.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "weft/weft.hpp"

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

template <typename T>
weft::Tensor VectorOf(const std::vector<std::string>& values) {
  std::vector<T> v;
  for (const std::string& s : values) {
    std::istringstream in(s);
    T x{};
    if (!(in >> x) || !in.eof()) {
      throw std::runtime_error("bad value '" + s + "'");
    }
    v.push_back(x);
  }
  return weft::Tensor::FromVector<T>({static_cast<int64_t>(v.size())}, v);
}

// NAME=DTYPE:v1,v2,...
weft::Tensor ParseFeed(const std::string& spec, std::string* name) {
  size_t eq = spec.find('='), colon = spec.find(':', eq);
  if (eq == std::string::npos || colon == std::string::npos) {
    throw std::runtime_error("feed '" + spec +
                             "': expected NAME=DTYPE:v1,v2,...");
  }
  *name = spec.substr(0, eq);
  std::string dtype = spec.substr(eq + 1, colon - eq - 1);
  std::vector<std::string> values = Split(spec.substr(colon + 1), ',');
  if (dtype == "float") return VectorOf<float>(values);
  if (dtype == "double") return VectorOf<double>(values);
  if (dtype == "int32") return VectorOf<int32_t>(values);
  if (dtype == "int64") return VectorOf<int64_t>(values);
  throw std::runtime_error("feed '" + spec + "': unsupported dtype '" + dtype +
                           "'");
}

template <typename T>
void PrintValues(const weft::Tensor& t) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    std::ostringstream out;
    out << p[i];
    std::printf(" %s", out.str().c_str());
  }
}

void Print(const std::string& name, const weft::Tensor& t) {
  std::printf("%s = %s [", name.c_str(), weft_dtype_name(t.dtype()));
  for (int i = 0; i < t.num_dims(); ++i) {
    std::printf(i ? ",%lld" : "%lld", static_cast<long long>(t.dim(i)));
  }
  std::printf("]");
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
  if (positional.size() < 2) {
    std::fprintf(stderr,
                 "usage: embed [--load LIB.so]... GRAPH FETCH[,FETCH...] "
                 "[NAME=DTYPE:v1,v2,...]...\n");
    return 2;
  }
  weft::Graph graph = weft::Graph::Load(positional[0]);
  weft::Session session(graph, /*num_threads=*/2);

  std::vector<std::string> fetches = Split(positional[1], ',');
  std::vector<std::string> names(positional.size() - 2);
  std::vector<weft::Tensor> tensors;
  std::vector<weft::Feed> feeds;
  for (size_t i = 2; i < positional.size(); ++i) {
    tensors.push_back(ParseFeed(positional[i], &names[i - 2]));
  }
  for (size_t i = 0; i < tensors.size(); ++i) {
    feeds.emplace_back(names[i], tensors[i]);
  }
  std::vector<weft::Tensor> outputs = session.Run(feeds, fetches);
  for (size_t i = 0; i < outputs.size(); ++i) Print(fetches[i], outputs[i]);
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
