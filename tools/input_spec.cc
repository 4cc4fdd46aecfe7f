#include "tools/input_spec.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <type_traits>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "tools/npy.h"

namespace weft::cli {
namespace {

// splitmix64: tiny, fast and fully specified, so `random` inputs are the
// same on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1) on a grid of 2^bits points, all of which a type with
  // `bits` significant bits holds exactly (so no value rounds up to 1).
  double Uniform(int bits) {
    double k = static_cast<double>(Next() >> (64 - bits));
    return k * std::ldexp(1.0, 1 - bits) - 1.0;
  }

 private:
  uint64_t state_;
};

// FNV-1a, to give each input name its own stream.
uint64_t HashName(absl::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return h;
}

template <typename T>
constexpr int SignificantBits() {
  if constexpr (std::is_same_v<T, half>) {
    return 11;
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return 8;
  } else if constexpr (std::is_same_v<T, float>) {
    return 24;
  } else {
    return 53;
  }
}

template <typename T>
T RandomValue(Rng& rng) {
  if constexpr (std::is_same_v<T, bool>) {
    return (rng.Next() & 1) != 0;
  } else if constexpr (std::is_same_v<T, complex64>) {
    float re = static_cast<float>(rng.Uniform(24));
    return T(re, static_cast<float>(rng.Uniform(24)));
  } else if constexpr (std::is_same_v<T, complex128>) {
    double re = rng.Uniform(53);
    return T(re, rng.Uniform(53));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return static_cast<T>(static_cast<int>(rng.Next() % 21) - 10);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(rng.Next() % 11);
  } else if constexpr (std::is_same_v<T, double>) {
    return rng.Uniform(53);
  } else {
    return T(static_cast<float>(rng.Uniform(SignificantBits<T>())));
  }
}

StatusOr<TensorShape> ParseShape(absl::string_view text,
                                 absl::string_view flag) {
  std::vector<int64_t> dims;
  if (!text.empty()) {
    for (absl::string_view d : absl::StrSplit(text, ',')) {
      int64_t v;
      if (!absl::SimpleAtoi(d, &v) || v < 0) {
        return errors::InvalidArgument("--input '", flag, "': bad dimension '",
                                       d, "' (SHAPE is like 1,28,28)");
      }
      dims.push_back(v);
    }
  }
  auto shape = TensorShape::Build(dims);
  if (!shape.ok()) {
    return AddContext(shape.status(), absl::StrCat("--input '", flag, "'"));
  }
  return shape;
}

// A shape the graph declares, made concrete: unknown dims become 1.
StatusOr<TensorShape> ConcreteShape(const PartialTensorShape& declared,
                                    const std::string& graph_path,
                                    const InputSpec& spec, const Node* node,
                                    std::vector<std::string>* notes) {
  if (declared.unknown_rank()) {
    return errors::InvalidArgument(
        graph_path, ": --input '", spec.text, "': node ", node->DebugName(),
        " has an unknown shape; give one, e.g. ", spec.name, "=",
        spec.source == InputSpec::Source::kRandom ? "random" : "zeros",
        ":1,28,28");
  }
  std::vector<int64_t> dims(declared.dim_sizes().begin(),
                            declared.dim_sizes().end());
  bool guessed = false;
  for (int64_t& d : dims) {
    if (d < 0) {
      d = 1;
      guessed = true;
    }
  }
  WEFT_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  if (guessed) {
    notes->push_back(
        absl::StrCat("input '", spec.name, "': shape ", declared.DebugString(),
                     " has unknown dimensions; using ", shape.DebugString()));
  }
  return shape;
}

bool IsPlaceholder(const Node* n) {
  return n->op() == "Placeholder" || n->op() == "PlaceholderV2" ||
         n->op() == "PlaceholderWithDefault";
}

StatusOr<Endpoint> ResolveTensor(const Graph& graph, const std::string& path,
                                 absl::string_view flag,
                                 const std::string& given) {
  const std::string& name = graph.ResolveAlias(given);
  auto parsed = ParseNodeInput(name);
  if (!parsed.ok() || parsed->is_control) {
    return errors::InvalidArgument(path, ": ", flag, " '", name,
                                   "' is not a tensor name (node or node:i)");
  }
  Node* node = graph.FindNode(parsed->node);
  if (node == nullptr) {
    return errors::NotFound(path, ": ", flag, " '", name, "': no node '",
                            parsed->node, "' in the graph");
  }
  if (parsed->index >= node->num_outputs()) {
    return errors::InvalidArgument(path, ": ", flag, " '", name, "': node ",
                                   node->DebugName(), " has ",
                                   node->num_outputs(), " output(s)");
  }
  return Endpoint{node, parsed->index};
}

std::string TensorName(const Node* n, int i) {
  return i == 0 ? n->name() : absl::StrCat(n->name(), ":", i);
}

}  // namespace

