// `weft inspect` on graphs that cannot run: every problem in one run (text
// and JSON), exit 1 with one stderr line; `weft run` still stops at the
// first problem. The fixtures' header comments list what each holds.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result Weft(const std::string& args) {
  const std::string base =
      "/tmp/weft_inspect_problems_" + std::to_string(::getpid());
  const std::string cmd = std::string(WEFT_CLI_PATH) + " " + args + " >" +
                          base + ".out 2>" + base + ".err";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(base + ".out");
  r.err = Slurp(base + ".err");
  std::remove((base + ".out").c_str());
  std::remove((base + ".err").c_str());
  return r;
}

std::string Fixture(const std::string& name) {
  return std::string(WEFT_TOOLS_TESTDATA_DIR) + "/" + name;
}

int Lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(InspectProblemsTest, TextNamesEveryProblemAtOnce) {
  const std::string graph = Fixture("inspect_problems.pbtxt");
  Result r = Weft("inspect " + graph);
  EXPECT_EQ(r.code, 1);
  // The three unknown ops, each with its count and first node.
  EXPECT_THAT(r.out,
              HasSubstr("unknown ops:\n"
                        "  FancyOpA: 2 nodes, first 'a1': unknown op "
                        "'FancyOpA'\n"
                        "  MatMull: 1 node, first 'c': unknown op 'MatMull'; "
                        "did you mean 'MatMul'?\n"
                        "  MysteryB: 1 node, first 'b': unknown op "
                        "'MysteryB'\n"))
      << r.out;
  // The attr error, the input dtype error and the input naming no node; a2
  // reads a1, which is unknown, so that is not an error of its own.
  EXPECT_THAT(r.out, HasSubstr("node 'bad_attr' (MatMul): attr 'T'"));
  EXPECT_THAT(r.out, HasSubstr("node 'bad_dtype' (AddV2): input 1 expects "
                               "float but 'i' from 'i' (Placeholder) is "
                               "int32"));
  EXPECT_THAT(r.out, HasSubstr("node 'missing_in' (Identity): input "
                               "'nowhere' names unknown node 'nowhere'"));
  EXPECT_THAT(r.out, Not(HasSubstr("node 'a2' (FancyOpA): input")));
  // Kernels are looked up for the nodes that validated.
  EXPECT_THAT(r.out, HasSubstr("ops without a kernel on CPU:\n"
                               "  MatMul: 1 node, first 'mm': "));
  EXPECT_THAT(r.out, HasSubstr("no kernel for op 'MatMul' on device CPU "
                               "with T=uint8"));
  // The file's own facts are there too: 11 nodes, their ops.
  EXPECT_THAT(r.out, HasSubstr(graph + ": 11 nodes"));
  EXPECT_THAT(r.out, HasSubstr("  FancyOpA: 2\n"));
  // One line on stderr, naming the file and the unknown ops.
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(graph + ": does not import: 3 unknown ops "
                                       "(FancyOpA, MatMull, MysteryB), 3 node "
                                       "errors"));
}

TEST(InspectProblemsTest, JsonHoldsTheSameSummary) {
  Result r =
      Weft("inspect " + Fixture("inspect_problems.pbtxt") + " --format json");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.out), 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\"imports\": false"));
  EXPECT_THAT(r.out, HasSubstr("\"inputs\": null"));
  EXPECT_THAT(r.out, HasSubstr("\"unknown_ops\": ["
                               "{\"op\": \"FancyOpA\", \"count\": 2, "
                               "\"first_node\": \"a1\", \"message\": "
                               "\"unknown op 'FancyOpA'\"}, "
                               "{\"op\": \"MatMull\", \"count\": 1, "
                               "\"first_node\": \"c\", \"message\": "));
  EXPECT_THAT(r.out, HasSubstr("{\"op\": \"MysteryB\", \"count\": 1, "
                               "\"first_node\": \"b\", \"message\": "
                               "\"unknown op 'MysteryB'\"}]"));
  EXPECT_THAT(r.out, HasSubstr("{\"kind\": \"invalid_node\", \"node\": "
                               "\"bad_attr\", \"op\": \"MatMul\", "
                               "\"message\": "));
  EXPECT_THAT(r.out, HasSubstr("{\"kind\": \"bad_input\", \"node\": "
                               "\"bad_dtype\", \"op\": \"AddV2\""));
  EXPECT_THAT(r.out, HasSubstr("{\"kind\": \"bad_input\", \"node\": "
                               "\"missing_in\""));
  EXPECT_THAT(r.out, HasSubstr("\"device\": \"CPU\", \"ops_without_kernel\": "
                               "[{\"op\": \"MatMul\", \"count\": 1, "
                               "\"first_node\": \"mm\", \"message\": "));
  EXPECT_EQ(Lines(r.err), 1) << r.err;
}

// `weft run` keeps failing at the first problem, naming it alone.
TEST(InspectProblemsTest, RunStopsAtTheFirstProblem) {
  Result r = Weft("run " + Fixture("inspect_problems.pbtxt"));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("node 'a1' (FancyOpA): unknown op 'FancyOpA'"));
  EXPECT_THAT(r.err, Not(HasSubstr("MysteryB")));
  EXPECT_EQ(r.out, "");
}

// A graph that imports but has a node no CPU kernel can run: the summary,
// then exit 1.
TEST(InspectProblemsTest, MissingKernelOnTheDeviceFails) {
  const std::string graph = Fixture("no_cpu_kernel.pbtxt");
  Result r = Weft("inspect " + graph);
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("inputs:\n  u8: uint8 [2,2]\n"));
  EXPECT_THAT(r.out, HasSubstr("unknown ops: none\n"));
  EXPECT_THAT(r.out, HasSubstr("ops without a kernel on CPU:\n"
                               "  MatMul: 1 node, first 'mm'"));
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(graph + ": 1 node cannot run on CPU: no "
                                       "kernel for MatMul"));
}

TEST(InspectProblemsTest, DeviceFlag) {
  // With cuda, kernels are looked up for CUDA; MatMul on uint8 has no
  // kernel on either device, so the graph still cannot run.
  Result cuda = Weft("inspect " + Fixture("no_cpu_kernel.pbtxt") +
                     " --device cuda --format json");
  EXPECT_EQ(cuda.code, 1);
  EXPECT_THAT(cuda.out, HasSubstr("\"device\": \"CUDA\""));
  EXPECT_THAT(cuda.out, HasSubstr("no kernel for op 'MatMul' on device CUDA"));
  Result bad =
      Weft("inspect " + Fixture("no_cpu_kernel.pbtxt") + " --device tpu");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("unknown --device 'tpu'"));
}

}  // namespace
