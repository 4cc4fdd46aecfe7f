// The CPU kernel path (device/cpu_isa.h): detection against the
// compiler's own CPU probe, WEFT_CPU_ISA's parsing (lower paths forced,
// higher or unknown ones refused with a reason), and the cached path the
// kernels switch on.
#include "device/cpu_isa.h"

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace weft {
namespace cpu_isa_test {

// What __builtin_cpu_supports (libgcc's or compiler-rt's cpuid probe, which
// also checks that the OS saves the wider registers) says the CPU runs: an
// independent reading of the same facts DetectCpuIsa reads from cpuid.
CpuIsa FromBuiltin() {
  __builtin_cpu_init();
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (avx2 && avx512) return CpuIsa::kAvx512;
  return avx2 ? CpuIsa::kAvx2 : CpuIsa::kBaseline;
}

TEST(CpuIsaTest, DetectionAgreesWithTheCompilersProbe) {
  EXPECT_EQ(DetectCpuIsa(), FromBuiltin());
}

TEST(CpuIsaTest, Names) {
  EXPECT_STREQ(CpuIsaName(CpuIsa::kAvx512), "avx512");
  EXPECT_STREQ(CpuIsaName(CpuIsa::kAvx2), "avx2");
  EXPECT_STREQ(CpuIsaName(CpuIsa::kBaseline), "baseline");
}

TEST(CpuIsaTest, UnsetOrEmptyKeepsTheDetectedPath) {
  for (const char* env : {static_cast<const char*>(nullptr), ""}) {
    std::string warning = "stale";
    const CpuIsaInfo info = ResolveCpuIsa(CpuIsa::kAvx512, env, &warning);
    EXPECT_EQ(info.detected, CpuIsa::kAvx512);
    EXPECT_EQ(info.active, CpuIsa::kAvx512);
    EXPECT_FALSE(info.forced);
    EXPECT_EQ(info.reason, "detected");
    EXPECT_EQ(warning, "");
  }
}

TEST(CpuIsaTest, ForcesLowerOrEqualPaths) {
  struct Case {
    CpuIsa detected;
    const char* env;
    CpuIsa want;
  };
  for (const Case& c : {Case{CpuIsa::kAvx512, "avx2", CpuIsa::kAvx2},
                        Case{CpuIsa::kAvx512, "baseline", CpuIsa::kBaseline},
                        Case{CpuIsa::kAvx512, "avx512", CpuIsa::kAvx512},
                        Case{CpuIsa::kAvx2, "baseline", CpuIsa::kBaseline},
                        Case{CpuIsa::kAvx2, "avx2", CpuIsa::kAvx2}}) {
    std::string warning;
    const CpuIsaInfo info = ResolveCpuIsa(c.detected, c.env, &warning);
    EXPECT_EQ(info.active, c.want) << c.env;
    EXPECT_EQ(info.detected, c.detected) << c.env;
    EXPECT_TRUE(info.forced) << c.env;
    EXPECT_EQ(info.reason, std::string("forced by WEFT_CPU_ISA=") + c.env);
    EXPECT_EQ(warning, "") << c.env;
  }
}

TEST(CpuIsaTest, RefusesAPathTheCpuLacks) {
  std::string warning;
  const CpuIsaInfo info = ResolveCpuIsa(CpuIsa::kAvx2, "avx512", &warning);
  EXPECT_EQ(info.active, CpuIsa::kAvx2);
  EXPECT_FALSE(info.forced);
  EXPECT_EQ(info.reason,
            "detected (WEFT_CPU_ISA=avx512 ignored: this CPU runs at most "
            "avx2)");
  EXPECT_EQ(warning,
            "weft: WEFT_CPU_ISA=avx512 asks for a path this CPU lacks; using "
            "the detected path avx2");
  const CpuIsaInfo base = ResolveCpuIsa(CpuIsa::kBaseline, "avx2", &warning);
  EXPECT_EQ(base.active, CpuIsa::kBaseline);
  EXPECT_NE(warning, "");
}

TEST(CpuIsaTest, RefusesUnknownNames) {
  for (const char* env : {"AVX2", "sse", "avx-512", "native"}) {
    std::string warning;
    const CpuIsaInfo info = ResolveCpuIsa(CpuIsa::kAvx512, env, &warning);
    EXPECT_EQ(info.active, CpuIsa::kAvx512) << env;
    EXPECT_FALSE(info.forced) << env;
    EXPECT_EQ(warning, std::string("weft: WEFT_CPU_ISA=") + env +
                           " is not avx512, avx2 or baseline; using the "
                           "detected path avx512");
  }
}

// The process's own path: what this process's WEFT_CPU_ISA makes of this
// CPU (the suite runs with it unset and, in CI, with a lower path forced).
TEST(CpuIsaTest, ActivePathFollowsTheEnvironment) {
  const CpuIsaInfo& info = GetCpuIsaInfo();
  EXPECT_EQ(&info, &GetCpuIsaInfo()) << "resolved once";
  EXPECT_EQ(ActiveCpuIsa(), info.active);
  EXPECT_EQ(info.detected, DetectCpuIsa());
  std::string warning;
  const CpuIsaInfo again =
      ResolveCpuIsa(DetectCpuIsa(), std::getenv("WEFT_CPU_ISA"), &warning);
  EXPECT_EQ(info.active, again.active);
  EXPECT_EQ(info.reason, again.reason);
  EXPECT_LE(static_cast<int>(info.active), static_cast<int>(info.detected));
}

}  // namespace cpu_isa_test
}  // namespace weft
