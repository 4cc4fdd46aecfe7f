// The installed package, as users see it: host programs and op libraries
// built out of tree with find_package(weft), with several compilers and C++
// ABI settings, run as separate processes; what libweft and the libraries
// export; what the public headers include; the CLI's --load.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/plugin/package_testutil.h"

namespace weft {
namespace {

using testing::CommandResult;
using ::testing::HasSubstr;
using testing::Package;
using testing::PluginTestdata;
using testing::RunCommand;
using testing::ShellQuote;
namespace fs = std::filesystem;

const Package& BuiltPackage() {
  const Package& p = Package::Get();
  EXPECT_TRUE(p.status().ok()) << p.status();
  return p;
}

// The symbols `nm -D --defined-only` lists for `path`.
std::set<std::string> ExportedSymbols(const std::string& path) {
  CommandResult r = RunCommand("nm -D --defined-only " + ShellQuote(path));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::set<std::string> symbols;
  std::istringstream lines(r.output);
  std::string line;
  while (std::getline(lines, line)) {
    // "0000000000012340 T weft_session_run"
    std::istringstream fields(line);
    std::string address, type, name;
    if (fields >> address >> type >> name) symbols.insert(name);
  }
  return symbols;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs the embed example: `embed [--load lib] graph [name=values]...`.
CommandResult Embed(const std::string& embed, const std::string& lib,
                    const std::string& graph, const std::string& args) {
  std::string cmd = ShellQuote(embed);
  if (!lib.empty()) cmd += " --load " + ShellQuote(lib);
  return RunCommand(cmd + " " + ShellQuote(graph) + " " + args);
}

// ZeroOut keeps element 0 and zeroes the others. embed lists the graph's
// inputs and outputs, then fetches every output.
constexpr char kZeroOutArgs[] = "xi=7,3,-2,9,1 xf=1.5,-2,3";
constexpr char kZeroOutOutput[] =
    "inputs:\n"
    "  xi: int32 [-1]\n"
    "  xf: float [-1]\n"
    "outputs:\n"
    "  zi: int32 [-1]\n"
    "  zf: float [-1]\n"
    "zi = int32 [5] 7 0 0 0 0\n"
    "zf = float [3] 1.5 0 0\n";

// Every pairing of host and op library across compilers and C++ ABIs: the
// g++ host with each variant's library, and each variant's host with the
// g++ library. Nothing C++ crosses the boundary, so all of them work.
TEST(PackageTest, ZeroOutRunsAcrossCompilersAndCxxAbis) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  const auto& variants = package.variants();
  ASSERT_GE(variants.size(), 2u) << "the ABI-0 build is always made";
  const std::string graph = PluginTestdata("zero_out.pbtxt");
  for (const auto& v : variants) {
    CommandResult host_gcc =
        Embed(variants[0].embed, v.zero_out, graph, kZeroOutArgs);
    EXPECT_EQ(host_gcc.exit_code, 0) << v.name << ": " << host_gcc.output;
    EXPECT_EQ(host_gcc.output, kZeroOutOutput) << "library: " << v.name;

    CommandResult lib_gcc =
        Embed(v.embed, variants[0].zero_out, graph, kZeroOutArgs);
    EXPECT_EQ(lib_gcc.exit_code, 0) << v.name << ": " << lib_gcc.output;
    EXPECT_EQ(lib_gcc.output, kZeroOutOutput) << "host: " << v.name;
  }
  if (std::string(WEFT_CLANGXX).empty()) {
    std::printf(
        "note: clang++ is not installed, so only g++ and g++ "
        "-D_GLIBCXX_USE_CXX11_ABI=0 builds were paired\n");
  }
}

TEST(PackageTest, EmbedRunsAGraphOfBuiltInOps) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  // y = x * 2 + 1
  CommandResult r =
      Embed(package.variants()[0].embed, "",
            std::string(WEFT_SOURCE_DIR) + "/examples/embed/scale_shift.pbtxt",
            "x=1,2,-3.5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "inputs:\n  x: float [-1]\noutputs:\n  y: float [-1]\n"
            "y = float [3] 3 5 -6\n");
}

TEST(PackageTest, EmbedReportsWeftErrors) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  // The graph needs ZeroOut, and no library was loaded.
  const std::string graph = PluginTestdata("zero_out.pbtxt");
  CommandResult r = Embed(package.variants()[0].embed, "", graph, "");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("embed: " + graph));
  EXPECT_THAT(r.output, HasSubstr("'ZeroOut'"));

  CommandResult bad_lib =
      Embed(package.variants()[0].embed, WEFT_TEST_NOT_A_PLUGIN, graph, "");
  EXPECT_EQ(bad_lib.exit_code, 1);
  EXPECT_THAT(bad_lib.output, HasSubstr("is not a weft op library"));
}

