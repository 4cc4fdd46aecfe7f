// What the tests of the `weft` binary share: a scratch directory per test
// and a run of the CLI with its exit code, stdout and stderr captured.
#ifndef WEFT_TESTS_TOOLS_CLI_TESTUTIL_H_
#define WEFT_TESTS_TOOLS_CLI_TESTUTIL_H_

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace weft {

struct CliResult {
  int code = -1;  // the exit code, or 128 + the signal that ended it
  std::string out;
  std::string err;
};

// The whole file, bytes as they are ("" when it cannot be read).
std::string ReadFileBytes(const std::filesystem::path& path);

int CountLines(const std::string& s);

class CliTestBase : public ::testing::Test {
 protected:
  // A fresh directory per test (named after the process and the test).
  void SetUp() override;
  void TearDown() override;

  // Runs `weft ARGS` (ARGS as a shell would split them).
  CliResult RunCli(const std::string& args);

  std::filesystem::path dir_;
};

}  // namespace weft

#endif  // WEFT_TESTS_TOOLS_CLI_TESTUTIL_H_
