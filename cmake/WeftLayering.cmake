# The layering test: tests/layering/check_layering reads every #include
# "..." of the project's folders and fails on an arrow that
# cmake/layering.txt does not allow. Plain C++17, so it runs in every build
# that has tests. The other tests run it on a small tree with a known bad
# arrow, so that a checker that accepts everything fails.
add_executable(weft_check_layering ${PROJECT_SOURCE_DIR}/tests/layering/check_layering.cc)
set_target_properties(weft_check_layering PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
add_test(NAME layering
         COMMAND weft_check_layering ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/cmake/layering.txt)

set(_weft_layering_fixture ${PROJECT_SOURCE_DIR}/tests/layering/testdata)
add_test(NAME layering_rejects_upward_include
         COMMAND weft_check_layering ${_weft_layering_fixture} ${_weft_layering_fixture}/rules.txt)
set_tests_properties(layering_rejects_upward_include PROPERTIES WILL_FAIL TRUE)
add_test(NAME layering_names_file_line_and_rule
         COMMAND weft_check_layering ${_weft_layering_fixture} ${_weft_layering_fixture}/rules.txt)
set_tests_properties(
  layering_names_file_line_and_rule
  PROPERTIES PASS_REGULAR_EXPRESSION
             "core/upward.h:3: #include \"kernels/kernel.h\": room 'core' may not include room 'kernels' \\(rule rules.txt:3: 'core:'\\)")
add_test(NAME layering_names_folders_missing_from_the_table
         COMMAND weft_check_layering ${_weft_layering_fixture} ${_weft_layering_fixture}/rules.txt)
set_tests_properties(
  layering_names_folders_missing_from_the_table
  PROPERTIES PASS_REGULAR_EXPRESSION "stray/stray.cc: folder 'stray' holds C/C\\+\\+ sources but is not a room")
