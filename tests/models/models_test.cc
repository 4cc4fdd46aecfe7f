// Real models frozen from Keras (tests/models/gen_models.py) run in weft and
// match what TensorFlow computed for them, and every op they use has a CPU
// kernel (what `weft inspect` reports as "ops without a kernel").
//
// Each model is described by a sidecar, testdata/NAME.model:
//
//   graph NAME.pb
//   input <placeholder> <dims,...> NAME_input.npy
//   output <tensor> NAME_OUTPUT.npy          (one line per output)
//
// Models too large to commit (ResNet50) are generated on demand; while their
// files are absent, their tests skip and say how to make them.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "device/device.h"
#include "device/device_info.h"
#include "executor/session.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tools/npy.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

// Float32 outputs match TensorFlow's when, for every element a of weft's
// output and b of TensorFlow's (B the whole output tensor),
//
//   |a - b| <= kRelTol * |b| + kAbsTolScale * max|B|.
//
// Weft and TensorFlow sum convolutions, matrix products and reductions in
// different orders and use different exp/erf/rsqrt approximations, so every
// layer adds a few float32 ulps of difference (about 1e-7 relative each) and
// later layers carry it on. Over the depth of these networks (up to 53
// convolutions) it accumulates: against the same models run in float64,
// TensorFlow's own float32 logits are off by up to 1e-5 of the largest logit
// (MobileNetV2; ResNet50 2.5e-6, the others under 3e-7). That error does not
// shrink with the value, since it comes from cancellation among terms of
// the size of the tensor's values; hence the floor proportional to the
// tensor's scale, 5e-5 of max|B|, five times the measured. On large values
// the measured error is under 1e-5 relative, so 1e-4 relative leaves a wide
// margin and still catches any real semantic slip (a wrong padding, epsilon
// or broadcast moves outputs by percents). gen_models.py refuses a model
// whose TensorFlow float32 result uses more than a quarter of this bound
// against the float64 result (weft may be twice as far from TensorFlow), and
// uses the same constants.
constexpr double kRelTol = 1e-4;
constexpr double kAbsTolScale = 5e-5;

constexpr char kGenerator[] = "tests/models/gen_models.py";

struct ModelFiles {
  const char* name;
  // Generated only with --large (and git-ignored).
  bool large;
};

const ModelFiles kModels[] = {
    {"mlp", false},
    {"cnn", false},
    {"mobilenet_v2", false},
    {"transformer_encoder", false},
    {"causal_attention", false},
    {"convnext_reduced", false},
    {"atrous_pyramid", false},
    {"resnet50", true},
    {"convnext_tiny", true},
};

// Names the parameter in gtest's messages ("GetParam() = mlp").
void PrintTo(const ModelFiles& model, std::ostream* os) { *os << model.name; }

std::string TestdataDir() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata";
}

std::string GenerateCommand(const ModelFiles& model) {
  return absl::StrCat("/tmp/tfvenv/bin/python ", kGenerator, " --only ",
                      model.name, " (TensorFlow in a venv: see the script's",
                      " header)", model.large ? "; too large to commit" : "");
}

struct Sidecar {
  std::string graph_path;
  std::string input_node;
  TensorShape input_shape;
  std::string input_path;
  // (tensor name, .npy path) per output.
  std::vector<std::pair<std::string, std::string>> outputs;
};

StatusOr<TensorShape> ParseDims(absl::string_view text) {
  std::vector<int64_t> dims;
  for (absl::string_view d : absl::StrSplit(text, ',')) {
    int64_t v;
    if (!absl::SimpleAtoi(d, &v)) {
      return errors::InvalidArgument("bad dimension '", d, "' in '", text, "'");
    }
    dims.push_back(v);
  }
  return TensorShape::Build(dims);
}

// Every error names the sidecar and the line.
StatusOr<Sidecar> ReadSidecar(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errors::NotFound(path, ": cannot open");
  const std::string dir = fs::path(path).parent_path().string();
  Sidecar sidecar;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> words =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    auto bad = [&](absl::string_view why) {
      return errors::InvalidArgument(path, ":", number, ": ", why, ": '", line,
                                     "'");
    };
    if (words[0] == "graph" && words.size() == 2) {
      sidecar.graph_path = dir + "/" + words[1];
    } else if (words[0] == "input" && words.size() == 4) {
      sidecar.input_node = words[1];
      auto shape = ParseDims(words[2]);
      if (!shape.ok()) return bad(shape.status().message());
      sidecar.input_shape = *shape;
      sidecar.input_path = dir + "/" + words[3];
    } else if (words[0] == "output" && words.size() == 3) {
      sidecar.outputs.emplace_back(words[1], dir + "/" + words[2]);
    } else {
      return bad(
          "expected 'graph FILE', 'input NODE DIMS FILE' or "
          "'output TENSOR FILE'");
    }
  }
  if (sidecar.graph_path.empty() || sidecar.input_node.empty() ||
      sidecar.outputs.empty()) {
    return errors::InvalidArgument(
        path, ": needs a graph line, an input line and at least one output");
  }
  return sidecar;
}

