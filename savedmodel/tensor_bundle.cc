#include "savedmodel/tensor_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/allocator.h"
#include "graph/saved_model_io.h"
#include "savedmodel/coding.h"
#include "savedmodel/crc32c.h"
#include "savedmodel/sstable.h"
#include "savedmodel/tensor_slice_key.h"

namespace weft {
namespace {

// Bytes read (and checksummed while still in cache) per pread call.
constexpr size_t kReadChunk = size_t{1} << 20;
// More shards than this is a corrupt header, not a checkpoint.
constexpr int kMaxShards = 1 << 20;

std::string ErrnoText(int err) { return std::strerror(err); }

// A file descriptor closed on destruction.
class File {
 public:
  File() = default;
  explicit File(int fd) : fd_(fd) {}
  File(File&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  File& operator=(File&& other) noexcept {
    if (this != &other) {
      Close();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~File() { Close(); }
  int fd() const { return fd_; }

 private:
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// Opens `path` for reading and gives its size; NotFound when it is missing.
Status OpenFile(const std::string& path, absl::string_view what, File* file,
                int64_t* size) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return errors::NotFound(path, ": no such file (", what, ")");
    }
    return errors::FailedPrecondition(path, ": cannot open (", what,
                                      "): ", ErrnoText(err));
  }
  File owned(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    return errors::FailedPrecondition(path,
                                      ": cannot stat: ", ErrnoText(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return errors::FailedPrecondition(path, ": not a regular file (", what,
                                      ")");
  }
  *file = std::move(owned);
  *size = static_cast<int64_t>(st.st_size);
  return absl::OkStatus();
}

// Reads exactly `n` bytes at `offset`; `on_chunk` sees each piece as it
// arrives (to checksum it while it is in cache).
template <typename OnChunk>
Status PreadFully(const File& file, const std::string& path, int64_t offset,
                  char* dest, size_t n, const OnChunk& on_chunk) {
  size_t done = 0;
  while (done < n) {
    const size_t want = std::min(kReadChunk, n - done);
    const ssize_t got = ::pread(file.fd(), dest + done, want,
                                static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      return absl::DataLossError(absl::StrCat(path, ": read failed at offset ",
                                              offset + done, ": ",
                                              ErrnoText(errno)));
    }
    if (got == 0) {
      return absl::DataLossError(
          absl::StrCat(path, ": unexpected end of file at offset ",
                       offset + done, " (", n - done, " bytes short)"));
    }
    on_chunk(dest + done, static_cast<size_t>(got));
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

// How a key appears in messages: printable as it is, other bytes escaped.
std::string ShowKey(absl::string_view key) { return absl::CHexEscape(key); }

bool IsReadableType(DataType dt) {
  return dt == DT_STRING || DataTypeIsPod(dt);
}

}  // namespace

class TensorBundleReader::Impl {
 public:
  struct Shard {
    std::string path;
    File file;
    int64_t size = 0;
  };
  struct Slice {
    std::vector<BundleSliceExtent> extents;  // lengths resolved (no -1)
    const BundleEntry* entry = nullptr;
    std::string key;
  };

  std::string prefix;
  std::string index_path;
  BundleHeader header;
  std::vector<Shard> shards;
  // Every entry of the index (the header excluded), sorted by key.
  std::vector<std::pair<std::string, BundleEntry>> entries;
  // The keys users see: slice keys of partitioned variables are left out.
  std::vector<std::string> keys;
  // For each partitioned variable (by index into `entries`), its slices.
  std::vector<std::vector<Slice>> slices;
  int64_t total_bytes = 0;

  Status Error(absl::string_view key, absl::string_view what) const {
    return absl::DataLossError(
        absl::StrCat(index_path, ": key '", ShowKey(key), "': ", what));
  }

  Status LoadIndex();
  Status CheckEntries();
  Status ResolveSlices(size_t i);
  StatusOr<Tensor> ReadStored(const BundleEntry& entry, absl::string_view shown,
                              Allocator* allocator) const;
  Status ReadString(const BundleEntry& entry, const Shard& shard,
                    absl::string_view shown, Tensor* tensor) const;
  StatusOr<Tensor> ReadPartitioned(size_t i, Allocator* allocator) const;

  const BundleEntry* FindEntry(absl::string_view key, size_t* index) const {
    auto it = std::lower_bound(
        entries.begin(), entries.end(), key,
        [](const std::pair<std::string, BundleEntry>& e, absl::string_view k) {
          return absl::string_view(e.first) < k;
        });
    if (it == entries.end() || it->first != key) return nullptr;
    if (index != nullptr) *index = static_cast<size_t>(it - entries.begin());
    return &it->second;
  }
};

Status TensorBundleReader::Impl::LoadIndex() {
  File file;
  int64_t size = 0;
  WEFT_RETURN_IF_ERROR(
      OpenFile(index_path, "the TensorBundle's index", &file, &size));
  std::string bytes(static_cast<size_t>(size), '\0');
  WEFT_RETURN_IF_ERROR(PreadFully(file, index_path, 0, bytes.data(),
                                  bytes.size(), [](const char*, size_t) {}));
  bool have_header = false;
  WEFT_RETURN_IF_ERROR(ForEachSSTableEntry(
      bytes, index_path,
      [&](absl::string_view key, absl::string_view value) -> Status {
        if (key.empty()) {
          auto parsed = ParseBundleHeader(value);
          if (!parsed.ok()) {
            return absl::DataLossError(absl::StrCat(
                index_path, ": header entry: ", parsed.status().message()));
          }
          header = *parsed;
          have_header = true;
          return absl::OkStatus();
        }
        if (!have_header) {
          return absl::DataLossError(
              absl::StrCat(index_path, ": the first entry is key '",
                           ShowKey(key), "', not the header (the empty key)"));
        }
        auto parsed = ParseBundleEntry(value);
        if (!parsed.ok()) return Error(key, parsed.status().message());
        entries.emplace_back(std::string(key), *std::move(parsed));
        return absl::OkStatus();
      }));
  if (!have_header) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": no header entry (the empty key)"));
  }
  if (header.big_endian) {
    return errors::Unimplemented(
        index_path,
        ": the bundle was written big-endian; only little-endian bundles "
        "are read");
  }
  if (header.num_shards > kMaxShards) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": the header gives ", header.num_shards,
                     " data shards, more than ", kMaxShards));
  }
  if (header.num_shards == 0 && !entries.empty()) {
    return absl::DataLossError(
        absl::StrCat(index_path, ": the header gives 0 data shards but ",
                     entries.size(), " entries"));
  }
  return absl::OkStatus();
}

