// Which x86 SIMD code path the CPU kernels take, chosen once per process.
//
// The build compiles the library for a portable baseline (WEFT_CPU_ARCH,
// x86-64-v2 by default: SSE4.2, no AVX) and compiles the hot kernels (the
// packed float GEMM, the convolution gather, the depthwise convolution, the
// pooling loops) a second and third time for AVX2 + FMA and for AVX-512
// inside target regions (WEFT_ISA_AVX2_BEGIN ... WEFT_ISA_END below), in
// namespaces of their own. At run time each kernel switches on
// ActiveCpuIsa(): the widest path the CPU (and the OS, which must save the
// wider registers) supports, or a lower one forced with the environment
// variable WEFT_CPU_ISA=avx512|avx2|baseline, so that one machine can test
// and measure every path. Asking for a path the CPU lacks (or a name weft
// does not know) prints a warning on stderr and keeps the detected path:
// forcing may only lower the path, since a higher one would die on an
// illegal instruction.
//
// Only functions defined inside a target region carry the wider
// instructions. Templates and inline functions defined outside (std::,
// Eigen) keep the baseline even when a region's code instantiates them, so
// no shared (COMDAT) function can carry AVX into a baseline caller; the
// CTest IsaLeakCheck (tests/isa/) disassembles the library to hold that.
#ifndef WEFT_DEVICE_CPU_ISA_H_
#define WEFT_DEVICE_CPU_ISA_H_

#include <string>

namespace weft {

// Ordered: a path may run wherever a higher one is detected.
enum class CpuIsa : int {
  kBaseline = 0,  // the build's WEFT_CPU_ARCH only (Eigen's packets)
  kAvx2 = 1,      // AVX2 + FMA + F16C, 256-bit vectors
  kAvx512 = 2,    // AVX-512 F, BW, DQ, VL, 512-bit vectors
};

struct CpuIsaInfo {
  CpuIsa detected = CpuIsa::kBaseline;  // the best path this CPU and OS run
  CpuIsa active = CpuIsa::kBaseline;    // the path the kernels take
  // Whether `active` was forced lower by WEFT_CPU_ISA.
  bool forced = false;
  // Why `active`, in words: "detected", "forced by WEFT_CPU_ISA=avx2", or
  // "detected (WEFT_CPU_ISA=avx512 ignored: this CPU lacks ...)".
  std::string reason;
};

// "avx512", "avx2" or "baseline": the spelling WEFT_CPU_ISA takes.
const char* CpuIsaName(CpuIsa isa);

// The best path the running CPU supports: cpuid's feature bits, and XGETBV
// for the OS saving the ymm (and, for AVX-512, the zmm and mask) state.
CpuIsa DetectCpuIsa();

// What `env` (WEFT_CPU_ISA's value, or null when unset) makes of `detected`.
// A value naming a higher path than `detected`, or no known path, is refused
// with a reason (and the detected path); on success, `*warning` is cleared.
CpuIsaInfo ResolveCpuIsa(CpuIsa detected, const char* env,
                         std::string* warning);

// Detected and resolved on the first call (which prints ResolveCpuIsa's
// warning on stderr, once); the same object after. Thread-safe.
const CpuIsaInfo& GetCpuIsaInfo();

// The kernels' switch: GetCpuIsaInfo().active, one static load after the
// first call (no getenv, no cpuid).
inline CpuIsa ActiveCpuIsa() {
  static const CpuIsa isa = GetCpuIsaInfo().active;
  return isa;
}

// The element-wise loops' switch (the *_float.cc files): calls `avx512` or
// `avx2`, callables taking nothing, for the active path and returns true;
// on the baseline path calls neither and returns false, and the caller runs
// its portable loop.
template <typename Avx512Run, typename Avx2Run>
inline bool RunOnVectorPath(const Avx512Run& avx512, const Avx2Run& avx2) {
  switch (ActiveCpuIsa()) {
    case CpuIsa::kAvx512:
      avx512();
      return true;
    case CpuIsa::kAvx2:
      avx2();
      return true;
    case CpuIsa::kBaseline:
      break;
  }
  return false;
}

}  // namespace weft

// Target regions: every function defined between BEGIN and END (templates
// and lambdas included) is compiled for the named extensions. The regions
// are opened inside a per-ISA namespace (weft::...::avx2, ::avx512) and hold
// only code of that path. <immintrin.h> is included at file scope, before
// any region: its intrinsics carry their own target attributes.
// clang-format off
#if defined(__clang__)
#define WEFT_ISA_AVX2_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,f16c\"))), apply_to = function)")
#define WEFT_ISA_AVX512_BEGIN _Pragma("clang attribute push(__attribute__((target(\"avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl\"))), apply_to = function)")
#define WEFT_ISA_END _Pragma("clang attribute pop")
#elif defined(__GNUC__)
#define WEFT_ISA_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,f16c\")")
#define WEFT_ISA_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma,f16c,avx512f,avx512bw,avx512dq,avx512vl\")")
#define WEFT_ISA_END _Pragma("GCC pop_options")
#else
#error "weft's CPU dispatch needs GCC or clang target regions"
#endif
// clang-format on

#endif  // WEFT_DEVICE_CPU_ISA_H_