class ModelTest : public testing::TestWithParam<ModelFiles> {
 protected:
  void SetUp() override {
    const ModelFiles& model = GetParam();
    const std::string sidecar_path =
        absl::StrCat(TestdataDir(), "/", model.name, ".model");
    if (!fs::exists(sidecar_path)) {
      GTEST_SKIP() << sidecar_path << " is absent; generate it with "
                   << GenerateCommand(model);
    }
    auto sidecar = ReadSidecar(sidecar_path);
    ASSERT_TRUE(sidecar.ok()) << sidecar.status();
    sidecar_ = *std::move(sidecar);
    std::vector<std::string> files = {sidecar_.graph_path, sidecar_.input_path};
    for (const auto& output : sidecar_.outputs) files.push_back(output.second);
    for (const std::string& file : files) {
      if (!fs::exists(file)) {
        GTEST_SKIP() << file << " is absent; generate it with "
                     << GenerateCommand(model);
      }
    }
  }

  void CheckAgainstTensorFlow(const std::string& device,
                              bool capture_device_graphs = false);

  Sidecar sidecar_;
};

// What `weft inspect` checks, per op type of the file (its nodes and its
// library functions' bodies): the op is registered and has a CPU kernel;
// then, once the graph imports, that a CPU kernel accepts each node's
// dtypes. Function calls (ConvNeXt's grouped convolutions) have no kernel:
// import inlines them.
TEST_P(ModelTest, EveryOpHasACpuKernel) {
  auto graph_def = LoadGraphDef(sidecar_.graph_path);
  ASSERT_TRUE(graph_def.ok()) << graph_def.status();
  std::map<std::string, int> node_counts;
  auto count = [&](const NodeDef& node) {
    if (node.op == "PartitionedCall" || node.op == "StatefulPartitionedCall") {
      return;
    }
    node_counts[node.op]++;
  };
  for (const NodeDef& node : graph_def->node) count(node);
  for (const FunctionDef& f : graph_def->library.function) {
    for (const NodeDef& node : f.node_def) count(node);
  }

  std::vector<std::string> unregistered, without_kernel;
  for (const auto& [op, count] : node_counts) {
    const std::string entry =
        absl::StrCat(op, " (", count, count == 1 ? " node)" : " nodes)");
    if (!OpRegistry::Global()->LookUp(op).ok()) {
      unregistered.push_back(entry);
      continue;
    }
    bool cpu = false;
    for (const KernelDef* def : KernelRegistry::Global()->KernelsForOp(op)) {
      cpu = cpu || def->device_type == DEVICE_CPU;
    }
    if (!cpu) without_kernel.push_back(entry);
  }
  EXPECT_TRUE(unregistered.empty())
      << sidecar_.graph_path
      << ": ops not registered: " << absl::StrJoin(unregistered, ", ");
  EXPECT_TRUE(without_kernel.empty())
      << sidecar_.graph_path
      << ": ops without a CPU kernel: " << absl::StrJoin(without_kernel, ", ");
  if (!unregistered.empty() || !without_kernel.empty()) return;

  ImportOptions import_options;
  import_options.source_name = sidecar_.graph_path;
  auto graph = ImportGraphDef(*graph_def, import_options);
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::set<std::string> misses;  // one per distinct op and dtype message
  for (const auto& node : (*graph)->nodes()) {
    auto kernel = KernelRegistry::Global()->FindKernel(
        node->def(), node->op_def(), DEVICE_CPU);
    if (!kernel.ok()) misses.insert(std::string(kernel.status().message()));
  }
  EXPECT_TRUE(misses.empty()) << sidecar_.graph_path << ":\n"
                              << absl::StrJoin(misses, "\n");
}

