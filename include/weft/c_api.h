/* weft's embedding API: load a graph file, create a session, run it.
 *
 *   weft_status* s = weft_status_new();
 *   weft_graph* g = weft_graph_load_file("model.pb", NULL, s);
 *   weft_session* sess = g ? weft_session_new(g, -1, s) : NULL;
 *   ...
 *   const char* feed_names[] = {"x"};
 *   const weft_tensor* feeds[] = {x};
 *   const char* fetch_names[] = {"probs"};
 *   weft_tensor* out[1];
 *   weft_session_run(sess, feed_names, feeds, 1, fetch_names, 1, out, s);
 *   if (weft_status_code(s) != WEFT_OK) puts(weft_status_message(s));
 *
 * Why C: this is the only surface libweft exports (everything else in the
 * library is hidden), so a host built with another compiler, standard
 * library, C++ ABI or protobuf version links and runs against the same
 * libweft. C++ programs use the header-only wrapper weft/weft.hpp.
 *
 * Conventions:
 *  - Every fallible call takes a weft_status* last and sets it: WEFT_OK on
 *    success, else a code and a message that names what to act on (file,
 *    node, op, input, dtype). A call that fails returns NULL (or does
 *    nothing) and leaves no object behind.
 *  - Objects a function returns through a pointer are owned by the caller
 *    and freed with the matching weft_*_delete (which accepts NULL).
 *  - No C++ exception ever leaves this API.
 *  - Thread safety: distinct objects may be used from different threads;
 *    weft_session_run may be called on one session from many threads at
 *    once; weft_status objects are not shared between threads.
 */
#ifndef WEFT_C_API_H_
#define WEFT_C_API_H_

#include "weft/c_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the library ------------------------------------------------------- */

/* "0.1.0". */
WEFT_API const char* weft_version(void);

/* The op-library ABI version this weft provides (WEFT_PLUGIN_API_VERSION of
 * the weft/plugin.h it was built with). */
WEFT_API uint32_t weft_plugin_api_version(void);

/* Loads an op library (a shared object built against weft/plugin.h) and
 * registers its ops and kernels process-wide; graphs loaded afterwards may
 * use them. Loading the same file again is a no-op. Errors: the file cannot
 * be opened or is no weft op library (with the dynamic loader's reason), it
 * needs a newer plugin API than this weft provides, or one of its ops or
 * kernels is already registered (naming both libraries); on error nothing
 * from the library stays registered. */
WEFT_API void weft_load_op_library(const char* path, weft_status* status);

/* ---- status ------------------------------------------------------------ */

/* A status holding WEFT_OK. */
WEFT_API weft_status* weft_status_new(void);
WEFT_API void weft_status_delete(weft_status* status);
WEFT_API weft_code weft_status_code(const weft_status* status);
/* "" when the code is WEFT_OK. Valid until the status is next set or
 * deleted. */
WEFT_API const char* weft_status_message(const weft_status* status);
/* WEFT_OK clears the message. */
WEFT_API void weft_status_set(weft_status* status, weft_code code,
                              const char* message);

/* ---- dtypes ------------------------------------------------------------ */

/* "float", "int32", ... as op specs spell them; "invalid" for a value that
 * is no dtype. The string is static. */
WEFT_API const char* weft_dtype_name(weft_dtype dtype);
/* Bytes per element; 0 for types whose elements are not plain bytes
 * (string, resource, variant) and for invalid values. */
WEFT_API size_t weft_dtype_size(weft_dtype dtype);

/* ---- tensors ----------------------------------------------------------- */

/* A dense tensor in host memory. Only plain-bytes dtypes (those with a
 * non-zero weft_dtype_size) are supported through this API. */
typedef struct weft_tensor weft_tensor;

/* A new tensor of `dtype` and shape dims[0..num_dims) holding a copy of
 * `data`, which must be exactly num_elements * weft_dtype_size(dtype) bytes
 * (`num_bytes`); data == NULL gives zeros. num_dims == 0 is a scalar. */
WEFT_API weft_tensor* weft_tensor_new(weft_dtype dtype, const int64_t* dims,
                                      int num_dims, const void* data,
                                      size_t num_bytes, weft_status* status);

