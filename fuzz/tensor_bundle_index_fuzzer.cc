// Fuzz target: a TensorBundle's .index file (savedmodel/tensor_bundle.h), the
// variables/variables.index of a SavedModel.
//
//  1. The bytes as they are through the SSTable reader (savedmodel/sstable.h,
//     in memory), each value through ParseBundleHeader or ParseBundleEntry
//     (graph/saved_model_io.h) and ParseTrackableObjectGraph.
//  2. Every block the footer and the index block name gets its checksum
//     recomputed (a mutation almost never keeps a CRC-32C right, so without
//     this the fuzzer would stop at the first block's checksum), and the
//     fixed bytes go through the same; when they parse, they are written as
//     <prefix>.index to a private temporary folder, with every data shard
//     the header names holding the same bytes, and TensorBundleReader::Open
//     and Read of every key run on them: entries checked against their
//     shards, slices of partitioned variables resolved and assembled, string
//     tensors decoded.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "graph/saved_model_def.h"
#include "graph/saved_model_io.h"
#include "savedmodel/coding.h"
#include "savedmodel/crc32c.h"
#include "savedmodel/sstable.h"
#include "savedmodel/tensor_bundle.h"
#include "savedmodel/tensor_slice_key.h"

namespace {

constexpr size_t kFooterSize = 48;
constexpr size_t kTrailerSize = 5;
// More data shards than this are not written (the reader's own bound is
// far higher; each costs a file per input here).
constexpr int kMaxShards = 8;

// Recomputes the masked CRC-32C of the block at the handle `in` starts with,
// when the block and its trailer lie inside `file[0, limit)`; gives the
// block's contents.
bool FixBlock(std::string* file, size_t limit, absl::string_view* in,
              absl::string_view* contents) {
  uint64_t offset = 0, size = 0;
  if (!weft::coding::GetVarint64(in, &offset) ||
      !weft::coding::GetVarint64(in, &size) || offset > limit ||
      size > limit - offset || kTrailerSize > limit - offset - size) {
    return false;
  }
  char* data = file->data() + offset;
  const uint32_t crc =
      weft::crc32c::Extend(weft::crc32c::Value(data, size), data + size, 1);
  const uint32_t masked = weft::crc32c::Mask(crc);
  for (int b = 0; b < 4; ++b) {
    data[size + 1 + b] = static_cast<char>(masked >> (8 * b));
  }
  *contents = absl::string_view(data, size);
  return true;
}

// `bytes` with the checksums of the metaindex block, the index block and
// every data block the index block names made right (LevelDB's layout, as
// sstable.h describes it).
std::string FixChecksums(absl::string_view bytes) {
  std::string file(bytes);
  if (file.size() < kFooterSize) return file;
  const size_t limit = file.size() - kFooterSize;
  absl::string_view handles(file.data() + limit, 40);
  absl::string_view meta, index;
  if (!FixBlock(&file, limit, &handles, &meta) ||
      !FixBlock(&file, limit, &handles, &index) || index.size() < 4) {
    return file;
  }
  // The index block's entries: each value is a data block's handle.
  const uint32_t restarts =
      weft::coding::DecodeFixed32(index.data() + index.size() - 4);
  if (restarts > (index.size() - 4) / 4) return file;
  absl::string_view in = index.substr(0, index.size() - 4 - 4 * restarts);
  // Fixing a data block can change the index block's bytes when they
  // overlap; the copy keeps the walk on what was read.
  const std::string entries(in);
  in = entries;
  while (!in.empty()) {
    uint32_t shared = 0, unshared = 0, value_size = 0;
    if (!weft::coding::GetVarint32(&in, &shared) ||
        !weft::coding::GetVarint32(&in, &unshared) ||
        !weft::coding::GetVarint32(&in, &value_size) || unshared > in.size() ||
        value_size > in.size() - unshared) {
      break;
    }
    in.remove_prefix(unshared);
    absl::string_view handle = in.substr(0, value_size);
    in.remove_prefix(value_size);
    absl::string_view block;
    FixBlock(&file, limit, &handle, &block);
  }
  return file;
}

// Every value through the parsers of graph/saved_model_io.h; whether the
// index holds a header, and how many shards it gives.
weft::Status ParseIndex(absl::string_view file, int* num_shards) {
  bool have_header = false;
  return weft::ForEachSSTableEntry(
      file, "fuzz.index",
      [&](absl::string_view key, absl::string_view value) -> weft::Status {
        weft::ParseTrackableObjectGraph(value).IgnoreError();
        if (key.empty()) {
          auto header = weft::ParseBundleHeader(value);
          if (!header.ok()) return header.status();
          *num_shards = header->num_shards;
          have_header = true;
          return weft::Status();
        }
        auto entry = weft::ParseBundleEntry(value);
        if (!entry.ok()) return entry.status();
        for (const auto& slice : entry->slices) {
          weft::EncodeTensorSliceKey(key, slice);
          weft::TensorSliceSpec(slice);
        }
        return have_header ? weft::Status()
                           : weft::errors::InvalidArgument("no header");
      });
}

// A private folder for the bundle files, removed at exit.
class TempDir {
 public:
  TempDir() {
    std::error_code ec;
    std::string base = std::filesystem::is_directory("/dev/shm", ec)
                           ? "/dev/shm"
                           : std::filesystem::temp_directory_path(ec).string();
    std::string templ = base + "/weft_fuzz_bundle_XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      std::perror("weft fuzz: mkdtemp");
      std::abort();
    }
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, absl::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "weft fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

void OpenAndRead(absl::string_view file, int num_shards) {
  static TempDir* dir = new TempDir();
  static const bool cleanup = [] {
    std::atexit([] { delete dir; });
    return true;
  }();
  (void)cleanup;
  const std::string prefix = dir->path() + "/ckpt";
  WriteFile(prefix + ".index", file);
  for (int s = 0; s < num_shards; ++s) {
    WriteFile(absl::StrFormat("%s.data-%05d-of-%05d", prefix, s, num_shards),
              file);
  }
  auto reader = weft::TensorBundleReader::Open(prefix);
  if (reader.ok()) {
    for (const std::string& key : (*reader)->keys()) {
      (*reader)->Find(key);
      (*reader)->Read(key).IgnoreError();
    }
  }
  for (int s = 0; s < num_shards; ++s) {
    std::error_code ec;
    std::filesystem::remove(
        absl::StrFormat("%s.data-%05d-of-%05d", prefix, s, num_shards), ec);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  int num_shards = 0;
  const std::string fixed = FixChecksums(bytes);
  if (fixed != bytes) ParseIndex(bytes, &num_shards).IgnoreError();
  num_shards = 0;
  if (ParseIndex(fixed, &num_shards).ok() && num_shards >= 0 &&
      num_shards <= kMaxShards) {
    OpenAndRead(fixed, num_shards);
  }
  return 0;
}
