# cmake -DOBJDUMP=objdump -DBINARIES="a;b" -P check_isa_leaks.cmake
#
# Fails naming each function of BINARIES, outside the per-ISA namespaces
# (...::avx2::..., ...::avx512::...), whose code uses a ymm or zmm register.
# objdump's output (tens of MB) is filtered by awk in the same pipeline, so
# CMake only sees the few lines that matter: the demangled name of each
# function that touches a wide register.
foreach(_bin IN LISTS BINARIES)
  if(NOT EXISTS "${_bin}")
    message(FATAL_ERROR "IsaLeakCheck: no such binary ${_bin}")
  endif()
  execute_process(
    COMMAND ${OBJDUMP} -d --no-show-raw-insn -C "${_bin}"
    COMMAND awk "/^[0-9a-f]+ <.*>:$/ {
                   fn = $0; sub(/^[0-9a-f]+ </, \"\", fn); sub(/>:$/, \"\", fn)
                   seen = 0; next
                 }
                 /%[yz]mm[0-9]/ && !seen { print fn; seen = 1 }"
    OUTPUT_VARIABLE _wide
    RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "IsaLeakCheck: objdump | awk failed on ${_bin}: ${_rc}")
  endif()
  string(REPLACE "\n" ";" _wide "${_wide}")
  set(_allowed 0)
  set(_leaks "")
  foreach(_fn IN LISTS _wide)
    if(_fn STREQUAL "")
      continue()
    endif()
    if(_fn MATCHES "::avx512::" OR _fn MATCHES "::avx2::")
      math(EXPR _allowed "${_allowed} + 1")
    else()
      string(APPEND _leaks "  ${_fn}\n")
    endif()
  endforeach()
  if(NOT _leaks STREQUAL "")
    message(FATAL_ERROR
      "IsaLeakCheck: ${_bin}: functions outside the per-ISA namespaces use "
      "ymm/zmm registers, so this baseline binary can die with SIGILL on a "
      "CPU without AVX2/AVX-512:\n${_leaks}")
  endif()
  if(_allowed EQUAL 0)
    # The per-ISA kernels must be there: a check that finds nothing wide at
    # all would pass a build whose dispatch was compiled out.
    message(FATAL_ERROR "IsaLeakCheck: ${_bin}: no per-ISA function uses "
                        "ymm/zmm registers; is the dispatch compiled in?")
  endif()
  message(STATUS "IsaLeakCheck: ${_bin}: ${_allowed} per-ISA functions use "
                 "ymm/zmm, no other function does")
endforeach()
