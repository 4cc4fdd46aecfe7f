#include "tools/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace weft {
namespace {

// .npy stores little-endian data and weft copies it byte for byte.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "tools/npy.cc assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// Magic, two version bytes, then a 2-byte (v1) or 4-byte (v2, v3) length.
constexpr size_t kPreludeV1 = kMagicSize + 2 + 2;
constexpr size_t kPreludeV2 = kMagicSize + 2 + 4;
// numpy.save pads the prelude and header to this; readers need not care.
constexpr size_t kHeaderAlignment = 64;
// Nesting in a header beyond this is malformed (numpy's own is depth 2); the
// limit keeps the recursive parser's stack small on hostile input.
constexpr int kMaxHeaderDepth = 16;

struct NpyType {
  char kind;  // 'f', 'i', 'u' or 'b'
  int size;
  DataType dtype;
};

constexpr NpyType kNpyTypes[] = {
    {'f', 2, DT_HALF},   {'f', 4, DT_FLOAT},  {'f', 8, DT_DOUBLE},
    {'i', 1, DT_INT8},   {'i', 2, DT_INT16},  {'i', 4, DT_INT32},
    {'i', 8, DT_INT64},  {'u', 1, DT_UINT8},  {'u', 2, DT_UINT16},
    {'u', 4, DT_UINT32}, {'u', 8, DT_UINT64}, {'b', 1, DT_BOOL},
};

std::string SupportedDescrs() {
  std::vector<std::string> names;
  for (const NpyType& t : kNpyTypes) {
    names.push_back(absl::StrCat(std::string(1, t.kind), t.size));
  }
  return absl::StrJoin(names, ", ");
}

// A Python literal as numpy writes them in headers: str, bool, int, None,
// tuple, list and dict with str keys.
struct PyValue {
  enum class Kind { kString, kBool, kInt, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string str;
  bool b = false;
  int64_t i = 0;
  std::vector<PyValue> items;
  std::vector<std::pair<std::string, PyValue>> entries;
};

const char* KindName(PyValue::Kind kind) {
  switch (kind) {
    case PyValue::Kind::kString:
      return "a string";
    case PyValue::Kind::kBool:
      return "a bool";
    case PyValue::Kind::kInt:
      return "an int";
    case PyValue::Kind::kNone:
      return "None";
    case PyValue::Kind::kTuple:
      return "a tuple";
    case PyValue::Kind::kList:
      return "a list";
    case PyValue::Kind::kDict:
      return "a dict";
  }
  return "a value";
}

class HeaderParser {
 public:
  explicit HeaderParser(absl::string_view text) : text_(text) {}