// Size, shard and dtype of every entry that holds bytes; slices of every
// partitioned variable.
Status TensorBundleReader::Impl::CheckEntries() {
  std::vector<bool> is_slice(entries.size(), false);
  slices.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& [key, entry] = entries[i];
    if (!IsValidDataType(entry.dtype) || entry.dtype == DT_INVALID) {
      return Error(
          key, absl::StrCat("unknown dtype ", static_cast<int>(entry.dtype)));
    }
    if (!entry.slices.empty()) {
      WEFT_RETURN_IF_ERROR(ResolveSlices(i));
      continue;
    }
    if (entry.shard_id >= header.num_shards) {
      return Error(key, absl::StrCat("shard ", entry.shard_id,
                                     " does not exist; the header gives ",
                                     header.num_shards));
    }
    if (entry.offset > std::numeric_limits<int64_t>::max() - entry.size) {
      return Error(key, absl::StrCat("offset ", entry.offset, " + size ",
                                     entry.size, " overflows"));
    }
    const int64_t n = entry.shape.num_elements();
    if (DataTypeIsPod(entry.dtype)) {
      const auto elem = static_cast<int64_t>(DataTypeSize(entry.dtype));
      if (n > std::numeric_limits<int64_t>::max() / elem) {
        return Error(key,
                     absl::StrCat("shape ", entry.shape.DebugString(), " of ",
                                  DataTypeName(entry.dtype), " is too large"));
      }
      if (entry.size != n * elem) {
        return Error(
            key,
            absl::StrCat("size ", entry.size, " bytes does not match ",
                         DataTypeName(entry.dtype), " ",
                         entry.shape.DebugString(), " (", n * elem, " bytes)"));
      }
    } else if (entry.dtype == DT_STRING) {
      // Each element takes at least a 1-byte length, then a 4-byte length
      // checksum; an empty tensor may also be stored as nothing.
      if (n > entry.size - 4 && !(n == 0 && entry.size <= 4)) {
        return Error(
            key, absl::StrCat("size ", entry.size, " bytes cannot hold string ",
                              entry.shape.DebugString()));
      }
    }
  }
  // Slice keys are marked after every partitioned variable resolved them.
  for (const auto& list : slices) {
    for (const Slice& s : list) {
      size_t j = 0;
      FindEntry(s.key, &j);
      is_slice[j] = true;
    }
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    if (is_slice[i]) continue;
    keys.push_back(entries[i].first);
    if (slices[i].empty()) {
      total_bytes += entries[i].second.size;
    } else {
      for (const Slice& s : slices[i]) total_bytes += s.entry->size;
    }
  }
  return absl::OkStatus();
}

