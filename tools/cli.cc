#include "tools/cli.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "api/op_library.h"
#include "executor/device_selection.h"

namespace weft::cli {

void Args::Flag(std::string name, bool takes_value) {
  declared_.emplace_back(std::move(name), takes_value);
}

Status Args::Parse() {
  for (size_t i = 0; i < argv_.size(); ++i) {
    const std::string& a = argv_[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2);
    std::string value;
    bool has_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    const std::pair<std::string, bool>* decl = nullptr;
    for (const auto& d : declared_) {
      if (d.first == name) decl = &d;
    }
    if (decl == nullptr) {
      return errors::InvalidArgument("unknown flag '--", name, "'");
    }
    if (decl->second && !has_value) {
      if (i + 1 >= argv_.size()) {
        return errors::InvalidArgument("flag '--", name, "' needs a value");
      }
      value = argv_[++i];
    } else if (!decl->second && has_value) {
      return errors::InvalidArgument("flag '--", name, "' takes no value");
    }
    values_.emplace_back(name, value);
  }
  return Status();
}

bool Args::Has(absl::string_view name) const {
  for (const auto& [n, v] : values_) {
    if (n == name) return true;
  }
  return false;
}

std::string Args::Get(absl::string_view name, std::string fallback) const {
  for (auto it = values_.rbegin(); it != values_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return fallback;
}

std::vector<std::string> Args::GetAll(absl::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [n, v] : values_) {
    if (n == name) out.push_back(v);
  }
  return out;
}

Status ParseDeviceFlag(const Args& args, std::string* device) {
  if (!args.Has("device")) return Status();
  *device = args.Get("device");
  return ParseDeviceRequest(*device).status();
}

void DeclareLoadFlag(Args* args) { args->Flag("load", true); }

void DeclareSavedModelFlags(Args* args) {
  args->Flag("signature", true);
  args->Flag("tag", true);
}

SavedModelLoadOptions SavedModelFlags(const Args& args) {
  SavedModelLoadOptions options;
  if (args.Has("signature")) options.signature = args.Get("signature");
  if (args.Has("tag")) {
    options.tags = absl::StrSplit(args.Get("tag"), ',', absl::SkipEmpty());
  }
  return options;
}

Status LoadRequestedOpLibraries(const Args& args) {
  for (const std::string& path : args.GetAll("load")) {
    WEFT_RETURN_IF_ERROR(LoadOpLibrary(path));
  }
  return Status();
}

int ReportError(absl::string_view command, const Status& status) {
  std::string msg =
      absl::StrReplaceAll(status.message(), {{":\n", ": "}, {"\n", "; "}});
  std::fprintf(stderr, "weft %.*s: %s\n", static_cast<int>(command.size()),
               command.data(), msg.c_str());
  return kExitFailure;
}

int UsageError(absl::string_view command, absl::string_view message) {
  std::fprintf(stderr, "weft %.*s: %.*s (see 'weft %.*s --help')\n",
               static_cast<int>(command.size()), command.data(),
               static_cast<int>(message.size()), message.data(),
               static_cast<int>(command.size()), command.data());
  return kExitUsage;
}

void AppendJsonString(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\r':
        out->append("\\r");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(out, "\\u%04x", c);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

}  // namespace weft::cli
