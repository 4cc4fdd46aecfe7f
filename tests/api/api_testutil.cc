#include "tests/api/api_testutil.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weft::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CommandOutput RunProgram(const std::string& command) {
  static int counter = 0;
  const std::string base = "/tmp/weft_api_test_" + std::to_string(::getpid()) +
                           "_" + std::to_string(counter++);
  const std::string out = base + ".out", err = base + ".err";
  const int status = std::system((command + " >" + out + " 2>" + err).c_str());
  CommandOutput r;
  r.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = ReadAll(out);
  r.err = ReadAll(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

std::string Quote(const std::string& text) {
  std::string q = "'";
  for (char c : text) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string ApiTestdata(const std::string& name) {
  return std::string(WEFT_API_TESTDATA_DIR) + "/" + name;
}

}  // namespace weft::testing
