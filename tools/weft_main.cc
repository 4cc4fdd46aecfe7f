// The `weft` command-line tool: inspects, runs and times graph files and
// lists ops.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/cli.h"

namespace {

constexpr char kUsage[] =
    "usage: weft <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect GRAPH   inputs, outputs, shapes and op counts of a graph file\n"
    "  ops [NAME]      registered ops with their specs and kernels\n"
    "  run GRAPH       run a graph on .npy or generated inputs\n"
    "  bench GRAPH     time repeated runs of a graph\n"
    "  devices         the CPU and GPUs weft can use, or why there is no GPU\n"
    "\n"
    "Run 'weft <command> --help' for a command's options.\n"
    "Exit codes: 0 success, 1 failure, 2 usage error.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return weft::cli::kExitUsage;
  }
  std::string command = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(kUsage, stdout);
    return weft::cli::kExitOk;
  }
  if (command == "inspect") return weft::cli::InspectMain(rest);
  if (command == "ops") return weft::cli::OpsMain(rest);
  if (command == "run") return weft::cli::RunMain(rest);
  if (command == "bench") return weft::cli::BenchMain(rest);
  if (command == "devices") return weft::cli::DevicesMain(rest);
  std::fprintf(stderr, "weft: unknown command '%s'\n%s", command.c_str(),
               kUsage);
  return weft::cli::kExitUsage;
}
