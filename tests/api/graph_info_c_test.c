/* The graph introspection of weft/c_api.h, called from C (this file is
 * compiled as C, so the header must be valid C and the API usable without
 * C++). Expected values come from reading testdata/graph_info.pbtxt, whose
 * comment lists them. Prints each failed check and exits 1 if any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/c_api.h"

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

#define CHECK_STR(got, want)                                              \
  do {                                                                    \
    const char* got_ = (got);                                             \
    if (strcmp(got_, (want)) != 0) {                                      \
      fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
              __LINE__, #got, got_, (want));                              \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

/* Checks one tensor: name, op, dtype, rank (-1: unknown) and dims. */
static void check_info(const weft_tensor_info* info, const char* name,
                       const char* op, weft_dtype dtype, int num_dims,
                       const int64_t* dims, int has_default) {
  int i;
  CHECK(info != NULL);
  if (info == NULL) return;
  CHECK_STR(weft_tensor_info_name(info), name);
  CHECK_STR(weft_tensor_info_op(info), op);
  CHECK(weft_tensor_info_dtype(info) == dtype);
  CHECK(weft_tensor_info_num_dims(info) == num_dims);
  for (i = 0; i < num_dims; ++i) {
    if (weft_tensor_info_dim(info, i) != dims[i]) {
      fprintf(stderr, "%s: dim %d is %lld, expected %lld\n", name, i,
              (long long)weft_tensor_info_dim(info, i), (long long)dims[i]);
      ++failures;
    }
  }
  CHECK(weft_tensor_info_dim(info, num_dims) == -1);
  CHECK(weft_tensor_info_dim(info, -1) == -1);
  CHECK(weft_tensor_info_has_default(info) == has_default);
}

static void test_inputs_and_outputs(weft_graph* g) {
  const int64_t unknown_by_3[] = {-1, 3};
  const int64_t unknown_by_1[] = {-1, 1};
  CHECK(weft_graph_num_inputs(g) == 3);
  check_info(weft_graph_input(g, 0), "x", "Placeholder", WEFT_FLOAT, 2,
             unknown_by_3, 0);
  check_info(weft_graph_input(g, 1), "k", "PlaceholderWithDefault", WEFT_INT32,
             0, NULL, 1);
  check_info(weft_graph_input(g, 2), "u", "Placeholder", WEFT_FLOAT, -1, NULL,
             0);
  CHECK(weft_graph_input(g, 3) == NULL);
  CHECK(weft_graph_input(g, -1) == NULL);

  /* probs is consumed by a control edge; done has no outputs. */
  CHECK(weft_graph_num_outputs(g) == 4);
  check_info(weft_graph_output(g, 0), "halves", "Split", WEFT_FLOAT, 2,
             unknown_by_1, 0);
  check_info(weft_graph_output(g, 1), "halves:1", "Split", WEFT_FLOAT, 2,
             unknown_by_1, 0);
  check_info(weft_graph_output(g, 2), "k2", "Mul", WEFT_INT32, 0, NULL, 0);
  check_info(weft_graph_output(g, 3), "u2", "Identity", WEFT_FLOAT, -1, NULL,
             0);
  CHECK(weft_graph_output(g, 4) == NULL);
}

static void test_find_tensor(weft_graph* g, weft_status* s) {
  const int64_t unknown_by_2[] = {-1, 2};
  const weft_tensor_info* probs = weft_graph_find_tensor(g, "probs", s);
  const weft_tensor_info* again;
  const char* name;
  CHECK(weft_status_code(s) == WEFT_OK);
  check_info(probs, "probs", "Softmax", WEFT_FLOAT, 2, unknown_by_2, 0);
  check_info(weft_graph_find_tensor(g, "halves:1", s), "halves:1", "Split",
             WEFT_FLOAT, 2, (const int64_t[]){-1, 1}, 0);
  check_info(weft_graph_find_tensor(g, "k", s), "k", "PlaceholderWithDefault",
             WEFT_INT32, 0, NULL, 1);

  /* The same object again, and its strings stay put across lookups. */
  name = weft_tensor_info_name(probs);
  again = weft_graph_find_tensor(g, "probs", s);
  CHECK(again == probs);
  CHECK(weft_tensor_info_name(again) == name);

  CHECK(weft_graph_find_tensor(g, "probz", s) == NULL);
  CHECK(weft_status_code(s) == WEFT_NOT_FOUND);
  CHECK(strstr(weft_status_message(s), "graph_info.pbtxt") != NULL);
  CHECK(strstr(weft_status_message(s), "'probz'") != NULL);

  CHECK(weft_graph_find_tensor(g, "probs:1", s) == NULL);
  CHECK(weft_status_code(s) == WEFT_INVALID_ARGUMENT);
  CHECK(strstr(weft_status_message(s), "node 'probs' (Softmax) has 1 output") !=
        NULL);

  CHECK(weft_graph_find_tensor(g, "probs:x", s) == NULL);
  CHECK(weft_status_code(s) == WEFT_INVALID_ARGUMENT);
  CHECK(weft_graph_find_tensor(g, NULL, s) == NULL);
  CHECK(weft_status_code(s) == WEFT_INVALID_ARGUMENT);
  CHECK(weft_graph_find_tensor(NULL, "probs", s) == NULL);
  CHECK(weft_status_code(s) == WEFT_INVALID_ARGUMENT);
}

