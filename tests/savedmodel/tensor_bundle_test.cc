// TensorBundleReader on bundles TensorFlow wrote
// (tests/savedmodel/gen_tensor_bundles.py), against what TensorFlow's own
// reader returned for them (testdata/manifest.txt), and on damaged copies.
#include "savedmodel/tensor_bundle.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "savedmodel/tensor_slice_key.h"

namespace weft {
namespace tensor_bundle_test {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
namespace fs = std::filesystem;

const std::string kTestdata =
    std::string(WEFT_SOURCE_DIR) + "/tests/savedmodel/testdata";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string Unhex(absl::string_view hex) { return absl::HexStringToBytes(hex); }

struct Expected {
  std::string key;
  std::string dtype;
  std::string shape;  // "[2,3]"
  std::string value;  // hex bytes, or comma-separated hex strings
};

std::map<std::string, std::vector<Expected>> Manifest() {
  std::map<std::string, std::vector<Expected>> out;
  std::istringstream in(ReadFile(kTestdata + "/manifest.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f = absl::StrSplit(line, '\t');
    EXPECT_EQ(f.size(), 5u) << line;
    if (f.size() != 5) continue;
    out[f[0]].push_back({Unhex(f[1]), f[2], f[3], f[4]});
  }
  return out;
}

std::string ShapeString(const TensorShape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape.dim_sizes(), ","), "]");
}

// The message is one line and starts with `file`.
void ExpectOneLine(const Status& s, const std::string& file) {
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), StartsWith(file));
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr("\n")));
}

TEST(TensorBundleTest, EveryBundleMatchesTensorFlow) {
  const auto manifest = Manifest();
  ASSERT_EQ(manifest.size(),
            5u);  // dtypes sharded partitioned object reblocked
  for (const auto& [bundle, expected] : manifest) {
    SCOPED_TRACE(bundle);
    auto reader = TensorBundleReader::Open(kTestdata + "/" + bundle + "/ckpt");
    ASSERT_TRUE(reader.ok()) << reader.status();
    std::vector<std::string> want_keys;
    for (const Expected& e : expected) want_keys.push_back(e.key);
    EXPECT_EQ((*reader)->keys(), want_keys);
    for (const Expected& e : expected) {
      SCOPED_TRACE(e.key);
      auto t = (*reader)->Read(e.key);
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_EQ(DataTypeName(t->dtype()), e.dtype);
      EXPECT_EQ(ShapeString(t->shape()), e.shape);
      if (e.dtype == "string") {
        std::vector<std::string> want;
        if (t->NumElements() > 0) {
          for (absl::string_view h : absl::StrSplit(e.value, ',')) {
            want.push_back(Unhex(h));
          }
        }
        ASSERT_EQ(static_cast<int64_t>(want.size()), t->NumElements());
        const auto* got = static_cast<const std::string*>(t->raw_data());
        for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got[i], want[i]);
      } else {
        ASSERT_EQ(t->TotalBytes(), e.value.size() / 2);
        EXPECT_EQ(
            absl::BytesToHexString(absl::string_view(
                static_cast<const char*>(t->raw_data()), t->TotalBytes())),
            e.value);
      }
    }
  }
}

int64_t DataBytes(const std::string& dir) {
  int64_t total = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    if (f.path().filename().string().find(".data-") != std::string::npos) {
      total += static_cast<int64_t>(f.file_size());
    }
  }
  return total;
}

TEST(TensorBundleTest, TotalBytesIsWhatReadsRead) {
  // TensorFlow packs tensors without padding (data_alignment 1), so every
  // byte of the shards belongs to one key (a slice's to its full tensor).
  for (const char* bundle : {"dtypes", "sharded", "partitioned", "object"}) {
    SCOPED_TRACE(bundle);
    const std::string dir = kTestdata + "/" + bundle;
    auto reader = TensorBundleReader::Open(dir + "/ckpt");
    ASSERT_TRUE(reader.ok()) << reader.status();
    EXPECT_EQ((*reader)->total_bytes(), DataBytes(dir));
    EXPECT_EQ((*reader)->prefix(), dir + "/ckpt");
  }
}

