#include "graph_binding.h"

#include "nb_casters.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "arrays.h"
#include "errors.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "savedmodel/saved_model.h"

namespace weft::python {
namespace {

namespace nb = nanobind;

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

// {name: shape}, where a shape is None (unknown rank) or a sequence of ints
// and Nones (unknown sizes).
ShapeInferenceOptions ShapeOptions(const std::string& source,
                                   nb::handle input_shapes) {
  ShapeInferenceOptions options;
  options.source_name = source;
  if (input_shapes.is_none()) return options;
  if (!nb::isinstance<nb::dict>(input_shapes)) {
    Raise(PyExc_TypeError,
          absl::StrCat(
              source,
              ": input_shapes must be a dict of input name "
              "to shape, not a ",
              nb::cast<std::string>(nb::type_name(input_shapes.type()))));
  }
  for (auto [key, value] : nb::borrow<nb::dict>(input_shapes)) {
    if (!nb::isinstance<nb::str>(key)) {
      Raise(PyExc_TypeError,
            absl::StrCat(source, ": input_shapes keys must be input names"));
    }
    const std::string name = nb::cast<std::string>(key);
    if (value.is_none()) {
      options.input_shapes[name] = PartialTensorShape::UnknownRank();
      continue;
    }
    std::vector<int64_t> dims;
    try {
      for (nb::handle d : value) {
        dims.push_back(d.is_none() ? -1 : nb::cast<int64_t>(d));
      }
    } catch (const std::exception&) {
      Raise(PyExc_TypeError,
            absl::StrCat(source, ": input shape for '", name,
                         "' must be None or a sequence of ints and Nones"));
    }
    auto shape = PartialTensorShape::Build(dims);
    if (!shape.ok()) {
      ThrowStatus(
          AddContext(shape.status(),
                     absl::StrCat(source, ": input shape for '", name, "'")));
    }
    options.input_shapes[name] = *std::move(shape);
  }
  return options;
}

// `read` gives the GraphDef; `source` names it in errors.
template <typename Read>
StatusOr<PyGraph> BuildGraph(const std::string& source, Read&& read,
                             const ShapeInferenceOptions& shape_options) {
  WEFT_ASSIGN_OR_RETURN(GraphDef def, read());
  ImportOptions import_options;
  import_options.source_name = source;
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportGraphDef(std::move(def), import_options));
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  PyGraph result;
  result.signature = DescribeGraph(*graph);
  result.graph = std::move(graph);
  result.source = source;
  return result;
}

// One signature of a SavedModel directory; input shapes may name keys.
StatusOr<PyGraph> BuildSavedModelGraph(
    const std::string& dir, const SavedModelLoadOptions& load,
    const ShapeInferenceOptions& shape_options) {
  WEFT_ASSIGN_OR_RETURN(LoadedSavedModel loaded, LoadSavedModel(dir, load));
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportSavedModel(std::move(loaded), dir));
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  PyGraph result;
  result.signature = DescribeGraph(*graph);
  result.graph = std::move(graph);
  result.source = dir;
  return result;
}

nb::object Shape(const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return nb::none();
  nb::list dims;
  for (int64_t d : shape.dim_sizes()) {
    if (d < 0) {
      dims.append(nb::none());
    } else {
      dims.append(nb::int_(d));
    }
  }
  return nb::tuple(dims);
}

nb::list Specs(const std::vector<GraphTensorInfo>& tensors) {
  nb::object spec = nb::module_::import_("weft._weft").attr("TensorSpec");
  nb::list out;
  for (const GraphTensorInfo& t : tensors) {
    out.append(spec(t.name, NumpyDtype(t.dtype), Shape(t.shape)));
  }
  return out;
}

constexpr char kGraphDoc[] = R"doc(A TensorFlow graph file loaded into weft.

Load one with ``weft.Graph.load(path)``. Loading reads the file (binary
GraphDef ``.pb`` or text ``.pbtxt``), checks every node against its op's
registration and infers every tensor's shape once; sessions made from the
graph share it. A Graph is immutable and may be used from many threads.
)doc";

constexpr char kLoadDoc[] = R"doc(Loads a graph file.

Args:
  path: a GraphDef file, binary (``.pb``) or text (``.pbtxt``).
  input_shapes: optional ``{placeholder name: shape}``; a shape is a
    sequence of ints with ``None`` for a size left open (the batch), or
    ``None`` for an unknown rank. Each must be compatible with the
    placeholder's own shape; shapes downstream become as specific as that
    allows (see ``outputs``).

Raises:
  FileNotFoundError: no file at ``path``.
  ValueError: the file does not parse, a node is invalid (an unknown
    attr, a dtype mismatch, a cycle) or an input shape does not fit; the
    message names the file and the node.
  KeyError: an op the registry does not know (load its op library first,
    ``weft.load_op_library``).
)doc";

constexpr char kLoadSavedModelDoc[] =
    R"doc(Loads one signature of a SavedModel directory.

What ``tf.saved_model.save``, Keras ``model.export()`` and TF1's
``SavedModelBuilder`` write, read without TensorFlow: the meta graph whose
tag set is ``tags`` and its signature ``signature``, with the variables the
signature reads restored (checksums verified) and frozen into constants.
``weft.Graph.load(dir)`` does the same with the defaults.

