// CPU path detection (cpuid, XGETBV) and WEFT_CPU_ISA; see cpu_isa.h.
#include "device/cpu_isa.h"

#include <cpuid.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace weft {
namespace {

// XCR0, the state components the OS saves on a context switch. Read only
// after cpuid says OSXSAVE (the OS enabled XGETBV).
uint64_t ReadXcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

// XCR0 bits: SSE (1) and AVX (2) state for ymm; opmask (5), the upper
// halves of zmm0-15 (6) and zmm16-31 (7) for AVX-512.
constexpr uint64_t kYmmState = 0x6;
constexpr uint64_t kZmmState = 0xE6;

bool Bit(uint32_t reg, int bit) { return (reg >> bit) & 1u; }

}  // namespace

const char* CpuIsaName(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512:
      return "avx512";
    case CpuIsa::kAvx2:
      return "avx2";
    case CpuIsa::kBaseline:
      break;
  }
  return "baseline";
}

CpuIsa DetectCpuIsa() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return CpuIsa::kBaseline;
  const bool fma = Bit(ecx, 12), osxsave = Bit(ecx, 27), avx = Bit(ecx, 28),
             f16c = Bit(ecx, 29);
  if (!osxsave || !avx) return CpuIsa::kBaseline;
  const uint64_t xcr0 = ReadXcr0();
  if ((xcr0 & kYmmState) != kYmmState) return CpuIsa::kBaseline;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) {
    return CpuIsa::kBaseline;
  }
  const bool avx2 = Bit(ebx, 5), avx512f = Bit(ebx, 16),
             avx512dq = Bit(ebx, 17), avx512bw = Bit(ebx, 30),
             avx512vl = Bit(ebx, 31);
  if (!(avx2 && fma && f16c)) return CpuIsa::kBaseline;
  if (avx512f && avx512dq && avx512bw && avx512vl &&
      (xcr0 & kZmmState) == kZmmState) {
    return CpuIsa::kAvx512;
  }
  return CpuIsa::kAvx2;
}

CpuIsaInfo ResolveCpuIsa(CpuIsa detected, const char* env,
                         std::string* warning) {
  warning->clear();
  CpuIsaInfo info;
  info.detected = detected;
  info.active = detected;
  info.reason = "detected";
  if (env == nullptr || *env == '\0') return info;
  const std::string value = env;
  CpuIsa wanted;
  if (value == "avx512") {
    wanted = CpuIsa::kAvx512;
  } else if (value == "avx2") {
    wanted = CpuIsa::kAvx2;
  } else if (value == "baseline") {
    wanted = CpuIsa::kBaseline;
  } else {
    info.reason = "detected (WEFT_CPU_ISA=" + value +
                  " ignored: expected avx512, avx2 or baseline)";
    *warning = "weft: WEFT_CPU_ISA=" + value +
               " is not avx512, avx2 or baseline; using the detected path " +
               CpuIsaName(detected);
    return info;
  }
  if (static_cast<int>(wanted) > static_cast<int>(detected)) {
    info.reason = "detected (WEFT_CPU_ISA=" + value +
                  " ignored: this CPU runs at most " + CpuIsaName(detected) +
                  ")";
    *warning = "weft: WEFT_CPU_ISA=" + value + " asks for a path this CPU " +
               "lacks; using the detected path " + CpuIsaName(detected);
    return info;
  }
  info.active = wanted;
  info.forced = true;
  info.reason = "forced by WEFT_CPU_ISA=" + value;
  return info;
}

const CpuIsaInfo& GetCpuIsaInfo() {
  // A function-local static: resolved once, thread-safe, never destroyed
  // before other statics that may still ask.
  static const CpuIsaInfo* const info = [] {
    std::string warning;
    auto* resolved = new CpuIsaInfo(
        ResolveCpuIsa(DetectCpuIsa(), std::getenv("WEFT_CPU_ISA"), &warning));
    if (!warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
    return resolved;
  }();
  return *info;
}

}  // namespace weft
