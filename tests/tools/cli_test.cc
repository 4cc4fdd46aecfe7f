// Runs the `weft` binary as a user would and checks exit codes, stdout and
// the one-line stderr messages.
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "device/device_info.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_registry.h"
#include "tests/tools/cli_testutil.h"

namespace {

using ::testing::HasSubstr;
using weft::CliResult;
using weft::CliTestBase;
using weft::CountLines;
using weft::ReadFileBytes;
namespace fs = std::filesystem;

void WriteFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

class CliTest : public CliTestBase {
 protected:
  CliResult Run(const std::string& args) { return RunCli(args); }

  static std::string Testdata(const std::string& name) {
    return std::string(WEFT_TESTDATA_DIR) + "/" + name;
  }

};

TEST_F(CliTest, HelpOnEveryCommand) {
  for (const char* cmd : {"--help", "inspect --help", "ops --help"}) {
    CliResult r = Run(cmd);
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("usage: weft")) << cmd;
  }
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Run("").code, 2);
  EXPECT_EQ(Run("frobnicate").code, 2);
  CliResult r = Run("inspect");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_EQ(Run("inspect a.pb --bogus").code, 2);
  EXPECT_EQ(Run("inspect a.pb --format xml").code, 2);
  EXPECT_EQ(Run("inspect a.pb --input x").code, 2);
}

TEST_F(CliTest, InspectFrozenKerasModel) {
  for (const char* file : {"mlp_frozen.pb", "mlp_frozen.pbtxt"}) {
    CliResult r = Run("inspect " + Testdata(file));
    ASSERT_EQ(r.code, 0) << r.err;
    // The model: x [?,4] -> Dense(8, relu) -> Dense(3, softmax); the script
    // that froze it (scripts/gen_graph_fixtures.py) states these shapes.
    EXPECT_THAT(r.out, HasSubstr("  x: float [?,4]\n")) << r.out;
    EXPECT_THAT(r.out, HasSubstr("float [?,3] (Identity)")) << r.out;
    // 4*8 + 8 + 8*3 + 3 = 67 parameters, 268 bytes of float32.
    EXPECT_THAT(r.out, HasSubstr("67 parameters in constants (268 bytes)"));
    EXPECT_THAT(r.out, HasSubstr("  MatMul: 2\n"));
  }
}

TEST_F(CliTest, InspectWithInputShapeAndJson) {
  CliResult r = Run("inspect " + Testdata("mlp_frozen.pb") +
                    " --input x:16,4 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"name\": \"x\", \"op\": \"Placeholder\", "
                               "\"dtype\": \"float\", \"shape\": [16, 4]"));
  EXPECT_THAT(r.out, HasSubstr("\"shape\": [16, 3]"));
  CliResult bad =
      Run("inspect " + Testdata("mlp_frozen.pb") + " --input x:16,5");
  EXPECT_EQ(bad.code, 1);
  EXPECT_THAT(bad.err, HasSubstr("node 'x' (Placeholder)"));
  EXPECT_EQ(CountLines(bad.err), 1);
}

TEST_F(CliTest, RunTopKListsTheLargestValuesInOrder) {
  CliResult r = Run("run " + Testdata("mlp_frozen.pb") +
                    " --input x=random:1,4 --top 3 --threads 0");
  ASSERT_EQ(r.code, 0) << r.err;
  size_t at = r.out.find("top-3:");
  ASSERT_NE(at, std::string::npos) << r.out;
  // "top-3: i (p), j (q), k (r)": three distinct classes of the 3, with
  // probabilities in descending order.
  std::istringstream line(r.out.substr(at + 6));
  std::vector<int> classes;
  std::vector<double> probs;
  for (int i = 0; i < 3; ++i) {
    int c;
    char open, close;
    double p;
    line >> c >> open >> p >> close;
    if (i < 2) line.ignore(1);  // the comma
    classes.push_back(c);
    probs.push_back(p);
  }
  EXPECT_GE(probs[0], probs[1]);
  EXPECT_GE(probs[1], probs[2]);
  std::sort(classes.begin(), classes.end());
  EXPECT_EQ(classes, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(Run("run " + Testdata("mlp_frozen.pb") + " --top 0").code, 2);
}

TEST_F(CliTest, InspectDot) {
  CliResult r = Run("inspect " + Testdata("mlp_frozen.pb") + " --format dot");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("digraph weft {"));
  EXPECT_THAT(r.out, HasSubstr("->"));
}

