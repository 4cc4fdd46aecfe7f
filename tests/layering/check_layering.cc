// check_layering: reads every #include "..." of the project's own folders
// and fails on an arrow that the layering table (cmake/layering.txt) does
// not allow, printing the file, the line and the rule.
//
//   check_layering ROOT RULES
//
// ROOT is the repository root, RULES the table (format in the table
// itself). Exit status 0 when every include is allowed, 1 when one is not
// or a folder with C/C++ sources is missing from the table, 2 on bad usage
// or an unreadable table. Plain C++17 and the standard library, so that it
// builds and runs in every configuration.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Rule {
  std::set<std::string> allowed;
  bool any = false;
  int line = 0;
  std::string text;
};

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Parses `room: dep dep ...` lines; '#' starts a comment.
bool ReadRules(const fs::path& path, std::map<std::string, Rule>* rules) {
  std::ifstream in(path);
  if (!in) {
    std::cerr << path.string() << ": cannot read the layering table\n";
    return false;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string text = Trim(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const size_t colon = text.find(':');
    if (colon == std::string::npos) {
      std::cerr << path.string() << ":" << number
                << ": expected 'room: rooms it may include', got '" << text
                << "'\n";
      return false;
    }
    const std::string room = Trim(text.substr(0, colon));
    if (rules->count(room) != 0) {
      std::cerr << path.string() << ":" << number << ": room '" << room
                << "' is listed twice (first on line " << rules->at(room).line
                << ")\n";
      return false;
    }
    Rule rule;
    rule.line = number;
    rule.text = text;
    std::istringstream deps(text.substr(colon + 1));
    std::string dep;
    while (deps >> dep) {
      if (dep == "*") {
        rule.any = true;
      } else {
        rule.allowed.insert(dep);
      }
    }
    (*rules)[room] = rule;
  }
  for (const auto& [room, rule] : *rules) {
    for (const std::string& dep : rule.allowed) {
      if (rules->count(dep) == 0) {
        std::cerr << path.string() << ":" << rule.line << ": room '" << room
                  << "' names '" << dep << "', which is not a room\n";
        return false;
      }
    }
  }
  return true;
}

// The longest room that is a prefix (by whole path components) of `path`
// (relative to the root, '/'-separated).
std::optional<std::string> RoomOf(const std::map<std::string, Rule>& rules,
                                  const std::string& path) {
  std::optional<std::string> best;
  for (const auto& entry : rules) {
    const std::string& room = entry.first;
    if (path.size() > room.size() && path.compare(0, room.size(), room) == 0 &&
        path[room.size()] == '/' &&
        (!best.has_value() || room.size() > best->size())) {
      best = room;
    }
  }
  return best;
}

bool IsSource(const fs::path& p) {
  static const std::set<std::string> kExtensions = {
      ".h", ".hh", ".hpp", ".c", ".cc", ".cpp", ".cu", ".cuh", ".inc"};
  return kExtensions.count(p.extension().string()) != 0;
}

// Build trees (they hold a CMakeCache.txt) and hidden folders are not
// sources.
bool IsSkippedDir(const fs::path& dir) {
  const std::string name = dir.filename().string();
  return (!name.empty() && name[0] == '.') ||
         fs::exists(dir / "CMakeCache.txt");
}

std::string Relative(const fs::path& root, const fs::path& p) {
  return fs::relative(p, root).generic_string();
}

// The room of what `include` (as written) names, seen from `file`
// (relative to root): looked up from the root, under include/, beside the
// including file, then by its first components. nullopt: outside the
// project.
std::optional<std::string> RoomOfInclude(
    const std::map<std::string, Rule>& rules, const fs::path& root,
    const std::string& file, const std::string& include) {
  if (fs::exists(root / include)) return RoomOf(rules, include);
  if (fs::exists(root / "include" / include)) {
    return RoomOf(rules, "include/" + include);
  }
  const fs::path beside = (root / file).parent_path() / include;
  if (fs::exists(beside)) {
    return RoomOf(rules, Relative(root, fs::weakly_canonical(beside)));
  }
  // Generated headers (graph/proto/*.pb.h) name their room but exist only
  // in the build tree.
  return RoomOf(rules, include);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: check_layering ROOT RULES\n";
    return 2;
  }
  const fs::path root = fs::weakly_canonical(argv[1]);
  const fs::path rules_path = argv[2];
  std::map<std::string, Rule> rules;
  if (!ReadRules(rules_path, &rules)) return 2;
  const std::string table = rules_path.filename().string();

  int violations = 0;
  int files = 0;
  int includes = 0;

  // Every top-level folder with C/C++ sources must be a room, so a new
  // folder cannot slip past the table.
  std::set<std::string> top_rooms;
  for (const auto& entry : rules) {
    top_rooms.insert(entry.first.substr(0, entry.first.find('/')));
  }
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory() || IsSkippedDir(dir.path())) continue;
    const std::string name = dir.path().filename().string();
    if (top_rooms.count(name) != 0) continue;
    for (auto it = fs::recursive_directory_iterator(dir.path());
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && IsSkippedDir(it->path())) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file() && IsSource(it->path())) {
        std::cout << Relative(root, it->path()) << ": folder '" << name
                  << "' holds C/C++ sources but is not a room of " << table
                  << "; add it with the rooms it may include\n";
        ++violations;
        break;
      }
    }
  }

  for (const std::string& top : top_rooms) {
    if (!fs::is_directory(root / top)) continue;  // a room not (yet) here
    std::vector<fs::path> sources;
    for (auto it = fs::recursive_directory_iterator(root / top);
         it != fs::recursive_directory_iterator(); ++it) {
      if (it->is_directory() && IsSkippedDir(it->path())) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file() && IsSource(it->path())) {
        sources.push_back(it->path());
      }
    }
    std::sort(sources.begin(), sources.end());
    for (const fs::path& path : sources) {
      const std::string file = Relative(root, path);
      const std::optional<std::string> room = RoomOf(rules, file);
      if (!room.has_value()) continue;  // e.g. a file directly in the root
      const Rule& rule = rules.at(*room);
      ++files;
      std::ifstream in(path);
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        const std::string text = Trim(line);
        if (text.rfind("#", 0) != 0) continue;
        const std::string directive = Trim(text.substr(1));
        if (directive.rfind("include", 0) != 0) continue;
        const size_t open = directive.find('"');
        if (open == std::string::npos) continue;  // <system> includes
        const size_t close = directive.find('"', open + 1);
        if (close == std::string::npos) continue;
        const std::string include =
            directive.substr(open + 1, close - open - 1);
        ++includes;
        const std::optional<std::string> target =
            RoomOfInclude(rules, root, file, include);
        if (!target.has_value() || *target == *room || rule.any ||
            rule.allowed.count(*target) != 0) {
          continue;
        }
        std::cout << file << ":" << number << ": #include \"" << include
                  << "\": room '" << *room << "' may not include room '"
                  << *target << "' (rule " << table << ":" << rule.line << ": '"
                  << rule.text << "')\n";
        ++violations;
      }
    }
  }

  if (violations != 0) {
    std::cout << violations << " layering violation(s) in " << files
              << " files; fix the arrow (move the piece to a lower room) or, "
                 "if the arrow is right, change "
              << table << "\n";
    return 1;
  }
  std::cout << "layering: " << includes << " includes in " << files
            << " files follow " << table << "\n";
  return 0;
}
