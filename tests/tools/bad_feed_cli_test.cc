// Bad input at run time through the CLI (`weft run --input`): each mistake
// exits 1 with one line on stderr naming the graph file and the input,
// never a crash (exit code 128 + signal) or a result. The same mistakes
// through Session, the C API and weft.hpp: tests/executor/bad_feed_test.cc
// and tests/plugin/c_api_bad_feed_test.cc.
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_testutil.h"
#include "tools/npy.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class BadFeedCliTest : public CliTestBase {
 protected:
  CliResult Run(const std::string& args) { return RunCli(args); }

  // x: float [?,3] and n: int32 [] feed pair = (relu(x + c), n).
  static std::string Graph() {
    return std::string(WEFT_TOOLS_TESTDATA_DIR) + "/add_relu.pbtxt";
  }

  std::string Npy(const std::string& name, const Tensor& t) {
    fs::path p = dir_ / name;
    Status s = WriteNpy(t, p.string());
    EXPECT_TRUE(s.ok()) << s;
    return p.string();
  }

  // One failing run: exit 1, one stderr line holding every `expected`.
  void ExpectFails(const std::string& args,
                   const std::vector<std::string>& expected) {
    SCOPED_TRACE(args);
    CliResult r = Run(args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.out, "");
    for (const std::string& m : expected) EXPECT_THAT(r.err, HasSubstr(m));
  }

};

TEST_F(BadFeedCliTest, WrongDtype) {
  Tensor ints(DT_INT32, TensorShape({1, 3}));
  std::fill_n(ints.data<int32_t>(), 3, 7);
  ExpectFails("run " + Graph() + " --input x=" + Npy("ints.npy", ints) +
                  " --input n=zeros",
              {"add_relu.pbtxt", "ints.npy holds int32",
               "node 'x' (Placeholder) output 0 is float"});
}

TEST_F(BadFeedCliTest, ShapeContradictingThePlaceholder) {
  ExpectFails("run " + Graph() + " --input x=zeros:2,4 --input n=zeros",
              {"add_relu.pbtxt", "node 'x' (Placeholder)", "[2,4]"});
  Tensor wide(DT_FLOAT, TensorShape({1, 5}));
  std::fill_n(wide.data<float>(), 5, 1.0f);
  ExpectFails("run " + Graph() + " --input x=" + Npy("wide.npy", wide) +
                  " --input n=zeros",
              {"add_relu.pbtxt", "node 'x' (Placeholder)", "[1,5]"});
  ExpectFails("run " + Graph() + " --input x=zeros:1,3 --input n=zeros:2",
              {"add_relu.pbtxt", "node 'n' (Placeholder)", "[2]"});
}

TEST_F(BadFeedCliTest, TooFewBytesInTheFile) {
  Tensor row(DT_FLOAT, TensorShape({2, 3}));
  std::fill_n(row.data<float>(), 6, 1.0f);
  const std::string path = Npy("short.npy", row);
  const std::string bytes = ReadFileBytes(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << bytes.substr(0, bytes.size() - 5);
  ExpectFails("run " + Graph() + " --input x=" + path + " --input n=zeros",
              {"short.npy"});
  // Only the header.
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << bytes.substr(0, bytes.size() - 24);
  ExpectFails("run " + Graph() + " --input x=" + path + " --input n=zeros",
              {"short.npy"});
}

TEST_F(BadFeedCliTest, UnknownFeedAndFetchNames) {
  ExpectFails("run " + Graph() + " --input nope=zeros:1 --input n=zeros",
              {"add_relu.pbtxt", "--input 'nope'", "no node 'nope'"});
  ExpectFails("run " + Graph() + " --input x:3=zeros:1,3 --input n=zeros",
              {"add_relu.pbtxt", "x:3"});
  ExpectFails(
      "run " + Graph() + " --input x=zeros:1,3 --input n=zeros --output nope",
      {"add_relu.pbtxt", "--output 'nope'", "no node 'nope'"});
  ExpectFails(
      "run " + Graph() + " --input x=zeros:1,3 --input n=zeros --output pair:7",
      {"add_relu.pbtxt", "pair"});
}

TEST_F(BadFeedCliTest, FetchNeedingAnUnfedPlaceholder) {
  ExpectFails("run " + Graph() + " --input x=zeros:1,3",
              {"add_relu.pbtxt", "'n'"});
  ExpectFails("run " + Graph() + " --input n=zeros --output layer/relu",
              {"add_relu.pbtxt", "'x'"});
}

TEST_F(BadFeedCliTest, BatchTooLargeForTheMemoryLimit) {
  // 100,000 rows of 3 floats: each intermediate is 1.2 MB, past 64 KiB.
  ExpectFails(
      "run " + Graph() +
          " --input x=zeros:100000,3 --input n=zeros"
          " --host-memory-limit 65536",
      {"add_relu.pbtxt", "of its limit of 65536", "feed 'x' float [100000,3]"});
  // The same limit runs a batch that fits.
  CliResult r = Run("run " + Graph() +
                    " --input x=zeros:2,3 --input n=zeros"
                    " --host-memory-limit 65536");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("pair: float [2,3]"));
  // A limit that is no byte count is a usage error.
  r = Run("run " + Graph() + " --host-memory-limit lots");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--host-memory-limit 'lots'"));
}

}  // namespace
}  // namespace weft