TEST_F(CliTest, OpsListsSpecsAndKernels) {
  CliResult r = Run("ops");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MatMul("));
  CliResult one = Run("ops MatMul --json");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("\"name\": \"MatMul\""));
  CliResult missing = Run("ops MatMull");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("did you mean 'MatMul'"));
}

// The anchor list (tests/ops/testdata/tf2onnx_anchor_ops.txt, the TensorFlow
// ops tf2onnx 1.17 converts) is what `weft ops` counts: the coverage line
// gives the ops of the list this build registers, --missing names the others
// of weft's goal, and the copy compiled into the CLI
// (tools/tf2onnx_anchor_ops.inc) holds the same names and reasons.
TEST_F(CliTest, OpsReportsAnchorCoverage) {
  const std::string root = WEFT_SOURCE_DIR;
  std::istringstream txt(
      ReadFileBytes(root + "/tests/ops/testdata/tf2onnx_anchor_ops.txt"));
  std::istringstream inc(ReadFileBytes(root + "/tools/tf2onnx_anchor_ops.inc"));
  int total = 0;
  int registered = 0;
  std::vector<std::string> missing_goal;
  std::vector<std::string> from_txt;
  std::vector<std::string> from_inc;
  for (std::string line; std::getline(txt, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::string name = line.substr(0, line.find(' '));
    const size_t at = line.find("  left out: ");
    const std::string reason =
        at == std::string::npos ? "" : line.substr(at + 12);
    from_txt.push_back("{\"" + name + "\", \"" + reason + "\"},");
    ++total;
    if (weft::OpRegistry::Global()->LookUp(name).ok()) {
      ++registered;
    } else if (reason.empty()) {
      missing_goal.push_back(name);
    }
  }
  for (std::string line; std::getline(inc, line);) {
    if (line.rfind("//", 0) != 0) from_inc.push_back(line);
  }
  EXPECT_EQ(total, 266);
  EXPECT_EQ(from_txt, from_inc);
  const std::string coverage =
      "anchor coverage: " + std::to_string(registered) + " of " +
      std::to_string(total) + " tf2onnx ops";
  CliResult r = Run("ops --missing");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(coverage));
  EXPECT_THAT(r.out, HasSubstr("missing (" +
                               std::to_string(missing_goal.size()) + "):\n"));
  for (const std::string& name : missing_goal) {
    EXPECT_THAT(r.out, HasSubstr("\n  " + name + "\n"));
  }
  EXPECT_THAT(r.out, HasSubstr("  IteratorV2 (iterator)\n"));
  for (const char* covered : {"TopKV2", "Cumsum", "MatrixBandPart", "Where",
                              "Atan2", "BitwiseAnd", "TensorListStack"}) {
    EXPECT_THAT(
        r.out, ::testing::Not(HasSubstr(std::string("\n  ") + covered + "\n")));
  }
  CliResult all = Run("ops");
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr(coverage));
}

// Every malformed file: exit code 1, one line on stderr naming the file, no
// crash (the sanitizer build runs this too).
TEST_F(CliTest, MalformedCorpusFailsCleanly) {
  const std::string good = ReadFileBytes(Testdata("mlp_frozen.pb"));
  ASSERT_FALSE(good.empty());
  std::mt19937 rng(42);
  std::string random(4096, '\0');
  for (char& c : random) c = static_cast<char>(rng());

  std::vector<std::pair<std::string, std::string>> corpus = {
      {"empty_nodes.pb", std::string("\x0a\x00", 2)},  // one empty NodeDef
      {"truncated.pb", good.substr(0, good.size() / 2)},
      {"random.pb", random},
      // Field 1 (node) must be length-delimited; here it is a varint.
      {"wire_type.pb", std::string("\x08\x01", 2)},
      {"syntax.pbtxt", "node { name: \"a\" op: \"NoOp\" \n node {"},
      // 1e12 float elements declared, one value given.
      {"huge_const.pbtxt",
       "node { name: \"c\" op: \"Const\"\n"
       "  attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
       "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT\n"
       "    tensor_shape { dim { size: 1000000 } dim { size: 1000000 } }\n"
       "    float_val: 1 } } } }\n"},
      {"cycle.pbtxt",
       "node { name: \"a\" op: \"Identity\" input: \"b\" "
       "attr { key: \"T\" value { type: DT_FLOAT } } }\n"
       "node { name: \"b\" op: \"Identity\" input: \"a\" "
       "attr { key: \"T\" value { type: DT_FLOAT } } }\n"},
      {"unknown_op.pbtxt", "node { name: \"a\" op: \"NoSuchOp\" }\n"},
      {"negative_dim.pbtxt",
       "node { name: \"c\" op: \"Const\"\n"
       "  attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
       "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT\n"
       "    tensor_shape { dim { size: -5 } } float_val: 1 } } } }\n"},
  };
  // A long chain whose last node feeds the first: deep and cyclic.
  std::string deep;
  for (int i = 0; i < 5000; ++i) {
    deep += "node { name: \"n" + std::to_string(i) +
            "\" op: \"Identity\" input: \"n" + std::to_string((i + 1) % 5000) +
            "\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  }
  corpus.emplace_back("deep_cycle.pbtxt", deep);

  for (const auto& [name, bytes] : corpus) {
    fs::path p = dir_ / name;
    WriteFile(p, bytes);
    CliResult r = Run("inspect " + p.string());
    EXPECT_EQ(r.code, 1) << name << ": " << r.err;
    EXPECT_EQ(CountLines(r.err), 1) << name << ": " << r.err;
    EXPECT_THAT(r.err, HasSubstr(name)) << name;
  }
  CliResult missing = Run("inspect " + (dir_ / "no_such_file.pb").string());
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.err, HasSubstr("no_such_file.pb"));
}

