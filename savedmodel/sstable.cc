#include "savedmodel/sstable.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "savedmodel/coding.h"
#include "savedmodel/crc32c.h"

namespace weft {
namespace {

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterSize = 48;
constexpr size_t kHandlesSize = 40;  // two handles of at most 20 bytes each
constexpr size_t kTrailerSize = 5;   // compression type + masked CRC-32C

struct BlockHandle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool GetBlockHandle(absl::string_view* in, BlockHandle* handle) {
  return coding::GetVarint64(in, &handle->offset) &&
         coding::GetVarint64(in, &handle->size);
}

class TableReader {
 public:
  TableReader(absl::string_view file, absl::string_view name)
      : file_(file), name_(name) {}

  Status Error(absl::string_view what) const {
    return absl::DataLossError(absl::StrCat(name_, ": ", what));
  }

  // The contents of the block at `handle` (trailer checked and dropped).
  Status ReadBlock(const BlockHandle& handle, absl::string_view what,
                   size_t limit, absl::string_view* contents) const {
    const std::string where = absl::StrFormat("%s at offset %d (%d bytes)",
                                              what, handle.offset, handle.size);
    if (handle.offset > limit || handle.size > limit - handle.offset ||
        kTrailerSize > limit - handle.offset - handle.size) {
      return Error(absl::StrCat(where, " lies past the end of the table (",
                                limit,
                                " bytes before the footer); the file "
                                "is truncated or its index corrupt"));
    }
    const char* data = file_.data() + handle.offset;
    const char* trailer = data + handle.size;
    const uint32_t stored = crc32c::Unmask(coding::DecodeFixed32(trailer + 1));
    const uint32_t computed =
        crc32c::Extend(crc32c::Value(data, handle.size), trailer, 1);
    if (stored != computed) {
      return Error(absl::StrFormat(
          "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)", where,
          stored, computed));
    }
    const auto type = static_cast<unsigned char>(trailer[0]);
    if (type == 1) {
      return Error(
          absl::StrCat(where, ": snappy-compressed block, not supported"));
    }
    if (type != 0) {
      return Error(absl::StrCat(where, ": unknown block compression type ",
                                static_cast<int>(type)));
    }
    *contents = absl::string_view(data, handle.size);
    return absl::OkStatus();
  }

  // Calls `visit` with each entry of `block` (its contents, trailer dropped).
  template <typename Visit>
  Status ForEachInBlock(absl::string_view block, absl::string_view what,
                        std::string* key, const Visit& visit) const {
    if (block.size() < 4) {
      return Error(absl::StrCat(what, " is too short (", block.size(),
                                " bytes) for its restart count"));
    }
    const uint32_t num_restarts =
        coding::DecodeFixed32(block.data() + block.size() - 4);
    if (num_restarts > (block.size() - 4) / 4) {
      return Error(absl::StrCat(
          what, " declares ", num_restarts, " restart points; its ",
          block.size(), " bytes hold at most ", (block.size() - 4) / 4));
    }
    const size_t entries_size = block.size() - 4 - 4 * size_t{num_restarts};
    for (uint32_t i = 0; i < num_restarts; ++i) {
      const uint32_t restart =
          coding::DecodeFixed32(block.data() + entries_size + 4 * i);
      if (restart > entries_size || (restart == entries_size && restart != 0)) {
        return Error(absl::StrCat(what, ": restart point ", i, " at ", restart,
                                  " lies outside its ", entries_size,
                                  " bytes of entries"));
      }
    }
    absl::string_view in = block.substr(0, entries_size);
    key->clear();
    int64_t index = 0;
    while (!in.empty()) {
      const size_t at = entries_size - in.size();
      uint32_t shared = 0, unshared = 0, value_size = 0;
      if (!coding::GetVarint32(&in, &shared) ||
          !coding::GetVarint32(&in, &unshared) ||
          !coding::GetVarint32(&in, &value_size) || shared > key->size() ||
          unshared > in.size() || value_size > in.size() - unshared) {
        return Error(absl::StrCat(what, ": entry ", index, " at byte ", at,
                                  " does not decode"));
      }
      key->resize(shared);
      key->append(in.data(), unshared);
      in.remove_prefix(unshared);
      const absl::string_view value = in.substr(0, value_size);
      in.remove_prefix(value_size);
      WEFT_RETURN_IF_ERROR(visit(absl::string_view(*key), value));
      ++index;
    }
    return absl::OkStatus();
  }

  Status Run(const SSTableVisitor& visit) const {
    if (file_.size() < kFooterSize) {
      return Error(absl::StrCat("is ", file_.size(),
                                " bytes, too short for a table footer (",
                                kFooterSize, " bytes)"));
    }
    const size_t limit = file_.size() - kFooterSize;
    const char* footer = file_.data() + limit;
    const uint64_t magic = coding::DecodeFixed64(footer + kHandlesSize);
    if (magic != kTableMagic) {
      return Error(absl::StrFormat(
          "bad table magic 0x%016x (expected 0x%016x); not an SSTable, or "
          "truncated",
          magic, kTableMagic));
    }
    absl::string_view handles(footer, kHandlesSize);
    BlockHandle metaindex, index;
    if (!GetBlockHandle(&handles, &metaindex) ||
        !GetBlockHandle(&handles, &index)) {
      return Error("the footer's block handles do not decode");
    }
    absl::string_view meta_block, index_block;
    WEFT_RETURN_IF_ERROR(
        ReadBlock(metaindex, "metaindex block", limit, &meta_block));
    WEFT_RETURN_IF_ERROR(ReadBlock(index, "index block", limit, &index_block));

    std::string index_key, data_key, last_key;
    bool have_last = false;
    int64_t block_number = 0;
    return ForEachInBlock(
        index_block, "index block", &index_key,
        [&](absl::string_view, absl::string_view handle_bytes) -> Status {
          const std::string what = absl::StrCat("data block ", block_number);
          ++block_number;
          BlockHandle handle;
          absl::string_view in = handle_bytes;
          if (!GetBlockHandle(&in, &handle) || !in.empty()) {
            return Error(absl::StrCat("index block: the handle of ", what,
                                      " does not decode"));
          }
          absl::string_view block;
          WEFT_RETURN_IF_ERROR(ReadBlock(handle, what, limit, &block));
          return ForEachInBlock(
              block, what, &data_key,
              [&](absl::string_view key, absl::string_view value) -> Status {
                if (have_last && !(absl::string_view(last_key) < key)) {
                  return Error(absl::StrCat(what, ": keys out of order ('",
                                            absl::CHexEscape(last_key),
                                            "' then '", absl::CHexEscape(key),
                                            "')"));
                }
                last_key.assign(key.data(), key.size());
                have_last = true;
                return visit(key, value);
              });
        });
  }

 private:
  absl::string_view file_;
  absl::string_view name_;
};

}  // namespace

Status ForEachSSTableEntry(absl::string_view file, absl::string_view file_name,
                           const SSTableVisitor& visit) {
  return TableReader(file, file_name).Run(visit);
}

}  // namespace weft
