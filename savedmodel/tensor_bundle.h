// Reading a TensorBundle: the checkpoint format of a SavedModel's
// variables/ directory (and of tf.train.Checkpoint), with no TensorFlow
// installed.
//
// `<prefix>.index` is an SSTable (LevelDB's table format: data blocks of
// prefix-compressed keys with restart points, an index block, a 48-byte
// footer; every block followed by a compression byte and a masked CRC-32C)
// mapping each tensor's key to a BundleEntryProto, and the empty key to the
// BundleHeaderProto. The tensors' bytes are in `<prefix>.data-NNNNN-of-MMMMM`
// shards at the entry's offset, little-endian, checked against the entry's
// masked CRC-32C.
//
// Every error is one line naming the file and, where there is one, the key:
// a missing shard, truncated data, a checksum mismatch, a block that does not
// decode, an entry whose dtype or shape is absurd. Sizes the file declares are
// checked against the file's real size before anything is allocated.
#ifndef WEFT_SAVEDMODEL_TENSOR_BUNDLE_H_
#define WEFT_SAVEDMODEL_TENSOR_BUNDLE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/allocator.h"
#include "core/status.h"
#include "core/tensor.h"
#include "graph/saved_model_def.h"

namespace weft {

class TensorBundleReader {
 public:
  // Reads and checks `<prefix>.index` (every block's checksum, the header
  // entry, every entry's value) and checks that each data shard the header
  // names exists. Tensor bytes are read later, by Read.
  static StatusOr<std::unique_ptr<TensorBundleReader>> Open(
      const std::string& prefix);
  ~TensorBundleReader();

  // Keys of all stored tensors (the header excluded), sorted bytewise.
  const std::vector<std::string>& keys() const;
  // The entry under `key`, or null.
  const BundleEntry* Find(absl::string_view key) const;

  // The tensor under `key`, on the CPU: its bytes read from its shard and
  // checked against the entry's checksum, or, for a partitioned variable,
  // assembled from its slices, in a buffer from `allocator` (host memory).
  // NotFound names the key and the index file.
  StatusOr<Tensor> Read(absl::string_view key,
                        Allocator* allocator = DefaultCpuAllocator()) const;

  // Sum of the stored tensors' sizes in bytes (what Read of every key
  // reads).
  int64_t total_bytes() const;

  const std::string& prefix() const;

 private:
  class Impl;
  explicit TensorBundleReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft

#endif  // WEFT_SAVEDMODEL_TENSOR_BUNDLE_H_