/* NULL handles give the documented neutral answers instead of crashing. */
static void test_null_handles(void) {
  CHECK(weft_graph_num_inputs(NULL) == 0);
  CHECK(weft_graph_num_outputs(NULL) == 0);
  CHECK(weft_graph_input(NULL, 0) == NULL);
  CHECK(weft_graph_output(NULL, 0) == NULL);
  CHECK_STR(weft_tensor_info_name(NULL), "");
  CHECK_STR(weft_tensor_info_op(NULL), "");
  CHECK(weft_tensor_info_dtype(NULL) == WEFT_INVALID);
  CHECK(weft_tensor_info_num_dims(NULL) == -1);
  CHECK(weft_tensor_info_dim(NULL, 0) == -1);
  CHECK(weft_tensor_info_has_default(NULL) == 0);
}

/* Input shapes given at load refine what the graph reports downstream. */
static void test_input_shapes(const char* path, weft_status* s) {
  const int64_t x_dims[] = {5, 3};
  weft_graph_options* options = weft_graph_options_new();
  weft_graph* g;
  weft_graph_options_set_input_shape(options, "x", x_dims, 2);
  g = weft_graph_load_file(path, options, s);
  weft_graph_options_delete(options);
  CHECK(g != NULL);
  if (g == NULL) return;
  check_info(weft_graph_input(g, 0), "x", "Placeholder", WEFT_FLOAT, 2, x_dims,
             0);
  check_info(weft_graph_output(g, 0), "halves", "Split", WEFT_FLOAT, 2,
             (const int64_t[]){5, 1}, 0);
  check_info(weft_graph_find_tensor(g, "probs", s), "probs", "Softmax",
             WEFT_FLOAT, 2, (const int64_t[]){5, 2}, 0);
  weft_graph_delete(g);
}

/* What a host with no prior knowledge does: zero-filled inputs of each
 * placeholder's dtype, 1 for unknown dims, then a run. */
static void test_run_from_description(weft_graph* g, weft_status* s) {
  weft_session* session = weft_session_new(g, 0, s);
  const weft_tensor_info* x = weft_graph_input(g, 0);
  int64_t dims[8];
  int i, n = weft_tensor_info_num_dims(x);
  weft_tensor* feed;
  weft_tensor* out[2] = {NULL, NULL};
  const char* feed_names[1];
  const weft_tensor* feeds[1];
  const char* fetch_names[2] = {"probs", "k2"};
  size_t bytes = weft_dtype_size(weft_tensor_info_dtype(x));
  CHECK(session != NULL);
  if (session == NULL) return;
  for (i = 0; i < n; ++i) {
    dims[i] = weft_tensor_info_dim(x, i) < 0 ? 1 : weft_tensor_info_dim(x, i);
    bytes *= (size_t)dims[i];
  }
  feed = weft_tensor_new(weft_tensor_info_dtype(x), dims, n, NULL, bytes, s);
  CHECK(feed != NULL);
  feed_names[0] = weft_tensor_info_name(x);
  feeds[0] = feed;
  /* k is left unfed: its default, 7, gives k2 = 49. */
  weft_session_run(session, feed_names, feeds, 1, fetch_names, 2, out, s);
  CHECK(weft_status_code(s) == WEFT_OK);
  if (weft_status_code(s) != WEFT_OK) {
    fprintf(stderr, "run: %s\n", weft_status_message(s));
  } else {
    const float* p = (const float*)weft_tensor_data(out[0]);
    CHECK(weft_tensor_num_dims(out[0]) == 2);
    CHECK(weft_tensor_dim(out[0], 0) == 1);
    CHECK(weft_tensor_dim(out[0], 1) == 2);
    CHECK(fabsf(p[0] - 0.5f) < 1e-6f && fabsf(p[1] - 0.5f) < 1e-6f);
    CHECK(*(const int32_t*)weft_tensor_data(out[1]) == 49);
  }
  weft_tensor_delete(out[0]);
  weft_tensor_delete(out[1]);
  weft_tensor_delete(feed);
  weft_session_delete(session);
}

int main(void) {
  const char* path = WEFT_API_TESTDATA_DIR "/graph_info.pbtxt";
  weft_status* s = weft_status_new();
  weft_graph* g = weft_graph_load_file(path, NULL, s);
  if (g == NULL) {
    fprintf(stderr, "loading %s: %s\n", path, weft_status_message(s));
    return 1;
  }
  test_inputs_and_outputs(g);
  test_find_tensor(g, s);
  test_null_handles();
  test_input_shapes(path, s);
  test_run_from_description(g, s);
  weft_graph_delete(g);
  weft_status_delete(s);
  if (failures > 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("graph_info_c_test: all checks passed\n");
  return 0;
}