// Compares one output; the message names the worst element and how many
// are out of bounds. Returns the largest |a - b| / bound seen.
double ExpectClose(const std::string& what, const Tensor& got,
                   const Tensor& want) {
  EXPECT_EQ(got.dtype(), DT_FLOAT) << what;
  EXPECT_EQ(want.dtype(), DT_FLOAT) << what;
  EXPECT_EQ(got.shape(), want.shape()) << what;
  if (got.dtype() != DT_FLOAT || want.dtype() != DT_FLOAT ||
      got.shape() != want.shape()) {
    return 0;
  }
  const float* a = got.data<float>();
  const float* b = want.data<float>();
  const int64_t n = want.NumElements();
  double scale = 0;
  for (int64_t k = 0; k < n; ++k) {
    scale = std::max(scale, std::fabs(static_cast<double>(b[k])));
  }
  int64_t bad = 0, worst = -1;
  double worst_use = 0;
  for (int64_t k = 0; k < n; ++k) {
    double diff = std::fabs(static_cast<double>(a[k]) - b[k]);
    double bound =
        kRelTol * std::fabs(static_cast<double>(b[k])) + kAbsTolScale * scale;
    // NaN in either compares false: counted as out of bounds.
    double use = bound > 0 ? diff / bound : (diff == 0 ? 0 : INFINITY);
    if (!(use <= 1)) ++bad;
    if (!(use <= worst_use)) {
      worst_use = use;
      worst = k;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << n
                    << " elements out of bounds; worst: element " << worst
                    << " weft " << a[worst] << " TensorFlow " << b[worst]
                    << " (|diff| / bound = " << worst_use << ")";
  return worst_use;
}

// Runs the model on `device` (optimized and not) and compares every output
// with TensorFlow's within the bound.
void ModelTest::CheckAgainstTensorFlow(const std::string& device,
                                       bool capture_device_graphs) {
  const std::string& path = sidecar_.graph_path;
  auto graph_def = LoadGraphDef(path);
  ASSERT_TRUE(graph_def.ok()) << graph_def.status();
  ImportOptions import_options;
  import_options.source_name = path;
  auto imported = ImportGraphDef(*graph_def, import_options);
  ASSERT_TRUE(imported.ok()) << imported.status();
  std::shared_ptr<Graph> graph = *std::move(imported);

  ShapeInferenceOptions shape_options;
  shape_options.source_name = path;
  shape_options.input_shapes[sidecar_.input_node] =
      PartialTensorShape(sidecar_.input_shape);
  Status inferred = InferShapes(graph.get(), shape_options);
  ASSERT_TRUE(inferred.ok()) << inferred;

  auto input = ReadNpy(sidecar_.input_path);
  ASSERT_TRUE(input.ok()) << input.status();
  ASSERT_EQ(input->shape(), sidecar_.input_shape) << sidecar_.input_path;

  std::vector<std::string> fetches;
  std::vector<Tensor> expected;
  for (const auto& [tensor, npy] : sidecar_.outputs) {
    auto value = ReadNpy(npy);
    ASSERT_TRUE(value.ok()) << value.status();
    fetches.push_back(tensor);
    expected.push_back(*std::move(value));
    // Shape functions, given the input's shape, know the output's.
    auto [node_name, index_text] = std::pair<std::string, std::string>(
        absl::StrSplit(tensor, absl::MaxSplits(':', 1)));
    int index = 0;
    ASSERT_TRUE(index_text.empty() || absl::SimpleAtoi(index_text, &index))
        << tensor;
    const Node* node = graph->FindNode(node_name);
    ASSERT_NE(node, nullptr) << path << ": no node " << node_name;
    const PartialTensorShape& shape = graph->output_shape(node, index);
    EXPECT_TRUE(shape.IsFullyDefined() &&
                shape.IsCompatibleWith(expected.back().shape()))
        << path << ": " << tensor << " inferred " << shape.DebugString()
        << ", TensorFlow computed " << expected.back().shape().DebugString();
  }

  // With the graph optimizer (the default: folded constants, batch norm
  // folded into filters, fused bias and activation) and without it (the
  // graph's nodes as they are), both within the bound.
  for (bool optimize : {true, false}) {
    SCOPED_TRACE(optimize ? "optimized" : "not optimized");
    SessionOptions options;
    options.threads = 2;
    options.source_name = path;
    options.optimize = optimize;
    options.device = device;
    options.capture_device_graphs = capture_device_graphs;
    // Create() then prepares the run, so a missing kernel fails there.
    options.feeds = {sidecar_.input_node};
    options.fetches = fetches;
    auto session = Session::Create(graph, options);
    ASSERT_TRUE(session.ok()) << session.status();
    auto outputs = (*session)->Run({{sidecar_.input_node, *input}}, fetches);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k) {
      std::string what = absl::StrCat(path, ": ", fetches[k]);
      double use = ExpectClose(what, (*outputs)[k], expected[k]);
      std::printf(
          "[ measured ] %s %s%s on %s: largest |weft - TF| / bound = %.3g\n",
          GetParam().name, fetches[k].c_str(),
          optimize ? "" : " (not optimized)", device.c_str(), use);
    }
  }
}

TEST_P(ModelTest, MatchesTensorFlow) { CheckAgainstTensorFlow("cpu"); }

// The same model with device "cuda": nodes with a GPU kernel run there, the
// rest on the CPU with copies between; the outputs must meet the same bound.
TEST_P(ModelTest, MatchesTensorFlowOnCuda) {
  if (Status usable = CheckCudaDevice(0); !usable.ok()) {
    GTEST_SKIP() << usable.message();
  }
  CheckAgainstTensorFlow("cuda");
  // Recorded into a CUDA Graph and replayed where every node runs on the
  // GPU; node by node otherwise.
  CheckAgainstTensorFlow("cuda", /*capture_device_graphs=*/true);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest, testing::ValuesIn(kModels),
                         [](const testing::TestParamInfo<ModelFiles>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace weft
