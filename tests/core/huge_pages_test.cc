// core/huge_pages.h: the huge-page decision from the environment and from
// a virtio balloon device's features, read from a sysfs tree built here.
#include "core/huge_pages.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

// A fresh directory standing for /sys, removed at the end of the test.
class FakeSysfs {
 public:
  FakeSysfs() {
    root_ =
        fs::temp_directory_path() /
        ("weft_sysfs_" +
         std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeSysfs() { fs::remove_all(root_); }

  // A device bound to `driver` whose features file holds `bits`.
  void AddDevice(const std::string& driver, const std::string& device,
                 const std::string& bits) {
    const fs::path dir = root_ / "bus" / "virtio" / "drivers" / driver / device;
    fs::create_directories(dir);
    std::ofstream(dir / "features") << bits << "\n";
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

// 64 feature bits, bit 0 first, with bit `set` (if any) on.
std::string FeatureBits(int set = -1, int other = -1) {
  std::string bits(64, '0');
  if (set >= 0) bits[set] = '1';
  if (other >= 0) bits[other] = '1';
  return bits;
}

TEST(HugePagesTest, NoSysfsMeansNoReporting) {
  FakeSysfs sys;
  EXPECT_FALSE(internal::BalloonReportsFreePages(sys.path()));
  EXPECT_FALSE(internal::BalloonReportsFreePages(sys.path() + "/missing"));
}

TEST(HugePagesTest, BalloonWithFreePageReporting) {
  FakeSysfs sys;
  // This VM's balloon: statistics, deflate on OOM, reporting (bit 5).
  sys.AddDevice("virtio_balloon", "virtio0",
                "0110010100000000000000000000000010000000");
  EXPECT_TRUE(internal::BalloonReportsFreePages(sys.path()));
}

TEST(HugePagesTest, BalloonWithoutReporting) {
  FakeSysfs sys;
  sys.AddDevice("virtio_balloon", "virtio3", FeatureBits(1, 2));
  EXPECT_FALSE(internal::BalloonReportsFreePages(sys.path()));
}

TEST(HugePagesTest, OtherDriversAndShortFilesDoNotCount) {
  FakeSysfs sys;
  sys.AddDevice("virtio_net", "virtio1",
                FeatureBits(5));  // bit 5 means something else
  sys.AddDevice("virtio_balloon", "virtio2", "01100");        // no bit 5 at all
  sys.AddDevice("virtio_balloon", "module", FeatureBits(5));  // not a device
  EXPECT_FALSE(internal::BalloonReportsFreePages(sys.path()));
  sys.AddDevice("virtio_balloon", "virtio4", FeatureBits(5));
  EXPECT_TRUE(internal::BalloonReportsFreePages(sys.path()));
}

TEST(HugePagesTest, EnvironmentDecidesFirst) {
  std::string why;
  for (const char* off : {"0", "off", "false"}) {
    EXPECT_FALSE(internal::HugePagesWanted(off, false, &why)) << off;
    EXPECT_EQ(why, std::string("WEFT_HUGE_PAGES=") + off);
  }
  for (const char* on : {"1", "on", "true"}) {
    EXPECT_TRUE(internal::HugePagesWanted(on, true, &why)) << on;
    EXPECT_EQ(why, std::string("WEFT_HUGE_PAGES=") + on);
  }
}

TEST(HugePagesTest, OtherwiseOffWhereFreePagesAreReported) {
  std::string why;
  EXPECT_TRUE(internal::HugePagesWanted(nullptr, false, &why));
  EXPECT_EQ(why, "the default");
  EXPECT_FALSE(internal::HugePagesWanted(nullptr, true, &why));
  EXPECT_NE(why.find("free page reporting"), std::string::npos) << why;
  // A value that is neither on nor off leaves the machine to decide.
  EXPECT_FALSE(internal::HugePagesWanted("maybe", true, nullptr));
  EXPECT_TRUE(internal::HugePagesWanted("", false, nullptr));
}

TEST(HugePagesTest, ProcessDecisionIsStableAndExplained) {
  const bool first = HugePagesAdvised();
  EXPECT_EQ(HugePagesAdvised(), first);
  EXPECT_FALSE(HugePagesReason().empty());
}

}  // namespace
}  // namespace weft