/* Frees a wrapped buffer; `arg` is what was given to weft_tensor_wrap. */
typedef void (*weft_deallocator)(void* data, size_t num_bytes, void* arg);

/* A tensor over the caller's buffer, without copying: weft reads `data` in
 * place and calls `deallocator` (if not NULL) once no tensor uses the
 * buffer any more, possibly after weft_tensor_delete returns (a session
 * output may still share it) and on another thread. weft never writes into
 * a wrapped buffer. Kernels expect 64-byte-aligned buffers: a `data` that is
 * not is copied into a new buffer and `deallocator` is called before this
 * returns. On failure the buffer stays the caller's and `deallocator` is not
 * called. */
WEFT_API weft_tensor* weft_tensor_wrap(weft_dtype dtype, const int64_t* dims,
                                       int num_dims, void* data,
                                       size_t num_bytes,
                                       weft_deallocator deallocator, void* arg,
                                       weft_status* status);

WEFT_API void weft_tensor_delete(weft_tensor* tensor);
WEFT_API weft_dtype weft_tensor_dtype(const weft_tensor* tensor);
WEFT_API int weft_tensor_num_dims(const weft_tensor* tensor);
/* Size of dimension `index`; -1 when index is out of range. */
WEFT_API int64_t weft_tensor_dim(const weft_tensor* tensor, int index);
WEFT_API int64_t weft_tensor_num_elements(const weft_tensor* tensor);
WEFT_API size_t weft_tensor_byte_size(const weft_tensor* tensor);
/* The elements, row-major. Writable for tensors made by weft_tensor_new and
 * for session outputs; do not write into a tensor that was fed to a run
 * still in progress. */
WEFT_API void* weft_tensor_data(const weft_tensor* tensor);

/* ---- graphs ------------------------------------------------------------ */

/* A graph file, imported, validated against the registered ops and
 * shape-inferred. Immutable once loaded; any number of sessions may be
 * created from it, and it may be deleted while they live. */
typedef struct weft_graph weft_graph;
typedef struct weft_graph_options weft_graph_options;

WEFT_API weft_graph_options* weft_graph_options_new(void);
WEFT_API void weft_graph_options_delete(weft_graph_options* options);
/* Gives placeholder `name` a (more specific) shape for shape inference:
 * dims[0..num_dims), -1 for an unknown dimension; num_dims == -1 means
 * unknown rank. Checked when the graph loads. */
WEFT_API void weft_graph_options_set_input_shape(weft_graph_options* options,
                                                 const char* name,
                                                 const int64_t* dims,
                                                 int num_dims);

/* A TensorFlow GraphDef file, binary (.pb) or text (.pbtxt); `options` may
 * be NULL. Op libraries the graph needs must be loaded first. */
WEFT_API weft_graph* weft_graph_load_file(const char* path,
                                          const weft_graph_options* options,
                                          weft_status* status);
/* The same from memory; the format is detected from the bytes.
 * `source_name` (may be NULL) starts error messages. */
WEFT_API weft_graph* weft_graph_load_buffer(const void* data, size_t size,
                                            const char* source_name,
                                            const weft_graph_options* options,
                                            weft_status* status);
/* A SavedModel directory (what tf.saved_model.save, Keras model.export()
 * and TF1's SavedModelBuilder write: saved_model.pb or saved_model.pbtxt,
 * variables/, assets/), read without TensorFlow. `tags` picks the meta
 * graph by its tag set, comma-separated ("serve,gpu"; NULL or "" for
 * "serve"); `signature` picks the signature (NULL or "" for
 * "serving_default", or the model's only signature when it has no
 * "serving_default"). The variables the signature reads are restored, their
 * checksums verified, and frozen into constants, so the graph runs as fast
 * as the frozen GraphDef would. The graph's inputs and outputs
 * (weft_graph_input/output) are the signature's keys, in key order; runs
 * feed and fetch by key, and node names ("serving_default_x:0") work too.
 * Input shapes in `options` may name keys. */
WEFT_API weft_graph* weft_graph_load_saved_model(
    const char* dir, const char* tags, const char* signature,
    const weft_graph_options* options, weft_status* status);

/* What a SavedModel directory offers, without loading its variables: the
 * runnable signatures of the meta graph tagged `tags` (NULL or "" for
 * "serve"), sorted by key. */
