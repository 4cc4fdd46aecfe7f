// Device discovery. Runs on every machine: what it checks depends on what the
// machine has, and on a machine without a GPU it checks that the reason is
// one a user can act on.
#include "device/device_info.h"

#include <string>

#include "device/cpu_isa.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

TEST(CpuInfoTest, DescribesThisCpu) {
  CpuInfo cpu = GetCpuInfo();
  EXPECT_GT(cpu.logical_cores, 0);
  EXPECT_GT(cpu.default_threads, 0);
  EXPECT_FALSE(cpu.compiled_simd.empty());
  EXPECT_FALSE(cpu.eigen_simd.empty());
  // The tests run on the machine that built them, which has every
  // extension the code was compiled for (WEFT_CPU_ARCH).
  EXPECT_EQ(cpu.missing_simd, "");
  // The kernel path follows the run-time dispatch (and WEFT_CPU_ISA).
  const CpuIsaInfo& isa = GetCpuIsaInfo();
  EXPECT_EQ(cpu.kernel_path, CpuIsaName(isa.active));
  EXPECT_EQ(cpu.detected_path, CpuIsaName(DetectCpuIsa()));
  EXPECT_EQ(cpu.kernel_path_reason, isa.reason);
  EXPECT_TRUE(cpu.kernel_path_reason == "detected" ||
              cpu.kernel_path_reason.rfind("forced by WEFT_CPU_ISA=", 0) == 0 ||
              cpu.kernel_path_reason.rfind("detected (WEFT_CPU_ISA=", 0) == 0)
      << cpu.kernel_path_reason;
}

TEST(CudaInfoTest, ExplainsItselfEitherWay) {
  const CudaInfo& info = GetCudaInfo();
  EXPECT_EQ(&info, &GetCudaInfo()) << "probed once";
#if WEFT_HAVE_CUDA
  EXPECT_TRUE(info.built_with_cuda);
  EXPECT_GE(info.runtime_version, 13000);
  EXPECT_FALSE(info.compiled_architectures.empty());
  if (info.status.ok()) {
    ASSERT_FALSE(info.devices.empty());
    for (const CudaDeviceInfo& d : info.devices) {
      EXPECT_FALSE(d.name.empty());
      EXPECT_GT(d.cc_major, 0);
      EXPECT_GT(d.total_memory, 0);
    }
    return;
  }
  EXPECT_EQ(info.status.code(), absl::StatusCode::kFailedPrecondition);
  const std::string msg(info.status.message());
  EXPECT_EQ(msg.rfind("no usable CUDA device: ", 0), 0u) << msg;
  // The runtime's error name is kept for searching.
  EXPECT_NE(msg.find("[cuda"), std::string::npos) << msg;
  if (info.driver_version == 0) {
    EXPECT_NE(msg.find("no NVIDIA driver is installed"), std::string::npos)
        << msg;
  }
  EXPECT_TRUE(info.devices.empty());
#else
  EXPECT_FALSE(info.built_with_cuda);
  EXPECT_EQ(info.status.message(),
            "no usable CUDA device: weft was built without CUDA (WEFT_CUDA=OFF "
            "or no nvcc at build time)");
#endif
}

TEST(CudaInfoTest, CheckCudaDeviceNamesTheOrdinal) {
  const CudaInfo& info = GetCudaInfo();
  Status s = CheckCudaDevice(static_cast<int>(info.devices.size()) + 3);
  ASSERT_FALSE(s.ok());
  if (info.status.ok()) {
    EXPECT_NE(s.message().find("no CUDA device cuda:"), std::string::npos)
        << s.message();
  } else {
    EXPECT_EQ(s, info.status);
  }
}

TEST(CudaInfoTest, VersionString) {
  EXPECT_EQ(CudaVersionString(13000), "13.0");
  EXPECT_EQ(CudaVersionString(12080), "12.8");
  EXPECT_EQ(CudaVersionString(0), "none");
}

struct ArchCase {
  const char* archs;
  int major, minor;
  bool sass, ptx;
};

TEST(CudaInfoTest, MatchesArchitectures) {
  const char* kWeft = "80-real,90-real,90-virtual";
  const ArchCase cases[] = {
      {kWeft, 8, 0, true, false},   // A100: SASS
      {kWeft, 8, 6, true, false},   // RTX 30xx: sm_80 SASS runs on 8.6
      {kWeft, 8, 9, true, false},   // L4 / RTX 40xx
      {kWeft, 9, 0, true, true},    // H100 / H200
      {kWeft, 10, 0, false, true},  // B200: PTX JIT only
      {kWeft, 12, 0, false, true},
      {kWeft, 7, 5, false, false},  // T4: nothing runs
      {kWeft, 7, 0, false, false},
      {"80;90", 9, 0, true, true},  // plain numbers: real and virtual
      {"80;90", 8, 0, true, true},
      {"90a-real", 9, 0, true, false},  // arch-specific: exactly 9.0
      {"90a-real", 10, 0, false, false},
      {"", 9, 0, false, false},
  };
  for (const ArchCase& c : cases) {
    bool sass = false, ptx = false;
    MatchCudaArchitectures(c.archs, c.major, c.minor, &sass, &ptx);
    EXPECT_EQ(sass, c.sass) << c.archs << " on " << c.major << "." << c.minor;
    EXPECT_EQ(ptx, c.ptx) << c.archs << " on " << c.major << "." << c.minor;
  }
}

}  // namespace
}  // namespace weft