// `weft devices` answers on every machine: the CPU, and the GPUs or why
// there are none. Exit 0 either way.
TEST_F(CliTest, DevicesListsCpuAndExplainsGpu) {
  CliResult r = Run("devices");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("cpu:0 "));
  EXPECT_THAT(r.out, HasSubstr("compiled for: "));
  const weft::CudaInfo& cuda = weft::GetCudaInfo();
  if (cuda.status.ok()) {
    EXPECT_THAT(r.out, HasSubstr("cuda:0  "));
  } else {
    // The reason, word for word as discovery gives it.
    EXPECT_THAT(r.out, HasSubstr(std::string(cuda.status.message())));
  }
}

TEST_F(CliTest, DevicesJsonAndHelp) {
  CliResult r = Run("devices --json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\"cpu\": {", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"cuda\": {\"built_with_cuda\": "));
  EXPECT_THAT(r.out, HasSubstr(weft::GetCudaInfo().status.ok()
                                   ? "\"available\": true"
                                   : "\"available\": false"));
  CliResult help = Run("devices --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_THAT(help.out, HasSubstr("usage: weft devices"));
  EXPECT_EQ(Run("devices --bogus").code, 2);
  EXPECT_EQ(Run("devices extra").code, 2);
}

TEST_F(CliTest, RunDeviceFlag) {
  const std::string graph = Testdata("mlp_frozen.pb");
  CliResult bad = Run("run " + graph + " --input x=random:1,4 --device gpu");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--device: device 'gpu': expected cpu, cuda"));
  // auto: the CPU when no GPU can take the graph.
  CliResult autod =
      Run("run " + graph + " --input x=random:1,4 --threads 0 --device auto");
  EXPECT_EQ(autod.code, 0) << autod.err;
  EXPECT_THAT(autod.out, HasSubstr("Identity"));
  // TF32 is a CUDA setting: refused, with the reason, on the CPU.
  CliResult tf32 = Run("run " + graph + " --input x=random:1,4 --allow-tf32");
  EXPECT_EQ(tf32.code, 1);
  EXPECT_THAT(tf32.err, HasSubstr("allow_tf32 is set but the session runs on "
                                  "'cpu'"));
  // Recording asked for on a CPU session: the bench says why it is unused.
  CliResult graph_bench = Run("bench " + graph +
                              " --input x=random:1,4 --runs 2 --warmup 0 "
                              "--threads 0 --capture-graph");
  EXPECT_EQ(graph_bench.code, 0) << graph_bench.err;
  EXPECT_THAT(graph_bench.out,
              HasSubstr("device graph: not used: the session runs on the CPU "
                        "only"));
  const weft::CudaInfo& cuda = weft::GetCudaInfo();
  if (cuda.status.ok()) return;  // what "cuda" does with a GPU is tested there
  for (const char* cmd : {"run", "bench"}) {
    CliResult r = Run(std::string(cmd) + " " + graph +
                      " --input x=random:1,4 --device cuda");
    EXPECT_EQ(r.code, 1) << cmd;
    EXPECT_THAT(r.err, HasSubstr("device 'cuda': " +
                                 std::string(cuda.status.message())))
        << cmd;
  }
}

}  // namespace
