/* The op-library ABI: how a shared object built separately from weft adds
 * ops and kernels to it at run time (weft_load_op_library, `weft ... --load
 * LIB.so`).
 *
 * Why it is C and why it looks like this: TensorFlow custom ops call C++
 * functions of the runtime directly, so an op library built with another
 * compiler, C++ standard or _GLIBCXX_USE_CXX11_ABI setting dies with
 * "undefined symbol". Here nothing but plain C types crosses the boundary:
 *
 *  - The library links against nothing from weft. It exports one function,
 *    weft_plugin_init, which weft calls with a table of function pointers
 *    (weft_plugin_api); every service weft offers is reached through it.
 *  - Handles are opaque pointers, strings are NUL-terminated char arrays
 *    (borrowed for the duration of the call unless said otherwise), errors
 *    come back in weft_status objects. No exception may cross the boundary
 *    in either direction.
 *  - The table is versioned and append-only. Its first four members never
 *    change; a new version only adds members at the end. A library states
 *    the version it was built for by calling declare_api_version before
 *    anything else; weft refuses a library built for a newer version than
 *    it provides (the call returns 0 and the load fails with a message
 *    naming both versions) and serves any older one.
 *
 * Ops are declared with the same spec strings as in-tree REGISTER_OP
 * ("x: T", "T: {float, int32}", "N: int >= 1"), a shape function reads input
 * shapes and attrs through a weft_shape_context, and kernels are registered
 * per op, device ("CPU", "CUDA") and dtype constraints with three
 * callbacks: create (once per node, reads attrs), compute (once per run,
 * possibly from several threads at once on the same kernel object) and
 * destroy.
 *
 * Everything a library registers is committed only after weft_plugin_init
 * returns, and only if every registration succeeded: a load either adds all
 * of a library's ops and kernels or none of them.
 *
 * C++ libraries normally use the header-only sugar in weft/plugin.hpp.
 * A complete C library with one op, y = -x on float tensors:
 *
 *   #include "weft/plugin.h"
 *
 *   static const weft_plugin_api* api;
 *
 *   static void same_shape(weft_shape_context* c, void* u, weft_status* s) {
 *     api->shape_set_output_to_input(c, 0, 0, s);
 *   }
 *
 *   static void negate(void* k, weft_kernel_context* c, weft_status* s) {
 *     const weft_kernel_tensor* x = api->ctx_input(c, 0);
 *     int64_t dims[WEFT_MAX_RANK];
 *     int rank = api->tensor_num_dims(x);
 *     for (int i = 0; i < rank; ++i) dims[i] = api->tensor_dim(x, i);
 *     weft_kernel_tensor* y = api->ctx_allocate_output(c, 0, rank, dims, s);
 *     if (y == NULL) return;
 *     const float* in = api->tensor_data(x);
 *     float* out = api->tensor_data(y);
 *     for (int64_t i = 0; i < api->tensor_num_elements(x); ++i) out[i] =
 * -in[i];
 *   }
 *
 *   WEFT_PLUGIN_EXPORT void weft_plugin_init(weft_plugin* p,
 *                                            const weft_plugin_api* a) {
 *     if (!a->declare_api_version(p, WEFT_PLUGIN_API_VERSION)) return;
 *     api = a;
 *     weft_op_builder* op = api->op_new(p, "Negate");
 *     api->op_input(op, "x: float");
 *     api->op_output(op, "y: float");
 *     api->op_set_shape_fn(op, same_shape, NULL);
 *     api->op_register(op, NULL);
 *     weft_kernel_builder* k = api->kernel_new(p, "Negate", "CPU");
 *     api->kernel_set_callbacks(k, NULL, negate, NULL, NULL);
 *     api->kernel_register(k, NULL);
 *   }
 */
#ifndef WEFT_PLUGIN_H_
#define WEFT_PLUGIN_H_

#include "weft/c_types.h"

/* The version of the table this header describes. */
#define WEFT_PLUGIN_API_VERSION 1u

