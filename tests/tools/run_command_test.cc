// Runs `weft run` and `weft bench` as a user would and checks exit codes,
// printed summaries, saved .npy files and the one-line errors.
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_testutil.h"
#include "tools/npy.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

class RunCommandTest : public CliTestBase {
 protected:
  CliResult Run(const std::string& args) { return RunCli(args); }

  static std::string Testdata(const std::string& name) {
    return std::string(WEFT_TOOLS_TESTDATA_DIR) + "/" + name;
  }
  static std::string AddRelu() { return Testdata("add_relu.pbtxt"); }

  Tensor Load(const fs::path& p) {
    auto t = ReadNpy(p.string());
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }

  std::vector<float> Floats(const Tensor& t) {
    if (t.dtype() != DT_FLOAT || !t.IsInitialized()) return {};
    const float* p = t.data<float>();
    return std::vector<float>(p, p + t.NumElements());
  }
};

TEST_F(RunCommandTest, HelpAndUsageErrors) {
  for (const char* cmd : {"run --help", "bench --help"}) {
    CliResult r = Run(cmd);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("usage: weft")) << cmd;
  }
  CliResult top = Run("--help");
  EXPECT_THAT(top.out, HasSubstr("  run GRAPH"));
  EXPECT_THAT(top.out, HasSubstr("  bench GRAPH"));

  const std::string g = AddRelu();
  for (const std::string& args : {
           std::string("run"),
           "run " + g + " " + g,
           "run " + g + " --bogus",
           "run " + g + " --input x",
           "run " + g + " --input =zeros",
           "run " + g + " --input x=random:2,a",
           "run " + g + " --input x=zeros:-1,3",
           "run " + g + " --threads many",
           "run " + g + " --threads -2",
           "run " + g + " --save",
           std::string("bench"),
           "bench " + g + " --runs 0",
           "bench " + g + " --warmup -1",
           "bench " + g + " --threads x",
           "bench " + g + " --input x",
       }) {
    CliResult r = Run(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << args << ": " << r.err;
  }
}

