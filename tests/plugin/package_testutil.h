// The installed weft package and the out-of-tree examples built against it,
// for tests that load real op libraries or run real host programs.
//
// Package::Get() installs this build tree into <build>/plugin_fixture/prefix
// and builds examples/zero_out and examples/embed with each compiler variant
// (g++; g++ with -D_GLIBCXX_USE_CXX11_ABI=0; clang++ when installed) and
// examples/kernel_example (CPU kernel only) with g++. Every step is
// incremental, so the first test process of a run pays for configuring and
// building and later ones find everything up to date; a file lock keeps
// concurrent test processes (ctest -j) from building at the same time.
#ifndef WEFT_TESTS_PLUGIN_PACKAGE_TESTUTIL_H_
#define WEFT_TESTS_PLUGIN_PACKAGE_TESTUTIL_H_

#include <string>
#include <vector>

#include "core/status.h"

namespace weft::testing {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` through /bin/sh.
CommandResult RunCommand(const std::string& command);

// A string safe to put on a shell command line.
std::string ShellQuote(const std::string& s);

struct Variant {
  std::string name;      // "gcc", "gcc-cxx11-abi-0", "clang"
  std::string zero_out;  // libzero_out.so
  std::string embed;     // the embed example's executable
};

class Package {
 public:
  // Built once per process; status() tells whether it worked (with the
  // failing step's log).
  static const Package& Get();

  const Status& status() const { return status_; }
  const std::string& prefix() const { return prefix_; }
  // Installed libweft (.so or .a).
  std::string library() const;
  // variants()[0] is plain g++, the compiler weft itself was built with.
  const std::vector<Variant>& variants() const { return variants_; }
  const std::string& kernel_example() const { return kernel_example_; }

 private:
  Package() = default;
  void Build();

  Status status_;
  std::string prefix_;
  std::vector<Variant> variants_;
  std::string kernel_example_;
};

// tests/plugin/testdata/<name> in the source tree.
std::string PluginTestdata(const std::string& name);

}  // namespace weft::testing

#endif  // WEFT_TESTS_PLUGIN_PACKAGE_TESTUTIL_H_
