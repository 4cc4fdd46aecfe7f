#include "tests/tools/cli_testutil.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weft {

namespace fs = std::filesystem;

std::string ReadFileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int CountLines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

void CliTestBase::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = fs::temp_directory_path() /
         ("weft_cli_" + std::to_string(::getpid()) + "_" +
          info->test_suite_name() + "_" + info->name());
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

void CliTestBase::TearDown() { fs::remove_all(dir_); }

CliResult CliTestBase::RunCli(const std::string& args) {
  const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
  const std::string cmd = std::string(WEFT_CLI_PATH) + " " + args + " >" +
                          out.string() + " 2>" + err.string();
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadFileBytes(out);
  r.err = ReadFileBytes(err);
  return r;
}

}  // namespace weft
