// Shared pieces of the `weft` command-line tool: argument scanning, the exit
// code convention and one-line error printing.
//
// Exit codes: 0 success, 1 failure (bad graph, failed run), 2 usage error.
#ifndef WEFT_TOOLS_CLI_H_
#define WEFT_TOOLS_CLI_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "savedmodel/saved_model.h"

namespace weft::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// A command's arguments after the command name. Flags are "--name=value",
// "--name value" or a bare "--name" for booleans; everything else is
// positional.
class Args {
 public:
  explicit Args(std::vector<std::string> argv) : argv_(std::move(argv)) {}

  // Declares a flag that takes a value (so "--name value" consumes the next
  // word) or not. Call before Parse().
  void Flag(std::string name, bool takes_value);
  // Splits argv; a usage error for unknown flags or a missing value.
  Status Parse();

  bool Has(absl::string_view name) const;
  // Last value given, or `fallback`.
  std::string Get(absl::string_view name, std::string fallback = "") const;
  // Every value given for a repeatable flag, in order.
  std::vector<std::string> GetAll(absl::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::vector<std::string> argv_;
  std::vector<std::pair<std::string, bool>> declared_;
  std::vector<std::pair<std::string, std::string>> values_;
  std::vector<std::string> positional_;
};

// Prints "weft <command>: <message>" on one line of stderr (newlines in the
// message are folded) and returns the exit code for `status`.
int ReportError(absl::string_view command, const Status& status);
int UsageError(absl::string_view command, absl::string_view message);

// --load LIB.so, repeatable, on every command: op libraries (see
// api/op_library.h) to load before the command does anything else, so
// their ops count as registered. A command declares the flag with
// DeclareLoadFlag, lists kLoadFlagHelp in its help, and calls
// LoadRequestedOpLibraries right after Parse(); a failure is the command's
// failure (exit 1), reported with ReportError.
inline constexpr char kLoadFlagHelp[] =
    "  --load LIB.so       load an op library (ops and kernels built against\n"
    "                      include/weft/plugin.h) first; repeatable\n";
void DeclareLoadFlag(Args* args);
Status LoadRequestedOpLibraries(const Args& args);

// --tag and --signature on run, bench and inspect: which meta graph and
// signature of a SavedModel directory to load (ignored for graph files).
inline constexpr char kSavedModelFlagHelp[] =
    "  --signature KEY     SavedModel directories: the signature to run\n"
    "                      (default serving_default, or the only one)\n"
    "  --tag TAGS          SavedModel directories: the meta graph's tag set,\n"
    "                      comma-separated (default serve)\n";
void DeclareSavedModelFlags(Args* args);
SavedModelLoadOptions SavedModelFlags(const Args& args);

// Appends `s` as a JSON string literal.
void AppendJsonString(std::string* out, absl::string_view s);

int InspectMain(const std::vector<std::string>& args);
int OpsMain(const std::vector<std::string>& args);
int RunMain(const std::vector<std::string>& args);
int BenchMain(const std::vector<std::string>& args);
int DevicesMain(const std::vector<std::string>& args);

// --device on run and bench: "cpu", "cuda", "cuda:N" or "auto" into
// `device` (left alone when the flag is absent). Checked here so that a
// misspelling is a usage error (exit 2); whether the GPU is usable is the
// session's to say (exit 1).
Status ParseDeviceFlag(const Args& args, std::string* device);

}  // namespace weft::cli

#endif  // WEFT_TOOLS_CLI_H_
