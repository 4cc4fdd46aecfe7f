// SavedModel files as plain C++ values: what saved_model.pb holds (meta
// graphs chosen by tag set, their GraphDef, signatures and saver) and what a
// TensorBundle index entry says about one stored tensor. Parsing lives in
// graph/saved_model_io.h; turning a signature into a runnable graph, and
// reading the variables themselves, in savedmodel/.
#ifndef WEFT_GRAPH_SAVED_MODEL_DEF_H_
#define WEFT_GRAPH_SAVED_MODEL_DEF_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "graph/graph_def.h"

namespace weft {

// One input or output of a signature. Dense tensors only: `name` is the
// graph tensor ("serving_default_x:0"); sparse and composite tensors are
// recorded (is_dense false) so that loading them can be refused by key.
struct SavedTensorInfo {
  std::string name;
  bool is_dense = true;
  DataType dtype = DT_INVALID;
  PartialTensorShape shape;  // unknown rank when the file gives none
};

struct SavedSignatureDef {
  std::string method_name;  // "tensorflow/serving/predict", ...
  // By key, sorted.
  std::map<std::string, SavedTensorInfo> inputs;
  std::map<std::string, SavedTensorInfo> outputs;
};

// How the graph restores its variables (TensorFlow's SaverDef).
struct SavedSaverDef {
  std::string filename_tensor_name;  // "saver_filename:0", "save/Const:0"
  std::string save_tensor_name;      // "StatefulPartitionedCall_2:0", ...
  std::string restore_op_name;       // "StatefulPartitionedCall_3", ...
  int version = 0;                   // 2: the TensorBundle (V2) format
};

struct SavedAssetFile {
  std::string tensor_name;
  std::string filename;  // relative to the assets/ directory
};

struct SavedMetaGraphDef {
  std::vector<std::string> tags;
  std::string tensorflow_version;
  // Without the top-level nodes that no signature, saver tensor, asset or
  // node-list collection reaches through inputs (TF2's per-variable
  // ReadVariableOp, VarIsInitializedOp and AssignVariableOp nodes, kept for
  // Python's tf.saved_model.load; counted in num_unreachable_nodes), and
  // without the functions that no kept node calls, directly or through
  // other functions, other than the saver's save op (weft writes no
  // checkpoints): TF2's __traced_save, and concrete functions kept for
  // Python callers of tf.saved_model.load only. Their names are in
  // uncalled_functions, sorted. A meta graph with none of those roots keeps
  // every node.
  GraphDef graph_def;
  // The functions only the saver's restore op calls (TF2's
  // __traced_restore), outside graph_def.library and in outline: the
  // signature, and per node the name, op and inputs, with attrs on Const
  // nodes and calls only. What savedmodel/restore_map.h reads to map
  // variables to checkpoint entries; nothing runs them.
  FunctionLibrary restore_functions;
  // False when the parse left the saver's ops out (SaverOps::
  // kSkipWhenCaptured): then the save and restore ops and what only they
  // reach are not in graph_def, and restore_functions is empty.
  bool saver_ops_read = true;
  int64_t num_unreachable_nodes = 0;
  std::vector<std::string> uncalled_functions;
  bool has_saver_def = false;
  SavedSaverDef saver_def;
  std::map<std::string, SavedSignatureDef> signatures;
  std::vector<SavedAssetFile> assets;
  // TF2 object graph: the number of objects, and per concrete function the
  // object ids of its captured inputs (the function's last inputs).
  int num_objects = 0;
  std::map<std::string, std::vector<int>> captured_objects;
  // Collections that list node names (TF1 "saved_model_main_op",
  // "legacy_init_op", ...), by key.
  std::map<std::string, std::vector<std::string>> node_collections;
};

// What a SavedModel parse does with the saver's save and restore ops
// (SaverDef). kRead keeps their top-level inputs like a signature's and
// reads the restore function in outline, which savedmodel/restore_map.h
// maps variables to checkpoint entries with. kSkipWhenCaptured leaves them
// out of a meta graph whose object graph lists concrete functions (TF2),
// for a loader that finds the variables those capture through the object
// graph first and parses again with kRead only when that leaves one out:
// Keras 3's restore op assigns other variable objects than its serving
// function reads, and reading it and its ~2,250 top-level inputs was a
// fifth of NASNetMobile's parse.
enum class SaverOps { kRead, kSkipWhenCaptured };

// What of a SavedModel a parse reads, beyond the meta graphs' own fields.
// The default reads everything a loader may run.
struct SavedModelParseScope {
  SaverOps saver_ops = SaverOps::kRead;
  // When a meta graph has a signature of this key, only its tensors (with
  // the saver's, the assets' and the node-list collections') root the kept
  // nodes: the other signatures' nodes and the functions only they call are
  // left out (Keras 3 models carry two signatures, each a wrapper function
  // with an argument per variable). Empty, or a key the meta graph lacks:
  // every signature.
  std::string signature;
};

struct SavedModelDef {
  int64_t schema_version = 0;
  std::vector<SavedMetaGraphDef> meta_graphs;
};

// The checkpoint's object graph: per object id, its saved tensors by
// attribute name ("VARIABLE_VALUE") -> checkpoint key.
using TrackableObjects = std::vector<std::map<std::string, std::string>>;

// ---- TensorBundle index values -------------------------------------------

// The entry under the empty key: how many data shards there are.
struct BundleHeader {
  int num_shards = 0;
  bool big_endian = false;
  int version_producer = 0;
};

// One dimension of a slice: [start, start + length), length -1 for all of
// the dimension.
struct BundleSliceExtent {
  int64_t start = 0;
  int64_t length = -1;
};

// Where one tensor's bytes are: shard `shard_id`, `size` bytes at `offset`,
// whose masked CRC-32C is `crc32c`. A partitioned variable's entry has no
// bytes of its own but lists its slices, each stored under its own key.
struct BundleEntry {
  DataType dtype = DT_INVALID;
  TensorShape shape;
  int shard_id = 0;
  int64_t offset = 0;
  int64_t size = 0;
  uint32_t crc32c = 0;
  std::vector<std::vector<BundleSliceExtent>> slices;
};

}  // namespace weft

#endif  // WEFT_GRAPH_SAVED_MODEL_DEF_H_