StatusOr<InputSpec> ParseInputSpec(absl::string_view text) {
  InputSpec spec;
  spec.text = std::string(text);
  size_t eq = text.find('=');
  if (eq == absl::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return errors::InvalidArgument(
        "--input '", text,
        "': expected NAME=FILE.npy, NAME=random[:SHAPE] or "
        "NAME=zeros[:SHAPE]");
  }
  spec.name = std::string(text.substr(0, eq));
  absl::string_view value = text.substr(eq + 1);
  absl::string_view kind = value.substr(0, value.find(':'));
  if (kind == "random" || kind == "zeros") {
    spec.source = kind == "random" ? InputSpec::Source::kRandom
                                   : InputSpec::Source::kZeros;
    if (kind.size() < value.size()) {
      WEFT_ASSIGN_OR_RETURN(spec.shape,
                            ParseShape(value.substr(kind.size() + 1), text));
    }
    return spec;
  }
  spec.source = InputSpec::Source::kFile;
  spec.path = std::string(value);
  return spec;
}

StatusOr<Tensor> MakeRandomTensor(DataType dtype, const TensorShape& shape,
                                  absl::string_view name) {
  if (!DataTypeIsPod(dtype) || dtype == DT_INVALID) {
    return errors::InvalidArgument("cannot make random values of type ",
                                   DataTypeName(dtype));
  }
  WEFT_ASSIGN_OR_RETURN(Tensor t,
                        Tensor::Allocate(DefaultCpuAllocator(), dtype, shape));
  Rng rng(HashName(name));
  bool known = VisitNumericType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(t.raw_data());
    for (int64_t k = 0; k < t.NumElements(); ++k) p[k] = RandomValue<T>(rng);
  });
  if (!known) {
    return errors::InvalidArgument("cannot make random values of type ",
                                   DataTypeName(dtype));
  }
  return t;
}

StatusOr<Tensor> MakeZerosTensor(DataType dtype, const TensorShape& shape) {
  if (!DataTypeIsPod(dtype) && dtype != DT_STRING) {
    return errors::InvalidArgument("cannot make zeros of type ",
                                   DataTypeName(dtype));
  }
  WEFT_ASSIGN_OR_RETURN(Tensor t,
                        Tensor::Allocate(DefaultCpuAllocator(), dtype, shape));
  // Strings start empty; every other type's zero is all-zero bytes.
  if (DataTypeIsPod(dtype) && t.TotalBytes() > 0) {
    std::memset(t.raw_data(), 0, t.TotalBytes());
  }
  return t;
}

StatusOr<std::unique_ptr<Graph>> LoadGraphOrSavedModel(
    const std::string& path, const SavedModelLoadOptions& saved_model) {
  // A directory is read as a SavedModel, so that one without
  // saved_model.pb says so rather than that a graph file is a directory.
  std::error_code ec;
  if (IsSavedModelDirectory(path) || std::filesystem::is_directory(path, ec)) {
    WEFT_ASSIGN_OR_RETURN(LoadedSavedModel loaded,
                          LoadSavedModel(path, saved_model));
    return ImportSavedModel(std::move(loaded), path);
  }
  WEFT_ASSIGN_OR_RETURN(GraphDef graph_def, LoadGraphDef(path));
  ImportOptions import_options;
  import_options.source_name = path;
  return ImportGraphDef(std::move(graph_def), import_options);
}

