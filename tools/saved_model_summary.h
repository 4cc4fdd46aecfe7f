// What `weft inspect DIR` shows of a SavedModel directory before the graph
// of its chosen signature: every meta graph's tags, every signature with its
// input and output keys, dtypes, shapes and the tensors they name (what
// `saved_model_cli show --all` shows), the checkpoint's tensor count and
// bytes, and the assets.
#ifndef WEFT_TOOLS_SAVED_MODEL_SUMMARY_H_
#define WEFT_TOOLS_SAVED_MODEL_SUMMARY_H_

#include <cstdint>
#include <string>

#include "core/status.h"
#include "graph/saved_model_def.h"

namespace weft::cli {

struct SavedModelSummary {
  std::string dir;
  SavedModelDef model;
  // Tensors stored in variables/ (the checkpoint's object graph left out;
  // Keras export() stores each variable under two keys), and their bytes;
  // 0 when the model has no variables.
  int num_checkpoint_tensors = 0;
  int64_t checkpoint_bytes = 0;
  // The signature inspected, and the variables it restored (filled by the
  // caller after loading it; empty key when none was loaded).
  std::string signature;
  int signature_variables = 0;
  int64_t signature_variable_bytes = 0;
};

// Reads saved_model.pb and the variables' index (not their data).
StatusOr<SavedModelSummary> SummarizeSavedModel(const std::string& dir);

std::string SavedModelText(const SavedModelSummary& s);
// A JSON object.
std::string SavedModelJson(const SavedModelSummary& s);

}  // namespace weft::cli

#endif  // WEFT_TOOLS_SAVED_MODEL_SUMMARY_H_
