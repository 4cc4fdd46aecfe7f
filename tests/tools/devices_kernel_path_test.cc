// `weft devices` prints the CPU kernel path (device/cpu_isa.h) and why:
// detected, or forced lower by WEFT_CPU_ISA; a path the CPU lacks, or an
// unknown name, is refused on stderr and the detected path kept. Also its
// huge-page line, as WEFT_HUGE_PAGES sets it.
#include <cstdlib>
#include <string>

#include "device/cpu_isa.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_testutil.h"

namespace weft {
namespace devices_kernel_path_test {

using ::testing::HasSubstr;

class DevicesKernelPathTest : public CliTestBase {
 protected:
  void SetUp() override {
    CliTestBase::SetUp();
    // This process's own path is resolved before the variable changes, so
    // that only the child CLI sees the values set below.
    GetCpuIsaInfo();
    const char* old = std::getenv("WEFT_CPU_ISA");
    had_ = old != nullptr;
    if (had_) old_ = old;
  }
  void TearDown() override {
    if (had_) {
      setenv("WEFT_CPU_ISA", old_.c_str(), 1);
    } else {
      unsetenv("WEFT_CPU_ISA");
    }
    CliTestBase::TearDown();
  }

  // `weft devices ARGS` with WEFT_CPU_ISA set to `isa` (unset when null).
  CliResult Devices(const char* isa, const std::string& args) {
    if (isa == nullptr) {
      unsetenv("WEFT_CPU_ISA");
    } else {
      setenv("WEFT_CPU_ISA", isa, 1);
    }
    return RunCli("devices" + args);
  }

  bool had_ = false;
  std::string old_;
};

TEST_F(DevicesKernelPathTest, DetectedByDefault) {
  const std::string detected = CpuIsaName(DetectCpuIsa());
  CliResult r = Devices(nullptr, "");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out,
              HasSubstr("kernel path: " + detected +
                        " (detected; this CPU supports " + detected + ")\n"));
  CliResult json = Devices(nullptr, " --json");
  EXPECT_EQ(json.code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"kernel_path\": \"" + detected +
                                  "\", \"detected_path\": \"" + detected +
                                  "\", \"kernel_path_reason\": \"detected\""));
}

TEST_F(DevicesKernelPathTest, ForcedLower) {
  CliResult r = Devices("baseline", "");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("kernel path: baseline (forced by WEFT_CPU_ISA="
                               "baseline; this CPU supports "));
  CliResult json = Devices("baseline", " --json");
  EXPECT_THAT(json.out,
              HasSubstr("\"kernel_path\": \"baseline\", \"detected_path\": "));
  EXPECT_THAT(json.out, HasSubstr("\"kernel_path_reason\": \"forced by "
                                  "WEFT_CPU_ISA=baseline\""));
}

TEST_F(DevicesKernelPathTest, UnknownNameRefusedOnStderr) {
  const std::string detected = CpuIsaName(DetectCpuIsa());
  CliResult r = Devices("sse9", "");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err,
            "weft: WEFT_CPU_ISA=sse9 is not avx512, avx2 or baseline; using "
            "the detected path " +
                detected + "\n");
  EXPECT_THAT(r.out, HasSubstr("kernel path: " + detected +
                               " (detected (WEFT_CPU_ISA=sse9 ignored"));
}

// The huge-page line (core/huge_pages.h), as WEFT_HUGE_PAGES sets it in the
// child.
TEST_F(DevicesKernelPathTest, HugePagesAsTheEnvironmentSays) {
  setenv("WEFT_HUGE_PAGES", "0", 1);
  CliResult off = Devices(nullptr, "");
  CliResult off_json = Devices(nullptr, " --json");
  setenv("WEFT_HUGE_PAGES", "1", 1);
  CliResult on = Devices(nullptr, "");
  unsetenv("WEFT_HUGE_PAGES");
  EXPECT_THAT(off.out, HasSubstr("huge pages for large buffers: no "
                                 "(WEFT_HUGE_PAGES=0)\n"));
  EXPECT_THAT(off_json.out, HasSubstr("\"huge_pages\": false, "
                                      "\"huge_pages_reason\": "
                                      "\"WEFT_HUGE_PAGES=0\""));
  EXPECT_THAT(on.out, HasSubstr("huge pages for large buffers: yes "
                                "(WEFT_HUGE_PAGES=1)\n"));
}

}  // namespace devices_kernel_path_test
}  // namespace weft