// The "done when": the frozen Keras MLP run on a fixed input matches
// what TensorFlow computed for it (tests/tools/gen_run_fixtures.py).
TEST_F(RunCommandTest, FrozenKerasMlpMatchesTensorFlow) {
  fs::path save = dir_ / "mlp";
  CliResult r = Run("run " + std::string(WEFT_TESTDATA_DIR) +
                    "/mlp_frozen.pb --input x=" + Testdata("mlp_input.npy") +
                    " --save " + save.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Identity: float [5,3]")) << r.out;
  Tensor got = Load(save / "Identity.npy");
  Tensor want = Load(Testdata("mlp_expected.npy"));
  ASSERT_EQ(got.shape(), TensorShape({5, 3}));
  ASSERT_EQ(want.shape(), TensorShape({5, 3}));
  std::vector<float> g = Floats(got), w = Floats(want);
  // float32 through two small matmuls (inner sizes 4 and 8), a bias add and
  // a softmax: weft and TensorFlow may sum in different orders and use
  // different exp approximations, which moves results by a few ulps (about
  // 1e-7 relative each); 1e-5 relative leaves room for that and nothing
  // else.
  for (size_t k = 0; k < w.size(); ++k) {
    EXPECT_NEAR(g[k], w[k], 1e-5 * std::fabs(w[k])) << "element " << k;
  }
  // Softmax rows sum to one: a check that does not lean on TensorFlow.
  for (int row = 0; row < 5; ++row) {
    EXPECT_NEAR(g[3 * row] + g[3 * row + 1] + g[3 * row + 2], 1.0f, 1e-6);
  }
}

// relu(0 + c) with c = [1, -2, 0.5] is [1, 0, 0.5] on every row; the int32
// placeholder passes through as 0. IdentityN's second output "pair:1" saves
// as pair_1.npy.
TEST_F(RunCommandTest, ZerosInputsSummaryAndSavedFiles) {
  fs::path save = dir_ / "out";
  CliResult r =
      Run("run " + AddRelu() + " --input x=zeros:2,3 --input n=zeros --save " +
          save.string());
  ASSERT_EQ(r.code, 0) << r.err;
  // Mean of [1 0 0.5 1 0 0.5] is 0.5.
  EXPECT_THAT(r.out, HasSubstr("pair: float [2,3]  min 0 max 1 mean 0.5  "
                               "[1 0 0.5 1 0 0.5]\n"));
  EXPECT_THAT(r.out, HasSubstr("pair:1: int32 []  min 0 max 0 mean 0  [0]\n"));
  EXPECT_EQ(r.err, "");
  Tensor pair = Load(save / "pair.npy");
  EXPECT_EQ(pair.shape(), TensorShape({2, 3}));
  EXPECT_EQ(Floats(pair), std::vector<float>({1, 0, 0.5, 1, 0, 0.5}));
  Tensor n = Load(save / "pair_1.npy");
  EXPECT_EQ(n.dtype(), DT_INT32);
  EXPECT_EQ(n.dims(), 0);
}

// x = [[-2, 3, -0.75]]: x + c = [-1, 1, -0.25], relu of that [0, 1, 0].
TEST_F(RunCommandTest, FileInputAndChosenOutputs) {
  Tensor x(DT_FLOAT, {1, 3});
  float* p = x.data<float>();
  p[0] = -2;
  p[1] = 3;
  p[2] = -0.75f;
  fs::path x_path = dir_ / "x.npy";
  ASSERT_TRUE(WriteNpy(x, x_path.string()).ok());
  fs::path save = dir_ / "out";
  CliResult r = Run("run " + AddRelu() + " --input x=" + x_path.string() +
                    " --input n=zeros --output layer/add --output layer/relu:0 "
                    "--save " +
                    save.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("layer/add: float [1,3]"));
  EXPECT_THAT(r.out, Not(HasSubstr("pair")));
  EXPECT_EQ(Floats(Load(save / "layer_add.npy")),
            std::vector<float>({-1, 1, -0.25}));
  EXPECT_EQ(Floats(Load(save / "layer_relu.npy")),
            std::vector<float>({0, 1, 0}));
}

// random without SHAPE takes the placeholder's [?,3] as [1,3] and says so;
// two runs give the same values, and they lie in [-1, 1).
TEST_F(RunCommandTest, RandomInputsAreReproducible) {
  std::string saved[2];
  for (int k = 0; k < 2; ++k) {
    fs::path save = dir_ / ("out" + std::to_string(k));
    CliResult r = Run("run " + AddRelu() +
                      " --input x=random --input n=random --output x "
                      "--output n --save " +
                      save.string());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("weft run: note: input 'x': shape [?,3] has "
                                 "unknown dimensions; using [1,3]"));
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    saved[k] = ReadFileBytes(save / "x.npy") + ReadFileBytes(save / "n.npy");
    std::vector<float> x = Floats(Load(save / "x.npy"));
    ASSERT_EQ(x.size(), 3u);
    for (float v : x) {
      EXPECT_GE(v, -1.0f);
      EXPECT_LT(v, 1.0f);
    }
    EXPECT_FALSE(x[0] == x[1] && x[1] == x[2]);
    Tensor n = Load(save / "n.npy");
    ASSERT_EQ(n.dtype(), DT_INT32);
    EXPECT_LE(std::abs(n.data<int32_t>()[0]), 10);
  }
  EXPECT_EQ(saved[0], saved[1]);
}

TEST_F(RunCommandTest, TraceIsChromeJson) {
  fs::path trace = dir_ / "trace.json";
  CliResult r =
      Run("run " + AddRelu() +
          " --input x=zeros:4,3 --input n=zeros --threads 0 --trace " +
          trace.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::string json = ReadFileBytes(trace);
  EXPECT_THAT(json, HasSubstr("\"traceEvents\""));
  EXPECT_THAT(json, HasSubstr("\"name\": \"layer/relu\""));
  EXPECT_THAT(json, HasSubstr("\"ph\": \"X\""));
}

// --warmup N: the printed outputs and the trace come from the run after N
// untimed ones (the same values: the graph is deterministic); a count that
// is not >= 0 is a usage error.
TEST_F(RunCommandTest, WarmupRunsComeBeforeTheTracedRun) {
  fs::path trace = dir_ / "warm_trace.json";
  const std::string feeds = " --input x=random:4,3 --input n=zeros";
  CliResult cold = Run("run " + AddRelu() + feeds + " --threads 0");
  CliResult warm = Run("run " + AddRelu() + feeds +
                       " --threads 0 --warmup 3 --trace " + trace.string());
  ASSERT_EQ(cold.code, 0) << cold.err;
  ASSERT_EQ(warm.code, 0) << warm.err;
  EXPECT_EQ(warm.out, cold.out);
  EXPECT_THAT(ReadFileBytes(trace), HasSubstr("\"name\": \"layer/relu\""));
  for (const char* bad : {"-1", "x"}) {
    CliResult r = Run("run " + AddRelu() + feeds + " --warmup " + bad);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr(std::string("--warmup '") + bad +
                                 "': expected a count >= 0"));
  }
}

