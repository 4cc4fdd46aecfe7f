# Runs a gtest executable with a filter as one ctest test (cmake -P):
#   -DEXECUTABLE=... -DFILTER=...
# Fails when the executable does (a case failed); prints the marker the
# test's SKIP_REGULAR_EXPRESSION looks for when it passed without running a
# single case (every case skipped), so only then does ctest count it skipped.
execute_process(COMMAND "${EXECUTABLE}" "--gtest_filter=${FILTER}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXECUTABLE} --gtest_filter=${FILTER} exited with ${rc}")
endif()
if(out MATCHES "\\[  PASSED  \\] 0 tests")
  message("weft-table: no case ran")
endif()