TEST(TensorBundleTest, FindGivesTheEntry) {
  auto reader = TensorBundleReader::Open(kTestdata + "/dtypes/ckpt");
  ASSERT_TRUE(reader.ok()) << reader.status();
  const BundleEntry* e = (*reader)->Find("f32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->dtype, DT_FLOAT);
  EXPECT_EQ(ShapeString(e->shape), "[2,3]");
  EXPECT_EQ(e->size, 24);
  EXPECT_EQ((*reader)->Find("f3"), nullptr);
  EXPECT_EQ((*reader)->Find(""), nullptr);  // the header is no tensor
  auto missing = (*reader)->Read("nope");
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  ExpectOneLine(missing.status(), kTestdata + "/dtypes/ckpt.index");
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("'nope'"));
}

TEST(TensorBundleTest, PartitionedVariablesListTheirSlices) {
  auto reader = TensorBundleReader::Open(kTestdata + "/partitioned/ckpt");
  ASSERT_TRUE(reader.ok()) << reader.status();
  const BundleEntry* emb = (*reader)->Find("emb");
  ASSERT_NE(emb, nullptr);
  EXPECT_EQ(emb->slices.size(), 3u);
  const BundleEntry* cols = (*reader)->Find("cols");
  ASSERT_NE(cols, nullptr);
  EXPECT_EQ(cols->slices.size(), 2u);
}

// Keys as TensorFlow's Saver and SaveV2 wrote them into
// testdata/partitioned/ckpt.index.
TEST(TensorSliceKeyTest, MatchesTensorFlowsKeys) {
  EXPECT_EQ(EncodeTensorSliceKey("emb", {{0, 2}, {0, 3}}),
            std::string("\x00"
                        "emb\x00\x01\x01\x02\x80\x82\x80\x83",
                        12));
  EXPECT_EQ(EncodeTensorSliceKey("emb", {{4, 1}, {0, 3}}),
            std::string("\x00"
                        "emb\x00\x01\x01\x02\x84\x81\x80\x83",
                        12));
  EXPECT_EQ(EncodeTensorSliceKey("cols", {{0, -1}, {2, 4}}),
            std::string("\x00"
                        "cols\x00\x01\x01\x02\x80\x7f\x82\x84",
                        13));
  auto reader = TensorBundleReader::Open(kTestdata + "/partitioned/ckpt");
  ASSERT_TRUE(reader.ok()) << reader.status();
  EXPECT_NE((*reader)->Find(EncodeTensorSliceKey("emb", {{2, 2}, {0, 3}})),
            nullptr);
}

TEST(TensorSliceKeyTest, OrderedCodeNumbers) {
  auto num = [](uint64_t v) {
    std::string s;
    ordered_code::AppendNumIncreasing(&s, v);
    return absl::BytesToHexString(s);
  };
  auto sig = [](int64_t v) {
    std::string s;
    ordered_code::AppendSignedNumIncreasing(&s, v);
    return absl::BytesToHexString(s);
  };
  EXPECT_EQ(num(0), "00");
  EXPECT_EQ(num(1), "0101");
  EXPECT_EQ(num(256), "020100");
  EXPECT_EQ(sig(0), "80");
  EXPECT_EQ(sig(-1), "7f");
  EXPECT_EQ(sig(63), "bf");
  EXPECT_EQ(sig(-64), "40");
  EXPECT_EQ(sig(64), "c040");
  EXPECT_EQ(sig(-65), "3fbf");
  EXPECT_EQ(sig(8191), "dfff");
  EXPECT_EQ(sig(8192), "e02000");
  EXPECT_EQ(sig(int64_t{1} << 62), "ffc04000000000000000");
  EXPECT_EQ(sig(INT64_MAX), "ffc07fffffffffffffff");
  EXPECT_EQ(sig(INT64_MIN), "003f8000000000000000");
  std::string s;
  ordered_code::AppendString(&s, std::string("a\x00\xff"
                                             "b",
                                             4));
  EXPECT_EQ(absl::BytesToHexString(s), "6100ffff00620001");
}

// ---- damaged bundles --------------------------------------------------------