typedef struct weft_saved_model_info weft_saved_model_info;
WEFT_API weft_saved_model_info* weft_saved_model_info_read(const char* dir,
                                                           const char* tags,
                                                           weft_status* status);
WEFT_API void weft_saved_model_info_delete(weft_saved_model_info* info);
WEFT_API int weft_saved_model_info_num_signatures(
    const weft_saved_model_info* info);
/* NULL when `index` is out of range; valid until the info is deleted. */
WEFT_API const char* weft_saved_model_info_signature(
    const weft_saved_model_info* info, int index);

WEFT_API void weft_graph_delete(weft_graph* graph);
WEFT_API int weft_graph_num_nodes(const weft_graph* graph);

/* ---- what a graph takes and gives ---------------------------------------
 *
 * A host that knows nothing about a graph file can ask what to feed and
 * what to fetch:
 *
 *   for (int i = 0; i < weft_graph_num_inputs(g); ++i) {
 *     const weft_tensor_info* in = weft_graph_input(g, i);
 *     printf("%s: %s, %d dims\n", weft_tensor_info_name(in),
 *            weft_dtype_name(weft_tensor_info_dtype(in)),
 *            weft_tensor_info_num_dims(in));
 *   }
 *
 * Shapes are those shape inference gave the graph when it loaded, so they
 * reflect weft_graph_options_set_input_shape. A weft_tensor_info and the
 * strings it returns belong to the graph and stay valid until
 * weft_graph_delete; they are never freed by the caller. A graph loaded
 * from a SavedModel lists its signature's keys instead (see
 * weft_graph_load_saved_model). */
typedef struct weft_tensor_info weft_tensor_info;

/* The graph's inputs: every Placeholder and PlaceholderWithDefault, in the
 * file's node order. A run must feed each Placeholder its fetches depend
 * on; PlaceholderWithDefault inputs may be left unfed. */
WEFT_API int weft_graph_num_inputs(const weft_graph* graph);
/* NULL when `index` is not in [0, weft_graph_num_inputs). */
WEFT_API const weft_tensor_info* weft_graph_input(const weft_graph* graph,
                                                  int index);

/* The graph's outputs: every output of every node that no other node
 * consumes (by data or control edge), in node order, except placeholders
 * and nodes with no outputs. For a frozen Keras model these are its output
 * layers. */
WEFT_API int weft_graph_num_outputs(const weft_graph* graph);
/* NULL when `index` is not in [0, weft_graph_num_outputs). */
WEFT_API const weft_tensor_info* weft_graph_output(const weft_graph* graph,
                                                   int index);

/* Any node output, by the name a run would fetch it by: "node" (output 0)
 * or "node:k". NULL with WEFT_NOT_FOUND when no node has that name, or
 * WEFT_INVALID_ARGUMENT for a malformed name or an output the node does not
 * have; the message names the graph file and the tensor. Safe to call from
 * several threads on one graph. */
WEFT_API const weft_tensor_info* weft_graph_find_tensor(const weft_graph* graph,
                                                        const char* name,
                                                        weft_status* status);

/* "node" or "node:k", as feeds and fetches name it; "" for NULL. */
WEFT_API const char* weft_tensor_info_name(const weft_tensor_info* info);
/* The op of the node that produces it ("Placeholder", "Softmax"); "" for
 * NULL. */
WEFT_API const char* weft_tensor_info_op(const weft_tensor_info* info);
/* WEFT_INVALID for NULL. */
WEFT_API weft_dtype weft_tensor_info_dtype(const weft_tensor_info* info);
/* The rank; -1 when the rank is unknown (and for NULL). */
WEFT_API int weft_tensor_info_num_dims(const weft_tensor_info* info);
/* The size of dimension `index`; -1 when that size is unknown (e.g. the
 * batch) and when `index` is out of range. */
WEFT_API int64_t weft_tensor_info_dim(const weft_tensor_info* info, int index);
/* 1 when the tensor is a PlaceholderWithDefault's output, which a run may
 * leave unfed; else 0. */
WEFT_API int weft_tensor_info_has_default(const weft_tensor_info* info);

/* ---- sessions ---------------------------------------------------------- */

typedef struct weft_session weft_session;