// Every failure: exit 1 and one line on stderr that names what to fix.
TEST_F(RunCommandTest, ErrorsNameTheProblem) {
  Tensor ints(DT_INT32, {1, 3});
  std::fill_n(ints.data<int32_t>(), 3, 0);
  fs::path ints_path = dir_ / "ints.npy";
  ASSERT_TRUE(WriteNpy(ints, ints_path.string()).ok());
  fs::path bad_npy = dir_ / "bad.npy";
  std::ofstream(bad_npy) << "not numpy";

  const std::string g = AddRelu();
  struct Case {
    std::string args;
    std::vector<std::string> messages;
  };
  std::vector<Case> cases = {
      {"run " + g + " --input x=" + (dir_ / "missing.npy").string() +
           " --input n=zeros",
       {"missing.npy: cannot open"}},
      {"run " + g + " --input x=" + bad_npy.string() + " --input n=zeros",
       {"bad.npy: not a .npy file"}},
      {"run " + g + " --input x=" + ints_path.string() + " --input n=zeros",
       {"ints.npy holds int32 but node 'x' (Placeholder) output 0 is float"}},
      {"run " + g + " --input nope=zeros:1 --input n=zeros",
       {"--input 'nope': no node 'nope' in the graph"}},
      {"run " + g + " --input x=zeros:1,3 --input x:0=zeros:1,3",
       {"tensor 'x' is fed twice"}},
      {"run " + g + " --input x=zeros:1,3 --input n=zeros --output layer/z",
       {"--output 'layer/z': no node 'layer/z'"}},
      {"run " + g + " --input x=zeros:1,3 --input n=zeros --output pair:5",
       {"node 'pair' (IdentityN) has 2 output(s)"}},
      {"run " + g + " --input x=zeros:2,4 --input n=zeros",
       {"add_relu.pbtxt", "node 'x' (Placeholder)"}},
      {"run " + g + " --input x=zeros:1,3", {"add_relu.pbtxt", "'n'"}},
      {"run " + (dir_ / "no_graph.pb").string(), {"no_graph.pb"}},
      {"run " + g + " --input x=zeros:1,3 --input n=zeros --save " +
           ints_path.string(),
       {"--save: cannot create directory", "ints.npy"}},
      {"bench " + g + " --input x=zeros:1,3", {"add_relu.pbtxt", "'n'"}},
      {"run " + g + " --load " + (dir_ / "libnope.so").string(),
       {"op library '" + (dir_ / "libnope.so").string() + "'"}},
      {"bench " + g + " --load " + bad_npy.string(),
       {"op library '" + bad_npy.string() + "'"}},
  };
  for (const Case& c : cases) {
    CliResult r = Run(c.args);
    EXPECT_EQ(r.code, 1) << c.args << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << c.args << ": " << r.err;
    for (const std::string& m : c.messages) {
      EXPECT_THAT(r.err, HasSubstr(m)) << c.args;
    }
  }
}

// "12.3 us" -> 12.3e-6; -1 when the text is not a figure with a unit.
double Seconds(const std::string& text) {
  std::istringstream in(text);
  double v;
  std::string unit;
  if (!(in >> v >> unit)) return -1;
  if (unit == "us") return v * 1e-6;
  if (unit == "ms") return v * 1e-3;
  if (unit == "s") return v;
  return -1;
}

TEST_F(RunCommandTest, BenchPrintsLatencies) {
  CliResult r = Run("bench " + AddRelu() +
                    " --input x=random:8,3 --input n=zeros --runs 25 "
                    "--warmup 3 --threads 0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": 25 runs after 3 warmup, 1 thread(s)\n"));
  // Not a terminal: no progress line.
  EXPECT_EQ(r.err, "");

  // latency: min A, median B, p90 C, mean D
  size_t at = r.out.find("latency: min ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::string line = r.out.substr(at + 13, r.out.find('\n', at) - at - 13);
  std::vector<double> figures;
  for (const char* label : {"", ", median ", ", p90 ", ", mean "}) {
    size_t start = line.find(label);
    ASSERT_NE(start, std::string::npos) << line;
    start += std::string(label).size();
    figures.push_back(
        Seconds(line.substr(start, line.find(',', start) - start)));
    EXPECT_GT(figures.back(), 0) << line;
  }
  EXPECT_LE(figures[0], figures[1]) << line;  // min <= median
  EXPECT_LE(figures[1], figures[2]) << line;  // median <= p90
  EXPECT_LE(figures[0], figures[3]) << line;  // min <= mean

  at = r.out.find("throughput: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  double per_second = std::atof(r.out.c_str() + at + 12);
  EXPECT_GT(per_second, 0);
  EXPECT_THAT(r.out.substr(at), HasSubstr(" runs/s\n"));
}

}  // namespace
}  // namespace weft