Args:
  path: the SavedModel directory (holding ``saved_model.pb``).
  signature: the signature key; default ``"serving_default"``, or the
    model's only signature.
  tags: the meta graph's tags, a list of str; default ``["serve"]``.
  input_shapes: as for ``load``; names may be signature keys.

The graph's ``inputs`` and ``outputs`` are the signature's keys, and runs
feed and fetch by key (node names work too).

Raises:
  KeyError: no such signature or tag set (the message lists those there
    are), or an op the registry does not know.
  ValueError, FileNotFoundError: a file is missing or corrupt; the message
    names the file and the variable.
)doc";

}  // namespace

DataType TensorDtype(const PyGraph& graph, const std::string& given) {
  const std::string& name = graph.graph->ResolveAlias(given);
  auto parsed = ParseNodeInput(name);
  if (!parsed.ok() || parsed->is_control) return DT_INVALID;
  const Node* node = graph.graph->FindNode(parsed->node);
  if (node == nullptr || parsed->index >= node->num_outputs()) {
    return DT_INVALID;
  }
  return node->output_type(parsed->index);
}

void BindGraph(nb::module_& m) {
  nb::class_<PyGraph>(m, "Graph", nb::is_weak_referenceable(), kGraphDoc)
      .def_static(
          "load",
          [](const std::filesystem::path& path, nb::handle input_shapes) {
            const std::string source = path.string();
            ShapeInferenceOptions options = ShapeOptions(source, input_shapes);
            StatusOr<PyGraph> graph;
            {
              nb::gil_scoped_release release;
              if (IsSavedModelDirectory(source)) {
                graph = BuildSavedModelGraph(source, {}, options);
              } else {
                graph = BuildGraph(
                    source, [&] { return LoadGraphDef(source); }, options);
              }
            }
            if (!graph.ok()) {
              // A missing file is NotFound; so is an op the registry lacks.
              const bool no_file = !std::filesystem::exists(path);
              ThrowStatus(graph.status(),
                          no_file ? PyExc_FileNotFoundError : PyExc_KeyError);
            }
            return *std::move(graph);
          },
          nb::arg("path"), nb::arg("input_shapes") = nb::none(), kLoadDoc)
      .def_static(
          "load_saved_model",
          [](const std::filesystem::path& path, nb::handle signature,
             nb::handle tags, nb::handle input_shapes) {
            const std::string source = path.string();
            ShapeInferenceOptions options = ShapeOptions(source, input_shapes);
            SavedModelLoadOptions load;
            if (!signature.is_none()) {
              load.signature = nb::cast<std::string>(signature);
            }
            if (!tags.is_none()) {
              load.tags = nb::cast<std::vector<std::string>>(tags);
            }
            StatusOr<PyGraph> graph;
            {
              nb::gil_scoped_release release;
              graph = BuildSavedModelGraph(source, load, options);
            }
            if (!graph.ok()) {
              const bool no_dir = !std::filesystem::exists(path);
              ThrowStatus(graph.status(),
                          no_dir ? PyExc_FileNotFoundError : PyExc_KeyError);
            }
            return *std::move(graph);
          },
          nb::arg("path"), nb::arg("signature") = nb::none(),
          nb::arg("tags") = nb::none(), nb::arg("input_shapes") = nb::none(),
          kLoadSavedModelDoc)
      .def_static(
          "from_bytes",
          [](nb::bytes data, const std::string& source_name,
             nb::handle input_shapes) {
            ShapeInferenceOptions options =
                ShapeOptions(source_name, input_shapes);
            // The bytes object stays referenced by the caller's frame, so
            // its buffer may be read with the GIL released.
            absl::string_view bytes(static_cast<const char*>(data.data()),
                                    data.size());
            StatusOr<PyGraph> graph;
            {
              nb::gil_scoped_release release;
              graph = BuildGraph(
                  source_name,
                  [&] { return ParseGraphDef(bytes, source_name); }, options);
            }
            ThrowIfError(graph.status());
            return *std::move(graph);
          },
          nb::arg("data"), nb::arg("source_name") = "<memory>",
          nb::arg("input_shapes") = nb::none(),
          "Loads a graph from the bytes of a GraphDef file (binary or text), "
          "e.g. shipped to a worker that cannot read the file; source_name "
          "names it in errors. Otherwise as Graph.load.")
      .def_prop_ro(
          "inputs", [](const PyGraph& g) { return Specs(g.signature.inputs); },
          "The placeholders a run may feed, as TensorSpec(name, dtype, "
          "shape), in node order; shape is a tuple with None for unknown "
          "sizes, or None for an unknown rank.")
      .def_prop_ro(
          "outputs",
          [](const PyGraph& g) { return Specs(g.signature.outputs); },
          "The outputs of nodes nothing consumes (for a frozen Keras model, "
          "its output layers), as TensorSpec(name, dtype, shape). Any other "
          "tensor may be fetched by name too.")
      .def_prop_ro(
          "path", [](const PyGraph& g) { return g.source; },
          "The file the graph was loaded from.")
      .def_prop_ro(
          "num_nodes", [](const PyGraph& g) { return g.graph->num_nodes(); },
          "Nodes in the graph as loaded (before any optimization).")
      .def("__repr__", [](const PyGraph& g) {
        return absl::StrCat("<weft.Graph '", g.source,
                            "': ", g.graph->num_nodes(), " nodes, ",
                            g.signature.inputs.size(), " inputs, ",
                            g.signature.outputs.size(), " outputs>");
      });
}

}  // namespace weft::python
