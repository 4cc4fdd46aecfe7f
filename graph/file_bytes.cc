#include "graph/file_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/allocator.h"

namespace weft {
namespace {

Status OpenError(const std::string& path, int err) {
  const std::string what =
      absl::StrCat("cannot open graph file '", path, "': ", std::strerror(err));
  return err == ENOENT ? errors::NotFound(what) : errors::InvalidArgument(what);
}

// Reads what a descriptor holds to its end, straight into `out` when the size
// is known: a bounce buffer would copy a large file once more.
Status ReadAll(const std::string& path, int fd, size_t size_hint,
               std::string* out) {
  if (size_hint > 0) {
    // Reserved (not yet written), advised, then sized: resize writes zeros,
    // and a page written before the advice stays a 4 KiB page.
    out->reserve(size_hint);
    if (out->capacity() >= kHugePageMinBytes) {
      AdviseHugePages(out->data(), out->capacity());
    }
    out->resize(size_hint);
  }
  // Read to the end rather than trusting st_size, which pipes and special
  // files do not report (and a file may grow).
  size_t filled = 0;
  char spill[1 << 16];
  for (;;) {
    const bool room = filled < out->size();
    const ssize_t n =
        room ? ::read(fd, out->data() + filled, out->size() - filled)
             : ::read(fd, spill, sizeof(spill));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return errors::InvalidArgument("error reading graph file '", path,
                                     "': ", std::strerror(errno));
    }
    if (!room) out->append(spill, static_cast<size_t>(n));
    filled += static_cast<size_t>(n);
  }
  out->resize(filled);
  return Status();
}

}  // namespace

FileBytes::FileBytes(FileBytes&& other) noexcept
    : mapped_(std::exchange(other.mapped_, nullptr)),
      mapped_size_(std::exchange(other.mapped_size_, 0)),
      read_(std::move(other.read_)) {}

FileBytes& FileBytes::operator=(FileBytes&& other) noexcept {
  if (this != &other) {
    Unmap();
    mapped_ = std::exchange(other.mapped_, nullptr);
    mapped_size_ = std::exchange(other.mapped_size_, 0);
    read_ = std::move(other.read_);
  }
  return *this;
}

FileBytes::~FileBytes() { Unmap(); }

void FileBytes::Unmap() {
  if (mapped_ != nullptr) {
    ::munmap(const_cast<char*>(mapped_), mapped_size_);
    mapped_ = nullptr;
    mapped_size_ = 0;
  }
}

StatusOr<FileBytes> FileBytes::Read(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return OpenError(path, errno);
  if (S_ISDIR(st.st_mode)) {
    return errors::InvalidArgument("cannot read graph file '", path,
                                   "': it is a directory");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return OpenError(path, errno);
  // A mapping outlives its descriptor.
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  // fstat again: the file opened may not be the one stat saw.
  if (::fstat(fd, &st) != 0) return OpenError(path, errno);
  FileBytes bytes;
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const size_t size = static_cast<size_t>(st.st_size);
    // MAP_POPULATE maps every page in one call, not one fault per 64 KiB.
    void* p =
        ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p != MAP_FAILED) {
      bytes.mapped_ = static_cast<const char*>(p);
      bytes.mapped_size_ = size;
      return bytes;
    }
  }
  const size_t hint = S_ISREG(st.st_mode) && st.st_size > 0
                          ? static_cast<size_t>(st.st_size)
                          : 0;
  WEFT_RETURN_IF_ERROR(ReadAll(path, fd, hint, &bytes.read_));
  return bytes;
}

}  // namespace weft