  Status ParseDict(PyValue* out) {
    WEFT_RETURN_IF_ERROR(ParseValue(out, 0));
    if (out->kind != PyValue::Kind::kDict) {
      return errors::InvalidArgument("the header is ", KindName(out->kind),
                                     ", not a dict");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    return Status();
  }

 private:
  Status Error(absl::string_view what) const {
    return errors::InvalidArgument("header offset ", pos_, ": ", what);
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool ConsumeWord(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    size_t end = pos_ + word.size();
    if (end < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[end])) ||
         text_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }

  Status ParseValue(PyValue* out, int depth) {
    if (depth > kMaxHeaderDepth) return Error("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) return Error("unexpected end of header");
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      out->kind = PyValue::Kind::kString;
      return ParseString(&out->str);
    }
    if (c == '{') return ParseDictBody(out, depth);
    if (c == '(' || c == '[') return ParseSequence(out, depth);
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return ParseInt(out);
    if (ConsumeWord("True") || ConsumeWord("False")) {
      out->kind = PyValue::Kind::kBool;
      out->b = c == 'T';
      return Status();
    }
    if (ConsumeWord("None")) {
      out->kind = PyValue::Kind::kNone;
      return Status();
    }
    return Error(
        absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }

  Status ParseString(std::string* out) {
    char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out->push_back(text_[pos_++]);
    }
    if (pos_ >= text_.size()) return Error("unterminated string");
    ++pos_;
    return Status();
  }

  Status ParseInt(PyValue* out) {
    bool negative = text_[pos_] == '-';
    if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
    size_t start = pos_;
    uint64_t value = 0;
    constexpr uint64_t kLimit = std::numeric_limits<int64_t>::max();
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      uint64_t digit = text_[pos_] - '0';
      if (value > (kLimit - digit) / 10) return Error("integer too large");
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected digits");
    // Python 2's numpy wrote long integers with an L suffix.
    if (pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) {
      ++pos_;
    }
    out->kind = PyValue::Kind::kInt;
    out->i =
        negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
    return Status();
  }

  Status ParseSequence(PyValue* out, int depth) {
    char close = text_[pos_] == '(' ? ')' : ']';
    out->kind = close == ')' ? PyValue::Kind::kTuple : PyValue::Kind::kList;
    ++pos_;
    while (true) {
      if (Consume(close)) return Status();
      PyValue item;
      WEFT_RETURN_IF_ERROR(ParseValue(&item, depth + 1));
      out->items.push_back(std::move(item));
      if (Consume(',')) continue;
      if (Consume(close)) return Status();
      return Error(
          absl::StrCat("expected ',' or '", std::string(1, close), "'"));
    }
  }

  Status ParseDictBody(PyValue* out, int depth) {
    out->kind = PyValue::Kind::kDict;
    ++pos_;
    while (true) {
      if (Consume('}')) return Status();
      SkipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
        return Error("expected a quoted key or '}'");
      }
      std::string key;
      WEFT_RETURN_IF_ERROR(ParseString(&key));
      if (!Consume(':')) return Error("expected ':' after a key");
      PyValue value;
      WEFT_RETURN_IF_ERROR(ParseValue(&value, depth + 1));
      for (const auto& entry : out->entries) {
        if (entry.first == key) {
          return Error(absl::StrCat("key '", key, "' appears twice"));
        }
      }
      out->entries.emplace_back(std::move(key), std::move(value));
      if (Consume(',')) continue;
      if (Consume('}')) return Status();
      return Error("expected ',' or '}'");
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

StatusOr<DataType> DtypeFromDescr(const PyValue& descr) {
  if (descr.kind == PyValue::Kind::kList) {
    return errors::InvalidArgument(
        "structured dtypes (a list as 'descr') are not supported");
  }
  if (descr.kind != PyValue::Kind::kString) {
    return errors::InvalidArgument("'descr' is ", KindName(descr.kind),
                                   ", expected a string like '<f4'");
  }
  absl::string_view s = descr.str;
  char order = '=';
  if (!s.empty() &&
      (s[0] == '<' || s[0] == '>' || s[0] == '|' || s[0] == '=')) {
    order = s[0];
    s.remove_prefix(1);
  }
  const NpyType* match = nullptr;
  if (s.size() == 2) {
    for (const NpyType& t : kNpyTypes) {
      if (s[0] == t.kind && s[1] == '0' + t.size) match = &t;
    }
  }
  if (match == nullptr) {
    return errors::InvalidArgument("dtype '", descr.str,
                                   "' is not supported (supported: ",
                                   SupportedDescrs(), ", little-endian)");
  }
  if (order == '>' && match->size > 1) {
    return errors::InvalidArgument(
        "dtype '", descr.str,
        "' is big-endian; only little-endian data is supported (convert "
        "with arr.astype(arr.dtype.newbyteorder('<')))");
  }
  return match->dtype;
}

struct NpyHeader {
  DataType dtype = DT_INVALID;
  TensorShape shape;
  size_t data_offset = 0;
};

struct Prelude {
  size_t size = 0;          // magic, version and header length
  uint64_t header_len = 0;  // the header text that follows
};

// Checks the magic and version and reads the header length from the first
// bytes of a file of `file_size` bytes.
StatusOr<Prelude> ParsePrelude(absl::string_view bytes, uint64_t file_size) {
  if (bytes.size() < kMagicSize + 2 ||
      bytes.substr(0, kMagicSize) != absl::string_view(kMagic, kMagicSize)) {
    return errors::InvalidArgument(
        "not a .npy file (it does not start with \\x93NUMPY)");
  }
  int major = static_cast<unsigned char>(bytes[kMagicSize]);
  int minor = static_cast<unsigned char>(bytes[kMagicSize + 1]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return errors::InvalidArgument("unsupported .npy format version ", major,
                                   ".", minor,
                                   " (1.0, 2.0 and 3.0 are supported)");
  }
  Prelude p;
  p.size = major == 1 ? kPreludeV1 : kPreludeV2;
  if (bytes.size() < p.size) {
    return errors::InvalidArgument("truncated .npy header (", file_size,
                                   " bytes in the file)");
  }
  for (size_t k = p.size; k-- > kMagicSize + 2;) {
    p.header_len = (p.header_len << 8) | static_cast<unsigned char>(bytes[k]);
  }
  if (p.header_len > file_size - p.size) {
    return errors::InvalidArgument("truncated .npy header: it declares ",
                                   p.header_len, " bytes but the file has ",
                                   file_size - p.size, " after its prelude");
  }
  return p;
}

// Parses the prelude and header; `bytes` holds at least both, `file_size` is
// the size of the whole file.
StatusOr<NpyHeader> ParseHeader(absl::string_view bytes, uint64_t file_size) {
  WEFT_ASSIGN_OR_RETURN(Prelude prelude, ParsePrelude(bytes, file_size));
  if (bytes.size() < prelude.size + prelude.header_len) {
    return errors::Internal("the .npy header was not read whole");
  }
  absl::string_view text = bytes.substr(prelude.size, prelude.header_len);

  PyValue dict;
  HeaderParser parser(text);
  WEFT_RETURN_IF_ERROR_CTX(parser.ParseDict(&dict), ".npy header");
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, value] : dict.entries) {
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran = &value;
    } else if (key == "shape") {
      shape = &value;
    } else {
      return errors::InvalidArgument(".npy header has an unexpected key '", key,
                                     "' (expected descr, fortran_order and "
                                     "shape)");
    }
  }
  for (auto [value, name] : {std::make_pair(descr, "descr"),
                             std::make_pair(fortran, "fortran_order"),
                             std::make_pair(shape, "shape")}) {
    if (value == nullptr) {
      return errors::InvalidArgument(".npy header has no '", name, "' key");
    }
  }

