// SavedModel directories written by TensorFlow itself load and match
// TensorFlow: the fixtures of tests/models/testdata/saved_models (written by
// tests/models/gen_saved_models.py: tf.saved_model.save of a tf.Module with
// loops and conds over variables, Keras 3 model.export() of a CNN and an
// LSTM, TF1's SavedModelBuilder with VariableV2 and a partitioned variable,
// the same as saved_model.pbtxt) are loaded with LoadSavedModel,
// imported, shape-inferred and run by signature keys and by graph tensor
// names; each sidecar NAME__SIGNATURE.sm names the model, the tag set, the
// signature, and TensorFlow's inputs and outputs. Then the errors a user
// meets: an unknown signature key or tag set, a directory that is no
// SavedModel, a signature that writes a variable, a missing or damaged
// variables shard.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "google/protobuf/unknown_field_set.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "savedmodel/saved_model.h"
#include "tools/npy.h"

namespace weft {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kGenerator[] = "tests/models/gen_saved_models.py";

std::string Dir() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/saved_models";
}

std::string ModelDir(const std::string& name) { return Dir() + "/" + name; }

struct Case {
  std::string name;  // the sidecar's stem: "module__serving_default"
  std::string model;
  std::vector<std::string> tags;
  std::string signature;
  std::vector<std::pair<std::string, std::string>> inputs;   // key, .npy
  std::vector<std::pair<std::string, std::string>> outputs;  // key, .npy
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  if (!fs::exists(Dir())) return cases;
  for (const auto& entry : fs::directory_iterator(Dir())) {
    if (entry.path().extension() != ".sm") continue;
    Case c;
    c.name = entry.path().stem().string();
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      if (f[0] == "model" && f.size() == 2) c.model = f[1];
      if (f[0] == "tags" && f.size() == 2) c.tags = absl::StrSplit(f[1], ',');
      if (f[0] == "signature" && f.size() == 2) c.signature = f[1];
      if (f[0] == "input" && f.size() == 3) {
        c.inputs.emplace_back(f[1], Dir() + "/" + f[2]);
      }
      if (f[0] == "output" && f.size() == 3) {
        c.outputs.emplace_back(f[1], Dir() + "/" + f[2]);
      }
    }
    cases.push_back(std::move(c));
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

// Float outputs within the bound of tests/models/models_test.cc:
// |a - b| <= 1e-4 |b| + 5e-5 max|B| (a few float32 ulps a layer, summed in
// another order than TensorFlow's); integers exactly.
void ExpectClose(const std::string& what, const Tensor& got,
                 const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (want.dtype() == DT_INT32) {
    for (int64_t i = 0; i < want.NumElements(); ++i) {
      EXPECT_EQ(got.data<int32_t>()[i], want.data<int32_t>()[i])
          << what << " element " << i;
    }
    return;
  }
  ASSERT_EQ(want.dtype(), DT_FLOAT) << what;
  double scale = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    scale = std::max(scale, std::fabs(double{want.data<float>()[i]}));
  }
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double a = got.data<float>()[i], b = want.data<float>()[i];
    EXPECT_LE(std::fabs(a - b), 1e-4 * std::fabs(b) + 5e-5 * scale)
        << what << " element " << i << ": weft " << a << ", TensorFlow " << b;
  }
}

std::string NodeOf(const std::string& tensor) {
  return tensor.substr(0, tensor.find(':'));
}

struct Loaded {
  LoadedSavedModel model;
  std::shared_ptr<Graph> graph;
};

// Load, import, infer shapes: what a host does with a SavedModel. With
// `feed_shapes`, the signature inputs' placeholders get those shapes (by
// key); else their own, batch unknown.
StatusOr<Loaded> Load(
    const std::string& dir, const std::string& signature,
    const std::vector<std::string>& tags = {"serve"},
    const std::map<std::string, TensorShape>& feed_shapes = {}) {
  SavedModelLoadOptions options;
  options.tags = tags;
  options.signature = signature;
  Loaded out;
  WEFT_ASSIGN_OR_RETURN(out.model, LoadSavedModel(dir, options));
  WEFT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph,
                        ImportSavedModel(out.model, dir));
  ShapeInferenceOptions shape_options;
  shape_options.source_name = dir;
  for (const SignatureTensor& in : out.model.inputs) {
    auto it = feed_shapes.find(in.key);
    if (it != feed_shapes.end()) {
      shape_options.input_shapes[NodeOf(in.tensor)] =
          PartialTensorShape(it->second);
    }
  }
  WEFT_RETURN_IF_ERROR(InferShapes(graph.get(), shape_options));
  out.graph = std::move(graph);
  return out;
}

