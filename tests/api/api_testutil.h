// Helpers shared by the tests/api tests: running a program and reading its
// output, and where the fixtures are.
#ifndef WEFT_TESTS_API_API_TESTUTIL_H_
#define WEFT_TESTS_API_API_TESTUTIL_H_

#include <string>

namespace weft::testing {

struct CommandOutput {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs `command` through the shell, capturing stdout and stderr apart.
CommandOutput RunProgram(const std::string& command);

// 'text' quoted for the shell.
std::string Quote(const std::string& text);

// tests/api/testdata/NAME.
std::string ApiTestdata(const std::string& name);

}  // namespace weft::testing

#endif  // WEFT_TESTS_API_API_TESTUTIL_H_