  NpyHeader header;
  WEFT_ASSIGN_OR_RETURN(header.dtype, DtypeFromDescr(*descr));
  if (fortran->kind != PyValue::Kind::kBool) {
    return errors::InvalidArgument("'fortran_order' is ",
                                   KindName(fortran->kind),
                                   ", expected True or False");
  }
  if (fortran->b) {
    return errors::InvalidArgument(
        "fortran_order is True; only C-order arrays are supported (save "
        "numpy.ascontiguousarray(arr) instead)");
  }
  if (shape->kind != PyValue::Kind::kTuple) {
    return errors::InvalidArgument("'shape' is ", KindName(shape->kind),
                                   ", expected a tuple of ints");
  }
  std::vector<int64_t> dims;
  for (const PyValue& d : shape->items) {
    if (d.kind != PyValue::Kind::kInt) {
      return errors::InvalidArgument("'shape' holds ", KindName(d.kind),
                                     ", expected ints");
    }
    dims.push_back(d.i);
  }
  auto built = TensorShape::Build(dims);
  if (!built.ok()) {
    return AddContext(
        built.status(),
        absl::StrCat("'shape' (", absl::StrJoin(dims, ", "), ")"));
  }
  header.shape = *std::move(built);
  header.data_offset = prelude.size + prelude.header_len;
  return header;
}

// The data must hold exactly the elements the header announces.
Status CheckDataSize(const NpyHeader& header, uint64_t data_bytes) {
  uint64_t elem = DataTypeSize(header.dtype);
  uint64_t n = static_cast<uint64_t>(header.shape.num_elements());
  // n * elem can pass 2^64 for absurd shapes, so compare by division first.
  bool fits = n <= data_bytes / elem;
  if (fits && n * elem == data_bytes) return Status();
  std::string needed = n <= std::numeric_limits<uint64_t>::max() / elem
                           ? absl::StrCat(n * elem, " data bytes")
                           : std::string("more data bytes than fit in 64 bits");
  return errors::InvalidArgument(
      "shape ", header.shape.DebugString(), " of ", DataTypeName(header.dtype),
      " needs ", needed, " but the file has ", data_bytes, " after its header",
      fits ? "" : " (truncated?)");
}

// Bytes of a numpy bool are 0 or 1; anything else would be an invalid C++
// bool, so it is read as true.
void NormalizeBools(Tensor* t) {
  if (t->dtype() != DT_BOOL) return;
  auto* p = static_cast<unsigned char*>(t->raw_data());
  for (int64_t k = 0; k < t->NumElements(); ++k) p[k] = p[k] != 0;
}

StatusOr<Tensor> AllocateFor(const NpyHeader& header) {
  return Tensor::Allocate(DefaultCpuAllocator(), header.dtype, header.shape);
}

// numpy.save's spelling: '<' for little-endian, '|' where byte order does
// not apply; empty for dtypes the format has no code for here.
std::string DescrFor(DataType dtype) {
  for (const NpyType& t : kNpyTypes) {
    if (t.dtype == dtype) {
      return absl::StrCat(t.size == 1 ? "|" : "<", std::string(1, t.kind),
                          t.size);
    }
  }
  return "";
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

StatusOr<Tensor> ParseNpy(absl::string_view bytes, absl::string_view source) {
  auto header = ParseHeader(bytes, bytes.size());
  if (!header.ok()) return AddContext(header.status(), source);
  Status size_ok = CheckDataSize(*header, bytes.size() - header->data_offset);
  if (!size_ok.ok()) return AddContext(size_ok, source);
  auto tensor = AllocateFor(*header);
  if (!tensor.ok()) return AddContext(tensor.status(), source);
  if (tensor->TotalBytes() > 0) {
    std::memcpy(tensor->raw_data(), bytes.data() + header->data_offset,
                tensor->TotalBytes());
  }
  NormalizeBools(&*tensor);
  return tensor;
}

StatusOr<Tensor> ReadNpy(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
  if (f == nullptr) {
    return errors::NotFound(path, ": cannot open: ", std::strerror(errno));
  }
  auto read_error = [&path](absl::string_view what) {
    return errors::InvalidArgument(path, ": cannot ", what, ": ",
                                   std::strerror(errno));
  };
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return read_error("seek");
  long end = std::ftell(f.get());  // NOLINT(runtime/int): ftell's type
  if (end < 0) return read_error("tell its size");
  if (std::fseek(f.get(), 0, SEEK_SET) != 0) return read_error("seek");
  uint64_t file_size = static_cast<uint64_t>(end);

  // The prelude says how long the header is; read that much, then the data
  // straight into the tensor.
  std::string head(std::min<uint64_t>(file_size, kPreludeV2), '\0');
  if (std::fread(head.data(), 1, head.size(), f.get()) != head.size()) {
    return read_error("read");
  }
  auto prelude = ParsePrelude(head, file_size);
  if (!prelude.ok()) return AddContext(prelude.status(), path);
  head.resize(prelude->size + prelude->header_len);
  if (std::fseek(f.get(), 0, SEEK_SET) != 0) return read_error("seek");
  if (std::fread(head.data(), 1, head.size(), f.get()) != head.size()) {
    return read_error("read");
  }
  auto header = ParseHeader(head, file_size);
  if (!header.ok()) return AddContext(header.status(), path);
  Status size_ok = CheckDataSize(*header, file_size - header->data_offset);
  if (!size_ok.ok()) return AddContext(size_ok, path);
  auto tensor = AllocateFor(*header);
  if (!tensor.ok()) return AddContext(tensor.status(), path);
  size_t bytes = tensor->TotalBytes();
  if (bytes > 0 && std::fread(tensor->raw_data(), 1, bytes, f.get()) != bytes) {
    return read_error("read the data");
  }
  NormalizeBools(&*tensor);
  return tensor;
}

StatusOr<std::string> SerializeNpy(const Tensor& tensor) {
  std::string descr = DescrFor(tensor.dtype());
  if (descr.empty()) {
    std::vector<std::string> names;
    for (const NpyType& t : kNpyTypes) names.push_back(DataTypeName(t.dtype));
    return errors::InvalidArgument(
        "cannot write a ", DataTypeName(tensor.dtype()),
        " tensor as .npy (supported: ", absl::StrJoin(names, ", "), ")");
  }
  if (!tensor.IsInitialized()) {
    return errors::InvalidArgument("cannot write an uninitialized tensor");
  }
  if (tensor.memory_space() != MemorySpace::kHost) {
    return errors::InvalidArgument(
        "cannot write a tensor in device memory; copy it to the host first");
  }
  std::string shape;
  for (int i = 0; i < tensor.dims(); ++i) {
    absl::StrAppend(&shape, i > 0 ? ", " : "", tensor.dim_size(i));
  }
  if (tensor.dims() == 1) shape += ",";
  std::string header =
      absl::StrCat("{'descr': '", descr,
                   "', 'fortran_order': False, 'shape': (", shape, "), }");
  size_t unpadded = kPreludeV1 + header.size() + 1;
  header.append(
      (kHeaderAlignment - unpadded % kHeaderAlignment) % kHeaderAlignment, ' ');
  header.push_back('\n');

  std::string out(kMagic, kMagicSize);
  out.push_back('\x01');
  out.push_back('\x00');
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.TotalBytes());
  return out;
}

Status WriteNpy(const Tensor& tensor, const std::string& path) {
  auto bytes = SerializeNpy(tensor);
  if (!bytes.ok()) return AddContext(bytes.status(), path);
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (f == nullptr) {
    return errors::InvalidArgument(path,
                                   ": cannot create: ", std::strerror(errno));
  }
  if (std::fwrite(bytes->data(), 1, bytes->size(), f.get()) != bytes->size() ||
      std::fclose(f.release()) != 0) {
    return errors::InvalidArgument(path,
                                   ": cannot write: ", std::strerror(errno));
  }
  return Status();
}

}  // namespace weft
