// examples/embed, built in tree against the library users get: a host that
// knows nothing about a graph discovers its inputs and outputs, feeds zeros
// (batch 1 for unknown dims) and fetches every output. Run on the hand-made
// fixtures, whose values follow from reading them, and on every model of
// tests/models/testdata, whose inputs and outputs the generator that froze
// them (tests/models/gen_models.py) wrote into each NAME.model sidecar.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/api/api_testutil.h"

namespace weft {
namespace {

using testing::ApiTestdata;
using testing::CommandOutput;
using ::testing::HasSubstr;
using testing::Quote;
using testing::RunProgram;

CommandOutput Embed(const std::string& args) {
  return RunProgram(Quote(WEFT_EMBED_PATH) + " " + args);
}

std::string ScaleShift() {
  return std::string(WEFT_SOURCE_DIR) + "/examples/embed/scale_shift.pbtxt";
}

// The lines between "inputs:" and "outputs:", and after "outputs:" up to
// the first fetched value.
std::string Section(const std::string& out, const std::string& title,
                    const std::string& next) {
  size_t begin = out.find(title + "\n");
  if (begin == std::string::npos) return "<no " + title + ">";
  begin += title.size() + 1;
  size_t end = next.empty() ? std::string::npos : out.find(next, begin);
  return out.substr(begin,
                    end == std::string::npos ? std::string::npos : end - begin);
}

// y = x * 2 + 1, x float [?]: zeros of shape [1] give [1].
TEST(EmbedTest, DiscoversAndZeroFills) {
  CommandOutput r = Embed(Quote(ScaleShift()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "inputs:\n"
            "  x: float [-1]\n"
            "outputs:\n"
            "  y: float [-1]\n"
            "y = float [1] 1\n");
}

TEST(EmbedTest, ValuesGivenByNameReplaceZeros) {
  CommandOutput r = Embed(Quote(ScaleShift()) + " x=1,2,-3.5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\ny = float [3] 3 5 -6\n"));

  CommandOutput unknown = Embed(Quote(ScaleShift()) + " z=1");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("the graph has no input 'z'"));
  CommandOutput bad = Embed(Quote(ScaleShift()) + " x=1,two");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("input 'x': bad value 'two'"));
}

// testdata/graph_info.pbtxt: k keeps its default 7 (k2 = 49), u (unknown
// rank) gets a scalar zero, x [?,3] gets zeros [1,3] so each half of
// x @ zeros is [1,1] of 0.
TEST(EmbedTest, DefaultsUnknownRanksAndSeveralOutputs) {
  CommandOutput r = Embed(Quote(ApiTestdata("graph_info.pbtxt")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "inputs:\n"
            "  x: float [-1,3]\n"
            "  k: int32 [] (has default)\n"
            "  u: float (unknown rank)\n"
            "outputs:\n"
            "  halves: float [-1,1]\n"
            "  halves:1: float [-1,1]\n"
            "  k2: int32 []\n"
            "  u2: float (unknown rank)\n"
            "halves = float [1,1] 0\n"
            "halves:1 = float [1,1] 0\n"
            "k2 = int32 [] 49\n"
            "u2 = float [] 0\n");
}

TEST(EmbedTest, ReportsAGraphThatDoesNotLoad) {
  CommandOutput r = Embed(Quote(ApiTestdata("no_such_graph.pb")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("embed: "));
  EXPECT_THAT(r.err, HasSubstr("no_such_graph.pb"));
}

// What NAME.model says about a model: its input (name and the sample's
// dims) and its outputs.
struct Sidecar {
  std::string graph;
  std::string input;
  std::vector<std::string> input_dims;
  std::vector<std::string> outputs;
};

bool ReadSidecar(const std::string& path, Sidecar* s) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "graph") {
      words >> s->graph;
    } else if (kind == "input") {
      std::string dims;
      words >> s->input >> dims;
      std::stringstream d(dims);
      std::string dim;
      while (std::getline(d, dim, ',')) s->input_dims.push_back(dim);
    } else if (kind == "output") {
      std::string tensor;
      words >> tensor;
      s->outputs.push_back(tensor);
    }
  }
  return true;
}

class EmbedModelsTest : public ::testing::TestWithParam<const char*> {};

TEST_P(EmbedModelsTest, RunsWithNoPriorKnowledge) {
  const std::string dir =
      std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/";
  Sidecar model;
  if (!ReadSidecar(dir + GetParam() + ".model", &model) ||
      !std::ifstream(dir + model.graph)) {
    GTEST_SKIP() << GetParam()
                 << " is not generated (tests/models/gen_models.py --large)";
  }
  CommandOutput r = Embed(Quote(dir + model.graph));
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // gen_models.py freezes every model with one float input whose batch
  // dimension is None, the other dims those of the sample input.
  std::string dims = "-1";
  for (size_t i = 1; i < model.input_dims.size(); ++i) {
    dims += "," + model.input_dims[i];
  }
  EXPECT_EQ(Section(r.out, "inputs:", "outputs:"),
            "  " + model.input + ": float [" + dims + "]\n")
      << r.out;
  // Every output the generator froze is listed and fetched at batch 1.
  const std::string outputs = Section(r.out, "outputs:", "");
  for (const std::string& out : model.outputs) {
    EXPECT_THAT(outputs, HasSubstr("  " + out + ": float [-1")) << r.out;
    EXPECT_THAT(outputs, HasSubstr("\n" + out + " = float [1,")) << r.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, EmbedModelsTest,
                         ::testing::Values("mlp", "cnn", "mobilenet_v2",
                                           "transformer_encoder", "resnet50"));

}  // namespace
}  // namespace weft
