// A main() for a fuzz target built without libFuzzer: feeds the target
// every file under the directories (or files) given on the command line,
// in name order (dot-files left out), and prints how many it ran. The normal
// Release and sanitizer builds run it on the committed corpus and regression
// inputs as a CTest (label `fuzz`), so a fixed crash stays fixed at the cost of
// seconds and no extra build.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    const fs::path root(argv[i]);
    if (fs::is_regular_file(root, ec)) {
      files.push_back(root);
      continue;
    }
    if (!fs::is_directory(root, ec)) {
      std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
      return 2;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root, ec)) {
      // Dot-files (.gitkeep holds an empty folder in git) are not inputs.
      if (entry.is_regular_file() &&
          entry.path().filename().string().rfind('.', 0) != 0) {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "%s: cannot read\n", path.c_str());
      return 2;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()),
                           bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}
