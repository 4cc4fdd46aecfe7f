// Loading a SavedModel directory (what tf.saved_model.save, Keras
// model.export() and TF1's SavedModelBuilder write) without TensorFlow:
//
//   DIR/saved_model.pb (or saved_model.pbtxt)
//   DIR/variables/variables.index, variables.data-NNNNN-of-NNNNN
//   DIR/assets/...                  (listed, not read)
//
// One meta graph is chosen by its tag set (default {"serve"}) and one of its
// signatures by key (default "serving_default"). The result is an ordinary
// GraphDef holding what that signature needs, with every variable it reads
// restored from the checkpoint and frozen into a constant (see
// savedmodel/freeze_variables.h), plus the signature's input and output keys
// and the tensors they name. Importing, optimizing and running it is the
// same as for a frozen GraphDef, so a SavedModel runs exactly as fast.
#ifndef WEFT_SAVEDMODEL_SAVED_MODEL_H_
#define WEFT_SAVEDMODEL_SAVED_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "graph/graph.h"
#include "graph/graph_def.h"
#include "graph/graph_def_io.h"
#include "graph/saved_model_def.h"

namespace weft {

// Whether `path` is a directory holding saved_model.pb or
// saved_model.pbtxt.
bool IsSavedModelDirectory(const std::string& path);

// Reads and parses DIR/saved_model.pb (or .pbtxt).
StatusOr<SavedModelDef> ReadSavedModel(const std::string& dir,
                                       const GraphParseOptions& options = {},
                                       const SavedModelParseScope& scope = {});

// The meta graph whose tag set equals `tags` (order and duplicates
// ignored). NotFound lists the tag sets the model has.
StatusOr<const SavedMetaGraphDef*> FindMetaGraph(
    const SavedModelDef& model, const std::vector<std::string>& tags,
    absl::string_view context);

// The signatures a host may run: every signature but TF2's
// "__saved_model_init_op", sorted by key.
std::vector<std::string> RunnableSignatures(const SavedMetaGraphDef& meta);

struct SavedModelLoadOptions {
  std::vector<std::string> tags = {"serve"};
  // When this key is absent and the model has exactly one runnable
  // signature, that one is used.
  std::string signature = "serving_default";
  // How saved_model.pb is decoded. By default without the "_output_shapes"
  // attrs and the functions' arg_attr (TensorDecodeOptions::
  // keep_output_shapes_attrs, keep_function_arg_attrs), which running the
  // signature does not read.
  GraphParseOptions parse = [] {
    GraphParseOptions options;
    options.tensor.keep_output_shapes_attrs = false;
    options.tensor.keep_function_arg_attrs = false;
    return options;
  }();
};

// One input or output of the loaded signature.
struct SignatureTensor {
  std::string key;     // the signature's key: "x", "output_0"
  std::string tensor;  // the graph tensor it names: "serving_default_x:0"
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;
};

struct LoadedSavedModel {
  std::string signature_key;
  std::string method_name;
  std::vector<std::string> tags;
  GraphDef graph_def;  // the signature's graph, variables frozen
  // In key order.
  std::vector<SignatureTensor> inputs;
  std::vector<SignatureTensor> outputs;
  // Variables restored from the checkpoint, and their values' bytes.
  int num_variables = 0;
  int64_t variable_bytes = 0;
  // Whether the saver's restore op was read to find the variables: for TF1
  // models, and TF2 ones whose object graph leaves a variable the signature
  // reads out (then saved_model.pb is parsed twice; see SaverOps).
  bool read_restore_op = false;
};

// Reads the model, restores the variables the signature reads (checksums
// verified) and freezes them. Errors name the directory, and where it
// applies the file, variable, node or signature key: a missing
// saved_model.pb, an unknown tag set or key, a variable with no checkpoint
// entry, a checkpoint value whose dtype or shape disagrees with the
// variable's declaration, a signature that writes a variable, a sparse
// input.
StatusOr<LoadedSavedModel> LoadSavedModel(const std::string& dir,
                                          const SavedModelLoadOptions& options);

// The signature's keys as graph aliases (Graph::set_aliases).
GraphAliases SignatureAliases(const LoadedSavedModel& loaded);

// The loaded signature imported as a Graph (validated, not yet
// shape-inferred), its keys set as the graph's aliases (Graph::aliases), so
// that runs and DescribeGraph speak the signature's keys. Errors start with
// `source_name`.
StatusOr<std::unique_ptr<Graph>> ImportSavedModel(
    const LoadedSavedModel& loaded, const std::string& source_name);
// The same, consuming `loaded`: its graph's nodes move into the Graph
// rather than being copied.
StatusOr<std::unique_ptr<Graph>> ImportSavedModel(
    LoadedSavedModel&& loaded, const std::string& source_name);

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_SAVED_MODEL_H_