TEST(PackageTest, KernelExampleDoubles) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  CommandResult r =
      Embed(package.variants()[0].embed, package.kernel_example(),
            PluginTestdata("example.pbtxt"), "x=1.5,-2,0 xi=3,-4");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "inputs:\n  x: float [-1]\n  xi: int32 [-1]\n"
            "outputs:\n  y: float [-1]\n  yi: int32 [-1]\n"
            "y = float [3] 3 -4 0\n"
            "yi = int32 [2] 6 -8\n");
}

// Every symbol libweft.so exports is a function of the installed c_api.h,
// and every function c_api.h declares is exported: no C++, absl, protobuf,
// TBB or Eigen symbol leaks out.
TEST(PackageTest, LibweftExportsExactlyTheCApi) {
  if (!WEFT_SHARED_BUILD) {
    GTEST_SKIP() << "this build makes a static libweft "
                    "(BUILD_SHARED_LIBS=OFF): no dynamic symbol table";
  }
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  std::string header = ReadFile(package.prefix() + "/include/weft/c_api.h");
  // The name before the first '(' after each WEFT_API.
  std::set<std::string> declared;
  for (size_t at = header.find("WEFT_API"); at != std::string::npos;
       at = header.find("WEFT_API", at + 1)) {
    size_t paren = header.find('(', at);
    ASSERT_NE(paren, std::string::npos);
    size_t end = header.find_last_not_of(" \n", paren - 1) + 1;
    size_t begin = header.find_last_of(" *\n", end - 1) + 1;
    declared.insert(header.substr(begin, end - begin));
  }
  ASSERT_GT(declared.size(), 20u);
  EXPECT_EQ(ExportedSymbols(package.library()), declared);
}

// An op library exports its entry point only and needs nothing from weft
// at link time: weft hands it everything through the table.
TEST(PackageTest, OpLibrariesExportOnlyTheEntryPointAndNeedNoWeft) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  std::vector<std::string> libs = {package.kernel_example()};
  for (const auto& v : package.variants()) libs.push_back(v.zero_out);
  for (const std::string& lib : libs) {
    EXPECT_EQ(ExportedSymbols(lib), std::set<std::string>{"weft_plugin_init"})
        << lib;
    CommandResult needed = RunCommand("readelf -d " + ShellQuote(lib));
    EXPECT_EQ(needed.exit_code, 0) << needed.output;
    EXPECT_THAT(needed.output, HasSubstr("NEEDED"));
    EXPECT_THAT(needed.output, ::testing::Not(HasSubstr("libweft"))) << lib;
  }
}

// The public headers name no third-party or internal header: only the C and
// C++ standard libraries and each other.
TEST(PackageTest, PublicHeadersIncludeOnlyStandardAndWeftHeaders) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  int headers = 0;
  for (const auto& entry :
       fs::directory_iterator(package.prefix() + "/include/weft")) {
    ++headers;
    std::istringstream lines(ReadFile(entry.path().string()));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("#include ", 0) != 0) continue;
      const char open = line[9];
      const size_t close = line.find(open == '<' ? '>' : '"', 10);
      ASSERT_TRUE((open == '<' || open == '"') && close != std::string::npos)
          << entry.path() << ": " << line;
      const std::string name = line.substr(10, close - 10);
      if (open == '"') {
        EXPECT_EQ(name.rfind("weft/", 0), 0u) << entry.path() << ": " << line;
        EXPECT_TRUE(fs::exists(package.prefix() + "/include/" + name))
            << entry.path() << ": " << line;
      } else {
        // <stdint.h>, <vector>: no folder, so no third-party library.
        EXPECT_EQ(name.find('/'), std::string::npos)
            << entry.path() << ": " << line;
      }
    }
  }
  EXPECT_EQ(headers, 5);
}

TEST(PackageTest, CliOpsAndInspectLoadLibraries) {
  const Package& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  const std::string cli = ShellQuote(WEFT_CLI_PATH);
  const std::string lib = ShellQuote(package.variants()[0].zero_out);

  CommandResult ops = RunCommand(cli + " ops --load " + lib + " ZeroOut");
  EXPECT_EQ(ops.exit_code, 0) << ops.output;
  EXPECT_THAT(ops.output, HasSubstr("ZeroOut"));
  EXPECT_THAT(ops.output, HasSubstr("to_zero: T"));
  EXPECT_THAT(ops.output, HasSubstr("kernel CPU{T in [float]}"));
  EXPECT_THAT(ops.output, HasSubstr("kernel CPU{T in [int32]}"));

  // --load is repeatable; loading the same file twice is harmless.
  CommandResult inspect =
      RunCommand(cli + " inspect --load " + lib + " --load " + lib + " " +
                 ShellQuote(PluginTestdata("zero_out.pbtxt")));
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_THAT(inspect.output, HasSubstr("ZeroOut"));

  CommandResult missing = RunCommand(cli + " ops --load /nonexistent/lib.so");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.output,
              HasSubstr("op library '/nonexistent/lib.so': no such file"));

  CommandResult without = RunCommand(cli + " ops ZeroOut");
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_THAT(without.output, HasSubstr("unknown op 'ZeroOut'"));
}

}  // namespace
}  // namespace weft