/* The symbol weft looks up in an op library. */
#define WEFT_PLUGIN_INIT_SYMBOL "weft_plugin_init"

#if defined(__GNUC__) || defined(__clang__)
#define WEFT_PLUGIN_VISIBLE __attribute__((visibility("default")))
#else
#define WEFT_PLUGIN_VISIBLE
#endif
#ifdef __cplusplus
#define WEFT_PLUGIN_EXPORT extern "C" WEFT_PLUGIN_VISIBLE
#else
#define WEFT_PLUGIN_EXPORT WEFT_PLUGIN_VISIBLE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The library being loaded; valid during weft_plugin_init only. */
typedef struct weft_plugin weft_plugin;
/* An op or kernel being declared; consumed by op_register/kernel_register. */
typedef struct weft_op_builder weft_op_builder;
typedef struct weft_kernel_builder weft_kernel_builder;
/* One node's shape inference; valid during the shape function only. */
typedef struct weft_shape_context weft_shape_context;
/* One node's kernel being created; valid during the create callback only. */
typedef struct weft_kernel_construction weft_kernel_construction;
/* One node's execution; valid during the compute callback only. */
typedef struct weft_kernel_context weft_kernel_context;
/* A node's attrs, read through the attr_* functions. Valid as long as the
 * context it came from (for a kernel context: as long as the kernel). */
typedef struct weft_attrs weft_attrs;
/* A tensor inside a kernel: an input (read only) or an output. Valid during
 * the compute callback. */
typedef struct weft_kernel_tensor weft_kernel_tensor;

/* Sets the node's output shapes, or reports why the inputs are wrong.
 * `user_data` is what was given to op_set_shape_fn. */
typedef void (*weft_shape_fn)(weft_shape_context* ctx, void* user_data,
                              weft_status* status);
/* Makes the per-node kernel state after checking attrs; reports failure
 * through `status`. `user_data` is what was given to kernel_set_callbacks.
 * Whatever it returns, if not NULL, is passed to destroy (also when it
 * reports failure). */
typedef void* (*weft_kernel_create_fn)(weft_kernel_construction* ctx,
                                       void* user_data, weft_status* status);
/* One execution. Must be safe to call concurrently on the same `kernel`.
 * On an asynchronous device (CUDA) it enqueues work on ctx's stream and
 * returns; weft waits for the stream before the outputs are used. */
typedef void (*weft_kernel_compute_fn)(void* kernel, weft_kernel_context* ctx,
                                       weft_status* status);
typedef void (*weft_kernel_destroy_fn)(void* kernel);
/* A piece [begin, end) of a parallel loop. Must not throw. */
typedef void (*weft_parallel_fn)(void* arg, int64_t begin, int64_t end);

