# What tests/plugin needs beyond the per-folder test executable: small op
# libraries built in tree (a plain-C plugin, and broken ones that loading
# must refuse), and the paths and tools the tests use to install weft and
# build the out-of-tree examples against the installed package.
if(NOT TARGET weft_plugin_test)
  return()
endif()

set(_testdata "${PROJECT_SOURCE_DIR}/tests/plugin/testdata")
set(_test_plugins negate_plugin future_api_plugin half_bad_plugin
                  not_a_plugin)
foreach(_p IN LISTS _test_plugins)
  add_library(weft_test_${_p} MODULE "${_testdata}/${_p}.c")
  set_target_properties(weft_test_${_p} PROPERTIES
    OUTPUT_NAME ${_p}
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/tests/plugin")
  target_link_libraries(weft_test_${_p} PRIVATE weft::plugin)
  add_dependencies(weft_plugin_test weft_test_${_p})
  string(TOUPPER ${_p} _P)
  target_compile_definitions(weft_plugin_test PRIVATE
    WEFT_TEST_${_P}="$<TARGET_FILE:weft_test_${_p}>")
endforeach()

find_program(WEFT_CLANGXX NAMES clang++)
set(_san_flags "")
if(WEFT_SANITIZE)
  set(_san_flags "-fsanitize=${WEFT_SANITIZE}")
endif()
set(_shared 0)
if(BUILD_SHARED_LIBS)
  set(_shared 1)
endif()

# The tests install this build tree, so everything installed must be built.
add_dependencies(weft_plugin_test weft_library weft_cli)
target_compile_definitions(weft_plugin_test PRIVATE
  WEFT_BUILD_DIR="${PROJECT_BINARY_DIR}"
  WEFT_PLUGIN_FIXTURE_DIR="${PROJECT_BINARY_DIR}/plugin_fixture"
  WEFT_CMAKE_COMMAND="${CMAKE_COMMAND}"
  WEFT_GENERATOR="${CMAKE_GENERATOR}"
  WEFT_MAKE_PROGRAM="${CMAKE_MAKE_PROGRAM}"
  WEFT_CXX_COMPILER="${CMAKE_CXX_COMPILER}"
  WEFT_CLANGXX="$<$<BOOL:${WEFT_CLANGXX}>:${WEFT_CLANGXX}>"
  WEFT_CCACHE="$<$<BOOL:${WEFT_CCACHE}>:${WEFT_CCACHE}>"
  WEFT_SANITIZE_FLAGS="${_san_flags}"
  WEFT_SHARED_BUILD=${_shared}
  WEFT_VERSION_STRING="${PROJECT_VERSION}"
  WEFT_CLI_PATH="$<TARGET_FILE:weft_cli>")