struct CorruptCase {
  const char* name;
  bool open_fails;
  const char* key;   // named in the message
  const char* what;  // in the message
};

TEST(TensorBundleTest, CorruptIndexEntriesGiveOneLine) {
  const CorruptCase cases[] = {
      {"wrong_size", true, "'a'", "size 28 bytes does not match float [2,3]"},
      {"wrong_dtype", true, "'a'", "does not match double [2,3]"},
      {"unknown_dtype", true, "'a'", "99"},
      {"absurd_shape", true, "'a'", ""},
      {"huge_shape", false, "'a'", "past the end of the file"},
      {"bad_shard", true, "'b'", "shard 3"},
      {"missing_slice", true, "'p'", "slice 2,2 is missing"},
      {"resource", false, "'b'", "resource tensors are not supported"},
  };
  for (const CorruptCase& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string prefix = kTestdata + "/corrupt/" + c.name + "/ckpt";
    auto reader = TensorBundleReader::Open(prefix);
    Status s;
    if (c.open_fails) {
      ASSERT_FALSE(reader.ok());
      s = reader.status();
      ExpectOneLine(s, prefix + ".index");
    } else {
      ASSERT_TRUE(reader.ok()) << reader.status();
      bool failed = false;
      for (const std::string& key : (*reader)->keys()) {
        auto t = (*reader)->Read(key);
        if (t.ok()) continue;
        EXPECT_FALSE(failed) << "a second failing key: " << t.status();
        failed = true;
        s = t.status();
        ExpectOneLine(s, prefix);
      }
      EXPECT_TRUE(failed);
    }
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.key));
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.what));
  }
}

class TempBundle {
 public:
  // A copy of testdata/<bundle> in a fresh directory.
  explicit TempBundle(const std::string& bundle) {
    std::string pattern =
        (fs::temp_directory_path() / "weft_bundle_XXXXXX").string();
    const char* dir = mkdtemp(pattern.data());
    EXPECT_NE(dir, nullptr);
    dir_ = dir;
    fs::copy(kTestdata + "/" + bundle, dir_);
  }
  ~TempBundle() { fs::remove_all(dir_); }
  std::string prefix() const { return dir_ + "/ckpt"; }
  std::string index() const { return prefix() + ".index"; }
  std::string shard(int i, int n) const {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ".data-%05d-of-%05d", i, n);
    return prefix() + buf;
  }

 private:
  std::string dir_;
};

TEST(TensorBundleTest, MissingIndexOrShard) {
  TempBundle b("sharded");
  auto none = TensorBundleReader::Open(b.prefix() + "_nothing");
  EXPECT_TRUE(absl::IsNotFound(none.status()));
  ExpectOneLine(none.status(), b.prefix() + "_nothing.index");

  fs::remove(b.shard(1, 2));
  auto missing = TensorBundleReader::Open(b.prefix());
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  ExpectOneLine(missing.status(), b.shard(1, 2));
}

// Reads every key; each either gives TensorFlow's value or fails with one
// line naming a file of the bundle and the key.
void ReadAllChecked(const TensorBundleReader& reader, const std::string& prefix,
                    const std::vector<Expected>& expected, int* failures) {
  for (const Expected& e : expected) {
    auto t = reader.Read(e.key);
    if (!t.ok()) {
      ++*failures;
      ExpectOneLine(t.status(), prefix);
      EXPECT_THAT(std::string(t.status().message()),
                  HasSubstr("'" + absl::CHexEscape(e.key) + "'"));
      continue;
    }
    EXPECT_EQ(ShapeString(t->shape()), e.shape);
  }
}

