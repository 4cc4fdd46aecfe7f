// Which checkpoint entry holds each variable's value, read from the graph's
// own restore op (SaverDef.restore_op_name) without running it.
//
// TF1 graphs restore with top-level `Assign(VariableV2, RestoreV2:k)` nodes
// under a NoOp ("save/restore_all"); TF2 graphs with a call
// ("StatefulPartitionedCall_2" -> __inference__traced_restore_N) whose body
// does `AssignVariableOp(arg, Identity(RestoreV2:tensors:k))`, the args being
// the VarHandleOp nodes the call is given. Both are read the same way: every
// assignment reached from the restore op whose value comes (through Identity)
// from output k of a RestoreV2 gives the variable the k-th of RestoreV2's
// constant tensor_names and shape_and_slices.
#ifndef WEFT_SAVEDMODEL_RESTORE_MAP_H_
#define WEFT_SAVEDMODEL_RESTORE_MAP_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/status.h"
#include "graph/saved_model_def.h"

namespace weft {

struct CheckpointSlot {
  std::string key;         // the bundle key, "w/.ATTRIBUTES/VARIABLE_VALUE"
  std::string slice_spec;  // "" for the whole tensor, else "10 5 0,5:-"
};

// Variable node name -> slot. Empty when the meta graph has no saver (a
// model without variables). Errors start with `context`.
StatusOr<absl::flat_hash_map<std::string, CheckpointSlot>>
MapVariablesToCheckpoint(const SavedMetaGraphDef& meta,
                         absl::string_view context);

// The second way, for variables no restore op assigns (Keras 3 models
// written by tf.saved_model.save restore wrapper variables, while the
// serving function captures others): a call node of the top-level graph
// passes the variables its function captured as its last inputs, and the
// object graph (SavedMetaGraphDef::captured_objects) gives each one's object
// id, which the checkpoint's own object graph (`objects`) maps to the key of
// its "VARIABLE_VALUE". Adds a slot for every VarHandleOp among `nodes`
// (top-level node names) that has none yet. Errors start with `context`.
Status AddCapturedVariables(
    const SavedMetaGraphDef& meta, const TrackableObjects& objects,
    const std::vector<std::string>& nodes, absl::string_view context,
    absl::flat_hash_map<std::string, CheckpointSlot>* slots);

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_RESTORE_MAP_H_