Status TensorBundleReader::Impl::ResolveSlices(size_t i) {
  const auto& [key, entry] = entries[i];
  const TensorShape& full = entry.shape;
  const int rank = full.dims();
  int64_t covered = 0;
  std::vector<Slice>& out = slices[i];
  for (const auto& extents : entry.slices) {
    const std::string spec = TensorSliceSpec(extents);
    if (static_cast<int>(extents.size()) != rank || rank == 0) {
      return Error(key,
                   absl::StrCat("slice ", spec, " has rank ", extents.size(),
                                "; the tensor has shape ", full.DebugString()));
    }
    Slice slice;
    slice.key = EncodeTensorSliceKey(key, extents);
    int64_t elements = 1;
    for (int d = 0; d < rank; ++d) {
      BundleSliceExtent e = extents[d];
      if (e.length < 0) {
        if (e.start != 0) {
          return Error(
              key, absl::StrCat("slice ", spec, " takes all of dimension ", d,
                                " from start ", e.start));
        }
        e.length = full.dim_size(d);
      }
      if (e.start > full.dim_size(d) || e.length > full.dim_size(d) - e.start) {
        return Error(key, absl::StrCat("slice ", spec,
                                       " lies outside the tensor's shape ",
                                       full.DebugString()));
      }
      elements *= e.length;  // bounded by the full element count
      slice.extents.push_back(e);
    }
    size_t j = 0;
    slice.entry = FindEntry(slice.key, &j);
    if (slice.entry == nullptr) {
      return Error(
          key, absl::StrCat("slice ", spec, " is missing from the index (key '",
                            ShowKey(slice.key), "')"));
    }
    const BundleEntry& se = *slice.entry;
    std::vector<int64_t> dims;
    for (const auto& e : slice.extents) dims.push_back(e.length);
    if (!se.slices.empty() || se.dtype != entry.dtype ||
        se.shape.dim_sizes() != absl::Span<const int64_t>(dims)) {
      return Error(
          key, absl::StrCat("slice ", spec, " is stored as ",
                            DataTypeName(se.dtype), " ", se.shape.DebugString(),
                            se.slices.empty() ? "" : " with slices of its own",
                            "; expected ", DataTypeName(entry.dtype), " [",
                            absl::StrJoin(dims, ","), "]"));
    }
    for (const Slice& other : out) {
      bool overlap = elements > 0;
      for (int d = 0; d < rank && overlap; ++d) {
        const auto& a = slice.extents[d];
        const auto& b = other.extents[d];
        overlap = a.start < b.start + b.length && b.start < a.start + a.length;
      }
      if (overlap) {
        return Error(key,
                     absl::StrCat("slices ", TensorSliceSpec(other.extents),
                                  " and ", spec, " overlap"));
      }
    }
    covered += elements;  // disjoint boxes inside the tensor: no overflow
    out.push_back(std::move(slice));
  }
  if (covered != full.num_elements()) {
    return Error(key, absl::StrCat("its ", out.size(), " slices cover ",
                                   covered, " of ", full.num_elements(),
                                   " elements of ", full.DebugString()));
  }
  return absl::OkStatus();
}

StatusOr<Tensor> TensorBundleReader::Impl::ReadStored(
    const BundleEntry& entry, absl::string_view shown,
    Allocator* allocator) const {
  if (!IsReadableType(entry.dtype)) {
    return errors::Unimplemented(
        index_path, ": key '", shown, "': ", DataTypeName(entry.dtype),
        " tensors are not supported (only plain and string tensors are read)");
  }
  const Shard& shard = shards[entry.shard_id];
  const std::string where = absl::StrCat(shard.path, ": key '", shown, "'");
  // An empty tensor owns no bytes, wherever its offset points.
  if (entry.size > 0 &&
      (entry.offset > shard.size || entry.size > shard.size - entry.offset)) {
    return absl::DataLossError(absl::StrCat(
        where, ": bytes [", entry.offset, ", ", entry.offset + entry.size,
        ") lie past the end of the file (", shard.size,
        " bytes); the shard is truncated"));
  }
  auto allocated = Tensor::Allocate(allocator, entry.dtype, entry.shape);
  if (!allocated.ok()) return AddContext(allocated.status(), where);
  Tensor tensor = *std::move(allocated);
  if (entry.dtype == DT_STRING) {
    WEFT_RETURN_IF_ERROR(ReadString(entry, shard, shown, &tensor));
    return tensor;
  }
  uint32_t crc = 0;
  Status read = PreadFully(
      shard.file, shard.path, entry.offset,
      static_cast<char*>(tensor.raw_data()), static_cast<size_t>(entry.size),
      [&crc](const char* p, size_t n) { crc = crc32c::Extend(crc, p, n); });
  if (!read.ok()) return AddContext(read, absl::StrCat("key '", shown, "'"));
  const uint32_t stored = crc32c::Unmask(entry.crc32c);
  if (crc != stored) {
    return absl::DataLossError(absl::StrFormat(
        "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)", where, stored,
        crc));
  }
  return tensor;
}

