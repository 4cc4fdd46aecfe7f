#include "tools/npy.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string Testdata(const std::string& name) {
  return std::string(WEFT_TOOLS_TESTDATA_DIR) + "/" + name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A .npy file from parts: the prelude for `major`, `header` as given (no
// padding added), then `data`.
std::string MakeNpy(const std::string& header, const std::string& data,
                    int major = 1) {
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  size_t len = header.size();
  int len_bytes = major == 1 ? 2 : 4;
  for (int k = 0; k < len_bytes; ++k) {
    out.push_back(static_cast<char>((len >> (8 * k)) & 0xff));
  }
  return out + header + data;
}

std::string Floats(std::initializer_list<float> values) {
  std::string out(values.size() * sizeof(float), '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// The element at `k` as a string that compares exactly: integers in decimal,
// floating values and bools through double (every half, float and double
// value is exactly a double, and a Python repr parses back to that double).
std::string ElementString(const Tensor& t, int64_t k) {
  std::string out;
  VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      out = absl::StrCat(static_cast<const T*>(t.raw_data())[k]);
    } else if constexpr (std::is_same_v<T, bool>) {
      out = static_cast<const bool*>(t.raw_data())[k] ? "1" : "0";
    } else if constexpr (!std::is_same_v<T, complex64> &&
                         !std::is_same_v<T, complex128>) {
      out = absl::StrCat(
          static_cast<double>(static_cast<const T*>(t.raw_data())[k]));
    }
  });
  return out;
}

std::string ExpectedString(const std::string& token, DataType dtype) {
  if (DataTypeIsFloating(dtype)) {
    double v;
    EXPECT_TRUE(absl::SimpleAtod(token, &v)) << token;
    return absl::StrCat(v);
  }
  return token;
}

// Every readable array NumPy saved: dtype, shape and every value as NumPy
// listed them in npy_fixtures.expected.
TEST(NpyTest, ReadsWhatNumpyWrote) {
  std::string expected = ReadFile(Testdata("npy_fixtures.expected"));
  ASSERT_FALSE(expected.empty());
  int files = 0;
  for (absl::string_view line : absl::StrSplit(expected, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> tokens =
        absl::StrSplit(line, ' ', absl::SkipEmpty());
    ASSERT_GE(tokens.size(), 3u) << line;
    SCOPED_TRACE(tokens[0]);
    auto t = ReadNpy(Testdata(tokens[0]));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(DataTypeName(t->dtype()), tokens[1]);
    std::string dims = tokens[2] == "scalar" ? "[]" : "[" + tokens[2] + "]";
    EXPECT_EQ(t->shape().DebugString(), dims);
    ASSERT_EQ(t->NumElements(), static_cast<int64_t>(tokens.size() - 3));
    for (int64_t k = 0; k < t->NumElements(); ++k) {
      EXPECT_EQ(ElementString(*t, k), ExpectedString(tokens[3 + k], t->dtype()))
          << "element " << k;
    }
    ++files;
  }
  EXPECT_EQ(files, 15);
}

// What weft writes is byte for byte what numpy.save wrote for the same
// array: the same header text and padding.
TEST(NpyTest, WritesWhatNumpyWrites) {
  for (const char* name :
       {"npy_f4_2x3.npy", "npy_f2_4.npy", "npy_f8_scalar.npy", "npy_i1_5.npy",
        "npy_i8_3.npy", "npy_u8_2.npy", "npy_b1_2x2.npy",
        "npy_f4_empty_0x3.npy", "mlp_input.npy", "mlp_expected.npy"}) {
    SCOPED_TRACE(name);
    auto t = ReadNpy(Testdata(name));
    ASSERT_TRUE(t.ok()) << t.status();
    auto bytes = SerializeNpy(*t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(*bytes, ReadFile(Testdata(name)));
  }
}

TEST(NpyTest, RoundTripsEveryDtype) {
  const DataType kTypes[] = {DT_HALF,   DT_FLOAT,  DT_DOUBLE, DT_INT8,
                             DT_INT16,  DT_INT32,  DT_INT64,  DT_UINT8,
                             DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL};
  for (DataType dtype : kTypes) {
    for (const TensorShape& shape : {TensorShape{}, TensorShape{7},
                                     TensorShape{2, 3, 4}, TensorShape{3, 0}}) {
      SCOPED_TRACE(absl::StrCat(DataTypeName(dtype), shape.DebugString()));
      Tensor t(dtype, shape);
      auto* bytes = static_cast<unsigned char*>(t.raw_data());
      for (size_t k = 0; k < t.TotalBytes(); ++k) {
        // Bools must hold 0 or 1; other types take any byte pattern.
        bytes[k] = dtype == DT_BOOL ? (k % 3 == 0) : (k * 37 + 11) & 0xff;
      }
      auto serialized = SerializeNpy(t);
      ASSERT_TRUE(serialized.ok()) << serialized.status();
      // The header ends on a 64-byte boundary, as numpy.save pads it.
      size_t header_len = static_cast<unsigned char>((*serialized)[8]) |
                          static_cast<unsigned char>((*serialized)[9]) << 8;
      EXPECT_EQ((10 + header_len) % 64, 0u);
      EXPECT_EQ((*serialized)[10 + header_len - 1], '\n');

      auto back = ParseNpy(*serialized, "mem.npy");
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->dtype(), dtype);
      EXPECT_EQ(back->shape(), shape);
      ASSERT_EQ(back->TotalBytes(), t.TotalBytes());
      EXPECT_EQ(std::memcmp(back->raw_data(), t.raw_data(), t.TotalBytes()), 0);
    }
  }
}

TEST(NpyTest, FileRoundTrip) {
  fs::path path = fs::temp_directory_path() /
                  absl::StrCat("weft_npy_test_", ::getpid(), ".npy");
  Tensor t(DT_FLOAT, {2, 2});
  float* p = t.data<float>();
  p[0] = 1.5f;
  p[1] = -2.0f;
  p[2] = 1e-20f;
  p[3] = 65536.0f;
  ASSERT_TRUE(WriteNpy(t, path.string()).ok());
  auto back = ReadNpy(path.string());
  fs::remove(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), t.shape());
  EXPECT_EQ(std::memcmp(back->raw_data(), p, 16), 0);
}

