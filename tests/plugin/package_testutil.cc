#include "tests/plugin/package_testutil.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace weft::testing {
namespace {

namespace fs = std::filesystem;

// The tail of a build log, enough to see what failed.
std::string Tail(const std::string& s, size_t n = 4000) {
  return s.size() <= n ? s : "..." + s.substr(s.size() - n);
}

// Holds an exclusive flock on a file while alive.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) {
      ::flock(fd_, LOCK_UN);
      ::close(fd_);
    }
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

Status Step(const std::string& what, const std::string& command) {
  CommandResult r = RunCommand(command);
  if (r.exit_code != 0) {
    return errors::Internal(what, " failed (exit ", r.exit_code, "): ", command,
                            "\n", Tail(r.output));
  }
  return Status();
}

}  // namespace

CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    result.output.append(buf.data(), n);
  }
  int status = ::pclose(pipe);
  result.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string PluginTestdata(const std::string& name) {
  return std::string(WEFT_SOURCE_DIR) + "/tests/plugin/testdata/" + name;
}

std::string Package::library() const {
  return prefix_ + (WEFT_SHARED_BUILD ? "/lib/libweft.so" : "/lib/libweft.a");
}

const Package& Package::Get() {
  static const Package* package = [] {
    auto* p = new Package;
    p->Build();
    return p;
  }();
  return *package;
}

void Package::Build() {
  const std::string fixture = WEFT_PLUGIN_FIXTURE_DIR;
  prefix_ = fixture + "/prefix";
  std::error_code ec;
  fs::create_directories(fixture, ec);
  FileLock lock(fixture + "/.lock");
  if (!lock.ok()) {
    status_ = errors::Internal("cannot lock ", fixture, "/.lock");
    return;
  }

  const std::string cmake = ShellQuote(WEFT_CMAKE_COMMAND);
  status_ = Step("installing weft",
                 absl::StrCat(cmake, " --install ", ShellQuote(WEFT_BUILD_DIR),
                              " --prefix ", ShellQuote(prefix_)));
  if (!status_.ok()) return;

  struct Config {
    std::string name, cxx, cxx_flags, examples;
  };
  std::vector<Config> configs = {
      {"gcc", WEFT_CXX_COMPILER, "", "zero_out;embed;kernel_example"},
      {"gcc-cxx11-abi-0", WEFT_CXX_COMPILER, "-D_GLIBCXX_USE_CXX11_ABI=0",
       "zero_out;embed"},
  };
  if (std::string(WEFT_CLANGXX).size() > 0) {
    configs.push_back({"clang", WEFT_CLANGXX, "", "zero_out;embed"});
  }
  // A sanitizer build's libweft needs the sanitizer runtimes in programs
  // that link it.
  const std::string san = WEFT_SANITIZE_FLAGS;

  for (const Config& c : configs) {
    const std::string dir = fixture + "/" + c.name;
    if (!fs::exists(dir + "/CMakeCache.txt")) {
      std::string configure = absl::StrCat(
          cmake, " -S ",
          ShellQuote(std::string(WEFT_SOURCE_DIR) + "/tests/plugin/fixture"),
          " -B ", ShellQuote(dir), " -G ", ShellQuote(WEFT_GENERATOR),
          " -DCMAKE_MAKE_PROGRAM=", ShellQuote(WEFT_MAKE_PROGRAM),
          " -DCMAKE_BUILD_TYPE=Release",
          " -DCMAKE_PREFIX_PATH=", ShellQuote(prefix_),
          " -DCMAKE_CXX_COMPILER=", ShellQuote(c.cxx),
          " -DCMAKE_CXX_FLAGS=", ShellQuote(c.cxx_flags),
          " -DCMAKE_EXE_LINKER_FLAGS=", ShellQuote(san),
          " -DWEFT_EXAMPLES_DIR=",
          ShellQuote(std::string(WEFT_SOURCE_DIR) + "/examples"),
          " -DFIXTURE_EXAMPLES=", ShellQuote(c.examples),
          " -DKERNEL_EXAMPLE_CUDA=OFF");
      if (std::string(WEFT_CCACHE).size() > 0) {
        absl::StrAppend(&configure, " -DCMAKE_CXX_COMPILER_LAUNCHER=",
                        ShellQuote(WEFT_CCACHE));
      }
      status_ = Step("configuring the examples (" + c.name + ")", configure);
      if (!status_.ok()) {
        // A half-configured folder would be taken as configured next time.
        fs::remove_all(dir, ec);
        return;
      }
    }
    status_ = Step("building the examples (" + c.name + ")",
                   absl::StrCat(cmake, " --build ", ShellQuote(dir)));
    if (!status_.ok()) return;
    variants_.push_back(
        {c.name, dir + "/zero_out/libzero_out.so", dir + "/embed/embed"});
    if (c.name == "gcc") {
      kernel_example_ = dir + "/kernel_example/libkernel_example.so";
    }
  }
}

}  // namespace weft::testing