// [varint64 length] x N, the masked CRC-32C of the lengths (each as a
// little-endian uint32, or uint64 when it does not fit), then the bytes. The
// entry's CRC covers the lengths (so encoded), the length checksum's four
// bytes and the string bytes.
Status TensorBundleReader::Impl::ReadString(const BundleEntry& entry,
                                            const Shard& shard,
                                            absl::string_view shown,
                                            Tensor* tensor) const {
  const std::string where = absl::StrCat(shard.path, ": key '", shown, "'");
  const int64_t n = entry.shape.num_elements();
  if (entry.size == 0 && n == 0) return absl::OkStatus();
  std::string bytes(static_cast<size_t>(entry.size), '\0');
  Status read = PreadFully(shard.file, shard.path, entry.offset, bytes.data(),
                           bytes.size(), [](const char*, size_t) {});
  if (!read.ok()) return AddContext(read, absl::StrCat("key '", shown, "'"));
  absl::string_view in(bytes);
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    if (!coding::GetVarint64(&in, &len)) {
      return absl::DataLossError(absl::StrCat(where, ": the length of string ",
                                              i, " does not decode"));
    }
    if (len > static_cast<uint64_t>(entry.size)) {
      return absl::DataLossError(absl::StrCat(where, ": string ", i, " claims ",
                                              len,
                                              " bytes; the "
                                              "entry has ",
                                              entry.size));
    }
    lengths[i] = len;
    total += len;
    unsigned char le[8];
    for (int b = 0; b < 8; ++b)
      le[b] = static_cast<unsigned char>(len >> 8 * b);
    crc = crc32c::Extend(crc, le, len <= 0xffffffffu ? 4 : 8);
  }
  if (in.size() < 4) {
    return absl::DataLossError(
        absl::StrCat(where, ": the string lengths run past the entry's ",
                     entry.size, " bytes"));
  }
  const uint32_t length_crc = crc32c::Unmask(coding::DecodeFixed32(in.data()));
  if (length_crc != crc) {
    return absl::DataLossError(absl::StrFormat(
        "%s: checksum mismatch in the string lengths (stored 0x%08x, "
        "computed 0x%08x)",
        where, length_crc, crc));
  }
  crc = crc32c::Extend(crc, in.data(), 4);
  in.remove_prefix(4);
  if (total != in.size()) {
    return absl::DataLossError(
        absl::StrCat(where, ": the string lengths add up to ", total,
                     " bytes; the entry "
                     "holds ",
                     in.size(), " after them"));
  }
  crc = crc32c::Extend(crc, in.data(), in.size());
  const uint32_t stored = crc32c::Unmask(entry.crc32c);
  if (crc != stored) {
    return absl::DataLossError(absl::StrFormat(
        "%s: checksum mismatch (stored 0x%08x, computed 0x%08x)", where, stored,
        crc));
  }
  auto* out = static_cast<std::string*>(tensor->raw_data());
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(in.data(), lengths[i]);
    in.remove_prefix(lengths[i]);
  }
  return absl::OkStatus();
}

