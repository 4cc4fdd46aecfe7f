/* The plain-C op library of include/weft/plugin.h's header comment, extended
 * with a parallel loop and an attr: Negate(x) = -x * scale on float tensors.
 * Tests load it to check the C ABI without the C++ sugar. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "weft/plugin.h"

static const weft_plugin_api* api;

static void same_shape(weft_shape_context* c, void* user_data, weft_status* s) {
  (void)user_data;
  api->shape_set_output_to_input(c, 0, 0, s);
}

typedef struct {
  float scale;
} negate_state;

static void* negate_create(weft_kernel_construction* c, void* user_data,
                           weft_status* s) {
  (void)user_data;
  float scale = 0;
  api->attr_float(api->construction_attrs(c), "scale", &scale, s);
  if (api->status_code(s) != WEFT_OK) return NULL;
  negate_state* state = (negate_state*)malloc(sizeof *state);
  if (state == NULL) {
    api->status_set(s, WEFT_RESOURCE_EXHAUSTED, "out of memory");
    return NULL;
  }
  state->scale = scale;
  return state;
}

static void negate_destroy(void* kernel) { free(kernel); }

typedef struct {
  const float* in;
  float* out;
  float scale;
} negate_loop;

static void negate_range(void* arg, int64_t begin, int64_t end) {
  negate_loop* loop = (negate_loop*)arg;
  for (int64_t i = begin; i < end; ++i) {
    loop->out[i] = -loop->in[i] * loop->scale;
  }
}

static void negate_compute(void* kernel, weft_kernel_context* c,
                           weft_status* s) {
  const negate_state* state = (const negate_state*)kernel;
  const weft_kernel_tensor* x = api->ctx_input(c, 0);
  int64_t dims[WEFT_MAX_RANK];
  int rank = api->tensor_num_dims(x);
  for (int i = 0; i < rank; ++i) dims[i] = api->tensor_dim(x, i);
  weft_kernel_tensor* y = api->ctx_allocate_output(c, 0, rank, dims, s);
  if (y == NULL) return;
  negate_loop loop;
  loop.in = (const float*)api->tensor_data(x);
  loop.out = (float*)api->tensor_data(y);
  loop.scale = state->scale;
  api->ctx_parallel_for(c, api->tensor_num_elements(x), 1, negate_range, &loop);
}

WEFT_PLUGIN_EXPORT void weft_plugin_init(weft_plugin* p,
                                         const weft_plugin_api* a) {
  if (!a->declare_api_version(p, WEFT_PLUGIN_API_VERSION)) return;
  api = a;
  weft_op_builder* op = api->op_new(p, "PluginNegate");
  api->op_input(op, "x: float");
  api->op_output(op, "y: float");
  api->op_attr(op, "scale: float = 1.0");
  api->op_set_shape_fn(op, same_shape, NULL);
  api->op_register(op, NULL);

  weft_kernel_builder* k = api->kernel_new(p, "PluginNegate", "CPU");
  api->kernel_set_callbacks(k, negate_create, negate_compute, negate_destroy,
                            NULL);
  api->kernel_register(k, NULL);
}