/* Prepares `graph` for running: devices, kernels, constants. `num_threads`
 * is how many threads may run kernels: 0 runs everything on the thread that
 * calls weft_session_run, -1 one per core. */
WEFT_API weft_session* weft_session_new(const weft_graph* graph,
                                        int num_threads, weft_status* status);
WEFT_API void weft_session_delete(weft_session* session);

/* Session settings beyond the thread count. A new object holds the
 * defaults: one thread per core (-1), device "cpu", the graph optimizer on
 * (constant folding and fusion, done once when the session prepares a run),
 * host memory cached across runs, no limit. Setters only record values;
 * weft_session_new_with_options checks them and reports what is wrong.
 * NULL options mean the defaults. */
typedef struct weft_session_options weft_session_options;
WEFT_API weft_session_options* weft_session_options_new(void);
WEFT_API void weft_session_options_delete(weft_session_options* options);
/* 0 runs every kernel on the thread that calls weft_session_run; -1 one
 * thread per core; n > 0 at most n threads. */
WEFT_API void weft_session_options_set_threads(weft_session_options* options,
                                               int num_threads);
/* "cpu", "cuda", "cuda:N" or "auto" (a usable GPU, else the CPU). "cuda"
 * without a usable GPU fails session creation with the reason. */
WEFT_API void weft_session_options_set_device(weft_session_options* options,
                                              const char* device);
/* Non-zero (default) folds constant subgraphs and fuses convolutions and
 * matrix products with their bias and activation; 0 runs the nodes as they
 * are in the graph. */
WEFT_API void weft_session_options_set_optimize(weft_session_options* options,
                                                int enabled);
/* Non-zero (default): tensors of one run reuse the host memory of earlier
 * runs, kept by the session until it is deleted; 0 asks the system for
 * every buffer. */
WEFT_API void weft_session_options_set_host_memory_cache(
    weft_session_options* options, int enabled);
/* With the cache on, the most host memory in bytes the session keeps for
 * tensors; 0 (default) is no limit. A run that needs more fails with
 * WEFT_RESOURCE_EXHAUSTED naming the node. */
WEFT_API void weft_session_options_set_host_memory_limit(
    weft_session_options* options, int64_t bytes);
/* CUDA sessions only (creating a CPU session with any of these set fails
 * with WEFT_INVALID_ARGUMENT). A cudaStream_t of the caller's for the
 * session's GPU kernels: a run's GPU work starts after what the caller
 * enqueued on it before weft_session_run, and weft_session_run returns once
 * that work has completed; concurrent runs share it; it must belong to the
 * session's GPU and outlive the session, which never destroys it. NULL
 * (default): a stream of the session's own. */
WEFT_API void weft_session_options_set_cuda_stream(
    weft_session_options* options, void* cuda_stream);
/* Non-zero lets float32 matrix products use TF32 tensor cores (inputs
 * rounded to a 10-bit mantissa); 0 (default) keeps float32 accuracy. */
WEFT_API void weft_session_options_set_allow_tf32(weft_session_options* options,
                                                  int enabled);
/* The most GPU memory in bytes the session's tensors may hold; 0 (default)
 * is no limit. */
WEFT_API void weft_session_options_set_device_memory_limit(
    weft_session_options* options, int64_t bytes);
/* Non-zero records each run's device work on its first run (a CUDA Graph)
 * and replays it: one launch per run, for fixed shapes, where every node
 * runs on the GPU; other runs go node by node. 0 (default): node by node. */
WEFT_API void weft_session_options_set_capture_device_graphs(
    weft_session_options* options, int enabled);

WEFT_API weft_session* weft_session_new_with_options(
    const weft_graph* graph, const weft_session_options* options,
    weft_status* status);

/* Runs the graph: feeds[i] replaces tensor feed_names[i] ("node" or
 * "node:1"); outputs[i] receives a new tensor for fetch_names[i] (the caller
 * deletes it). On error every outputs[i] is set to NULL. */
WEFT_API void weft_session_run(const weft_session* session,
                               const char* const* feed_names,
                               const weft_tensor* const* feeds, int num_feeds,
                               const char* const* fetch_names, int num_fetches,
                               weft_tensor** outputs, weft_status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_C_API_H_ */
