# Run by ctest (tests/selective/CMakeLists.txt) as `cmake -P`: a selective
# build of libweft and the weft CLI for MobileNetV2, checked against the full
# build it was configured from.
#
#  1. The full CLI writes ops_to_register.h for mobilenet_v2.pb.
#  2. A sub-build in WORK_DIR/build configures with that header (CPU only,
#     no tests or benchmarks, the parent's compiler, -march and sanitizers)
#     and builds the CLI and libweft.so. It stays between runs, so with the
#     header unchanged a rerun only checks that it is up to date.
#  3. Both CLIs run the model on the committed input, optimized and not, on
#     one thread; every output must be identical byte for byte (same code,
#     same kernels: nothing but the registrations differs).
#  4. The selective CLI refuses a graph needing Cos ("op 'Cos' is left out of
#     this selective build") and one needing Relu6 on double (the kernel is
#     left out), which the full CLI runs.
#  5. The selective libweft.so is smaller than the full one.
cmake_minimum_required(VERSION 3.25)

foreach(_var WEFT_SOURCE_DIR WORK_DIR FULL_CLI GENERATOR CXX_COMPILER)
  if(NOT ${_var})
    message(FATAL_ERROR "selective_build_test.cmake: -D${_var}=... is required")
  endif()
endforeach()

set(_data "${WEFT_SOURCE_DIR}/tests/models/testdata")
set(_model "${_data}/mobilenet_v2.pb")
set(_input "x=${_data}/mobilenet_v2_input.npy")
set(_testdata "${WEFT_SOURCE_DIR}/tests/selective/testdata")
set(_header "${WORK_DIR}/ops_to_register.h")
set(_build "${WORK_DIR}/build")
file(MAKE_DIRECTORY "${WORK_DIR}")

# Runs a command; fails the test with its output unless it exits 0.
function(run_or_fail what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out
                  ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${_rc}):\n${_out}\n${_err}")
  endif()
endfunction()

# 1. The header, rewritten only when its content changes (the sub-build
# copies it, and recompiles everything when the copy changes).
execute_process(
  COMMAND "${FULL_CLI}" ops --used-by "${_model}" --header
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _text ERROR_VARIABLE _err)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "weft ops --used-by failed (${_rc}): ${_err}")
endif()
set(_old "")
if(EXISTS "${_header}")
  file(READ "${_header}" _old)
endif()
if(NOT _old STREQUAL _text)
  file(WRITE "${_header}" "${_text}")
endif()
string(REGEX MATCH "// ([0-9]+) ops, ([0-9]+) kernel classes" _counts "${_text}")
message(STATUS "ops_to_register.h: ${CMAKE_MATCH_1} ops, "
               "${CMAKE_MATCH_2} kernel classes")

# 2. The sub-build.
set(_configure
  "${CMAKE_COMMAND}" -S "${WEFT_SOURCE_DIR}" -B "${_build}" -G "${GENERATOR}"
  -DCMAKE_BUILD_TYPE=Release
  "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
  "-DWEFT_SELECTIVE_REGISTRATION=${_header}"
  -DWEFT_BUILD_TESTS=OFF -DWEFT_BUILD_BENCH=OFF -DWEFT_CUDA=OFF
  -DBUILD_SHARED_LIBS=ON
  "-DWEFT_SANITIZE=${SANITIZE}")
if(MAKE_PROGRAM)
  list(APPEND _configure "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
endif()
if(C_COMPILER)
  list(APPEND _configure "-DCMAKE_C_COMPILER=${C_COMPILER}")
endif()
if(CPU_ARCH)
  list(APPEND _configure "-DWEFT_CPU_ARCH=${CPU_ARCH}")
endif()
run_or_fail("configuring the selective build" ${_configure})
string(TIMESTAMP _start "%s")
run_or_fail("building the selective build"
  "${CMAKE_COMMAND}" --build "${_build}" --target weft_cli weft_library)
string(TIMESTAMP _end "%s")
math(EXPR _seconds "${_end} - ${_start}")
message(STATUS "selective build of weft_cli and libweft: ${_seconds} s")
set(_cli "${_build}/tools/weft")

# 3. Same outputs, byte for byte.
foreach(_mode optimized no-optimize)
  set(_flags --threads 1)
  if(_mode STREQUAL "no-optimize")
    list(APPEND _flags --no-optimize)
  endif()
  foreach(_which full selective)
    set(_out "${WORK_DIR}/out_${_mode}_${_which}")
    file(REMOVE_RECURSE "${_out}")
    file(MAKE_DIRECTORY "${_out}")
    if(_which STREQUAL "full")
      set(_run "${FULL_CLI}")
    else()
      set(_run "${_cli}")
    endif()
    run_or_fail("${_which} weft run (${_mode})" "${_run}" run "${_model}"
                --input "${_input}" ${_flags} --save "${_out}")
  endforeach()
  file(GLOB _outputs RELATIVE "${WORK_DIR}/out_${_mode}_full"
       "${WORK_DIR}/out_${_mode}_full/*.npy")
  if(NOT _outputs)
    message(FATAL_ERROR "the full build's weft run (${_mode}) saved no output")
  endif()
  foreach(_f IN LISTS _outputs)
    execute_process(
      COMMAND "${CMAKE_COMMAND}" -E compare_files
              "${WORK_DIR}/out_${_mode}_full/${_f}"
              "${WORK_DIR}/out_${_mode}_selective/${_f}"
      RESULT_VARIABLE _differ)
    if(NOT _differ EQUAL 0)
      message(FATAL_ERROR "${_f} (${_mode}): the selective build's output "
                          "differs from the full build's")
    endif()
  endforeach()
  list(JOIN _outputs ", " _names)
  message(STATUS "${_mode}: ${_names} identical to the full build's")
endforeach()

# 4. Left out, and said so.
foreach(_case "needs_cos.pbtxt|op 'Cos' is left out of this selective build"
              "relu6_double.pbtxt|kernel CPU{T in \\[double\\]} \\([^)]*\\) would match but is left out of this selective build")
  string(REPLACE "|" ";" _case "${_case}")
  list(GET _case 0 _graph)
  list(GET _case 1 _expected)
  run_or_fail("full weft run ${_graph}" "${FULL_CLI}" run
              "${_testdata}/${_graph}" --input x=random)
  execute_process(
    COMMAND "${_cli}" run "${_testdata}/${_graph}" --input x=random
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(_rc EQUAL 0)
    message(FATAL_ERROR "the selective weft ran ${_graph}, which needs what "
                        "MobileNetV2 does not:\n${_out}")
  endif()
  if(NOT _err MATCHES "${_expected}")
    message(FATAL_ERROR "selective weft run ${_graph}: expected an error "
                        "matching \"${_expected}\", got:\n${_err}")
  endif()
  string(STRIP "${_err}" _err)
  message(STATUS "refused as expected: ${_err}")
endforeach()

# 5. Smaller.
if(FULL_LIBRARY AND FULL_LIBRARY MATCHES "\\.so")
  file(GLOB _selective_lib "${_build}/libweft.so.*.*.*")
  file(SIZE "${FULL_LIBRARY}" _full_size)
  file(SIZE "${_selective_lib}" _selective_size)
  message(STATUS "libweft.so (not stripped): full ${_full_size} bytes, "
                 "selective ${_selective_size} bytes")
  if(NOT _selective_size LESS _full_size)
    message(FATAL_ERROR "the selective libweft.so (${_selective_size} bytes) "
                        "is not smaller than the full one (${_full_size})")
  endif()
endif()
