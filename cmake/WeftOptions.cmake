# Build-wide switches: compiler cache, sanitizers, CUDA detection, warnings.

find_program(WEFT_CCACHE ccache)
if(WEFT_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER "${WEFT_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${WEFT_CCACHE}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${WEFT_CCACHE}")
endif()

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
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(WEFT_HAVE_CUDA ON)
  elseif(WEFT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "WEFT_CUDA=ON but no CUDA compiler was found; "
                        "install the CUDA Toolkit or set WEFT_CUDA=OFF")
  endif()
endif()
message(STATUS "weft: CUDA parts ${WEFT_HAVE_CUDA} (WEFT_CUDA=${WEFT_CUDA})")

function(weft_apply_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
endfunction()
