// Tensor values in TensorFlow's TensorProto wire format: how graph files
// store Const values and other tensor attrs.
//
// Decoding accepts every encoding TensorFlow writes: raw little-endian bytes
// in tensor_content (strings there as varint lengths followed by the bytes),
// the typed repeated fields (float_val, int_val, half_val, ...), and the
// compressed form in which fewer values than elements are given and the last
// one repeats (none given means all zeros). Every size is checked against the
// declared shape before anything is allocated.
#ifndef WEFT_GRAPH_TENSOR_PROTO_H_
#define WEFT_GRAPH_TENSOR_PROTO_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"

namespace weft {

struct TensorDecodeOptions {
  // The most bytes a tensor may take once decoded from the compressed form.
  // There a few bytes of file can declare any size (one value for shape
  // [1000000,1000000]), so without a bound a malformed or hostile file could
  // demand terabytes. Tensors stored in full (tensor_content, or one value per
  // element) are bounded by the file's own size and need no such limit. The
  // default, 1 GiB, is far above the constant fills real graphs carry
  // (zeros/ones initializers folded into Consts); raise it for a graph that
  // needs more. Strings count sizeof(std::string) per element plus their
  // characters.
  int64_t max_filled_bytes = int64_t{1} << 30;
  // Whether node attrs named "_output_shapes" are decoded. TensorFlow writes
  // one on most nodes of a SavedModel (the shapes it inferred when saving);
  // weft infers shapes itself and never reads them, and decoding them was
  // a tenth of loading DenseNet121. false leaves them out of the NodeDefs
  // (a graph written back then has none, which TensorFlow does not need);
  // the entry is still checked to be well-formed.
  bool keep_output_shapes_attrs = true;
  // Whether a function's per-argument attrs (FunctionDef.arg_attr:
  // "_user_specified_name", "_output_shapes", ...) are decoded. Nothing weft
  // runs reads them; a TF2 signature function has one entry per captured
  // variable (1,127 in NASNetMobile's three), and decoding them was 5% of
  // parsing its saved_model.pb. false leaves FunctionDef::arg_attr empty.
  bool keep_function_arg_attrs = true;
};

// Decodes a binary-serialized TensorProto. Errors say which field disagrees
// with the dtype or shape and how ("tensor_content has 12 bytes but shape
// [2,2] of float needs 16").
StatusOr<Tensor> ParseTensorProto(absl::string_view serialized,
                                  const TensorDecodeOptions& options = {});

// Same, from the text format ("dtype: DT_FLOAT tensor_shape { dim { size: 2 }
// } float_val: 1").
StatusOr<Tensor> ParseTensorProtoText(absl::string_view text,
                                      const TensorDecodeOptions& options = {});

// Encodes a host tensor: POD types as raw little-endian bytes in
// tensor_content (as TensorFlow's AsProtoTensorContent does), strings one per
// string_val entry, and single float, double, int32, int64 and bool values in
// their typed field (as TensorFlow's Python writes scalars). Fails for tensors
// in device memory and for tensors with no buffer.
StatusOr<std::string> SerializeTensorProto(const Tensor& tensor);

}  // namespace weft

#endif  // WEFT_GRAPH_TENSOR_PROTO_H_