TEST(NpyTest, RefusesWhatItCannotHold) {
  struct Case {
    const char* file;
    const char* message;
  };
  for (const Case& c : {
           Case{"npy_bad_fortran.npy", "fortran_order is True"},
           Case{"npy_bad_bigendian.npy", "'>f4' is big-endian"},
           Case{"npy_bad_unicode.npy", "dtype '<U2' is not supported"},
           Case{"npy_bad_complex.npy", "dtype '<c8' is not supported"},
       }) {
    auto t = ReadNpy(Testdata(c.file));
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    std::string message(t.status().message());
    EXPECT_THAT(message, HasSubstr(Testdata(c.file))) << message;
    EXPECT_THAT(message, HasSubstr(c.message)) << message;
  }
}

TEST(NpyTest, ToleratesHeaderSpellings) {
  const std::string data = Floats({1, 2, 3});
  for (const char* header : {
           "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
           "{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}",
           "{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":(3 , )}",
           "{ 'descr' : '=f4' ,\n 'fortran_order' : False , 'shape' : ( 3 ) "
           "} \n",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }",
       }) {
    auto t = ParseNpy(MakeNpy(header, data), "mem.npy");
    ASSERT_TRUE(t.ok()) << header << ": " << t.status();
    EXPECT_EQ(t->shape(), TensorShape({3})) << header;
    EXPECT_EQ(t->data<float>()[2], 3.0f);
  }
  auto scalar =
      ParseNpy(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': ()}",
                       Floats({4})),
               "mem.npy");
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->dims(), 0);
  EXPECT_EQ(scalar->data<float>()[0], 4.0f);
  // Byte order means nothing for one-byte types.
  auto bytes = ParseNpy(
      MakeNpy("{'descr': '>u1', 'fortran_order': False, 'shape': (2,)}",
              "\x05\x06"),
      "mem.npy");
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->data<uint8_t>()[1], 6);
}

TEST(NpyTest, BoolBytesBeyondOneReadAsTrue) {
  auto t = ParseNpy(
      MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,)}",
              std::string("\x00\x02\x01", 3)),
      "mem.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  const auto* raw = static_cast<const unsigned char*>(t->raw_data());
  EXPECT_EQ(raw[0], 0);
  EXPECT_EQ(raw[1], 1);
  EXPECT_EQ(raw[2], 1);
}