StatusOr<Tensor> TensorBundleReader::Impl::ReadPartitioned(
    size_t i, Allocator* allocator) const {
  const auto& [key, entry] = entries[i];
  const std::string shown = ShowKey(key);
  if (!IsReadableType(entry.dtype)) {
    return errors::Unimplemented(
        index_path, ": key '", shown, "': ", DataTypeName(entry.dtype),
        " tensors are not supported (only plain and string tensors are read)");
  }
  // The whole tensor is allocated before its slices are read: first check
  // that each slice's bytes are in its shard (as ReadStored does), so that
  // the declared shape cannot allocate more than the files hold.
  for (const Slice& slice : slices[i]) {
    const BundleEntry& se = *slice.entry;
    const Shard& shard = shards[se.shard_id];
    if (se.size > 0 &&
        (se.offset > shard.size || se.size > shard.size - se.offset)) {
      return absl::DataLossError(absl::StrCat(
          shard.path, ": key '", shown, "' slice '",
          TensorSliceSpec(slice.extents), "': bytes [", se.offset, ", ",
          se.offset + se.size, ") lie past the end of the file (", shard.size,
          " bytes); the shard is truncated"));
    }
  }
  auto allocated = Tensor::Allocate(allocator, entry.dtype, entry.shape);
  if (!allocated.ok()) {
    return AddContext(allocated.status(),
                      absl::StrCat(index_path, ": key '", shown, "'"));
  }
  Tensor full = *std::move(allocated);
  const int rank = entry.shape.dims();
  const bool is_string = entry.dtype == DT_STRING;
  const size_t elem =
      is_string ? sizeof(std::string) : DataTypeSize(entry.dtype);
  // Row-major strides of the full tensor, in elements.
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * entry.shape.dim_size(d + 1);
  }
  for (const Slice& slice : slices[i]) {
    WEFT_ASSIGN_OR_RETURN(
        Tensor part, ReadStored(*slice.entry,
                                absl::StrCat(shown, "' slice '",
                                             TensorSliceSpec(slice.extents)),
                                DefaultCpuAllocator()));
    if (part.NumElements() == 0) continue;
    // Copy runs of the last dimension; `index` counts through the others.
    const int64_t run = slice.extents[rank - 1].length;
    std::vector<int64_t> index(rank, 0);
    const char* src = static_cast<const char*>(part.raw_data());
    char* dst = static_cast<char*>(full.raw_data());
    for (int64_t done = 0; done < part.NumElements(); done += run) {
      int64_t at = 0;
      for (int d = 0; d < rank; ++d) {
        at += (slice.extents[d].start + index[d]) * strides[d];
      }
      if (is_string) {
        const auto* s = reinterpret_cast<const std::string*>(src) + done;
        auto* t = reinterpret_cast<std::string*>(dst) + at;
        for (int64_t k = 0; k < run; ++k) t[k] = s[k];
      } else {
        std::memcpy(dst + at * elem, src + done * elem, run * elem);
      }
      for (int d = rank - 2; d >= 0; --d) {
        if (++index[d] < slice.extents[d].length) break;
        index[d] = 0;
      }
    }
  }
  return full;
}

StatusOr<std::unique_ptr<TensorBundleReader>> TensorBundleReader::Open(
    const std::string& prefix) {
  auto impl = std::make_unique<Impl>();
  impl->prefix = prefix;
  impl->index_path = prefix + ".index";
  WEFT_RETURN_IF_ERROR(impl->LoadIndex());
  WEFT_RETURN_IF_ERROR(impl->CheckEntries());
  const int num_shards = impl->header.num_shards;
  impl->shards.resize(num_shards);
  for (int s = 0; s < num_shards; ++s) {
    Impl::Shard& shard = impl->shards[s];
    shard.path = absl::StrFormat("%s.data-%05d-of-%05d", prefix, s, num_shards);
    WEFT_RETURN_IF_ERROR(
        OpenFile(shard.path,
                 absl::StrCat("data shard ", s, " of ", num_shards,
                              " named by ", impl->index_path),
                 &shard.file, &shard.size));
  }
  return std::unique_ptr<TensorBundleReader>(
      new TensorBundleReader(std::move(impl)));
}

TensorBundleReader::TensorBundleReader(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}

TensorBundleReader::~TensorBundleReader() = default;

const std::vector<std::string>& TensorBundleReader::keys() const {
  return impl_->keys;
}

const BundleEntry* TensorBundleReader::Find(absl::string_view key) const {
  return impl_->FindEntry(key, nullptr);
}

StatusOr<Tensor> TensorBundleReader::Read(absl::string_view key,
                                          Allocator* allocator) const {
  size_t i = 0;
  const BundleEntry* entry = impl_->FindEntry(key, &i);
  if (entry == nullptr) {
    return errors::NotFound(impl_->index_path, ": no tensor under key '",
                            ShowKey(key), "'");
  }
  if (!impl_->slices[i].empty()) return impl_->ReadPartitioned(i, allocator);
  return impl_->ReadStored(*entry, ShowKey(key), allocator);
}

int64_t TensorBundleReader::total_bytes() const { return impl_->total_bytes; }

const std::string& TensorBundleReader::prefix() const { return impl_->prefix; }

}  // namespace weft
