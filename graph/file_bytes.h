// A whole file's bytes, read-only, for the graph loaders.
//
// A regular file is mapped from the page cache rather than read: a frozen
// graph is mostly its weights (tens to hundreds of MB), and reading it into
// a buffer writes every page of the buffer twice (zeros, then the copy) and
// faults each one in. Mapped, the bytes are the page cache's own pages, and
// the loader copies the weights once, into the tensors that keep them.
// Pipes, special files, small files and files that cannot be mapped are
// read into memory instead.
//
// While a mapped file is held, its bytes must not shrink on disk: reading a
// page cut off by a truncation raises SIGBUS (as with any mapped file). The
// loaders hold it only while parsing.
#ifndef WEFT_GRAPH_FILE_BYTES_H_
#define WEFT_GRAPH_FILE_BYTES_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"

namespace weft {

class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(FileBytes&& other) noexcept;
  FileBytes& operator=(FileBytes&& other) noexcept;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();

  // Reads or maps `path`. Errors name the file: missing (NotFound), a
  // directory, unreadable.
  static StatusOr<FileBytes> Read(const std::string& path);

  absl::string_view view() const {
    return mapped_ != nullptr ? absl::string_view(mapped_, mapped_size_)
                              : absl::string_view(read_);
  }
  // True when the bytes are the page cache's (a regular file, mapped).
  bool mapped() const { return mapped_ != nullptr; }

 private:
  void Unmap();

  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  std::string read_;
};

}  // namespace weft

#endif  // WEFT_GRAPH_FILE_BYTES_H_