class SavedModelTest : public testing::TestWithParam<Case> {};

TEST_P(SavedModelTest, MatchesTensorFlow) {
  const Case& c = GetParam();
  const std::string& signature = c.signature;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::map<std::string, TensorShape> feed_shapes;
  for (const auto& [key, npy] : c.inputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    feed_shapes[key] = value->shape();
    feeds.emplace_back(key, *std::move(value));
  }
  std::vector<std::string> fetches;
  std::vector<Tensor> expected;
  for (const auto& [key, npy] : c.outputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    fetches.push_back(key);
    expected.push_back(*std::move(value));
  }

  for (bool concrete_shapes : {false, true}) {
    SCOPED_TRACE(concrete_shapes ? "inputs shaped as fed"
                                 : "inputs shaped as declared");
    auto loaded = Load(
        ModelDir(c.model), signature, c.tags,
        concrete_shapes ? feed_shapes : std::map<std::string, TensorShape>{});
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    const LoadedSavedModel& model = loaded->model;
    EXPECT_EQ(model.signature_key, signature);
    EXPECT_GT(model.num_variables, 0);
    // The keys TensorFlow's signature has, in key order.
    ASSERT_EQ(model.inputs.size(), c.inputs.size());
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      EXPECT_EQ(model.inputs[i].key, c.inputs[i].first);
    }
    ASSERT_EQ(model.outputs.size(), c.outputs.size());
    for (size_t i = 0; i < c.outputs.size(); ++i) {
      EXPECT_EQ(model.outputs[i].key, c.outputs[i].first);
    }
    // The same feeds and fetches by the graph tensors the keys name.
    std::vector<std::pair<std::string, Tensor>> tensor_feeds;
    for (size_t i = 0; i < feeds.size(); ++i) {
      tensor_feeds.emplace_back(model.inputs[i].tensor, feeds[i].second);
    }
    std::vector<std::string> tensor_fetches;
    for (const SignatureTensor& out : model.outputs) {
      tensor_fetches.push_back(out.tensor);
    }

    for (bool optimize : {true, false}) {
      for (int threads : {0, 2}) {
        SCOPED_TRACE(absl::StrCat(optimize ? "optimized" : "not optimized",
                                  ", ", threads, " threads"));
        SessionOptions options;
        options.threads = threads;
        options.optimize = optimize;
        options.source_name = ModelDir(c.model);
        auto session = Session::Create(loaded->graph, options);
        ASSERT_TRUE(session.ok()) << session.status();
        for (bool by_key : {true, false}) {
          SCOPED_TRACE(by_key ? "by signature keys" : "by tensor names");
          auto outputs = by_key ? (*session)->Run(feeds, fetches)
                                : (*session)->Run(tensor_feeds, tensor_fetches);
          ASSERT_TRUE(outputs.ok()) << outputs.status();
          ASSERT_EQ(outputs->size(), expected.size());
          for (size_t k = 0; k < expected.size(); ++k) {
            ExpectClose(absl::StrCat(c.name, ": ", fetches[k]), (*outputs)[k],
                        expected[k]);
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(TensorFlow, SavedModelTest,
                         testing::ValuesIn(ReadCases()),
                         [](const testing::TestParamInfo<Case>& info) {
                           return info.param.name;
                         });

// The fixtures are committed: a checkout without them is broken.
TEST(SavedModelFixturesTest, AreThere) {
  std::set<std::string> names;
  for (const Case& c : ReadCases()) names.insert(c.name);
  for (const char* want :
       {"module__serving_default", "module__serving_default__other",
        "module__scale", "keras_cnn__serve", "keras_cnn__serving_default",
        "keras_lstm__serve", "keras_causal_attention__serve",
        "tf1__serving_default", "tf1_text__serving_default"}) {
    EXPECT_EQ(names.count(want), 1u)
        << want << " is missing from " << Dir() << "; run " << kGenerator;
  }
  EXPECT_TRUE(fs::exists(ModelDir("tf1_text") + "/saved_model.pbtxt"));
  EXPECT_FALSE(fs::exists(ModelDir("tf1_text") + "/saved_model.pb"));
}

// The TF1 model's first layer kernel is a PartitionedVariable: three
// VariableV2 slices restored from one checkpoint entry each; every variable
// the signature reads is counted.
TEST(SavedModelVariablesTest, Tf1PartitionedVariable) {
  for (const char* name : {"tf1", "tf1_text"}) {
    auto loaded = Load(ModelDir(name), "serving_default");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    // dense/kernel/part_0..2, dense/bias, out/kernel.
    EXPECT_EQ(loaded->model.num_variables, 5) << name;
    EXPECT_EQ(loaded->model.variable_bytes, (6 * 9 + 9 + 9 * 2) * 4) << name;
  }
}

// Each signature restores only the variables it reads: serving_default
// w, b, scale and max_steps, "scale" w and scale; never bump's counter.
TEST(SavedModelVariablesTest, ReadsOnlyTheSignaturesVariables) {
  auto serve = Load(ModelDir("module"), "serving_default");
  ASSERT_TRUE(serve.ok()) << serve.status();
  EXPECT_EQ(serve->model.num_variables, 4);
  EXPECT_EQ(serve->model.variable_bytes, (16 + 4 + 1 + 1) * 4);
  auto scale = Load(ModelDir("module"), "scale");
  ASSERT_TRUE(scale.ok()) << scale.status();
  EXPECT_EQ(scale->model.num_variables, 2);
  EXPECT_EQ(scale->model.variable_bytes, (16 + 1) * 4);
}

// The LSTM is what it claims to be: a While loop over TensorLists, and
// every variable it reads frozen (no VarHandleOp or ReadVariableOp left).
TEST(SavedModelVariablesTest, KerasLstmIsATensorListLoop) {
  auto loaded = Load(ModelDir("keras_lstm"), "serve");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::map<std::string, int> ops;
  for (const NodeDef& n : loaded->model.graph_def.node) ++ops[n.op];
  for (const FunctionDef& f : loaded->model.graph_def.library.function) {
    for (const NodeDef& n : f.node_def) ++ops[n.op];
  }
  EXPECT_GT(ops["While"] + ops["StatelessWhile"], 0);
  for (const char* op :
       {"TensorListReserve", "TensorListFromTensor", "TensorListGetItem",
        "TensorListSetItem", "TensorListStack"}) {
    EXPECT_GT(ops[op], 0) << op;
  }
  for (const char* op : {"VarHandleOp", "ReadVariableOp", "AssignVariableOp"}) {
    EXPECT_EQ(ops[op], 0) << op;
  }
  EXPECT_EQ(loaded->model.num_variables, 6);  // embedding, 3 LSTM, 2 dense
}

// A Keras 3 model written by tf.saved_model.save (not model.export()):
// the serving function reads one set of VarHandleOps ('dense_2/kernel',
// ..., 'logits/bias') while the graph's restore function assigns another
// ('Variable', ..., 'Variable_5', Keras's variable wrappers). TensorFlow's
// graph loader fails on it ("Could not find variable logits/kernel"); weft
// finds the values through the object graph, as tf.saved_model.load does
// (MatchesTensorFlow checks the outputs), and reads only those six.
TEST(SavedModelVariablesTest, CapturedVariablesComeFromTheObjectGraph) {
  auto loaded = Load(ModelDir("keras_tfsave"), "serving_default");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->model.num_variables, 6);  // 2 dense x 2, layer norm x 2
}

// TF2 models find every variable their signatures read through the object
// graph, without reading the saver's restore op (SaverOps); TF1 models,
// which have no object graph, through the restore op. The values are
// TensorFlow's either way (the MatchesTensorFlow cases).
TEST(SavedModelVariablesTest, Tf2ModelsDoNotReadTheRestoreOp) {
  struct Expected {
    const char* model;
    const char* signature;
    std::vector<std::string> tags;
    bool read_restore_op;
  };
  for (const Expected& e :
       {Expected{"module", "serving_default", {"serve"}, false},
        Expected{"module", "scale", {"serve"}, false},
        Expected{"keras_cnn", "serve", {"serve"}, false},
        Expected{"keras_lstm", "serve", {"serve"}, false},
        Expected{"keras_causal_attention", "serve", {"serve"}, false},
        Expected{"keras_tfsave", "serving_default", {"serve"}, false},
        Expected{"tf1", "serving_default", {"serve"}, true},
        Expected{"tf1_text", "serving_default", {"serve"}, true}}) {
    SCOPED_TRACE(absl::StrCat(e.model, " ", e.signature));
    auto loaded = Load(ModelDir(e.model), e.signature, e.tags);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(loaded->model.read_restore_op, e.read_restore_op);
    EXPECT_GT(loaded->model.num_variables, 0);
  }
}

// TF2's __traced_save function (a read of every variable, then SaveV2) is
// called by the saver's save op alone: the parse leaves it out and lists
// it, with the tf.Module's concrete functions that no node calls (its
// signatures call retraced copies); the restore function, which
// restore_map.h reads, and everything the signatures call stay (the
// MatchesTensorFlow cases run them). TF1's saver calls no function.
TEST(SavedModelParseTest, LeavesOutWhatNoNodeButTheSaveOpCalls) {
  for (const char* model : {"keras_cnn", "module", "keras_tfsave"}) {
    SCOPED_TRACE(model);
    auto parsed = ReadSavedModel(ModelDir(model));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    ASSERT_EQ(parsed->meta_graphs.size(), 1u);
    const SavedMetaGraphDef& meta = parsed->meta_graphs[0];
    int save = 0;
    for (const std::string& name : meta.uncalled_functions) {
      save += absl::StartsWith(name, "__inference__traced_save_");
    }
    EXPECT_EQ(save, 1);
    EXPECT_TRUE(std::is_sorted(meta.uncalled_functions.begin(),
                               meta.uncalled_functions.end()));
    for (const FunctionDef& f : meta.graph_def.library.function) {
      EXPECT_FALSE(std::binary_search(meta.uncalled_functions.begin(),
                                      meta.uncalled_functions.end(),
                                      f.signature.name))
          << f.signature.name;
      EXPECT_FALSE(absl::StrContains(f.signature.name, "traced_restore"))
          << f.signature.name;
    }
    // The restore op's function, in outline beside the library.
    ASSERT_EQ(meta.restore_functions.function.size(), 1u);
    const FunctionDef& restore = meta.restore_functions.function[0];
    EXPECT_TRUE(absl::StartsWith(restore.signature.name,
                                 "__inference__traced_restore_"))
        << restore.signature.name;
    EXPECT_FALSE(std::binary_search(meta.uncalled_functions.begin(),
                                    meta.uncalled_functions.end(),
                                    restore.signature.name));
  }
  // The tf.Module's 19 functions: __traced_save, its three exported
  // methods' first traces (serve, scale_fn, bump) and their cond branches
  // and while body and condition are uncalled; 11 stay, __traced_restore
  // among the restore functions.
  auto module = ReadSavedModel(ModelDir("module"));
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(module->meta_graphs[0].uncalled_functions.size(), 8u);
  EXPECT_EQ(module->meta_graphs[0].graph_def.library.function.size(), 10u);
  EXPECT_EQ(module->meta_graphs[0].restore_functions.function.size(), 1u);
  auto tf1 = ReadSavedModel(ModelDir("tf1"));
  ASSERT_TRUE(tf1.ok()) << tf1.status();
  EXPECT_TRUE(tf1->meta_graphs[0].uncalled_functions.empty());
}

// SaverOps::kSkipWhenCaptured parses a TF2 meta graph (its object graph
// lists concrete functions) without the saver's ops: the save and restore
// ops and what only they reach (Keras's wrapper VarHandleOps) are left out
// and counted with the other unreachable nodes, and the restore function
// is not read. TF1's meta graph, with no object graph, parses as with
// kRead.
TEST(SavedModelParseTest, SaverOpsLeftOutOnlyWhereTheObjectGraphCaptures) {
  for (const char* model :
       {"keras_cnn", "keras_lstm", "keras_tfsave", "module", "tf1"}) {
    SCOPED_TRACE(model);
    auto full = ReadSavedModel(ModelDir(model));
    SavedModelParseScope scope;
    scope.saver_ops = SaverOps::kSkipWhenCaptured;
    auto lean = ReadSavedModel(ModelDir(model), GraphParseOptions(), scope);
    ASSERT_TRUE(full.ok()) << full.status();
    ASSERT_TRUE(lean.ok()) << lean.status();
    const SavedMetaGraphDef& f = full->meta_graphs[0];
    const SavedMetaGraphDef& l = lean->meta_graphs[0];
    EXPECT_TRUE(f.saver_ops_read);
    EXPECT_EQ(f.graph_def.node.size() + f.num_unreachable_nodes,
              l.graph_def.node.size() + l.num_unreachable_nodes);
    absl::flat_hash_set<std::string> kept;
    for (const NodeDef& n : l.graph_def.node) kept.insert(n.name);
    const std::string restore_op = f.saver_def.restore_op_name;
    ASSERT_FALSE(restore_op.empty());
    if (std::string(model) == "tf1") {
      EXPECT_TRUE(l.saver_ops_read);
      EXPECT_EQ(l.graph_def.node.size(), f.graph_def.node.size());
      EXPECT_TRUE(kept.contains(restore_op));
      continue;
    }
    EXPECT_FALSE(l.saver_ops_read);
    EXPECT_LT(l.graph_def.node.size(), f.graph_def.node.size());
    EXPECT_FALSE(kept.contains(restore_op));
    EXPECT_TRUE(l.restore_functions.function.empty());
    EXPECT_EQ(f.restore_functions.function.size(), 1u);
    // The signatures' nodes are all there.
    for (const auto& [key, sig] : l.signatures) {
      for (const auto* map : {&sig.inputs, &sig.outputs}) {
        for (const auto& [name, info] : *map) {
          if (!info.is_dense) continue;  // the init op's NoOp
          EXPECT_TRUE(kept.contains(NodeOf(info.name))) << info.name;
        }
      }
    }
  }
}

// SavedModelParseScope::signature: a Keras 3 export's two signatures call
// one wrapper function each; parsed for "serve", the other's wrapper is
// left uncalled and its call node unreachable. A key the model lacks reads
// every signature, as no key does.
TEST(SavedModelParseTest, OneSignaturesNodesWhenAsked) {
  auto all = ReadSavedModel(ModelDir("keras_cnn"));
  ASSERT_TRUE(all.ok()) << all.status();
  SavedModelParseScope scope;
  scope.signature = "serve";
  auto serve =
      ReadSavedModel(ModelDir("keras_cnn"), GraphParseOptions(), scope);
  ASSERT_TRUE(serve.ok()) << serve.status();
  const SavedMetaGraphDef& a = all->meta_graphs[0];
  const SavedMetaGraphDef& s = serve->meta_graphs[0];
  EXPECT_EQ(s.signatures.size(), a.signatures.size());
  EXPECT_EQ(a.graph_def.node.size() + a.num_unreachable_nodes,
            s.graph_def.node.size() + s.num_unreachable_nodes);
  EXPECT_LT(s.graph_def.node.size(), a.graph_def.node.size());
  EXPECT_EQ(s.graph_def.library.function.size() + 1,
            a.graph_def.library.function.size());
  EXPECT_EQ(s.uncalled_functions.size(), a.uncalled_functions.size() + 1);
  absl::flat_hash_set<std::string> kept;
  for (const NodeDef& n : s.graph_def.node) kept.insert(n.name);
  for (const auto& [name, info] : s.signatures.at("serve").outputs) {
    EXPECT_TRUE(kept.contains(NodeOf(info.name))) << info.name;
  }
  for (const auto& [name, info] : s.signatures.at("serving_default").outputs) {
    EXPECT_FALSE(kept.contains(NodeOf(info.name))) << info.name;
  }

  scope.signature = "no_such_key";
  auto other =
      ReadSavedModel(ModelDir("keras_cnn"), GraphParseOptions(), scope);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(other->meta_graphs[0].graph_def.node.size(),
            a.graph_def.node.size());
  EXPECT_EQ(other->meta_graphs[0].graph_def.library.function.size(),
            a.graph_def.library.function.size());
}

// Top-level nodes that no signature, saver tensor, asset or node-list
// collection reaches are left out and counted. The counts are those of a
// separate walk of each saved_model.pb in Python (TensorFlow's protos):
// Keras's per-variable ReadVariableOp, VarIsInitializedOp and
// AssignVariableOp nodes and the wrapper VarHandleOps only those use; the
// tf.Module's ReadVariableOps; TF1's initial-value Consts, their Assigns and
// the init NoOp (weft restores variables from the checkpoint). Every input
// of a kept node is kept, and the models still load and match TensorFlow
// (the MatchesTensorFlow cases).
TEST(SavedModelParseTest, LeavesOutTopLevelNodesNothingReaches) {
  struct Expected {
    const char* model;
    size_t kept;
    int64_t unreachable;
  };
  for (const Expected& e :
       {Expected{"keras_cnn", 29, 70}, Expected{"keras_lstm", 22, 48},
        Expected{"keras_tfsave", 19, 30}, Expected{"module", 17, 5},
        Expected{"tf1", 39, 11}}) {
    SCOPED_TRACE(e.model);
    auto parsed = ReadSavedModel(ModelDir(e.model));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    const SavedMetaGraphDef& meta = parsed->meta_graphs[0];
    EXPECT_EQ(meta.graph_def.node.size(), e.kept);
    EXPECT_EQ(meta.num_unreachable_nodes, e.unreachable);
    absl::flat_hash_set<std::string> names;
    for (const NodeDef& n : meta.graph_def.node) names.insert(n.name);
    for (const NodeDef& n : meta.graph_def.node) {
      for (const std::string& input : n.input) {
        std::string source = input[0] == '^' ? input.substr(1) : input;
        source = source.substr(0, source.find(':'));
        EXPECT_TRUE(names.contains(source)) << n.name << " <- " << input;
      }
    }
  }
}

// The "_output_shapes" attrs TensorFlow writes on most nodes are decoded
// when asked for (ReadSavedModel's default, and a load that asks) and left
// out of a load for running (SavedModelLoadOptions' default), with the same
// graph otherwise.
int CountOutputShapesAttrs(const GraphDef& g) {
  int count = 0;
  for (const NodeDef& n : g.node) count += n.attr.count("_output_shapes");
  for (const FunctionDef& f : g.library.function) {
    for (const NodeDef& n : f.node_def) {
      count += n.attr.count("_output_shapes");
    }
  }
  return count;
}

TEST(SavedModelParseTest, OutputShapesAttrsAreLeftOutForRunning) {
  for (const char* name : {"tf1", "keras_cnn"}) {
    SCOPED_TRACE(name);
    auto read = ReadSavedModel(ModelDir(name));
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_FALSE(read->meta_graphs.empty());
    EXPECT_GT(CountOutputShapesAttrs(read->meta_graphs[0].graph_def), 0);

    SavedModelLoadOptions options;
    options.tags = read->meta_graphs[0].tags;
    options.signature = "serving_default";
    auto lean = LoadSavedModel(ModelDir(name), options);
    ASSERT_TRUE(lean.ok()) << lean.status();
    EXPECT_EQ(CountOutputShapesAttrs(lean->graph_def), 0);

    options.parse.tensor.keep_output_shapes_attrs = true;
    auto full = LoadSavedModel(ModelDir(name), options);
    ASSERT_TRUE(full.ok()) << full.status();
    EXPECT_GT(CountOutputShapesAttrs(full->graph_def), 0);
    ASSERT_EQ(lean->graph_def.node.size(), full->graph_def.node.size());
    for (size_t i = 0; i < lean->graph_def.node.size(); ++i) {
      NodeDef with = full->graph_def.node[i];
      with.attr.erase("_output_shapes");
      EXPECT_EQ(lean->graph_def.node[i].name, with.name);
      EXPECT_EQ(lean->graph_def.node[i].op, with.op);
      EXPECT_EQ(lean->graph_def.node[i].input, with.input);
      EXPECT_EQ(lean->graph_def.node[i].attr.size(), with.attr.size());
    }
  }
}

TEST(SavedModelErrorsTest, UnknownSignatureListsTheRunnableOnes) {
  auto loaded = Load(ModelDir("module"), "nope");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  // Sorted, without TF2's __saved_model_init_op.
  EXPECT_EQ(loaded.status().message(),
            ModelDir("module") +
                ": no signature 'nope'; the model has bump, scale, "
                "serving_default");
}

TEST(SavedModelErrorsTest, UnknownTagSetListsTheTagSets) {
  auto loaded = Load(ModelDir("tf1"), "serving_default", {"serve", "gpu"});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(loaded.status().message()),
              testing::AllOf(HasSubstr(ModelDir("tf1")),
                             HasSubstr("no meta graph with tags {gpu, serve}"),
                             HasSubstr("the model has {serve}")));
  // Order and duplicates do not matter.
  EXPECT_TRUE(
      Load(ModelDir("tf1"), "serving_default", {"serve", "serve"}).ok());
}

// A scratch directory, removed when the test ends.
class SavedModelCopyTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           absl::StrCat(
               "weft_saved_model_test_", ::getpid(), "_",
               testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A copy of fixture `name`; returns its path.
  std::string Copy(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::copy(ModelDir(name), to, fs::copy_options::recursive);
    return to.string();
  }

  static std::string Shard(const std::string& dir) {
    return dir + "/variables/variables.data-00000-of-00001";
  }

  // Loads the copy; expects a one-line error naming `file`.
  static std::string ExpectOneLineError(const std::string& dir,
                                        const std::string& file) {
    auto loaded = Load(dir, "serving_default");
    EXPECT_FALSE(loaded.ok());
    if (loaded.ok()) return "";
    const std::string message(loaded.status().message());
    EXPECT_THAT(message, HasSubstr(file));
    EXPECT_THAT(message, Not(HasSubstr("\n")));
    return message;
  }

  fs::path dir_;
};

TEST_F(SavedModelCopyTest, DirectoryWithoutSavedModelPb) {
  const std::string dir = Copy("module");
  fs::remove(dir + "/saved_model.pb");
  EXPECT_FALSE(IsSavedModelDirectory(dir));
  auto loaded = Load(dir, "serving_default");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(loaded.status().message(),
            dir +
                ": not a SavedModel directory (no saved_model.pb or "
                "saved_model.pbtxt)");
}

// tf.Module.bump calls self.counter.assign_add: freezing would drop the
// write, so the loader refuses the signature and says which variable.
TEST(SavedModelErrorsTest, SignatureThatAssignsAVariable) {
  auto loaded = Load(ModelDir("module"), "bump");
  ASSERT_FALSE(loaded.ok());
  const std::string message(loaded.status().message());
  EXPECT_THAT(message, HasSubstr("signature 'bump'"));
  EXPECT_THAT(message, HasSubstr("AssignAddVariableOp"));
  EXPECT_THAT(message, HasSubstr("writes variable 'counter'"));
  EXPECT_THAT(message, Not(HasSubstr("\n")));
  // The other signatures of the same model load.
  EXPECT_TRUE(Load(ModelDir("module"), "scale").ok());
}

TEST_F(SavedModelCopyTest, MissingVariablesShard) {
  const std::string dir = Copy("module");
  fs::remove(Shard(dir));
  const std::string message = ExpectOneLineError(dir, Shard(dir));
  EXPECT_THAT(message, HasSubstr("no such file"));
}

TEST_F(SavedModelCopyTest, TruncatedVariablesShard) {
  const std::string dir = Copy("module");
  // The variables lie in the shard's first 92 bytes.
  fs::resize_file(Shard(dir), 40);
  const std::string message = ExpectOneLineError(dir, Shard(dir));
  EXPECT_THAT(message, HasSubstr("truncated"));
}

TEST_F(SavedModelCopyTest, FlippedByteInVariablesShard) {
  const std::string dir = Copy("tf1");
  std::fstream f(Shard(dir), std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(10);
  char byte = 0;
  f.read(&byte, 1);
  byte = static_cast<char>(byte ^ 0x40);
  f.seekp(10);
  f.write(&byte, 1);
  f.close();
  const std::string message = ExpectOneLineError(dir, Shard(dir));
  EXPECT_THAT(message, HasSubstr("checksum mismatch"));
}

TEST_F(SavedModelCopyTest, TruncatedIndex) {
  const std::string dir = Copy("module");
  const std::string index = dir + "/variables/variables.index";
  fs::resize_file(index, 20);
  ExpectOneLineError(dir, index);
}

// Applies `edit` to each length-delimited field path[0] of the serialized
// message `bytes`, within it to each path[1], and so on: the fields as
// protobuf's UnknownFieldSet reads them, written back in the same order.
void EditFields(
    std::string* bytes, const std::vector<int>& path, size_t depth,
    const std::function<void(google::protobuf::UnknownFieldSet*)>& edit) {
  google::protobuf::UnknownFieldSet fields;
  ASSERT_TRUE(
      fields.ParseFromArray(bytes->data(), static_cast<int>(bytes->size())));
  if (depth == path.size()) {
    edit(&fields);
  } else {
    for (int i = 0; i < fields.field_count(); ++i) {
      google::protobuf::UnknownField* f = fields.mutable_field(i);
      if (f->number() == path[depth] &&
          f->type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
        EditFields(f->mutable_length_delimited(), path, depth + 1, edit);
      }
    }
  }
  bytes->clear();
  ASSERT_TRUE(fields.SerializeToString(bytes));
}

// A TF2 model whose object graph gives no captured inputs (no concrete
// function's bound_inputs) still loads and matches TensorFlow: the
// variables are then found through the restore op, saved_model.pb parsed
// a second time with it.
TEST_F(SavedModelCopyTest, ObjectGraphWithoutCapturesFallsBackToTheRestoreOp) {
  const std::string dir = Copy("module");
  const std::string pb = dir + "/saved_model.pb";
  std::string bytes;
  {
    std::ifstream in(pb, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // SavedModel.meta_graphs (2), MetaGraphDef.object_graph_def (7),
  // SavedObjectGraph.concrete_functions (2), the entry's value (2):
  // SavedConcreteFunction.bound_inputs is field 2.
  int removed = 0;
  EditFields(&bytes, {2, 7, 2, 2}, 0,
             [&removed](google::protobuf::UnknownFieldSet* f) {
               const int before = f->field_count();
               f->DeleteByNumber(2);
               removed += before - f->field_count();
             });
  ASSERT_GT(removed, 0);
  {
    std::ofstream out(pb, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  auto loaded = Load(dir, "serving_default");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(loaded->model.read_restore_op);
  EXPECT_EQ(loaded->model.num_variables, 4);

  const std::vector<Case> cases = ReadCases();
  auto c = std::find_if(cases.begin(), cases.end(), [](const Case& c) {
    return c.name == "module__serving_default";
  });
  ASSERT_NE(c, cases.end());
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const auto& [key, npy] : c->inputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    feeds.emplace_back(key, *std::move(value));
  }
  std::vector<std::string> fetches;
  for (const auto& [key, npy] : c->outputs) fetches.push_back(key);
  auto session = Session::Create(loaded->graph, SessionOptions());
  ASSERT_TRUE(session.ok()) << session.status();
  auto outputs = (*session)->Run(feeds, fetches);
  ASSERT_TRUE(outputs.ok()) << outputs.status();
  ASSERT_EQ(outputs->size(), c->outputs.size());
  for (size_t k = 0; k < c->outputs.size(); ++k) {
    auto want = ReadNpy(c->outputs[k].second);
    ASSERT_TRUE(want.ok()) << want.status();
    ExpectClose(fetches[k], (*outputs)[k], *want);
  }
}

}  // namespace
}  // namespace weft