StatusOr<RunSetup> LoadRunSetup(const std::string& graph_path,
                                const std::vector<InputSpec>& inputs,
                                const std::vector<std::string>& outputs,
                                const SavedModelLoadOptions& saved_model) {
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        LoadGraphOrSavedModel(graph_path, saved_model));

  RunSetup setup;
  ShapeInferenceOptions shape_options;
  shape_options.source_name = graph_path;
  absl::flat_hash_set<std::string> fed;
  // Inputs whose shape comes from shape inference: fed inner nodes.
  std::vector<std::pair<const InputSpec*, Endpoint>> deferred;
  for (const InputSpec& spec : inputs) {
    WEFT_ASSIGN_OR_RETURN(
        Endpoint at, ResolveTensor(*graph, graph_path, "--input", spec.name));
    std::string canonical = TensorName(at.node, at.index);
    if (!fed.insert(canonical).second) {
      return errors::InvalidArgument(graph_path, ": --input '", spec.name,
                                     "': tensor '", canonical,
                                     "' is fed twice");
    }
    DataType dtype = at.node->output_type(at.index);
    bool placeholder = IsPlaceholder(at.node) && at.index == 0;
    Tensor value;
    if (spec.source == InputSpec::Source::kFile) {
      WEFT_ASSIGN_OR_RETURN(value, ReadNpy(spec.path));
      if (value.dtype() != dtype) {
        return errors::InvalidArgument(
            graph_path, ": --input '", spec.text, "': ", spec.path, " holds ",
            DataTypeName(value.dtype()), " but node ", at.node->DebugName(),
            " output ", at.index, " is ", DataTypeName(dtype));
      }
    } else if (spec.shape.has_value() || placeholder) {
      TensorShape shape;
      if (spec.shape.has_value()) {
        shape = *spec.shape;
      } else {
        auto declared = at.node->attrs().find("shape");
        PartialTensorShape partial = declared == at.node->attrs().end()
                                         ? PartialTensorShape::UnknownRank()
                                         : declared->second.shape;
        WEFT_ASSIGN_OR_RETURN(shape, ConcreteShape(partial, graph_path, spec,
                                                   at.node, &setup.notes));
      }
      auto made = spec.source == InputSpec::Source::kRandom
                      ? MakeRandomTensor(dtype, shape, spec.name)
                      : MakeZerosTensor(dtype, shape);
      if (!made.ok()) {
        return AddContext(made.status(),
                          absl::StrCat(graph_path, ": --input '", spec.text,
                                       "': node ", at.node->DebugName()));
      }
      value = *std::move(made);
    } else {
      deferred.emplace_back(&spec, at);
    }
    if (value.IsInitialized() && placeholder) {
      shape_options.input_shapes[at.node->name()] =
          PartialTensorShape(value.shape());
    }
    setup.feed_names.push_back(canonical);
    setup.feeds.push_back(std::move(value));
  }
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));

  for (const auto& [spec, at] : deferred) {
    WEFT_ASSIGN_OR_RETURN(
        TensorShape shape,
        ConcreteShape(graph->output_shape(at.node, at.index), graph_path, *spec,
                      at.node, &setup.notes));
    DataType dtype = at.node->output_type(at.index);
    auto made = spec->source == InputSpec::Source::kRandom
                    ? MakeRandomTensor(dtype, shape, spec->name)
                    : MakeZerosTensor(dtype, shape);
    if (!made.ok()) {
      return AddContext(made.status(),
                        absl::StrCat(graph_path, ": --input '", spec->text,
                                     "': node ", at.node->DebugName()));
    }
    std::string canonical = TensorName(at.node, at.index);
    for (size_t k = 0; k < setup.feed_names.size(); ++k) {
      if (setup.feed_names[k] == canonical) setup.feeds[k] = *std::move(made);
    }
  }

  if (!outputs.empty()) {
    for (const std::string& name : outputs) {
      WEFT_ASSIGN_OR_RETURN(
          Endpoint at, ResolveTensor(*graph, graph_path, "--output", name));
      // A signature key stays a key: it is what the output prints as.
      setup.fetches.push_back(&graph->ResolveAlias(name) != &name
                                  ? name
                                  : TensorName(at.node, at.index));
    }
  } else if (!graph->aliases().empty()) {
    for (const TensorAlias& a : graph->aliases().outputs) {
      setup.fetches.push_back(a.key);
    }
  } else {
    for (const auto& node : graph->nodes()) {
      bool consumed = !node->control_outputs().empty();
      for (int i = 0; i < node->num_outputs(); ++i) {
        consumed = consumed || !node->consumers(i).empty();
      }
      if (consumed) continue;
      for (int i = 0; i < node->num_outputs(); ++i) {
        std::string name = TensorName(node.get(), i);
        if (IsPlaceholder(node.get()) && !fed.contains(name)) continue;
        setup.fetches.push_back(std::move(name));
      }
    }
    if (setup.fetches.empty()) {
      return errors::InvalidArgument(
          graph_path,
          ": the graph has no outputs to fetch (every node's outputs are "
          "consumed); name some with --output");
    }
  }
  setup.graph = std::shared_ptr<const Graph>(std::move(graph));
  return setup;
}

}  // namespace weft::cli