TEST(NpyTest, MalformedFilesFailWithTheirReason) {
  const std::string ok_header =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}";
  const std::string two = Floats({1, 2});
  struct Case {
    std::string name;
    std::string bytes;
    std::string message;
  };
  std::string huge_len = MakeNpy(ok_header, two);
  huge_len[8] = '\xff';
  huge_len[9] = '\xff';
  std::vector<Case> cases = {
      {"empty", "", "not a .npy file"},
      {"magic", "\x93NUMPZ\x01\x00\x00\x00", "not a .npy file"},
      {"version", MakeNpy(ok_header, two, 4), "format version 4.0"},
      {"prelude", std::string("\x93NUMPY\x02\x00\x10", 9),
       "truncated .npy header"},
      {"header_len", huge_len, "declares 65535 bytes"},
      {"not_dict", MakeNpy("('<f4', False, (2,))", two), "not a dict"},
      {"unterminated", MakeNpy("{'descr: '<f4'}", two), "unterminated"},
      {"no_colon", MakeNpy("{'descr' '<f4'}", two), "expected ':'"},
      {"garbage", MakeNpy("{'descr': <f4}", two), "unexpected character"},
      {"after", MakeNpy(ok_header + " x", two), "after the dict"},
      {"missing_shape",
       MakeNpy("{'descr': '<f4', 'fortran_order': False}", two),
       "no 'shape' key"},
      {"extra_key",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
               "'x': 1}",
               two),
       "unexpected key 'x'"},
      {"dup_key",
       MakeNpy("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
               "'shape': (2,)}",
               two),
       "appears twice"},
      {"structured",
       MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
               "'shape': (2,)}",
               two),
       "structured dtypes"},
      {"descr_type",
       MakeNpy("{'descr': 4, 'fortran_order': False, 'shape': (2,)}", two),
       "'descr' is an int"},
      {"fortran_type",
       MakeNpy("{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", two),
       "'fortran_order' is an int"},
      {"shape_list",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", two),
       "'shape' is a list"},
      {"shape_str",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': ('2',)}",
               two),
       "'shape' holds a string"},
      {"negative",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", two),
       "'shape' (-2)"},
      {"int_overflow",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (99999999999999999999,)}",
               two),
       "integer too large"},
      {"absurd",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (1000000000000,)}",
               two),
       "needs 4000000000000 data bytes but the file has 8"},
      {"past_64_bits",
       MakeNpy("{'descr': '<f8', 'fortran_order': False, "
               "'shape': (4611686018427387904,)}",
               two),
       "more data bytes than fit in 64 bits"},
      {"too_many_elements",
       MakeNpy("{'descr': '<f4', 'fortran_order': False, "
               "'shape': (4294967296, 4294967296)}",
               two),
       "'shape' (4294967296, 4294967296)"},
      {"truncated", MakeNpy(ok_header, two.substr(0, 7)),
       "needs 8 data bytes but the file has 7 after its header (truncated?)"},
      {"trailing", MakeNpy(ok_header, two + "xyz"),
       "needs 8 data bytes but the file has 11"},
      {"deep", MakeNpy(std::string(5000, '(') + std::string(5000, ')'), two),
       "nested too deeply"},
  };
  for (const Case& c : cases) {
    auto t = ParseNpy(c.bytes, c.name + ".npy");
    ASSERT_FALSE(t.ok()) << c.name;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    std::string message(t.status().message());
    EXPECT_THAT(message, HasSubstr(c.name + ".npy: ")) << message;
    EXPECT_THAT(message, HasSubstr(c.message)) << c.name << ": " << message;
  }
}

// Every prefix of a valid file, and every single-byte change to its header,
// fails cleanly or parses: never a crash, never a read past the end (the
// sanitizer build runs this too).
TEST(NpyTest, CorruptedFilesNeverCrash) {
  const std::string good = ReadFile(Testdata("npy_f4_2x3.npy"));
  ASSERT_FALSE(good.empty());
  for (size_t len = 0; len < good.size(); ++len) {
    auto t = ParseNpy(good.substr(0, len), "prefix.npy");
    EXPECT_FALSE(t.ok()) << len;
  }
  for (size_t k = 0; k < 128 && k < good.size(); ++k) {
    for (int v : {0, 0x29, 0x7f, 0xff}) {
      std::string bad = good;
      bad[k] = static_cast<char>(v);
      auto t = ParseNpy(bad, "mutated.npy");
      if (t.ok()) {
        EXPECT_EQ(t->NumElements() * 4, 24);
      }
    }
  }
}

TEST(NpyTest, FileErrorsNameThePath) {
  auto missing = ReadNpy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("/nonexistent/dir/x.npy: cannot open"));
  auto dir = ReadNpy(fs::temp_directory_path().string());
  ASSERT_FALSE(dir.ok());
  EXPECT_THAT(std::string(dir.status().message()),
              HasSubstr(fs::temp_directory_path().string()));
  Status write = WriteNpy(Tensor(DT_FLOAT, {1}), "/nonexistent/dir/y.npy");
  ASSERT_FALSE(write.ok());
  EXPECT_THAT(std::string(write.message()),
              HasSubstr("/nonexistent/dir/y.npy: cannot create"));
}

TEST(NpyTest, UnwritableDtypesAreErrors) {
  for (DataType dtype : {DT_BFLOAT16, DT_COMPLEX64, DT_STRING}) {
    auto bytes = SerializeNpy(Tensor(dtype, {2}));
    ASSERT_FALSE(bytes.ok()) << DataTypeName(dtype);
    EXPECT_THAT(std::string(bytes.status().message()),
                HasSubstr("cannot write a " + DataTypeName(dtype)));
  }
  EXPECT_FALSE(SerializeNpy(Tensor()).ok());
}

}  // namespace
}  // namespace weft
