// FileBytes (graph/file_bytes.h): regular files are mapped, other files
// read to their end, and missing files and directories are clear errors.
#include "graph/file_bytes.h"

#include <sys/stat.h>

#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "graph_def_testutil.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using weft::testing::TempDir;
using weft::testing::WriteFile;

TEST(FileBytesTest, RegularFileIsMapped) {
  TempDir dir;
  const std::string path = dir.File("g.pb");
  std::string content(100000, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = char(i * 7);
  WriteFile(path, content);
  auto bytes = FileBytes::Read(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(bytes->mapped());
  EXPECT_EQ(bytes->view(), content);
  // Moved, the mapping goes with it.
  FileBytes moved = *std::move(bytes);
  EXPECT_EQ(moved.view(), content);
  FileBytes assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.view(), content);
}

TEST(FileBytesTest, EmptyFile) {
  TempDir dir;
  const std::string path = dir.File("empty.pb");
  WriteFile(path, "");
  auto bytes = FileBytes::Read(path);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_TRUE(bytes->view().empty());
}

// A pipe reports no size: it is read to its end.
TEST(FileBytesTest, PipeIsReadToItsEnd) {
  TempDir dir;
  const std::string path = dir.File("fifo");
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  const std::string content(200000, 'p');
  std::thread writer([&] { WriteFile(path, content); });
  auto bytes = FileBytes::Read(path);
  writer.join();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_FALSE(bytes->mapped());
  EXPECT_EQ(bytes->view(), content);
}

TEST(FileBytesTest, Errors) {
  TempDir dir;
  auto missing = FileBytes::Read(dir.path() + "/none.pb");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              HasSubstr("cannot open graph file '" + dir.path() + "/none.pb'"));
  auto directory = FileBytes::Read(dir.path());
  EXPECT_FALSE(directory.ok());
  EXPECT_THAT(std::string(directory.status().message()),
              HasSubstr("it is a directory"));
}

}  // namespace
}  // namespace weft
