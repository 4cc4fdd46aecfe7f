# Build-wide switches: compiler cache, sanitizers, CUDA detection, warnings.

find_program(WEFT_CCACHE ccache)
if(WEFT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # ccache serves sources compiled with a precompiled header only when told
  # to overlook the header's timestamps and time macros.
  set(_weft_ccache env
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      "${WEFT_CCACHE}")
  set(CMAKE_C_COMPILER_LAUNCHER ${_weft_ccache})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_weft_ccache})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_weft_ccache})
endif()

# The linker: LLVM's lld where the compiler can use it (Debian: lld,
# installed by scripts/setup), else the compiler's default (GNU ld). Every
# in-tree program links all of libweft (weft::linked), and an instrumented
# test program is about 300 MB: lld links one in half the time GNU ld takes
# (weft_kernels_test under ASan: 3.4 s against 6.8 s). Only C and C++ link
# steps; what the installed package's users link with is theirs to choose.
option(WEFT_USE_LLD "Link with lld when the compiler accepts -fuse-ld=lld" ON)
if(WEFT_USE_LLD)
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=lld" WEFT_HAVE_LLD)
  if(WEFT_HAVE_LLD)
    add_link_options("$<$<LINK_LANGUAGE:C,CXX>:-fuse-ld=lld>")
  endif()
endif()

# Precompiled headers: the standard, Eigen, absl (and, for tests, gtest)
# headers that nearly every source includes, parsed once per target instead
# of once per source (cmake/pch/). OFF checks that every source includes
# what it uses.
option(WEFT_PRECOMPILE_HEADERS "Precompile the common third-party headers" ON)
# Unity builds of the test programs: each batch of test sources compiles as
# one translation unit, so gtest's and the test utilities' templates are
# instantiated, and the precompiled header loaded, once per batch instead of
# once per source (about a third less compile time for test code). A test
# source therefore keeps its file-local helpers in a namespace named after
# the file, not an anonymous one shared with the rest of its batch.
option(WEFT_UNITY_TESTS "Compile the test programs as unity builds" ON)
set(WEFT_UNITY_TESTS_BATCH 16 CACHE STRING "Test sources per unity translation unit")

