// Reading a whole SSTable: LevelDB's table format, which TensorFlow's
// tensorflow/core/lib/io/table* writes unchanged (a TensorBundle's .index
// file is one).
//
// Layout: data blocks, a metaindex block, an index block, then a 48-byte
// footer (the metaindex and index BlockHandles as varint64 offset and size,
// zero-padded to 40 bytes, then the magic 0xdb4775248b80fb57 little-endian).
// A block is a run of entries (varint32 shared key bytes, varint32 unshared
// key bytes, varint32 value length, the unshared key bytes, the value), an
// array of fixed32 restart offsets and their fixed32 count, followed by a
// 5-byte trailer: the compression type (0 none, 1 snappy) and the masked
// CRC-32C of the block and that type byte. The index block maps a key at or
// after each data block's last key to the data block's handle.
#ifndef WEFT_SAVEDMODEL_SSTABLE_H_
#define WEFT_SAVEDMODEL_SSTABLE_H_

#include <functional>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace weft {

using SSTableVisitor =
    std::function<Status(absl::string_view key, absl::string_view value)>;

// Checks every block of the table `file` (its whole contents; `file_name`
// starts every error) and calls `visit` with each entry of each data block in
// order. The key is valid during the call only; the value points into `file`.
// Keys must be strictly increasing. Stops at the first error, the visitor's
// included; errors are one line: "<file_name>: <what>".
Status ForEachSSTableEntry(absl::string_view file, absl::string_view file_name,
                           const SSTableVisitor& visit);

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_SSTABLE_H_