typedef struct weft_plugin_api {
  /* ---- the fixed header: the same in every version ------------------ */

  /* The version weft provides (the WEFT_PLUGIN_API_VERSION it was built
   * with) and sizeof(weft_plugin_api) as weft compiled it. */
  uint32_t api_version;
  uint32_t struct_size;
  /* "0.1.0". */
  const char* weft_version;
  /* Must be called first, with WEFT_PLUGIN_API_VERSION. Returns 1 when weft
   * serves that version; 0 when it is newer than api_version (or 0): the
   * library must then return at once without touching the table further,
   * and the load fails naming both versions. */
  int (*declare_api_version)(weft_plugin* plugin, uint32_t plugin_api_version);

  /* ---- version 1 ------------------------------------------------------ */

  /* Statuses: the library's own (status_new/status_delete) and those handed
   * to its callbacks. A NULL message is an empty one. Wherever a function
   * below takes a weft_status*, NULL is allowed when the library does not
   * want the outcome (failed registrations fail the load regardless). */
  weft_status* (*status_new)(void);
  void (*status_delete)(weft_status* status);
  void (*status_set)(weft_status* status, weft_code code, const char* message);
  weft_code (*status_code)(const weft_status* status);
  const char* (*status_message)(const weft_status* status);

  /* Ops. The setters record; op_register parses everything and reports the
   * first problem (a bad spec, a missing shape function, a name this
   * library registered already). A failed registration also fails the
   * load, even if the library ignores it. An op name that weft or another
   * library registered already fails the load when weft_plugin_init
   * returns, naming both sources. */
  weft_op_builder* (*op_new)(weft_plugin* plugin, const char* op_name);
  void (*op_input)(weft_op_builder* op, const char* spec);
  void (*op_output)(weft_op_builder* op, const char* spec);
  void (*op_attr)(weft_op_builder* op, const char* spec);
  void (*op_doc)(weft_op_builder* op, const char* text);
  void (*op_set_is_stateful)(weft_op_builder* op);
  void (*op_set_shape_fn)(weft_op_builder* op, weft_shape_fn fn,
                          void* user_data);
  /* Consumes `op` whatever the outcome. */
  void (*op_register)(weft_op_builder* op, weft_status* status);

  /* Shape inference. Ranks and dimensions are -1 when unknown. */
  int (*shape_num_inputs)(const weft_shape_context* ctx);
  int (*shape_num_outputs)(const weft_shape_context* ctx);
  /* -1 for unknown rank and for an input index out of range. */
  int (*shape_input_rank)(const weft_shape_context* ctx, int input);
  /* -1 for unknown and for indices out of range. */
  int64_t (*shape_input_dim)(const weft_shape_context* ctx, int input, int dim);
  /* Output `output` gets dims[0..rank); rank -1 means unknown rank. */
  void (*shape_set_output)(weft_shape_context* ctx, int output, int rank,
                           const int64_t* dims, weft_status* status);
  /* Output `output` gets input `input`'s shape, unknown dimensions
   * included (weft then knows they are the same). */
  void (*shape_set_output_to_input)(weft_shape_context* ctx, int output,
                                    int input, weft_status* status);
  const weft_attrs* (*shape_attrs)(const weft_shape_context* ctx);

  /* Attr reads. NOT_FOUND when the node has no such attr, INVALID_ARGUMENT
   * when it has another type; both name the attr. Strings and lists point
   * into the attrs and live as long as they do. */
  void (*attr_int)(const weft_attrs* attrs, const char* name, int64_t* value,
                   weft_status* status);
  void (*attr_float)(const weft_attrs* attrs, const char* name, float* value,
                     weft_status* status);
  void (*attr_bool)(const weft_attrs* attrs, const char* name, int* value,
                    weft_status* status);
  void (*attr_type)(const weft_attrs* attrs, const char* name,
                    weft_dtype* value, weft_status* status);
  void (*attr_string)(const weft_attrs* attrs, const char* name,
                      const char** data, size_t* size, weft_status* status);
  void (*attr_int_list)(const weft_attrs* attrs, const char* name,
                        const int64_t** values, int64_t* count,
                        weft_status* status);
  void (*attr_float_list)(const weft_attrs* attrs, const char* name,
                          const float** values, int64_t* count,
                          weft_status* status);

  /* Kernels: one registration per op, device type ("CPU", "CUDA") and set
   * of type constraints. type_constraint may be called several times for
   * one attr to allow several dtypes. host_memory keeps an input or output
   * arg in host memory on a device with its own memory. kernel_register
   * reports a missing compute callback or bad constraints; a kernel for an
   * op that does not exist or that duplicates one already registered
   * (naming both sources) fails the load when weft_plugin_init returns. */
  weft_kernel_builder* (*kernel_new)(weft_plugin* plugin, const char* op_name,
                                     const char* device_type);
  void (*kernel_type_constraint)(weft_kernel_builder* kernel, const char* attr,
                                 weft_dtype dtype);
  void (*kernel_host_memory)(weft_kernel_builder* kernel, const char* arg);
  void (*kernel_priority)(weft_kernel_builder* kernel, int32_t priority);
  /* `create` and `destroy` may be NULL (no per-node state: compute then
   * gets `user_data` as its kernel). */
  void (*kernel_set_callbacks)(weft_kernel_builder* kernel,
                               weft_kernel_create_fn create,
                               weft_kernel_compute_fn compute,
                               weft_kernel_destroy_fn destroy, void* user_data);
  /* Consumes `kernel` whatever the outcome. */
  void (*kernel_register)(weft_kernel_builder* kernel, weft_status* status);

  /* Kernel creation. */
  const weft_attrs* (*construction_attrs)(const weft_kernel_construction* ctx);
  /* The node's name, for the library's own messages (weft already puts
   * "node 'name' (Op): " before errors a callback reports). */
  const char* (*construction_node_name)(const weft_kernel_construction* ctx);
  int (*construction_num_inputs)(const weft_kernel_construction* ctx);
  int (*construction_num_outputs)(const weft_kernel_construction* ctx);
  weft_dtype (*construction_input_type)(const weft_kernel_construction* ctx,
                                        int index);
  weft_dtype (*construction_output_type)(const weft_kernel_construction* ctx,
                                         int index);

  /* Kernel execution. */
  int (*ctx_num_inputs)(const weft_kernel_context* ctx);
  int (*ctx_num_outputs)(const weft_kernel_context* ctx);
  /* NULL for an index out of range. */
  const weft_kernel_tensor* (*ctx_input)(const weft_kernel_context* ctx,
                                         int index);
  /* Allocates output `index` with the op's dtype for it and shape
   * dims[0..rank), in the memory the output lives in (the device's, unless
   * declared host_memory). NULL on failure, with `status` set. */
  weft_kernel_tensor* (*ctx_allocate_output)(weft_kernel_context* ctx,
                                             int index, int rank,
                                             const int64_t* dims,
                                             weft_status* status);
  /* Output `output` shares input `input`'s buffer (a pass-through); the
   * dtypes must match. */
  void (*ctx_set_output_to_input)(weft_kernel_context* ctx, int output,
                                  int input, weft_status* status);
  /* The node's attrs; valid as long as the kernel. */
  const weft_attrs* (*ctx_attrs)(const weft_kernel_context* ctx);
  /* Calls fn(arg, begin, end) over disjoint ranges covering [0, n) on the
   * session's intra-op threads and returns when all are done.
   * `cost_per_unit` is the rough cost of one unit in CPU cycles; small
   * loops run inline. */
  void (*ctx_parallel_for)(const weft_kernel_context* ctx, int64_t n,
                           int64_t cost_per_unit, weft_parallel_fn fn,
                           void* arg);
  /* The device stream to enqueue on (a cudaStream_t on CUDA); NULL on the
   * CPU. */
  void* (*ctx_stream)(const weft_kernel_context* ctx);
  /* "CPU", "CUDA". */
  const char* (*ctx_device_type)(const weft_kernel_context* ctx);

  /* Tensors. */
  weft_dtype (*tensor_dtype)(const weft_kernel_tensor* tensor);
  int (*tensor_num_dims)(const weft_kernel_tensor* tensor);
  /* -1 for an index out of range. */
  int64_t (*tensor_dim)(const weft_kernel_tensor* tensor, int index);
  int64_t (*tensor_num_elements)(const weft_kernel_tensor* tensor);
  size_t (*tensor_byte_size)(const weft_kernel_tensor* tensor);
  /* The elements (row-major) in the tensor's memory: host memory on the
   * CPU, device memory for a CUDA kernel's non-host-memory args. Inputs
   * must not be written. */
  void* (*tensor_data)(const weft_kernel_tensor* tensor);
} weft_plugin_api;

/* What an op library defines (with WEFT_PLUGIN_EXPORT). */
typedef void (*weft_plugin_init_fn)(weft_plugin* plugin,
                                    const weft_plugin_api* api);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_PLUGIN_H_ */