function(weft_precompile_headers target kind)
  if(WEFT_PRECOMPILE_HEADERS)
    target_precompile_headers(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CXX>:${PROJECT_SOURCE_DIR}/cmake/pch/${kind}.h>")
  endif()
endfunction()

if(WEFT_SANITIZE)
  string(REPLACE "," ";" _weft_sanitizers "${WEFT_SANITIZE}")
  foreach(_s IN LISTS _weft_sanitizers)
    if(NOT _s MATCHES "^(address|undefined|thread|leak)$")
      message(FATAL_ERROR "WEFT_SANITIZE: unknown sanitizer '${_s}' "
                          "(expected address, undefined, thread or leak)")
    endif()
  endforeach()
  set(_weft_san_flags "-fsanitize=${WEFT_SANITIZE}" -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_compile_options(${_weft_san_flags})
  add_link_options(${_weft_san_flags})
endif()

# WEFT_CUDA=AUTO builds the CUDA parts when a CUDA compiler is found.
string(TOUPPER "${WEFT_CUDA}" WEFT_CUDA)
if(NOT WEFT_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "WEFT_CUDA must be AUTO, ON or OFF (got '${WEFT_CUDA}')")
endif()
set(WEFT_HAVE_CUDA OFF)
if(NOT WEFT_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Real code (SASS) for Ampere (sm_80) and Hopper (sm_90), plus PTX for
    # compute_90 that the driver JIT-compiles on newer GPUs. Set before the
    # language is enabled so CMake does not probe the (absent) GPU.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    # The runtime is linked explicitly (device/CMakeLists.txt), statically,
    # so that no target picks up libcudart.so on its own.
    set(CMAKE_CUDA_RUNTIME_LIBRARY None)
    set(WEFT_HAVE_CUDA ON)
  elseif(WEFT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "WEFT_CUDA=ON but no CUDA compiler was found; "
                        "install the CUDA Toolkit or set WEFT_CUDA=OFF")
  endif()
endif()
message(STATUS "weft: CUDA parts ${WEFT_HAVE_CUDA} (WEFT_CUDA=${WEFT_CUDA})")

# WEFT_CPU_ARCH is the x86 instruction set the C++ code is compiled for.
# The default, x86-64-v2 (SSE4.2, POPCNT; any x86 server since about 2009),
# makes a binary that runs wherever it is copied. The hot CPU kernels (the
# float GEMM, the convolution gather, the depthwise convolution, pooling,
# float Erfc) are compiled a second and third time for AVX2 + FMA and for
# AVX-512 in target regions of their own and chosen at run time from the
# CPU (device/cpu_isa.h; WEFT_CPU_ISA=avx2|baseline forces a lower path).
# The rest, Eigen's element-wise code included, vectorizes for the
# baseline (Eigen fixes its packet width when it is compiled). `native` (the building machine's own extensions, the old
# default) or a higher level (`x86-64-v3` = AVX2 + FMA, `x86-64-v4`) lifts
# that baseline too, and ties the binary to such CPUs; OFF passes no -march.
set(WEFT_CPU_ARCH "x86-64-v2" CACHE STRING
    "-march value for C/C++ code (native, x86-64-v3, x86-64-v2, ...) or OFF")
if(WEFT_CPU_ARCH AND NOT WEFT_CPU_ARCH STREQUAL "OFF")
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag("-march=${WEFT_CPU_ARCH}" WEFT_HAVE_MARCH_${WEFT_CPU_ARCH})
  if(NOT WEFT_HAVE_MARCH_${WEFT_CPU_ARCH})
    message(FATAL_ERROR "WEFT_CPU_ARCH=${WEFT_CPU_ARCH}: the compiler rejects "
                        "-march=${WEFT_CPU_ARCH}; use a level it knows or OFF")
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-march=${WEFT_CPU_ARCH}>")
endif()
message(STATUS "weft: CPU code for -march=${WEFT_CPU_ARCH}")

# Numerics that do not depend on the instruction set or on the compiler's
# mood. GCC contracts a * b + c into a fused multiply-add wherever FMA exists
# (it does so even under -std=c++17), which changes results of plain loops
# (Range's start + i * delta) against TensorFlow's scalar code; kernels that
# want FMA ask for it explicitly (Eigen's pmadd, the GEMM micro-kernels).
# EIGEN_FAST_MATH=0 keeps Eigen from replacing sqrt and 1/sqrt with reciprocal
# square-root estimates plus a Newton step under AVX/AVX-512, which are off by
# several ulps and turn sqrt(inf) into NaN.
add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-ffp-contract=off>")
add_compile_definitions(EIGEN_FAST_MATH=0)

function(weft_apply_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
endfunction()

# WEFT_SELECTIVE_REGISTRATION=path/ops_to_register.h builds libweft and the
# CLI with only the ops and kernel classes that header lists (written by
# `weft ops --used-by GRAPH... --header`; see ops/op_registry.h). The header
# is copied into the build tree, so a change to it reconfigures, and nothing
# else named ops_to_register.h can be picked up by accident. Every function
# and datum gets its own section and the linker drops the ones nothing
# reaches (shape functions and helpers of the ops left out). The test suite
# and the benchmarks need every op, so they are not built.
set(WEFT_SELECTIVE_REGISTRATION "" CACHE FILEPATH
    "ops_to_register.h for a selective build (empty: every op and kernel)")
if(WEFT_SELECTIVE_REGISTRATION)
  if(NOT EXISTS "${WEFT_SELECTIVE_REGISTRATION}")
    message(FATAL_ERROR "WEFT_SELECTIVE_REGISTRATION: no such file "
                        "'${WEFT_SELECTIVE_REGISTRATION}' (write one with "
                        "`weft ops --used-by GRAPH... --header`)")
  endif()
  set(_weft_selective_dir "${PROJECT_BINARY_DIR}/selective_registration")
  configure_file("${WEFT_SELECTIVE_REGISTRATION}"
                 "${_weft_selective_dir}/ops_to_register.h" COPYONLY)
  add_compile_definitions(WEFT_SELECTIVE_REGISTRATION)
  include_directories(BEFORE "${_weft_selective_dir}")
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-ffunction-sections>"
                      "$<$<COMPILE_LANGUAGE:C,CXX>:-fdata-sections>")
  add_link_options("LINKER:--gc-sections")
  if(WEFT_BUILD_TESTS OR WEFT_BUILD_BENCH)
    message(STATUS "weft: selective build: tests and benchmarks are off")
    set(WEFT_BUILD_TESTS OFF)
    set(WEFT_BUILD_BENCH OFF)
  endif()
  message(STATUS "weft: selective registration from "
                 "${WEFT_SELECTIVE_REGISTRATION}")
endif()
