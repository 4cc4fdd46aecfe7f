// What `weft run` and `weft bench` share: the --input flag's grammar, the
// reproducible tensors it can ask for, and loading a graph file together
// with the feeds and fetches for a run.
//
//   --input NAME=FILE.npy          the array in a NumPy file
//   --input NAME=random[:SHAPE]    reproducible values: uniform in [-1, 1)
//                                  for floating types, integers in
//                                  [-10, 10] ([0, 10] unsigned), bools
//   --input NAME=zeros[:SHAPE]     all zeros
//
// NAME is a tensor, "node" (output 0) or "node:i", usually a placeholder.
// SHAPE is "1,28,28" ("" for a scalar: "random:"); without it the shape is
// the one the graph declares there, with unknown dimensions taken as 1.
#ifndef WEFT_TOOLS_INPUT_SPEC_H_
#define WEFT_TOOLS_INPUT_SPEC_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "savedmodel/saved_model.h"

namespace weft::cli {

struct InputSpec {
  enum class Source { kFile, kRandom, kZeros };
  std::string text;  // the flag's value as given, for messages
  std::string name;  // the tensor fed
  Source source = Source::kFile;
  std::string path;                  // kFile
  std::optional<TensorShape> shape;  // kRandom, kZeros: SHAPE when given
};

// InvalidArgument (a usage error) for text that does not fit the grammar.
StatusOr<InputSpec> ParseInputSpec(absl::string_view text);

// The values `random` gives a tensor named `name`: the same name, dtype and
// shape always give the same values, on every platform (the generator and
// the mapping to values are weft's own, not the standard library's).
// InvalidArgument for dtypes without numbers (string, resource, ...).
StatusOr<Tensor> MakeRandomTensor(DataType dtype, const TensorShape& shape,
                                  absl::string_view name);
StatusOr<Tensor> MakeZerosTensor(DataType dtype, const TensorShape& shape);

// A graph loaded, imported and shape-inferred for running, with its feeds
// made and its fetches chosen.
struct RunSetup {
  std::shared_ptr<const Graph> graph;
  std::vector<std::string> feed_names;
  std::vector<Tensor> feeds;
  // The tensors to fetch: `outputs` when given, otherwise every output of
  // every node nobody consumes (by data or control edge), leaving out
  // placeholders that are not fed.
  std::vector<std::string> fetches;
  // Things the user should know (shapes that were guessed), one a line.
  std::vector<std::string> notes;
};

// Every error names the graph file and, where one is involved, the flag and
// the node.
// `graph_path` is a graph file or a SavedModel directory; for a directory,
// `saved_model` picks the meta graph and signature, inputs and outputs may
// be named by the signature's keys, and the default outputs are the
// signature's.
StatusOr<RunSetup> LoadRunSetup(const std::string& graph_path,
                                const std::vector<InputSpec>& inputs,
                                const std::vector<std::string>& outputs,
                                const SavedModelLoadOptions& saved_model = {});

// The graph at `path` (a graph file or a SavedModel directory) imported,
// not yet shape-inferred.
StatusOr<std::unique_ptr<Graph>> LoadGraphOrSavedModel(
    const std::string& path, const SavedModelLoadOptions& saved_model);

}  // namespace weft::cli

#endif  // WEFT_TOOLS_INPUT_SPEC_H_