TEST(TensorBundleTest, TruncatedShard) {
  const auto manifest = Manifest();
  TempBundle b("dtypes");
  const std::string data = ReadFile(b.shard(0, 1));
  for (size_t keep : {size_t{0}, data.size() / 2, data.size() - 1}) {
    SCOPED_TRACE(keep);
    WriteFile(b.shard(0, 1), data.substr(0, keep));
    auto reader = TensorBundleReader::Open(b.prefix());
    ASSERT_TRUE(reader.ok()) << reader.status();
    int failures = 0;
    ReadAllChecked(**reader, b.shard(0, 1), manifest.at("dtypes"), &failures);
    EXPECT_GT(failures, 0);
  }
  // The message says what happened.
  WriteFile(b.shard(0, 1), data.substr(0, data.size() / 2));
  auto reader = TensorBundleReader::Open(b.prefix());
  ASSERT_TRUE(reader.ok());
  const BundleEntry* last = nullptr;
  std::string last_key;
  for (const std::string& key : (*reader)->keys()) {
    const BundleEntry* e = (*reader)->Find(key);
    if (last == nullptr || e->offset > last->offset) last = e, last_key = key;
  }
  auto t = (*reader)->Read(last_key);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("the shard is truncated"));
}

TEST(TensorBundleTest, FlippedDataBytesFailTheirKey) {
  const auto manifest = Manifest();
  TempBundle b("dtypes");
  const std::string data = ReadFile(b.shard(0, 1));
  {
    std::string bad = data;
    auto reader = TensorBundleReader::Open(b.prefix());
    ASSERT_TRUE(reader.ok());
    bad[(*reader)->Find("f32")->offset + 5] ^= 0x10;
    WriteFile(b.shard(0, 1), bad);
    auto t = (*reader)->Read("f32");
    ExpectOneLine(t.status(), b.shard(0, 1));
    EXPECT_THAT(std::string(t.status().message()),
                HasSubstr("key 'f32': checksum mismatch (stored 0x"));
    EXPECT_TRUE((*reader)->Read("f64").ok());
  }
  // Every byte in turn: only the key owning it fails, each in one line (a
  // string's length bytes fail on the lengths' own checksum or the sizes).
  for (size_t i = 0; i < data.size(); ++i) {
    std::string bad = data;
    bad[i] ^= 0x41;
    WriteFile(b.shard(0, 1), bad);
    auto reader = TensorBundleReader::Open(b.prefix());
    ASSERT_TRUE(reader.ok());
    int failures = 0;
    ReadAllChecked(**reader, b.shard(0, 1), manifest.at("dtypes"), &failures);
    ASSERT_EQ(failures, 1) << "byte " << i;
  }
}

TEST(TensorBundleTest, DamagedIndexNeverCrashes) {
  const auto manifest = Manifest();
  for (const char* bundle : {"dtypes", "reblocked", "partitioned"}) {
    SCOPED_TRACE(bundle);
    TempBundle b(bundle);
    const std::string index = ReadFile(b.index());
    int opened = 0;
    // Each byte flipped.
    for (size_t i = 0; i < index.size(); ++i) {
      std::string bad = index;
      bad[i] ^= 0x20;
      WriteFile(b.index(), bad);
      auto reader = TensorBundleReader::Open(b.prefix());
      if (!reader.ok()) {
        ExpectOneLine(reader.status(), b.index());
        continue;
      }
      // Only the footer's zero padding is not checksummed.
      ++opened;
      int failures = 0;
      ReadAllChecked(**reader, b.prefix(), manifest.at(bundle), &failures);
      EXPECT_EQ(failures, 0);
    }
    EXPECT_LT(opened, 40) << "flips the reader did not notice";
    // Truncated at every length.
    for (size_t n = 0; n < index.size(); ++n) {
      WriteFile(b.index(), index.substr(0, n));
      auto reader = TensorBundleReader::Open(b.prefix());
      ASSERT_FALSE(reader.ok()) << n;
      ExpectOneLine(reader.status(), b.index());
    }
  }
}

TEST(TensorBundleTest, FlippedIndexBlockIsAChecksumMismatch) {
  TempBundle b("dtypes");
  std::string index = ReadFile(b.index());
  index[10] ^= 0x01;  // inside the first data block
  WriteFile(b.index(), index);
  auto reader = TensorBundleReader::Open(b.prefix());
  ExpectOneLine(reader.status(), b.index());
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr("data block 0 at offset 0"));
  EXPECT_THAT(std::string(reader.status().message()),
              HasSubstr("checksum mismatch"));
}

}  // namespace tensor_bundle_test
}  // namespace weft
