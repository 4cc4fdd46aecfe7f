// Shape functions shared by many ops, and the windowed-output arithmetic of
// convolution and pooling that kernels must agree with. Semantics follow
// TensorFlow's common_shape_fns so that graphs infer as they do there.
#ifndef WEFT_OPS_COMMON_SHAPE_FNS_H_
#define WEFT_OPS_COMMON_SHAPE_FNS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

#include "core/status.h"
#include "ops/shape_inference.h"

namespace weft {

// The `padding` attr of convolution and pooling ops.
enum class Padding { kValid, kSame, kExplicit };
// "VALID", "SAME", "EXPLICIT".
StatusOr<Padding> ParsePadding(absl::string_view name);

// The `data_format` attr of 2-D convolution and pooling ops: where the batch
// (N), spatial (H, W) and channel (C) dimensions sit.
enum class TensorFormat { kNHWC, kNCHW };
StatusOr<TensorFormat> ParseTensorFormat(absl::string_view name);
// Index of 'N', 'H', 'W' or 'C' in a 4-D shape of this format.
int FormatDimIndex(TensorFormat format, char dim);

struct WindowedOutputSize {
  int64_t size = 0;
  int64_t pad_before = 0;
  int64_t pad_after = 0;
};

// Output size of a window of `filter_size` taps spaced `dilation_rate` apart
// sliding by `stride` over `input_size` elements, exactly as TensorFlow
// computes it (effective filter e = (filter_size - 1) * dilation_rate + 1):
//   VALID:    (input_size - e + stride) / stride    (i.e. ceil((in-e+1)/s))
//   SAME:     (input_size + stride - 1) / stride    (i.e. ceil(in/s)), with
//             the needed padding max(0, (out-1)*stride + e - in) split so the
//             extra element goes after;
//   EXPLICIT: (input_size + pad_before + pad_after - e + stride) / stride,
//             with the given paddings.
// Errors: stride or dilation < 1, filter_size < 1, negative input or
// padding, overflow, and a negative output size.
StatusOr<WindowedOutputSize> GetWindowedOutputSize(
    int64_t input_size, int64_t filter_size, int64_t dilation_rate,
    int64_t stride, Padding padding, int64_t explicit_pad_before = 0,
    int64_t explicit_pad_after = 0);

// ---- StridedSlice -----------------------------------------------------------

// The five bit masks of StridedSlice; bit i refers to slice term i.
struct StridedSliceMasks {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t ellipsis = 0;
  int64_t new_axis = 0;
  int64_t shrink_axis = 0;
};

// A StridedSlice node's five masks from its attrs (begin_mask, end_mask,
// ellipsis_mask, new_axis_mask, shrink_axis_mask): its shape function, its
// kernels and the rules that read a slice as a view all read them here.
Status ReadStridedSliceMasks(const AttrMap& attrs, StridedSliceMasks* masks);

// A StridedSlice resolved against an input shape, as TensorFlow's
// ValidateStridedSliceOp resolves it. The shape function plans with what is
// known; the kernel plans with everything known and walks the result, so the
// two agree on every edge case (clamping, negative strides, masks).
struct StridedSlicePlan {
  // Per input dimension (the ellipsis expanded): the first index taken, the
  // bound one stride past the last (-1 is possible with negative strides),
  // and the stride. begin and end are in [-1, size] and meaningful where the
  // dimension's size, the slice bounds and the stride are all known (always,
  // for a kernel); a shrunk dimension has end = begin + 1.
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  // Per input dimension: how many elements the slice keeps (1 for a shrunk
  // dimension), kUnknownDim when that is not known.
  std::vector<int64_t> processing_shape;
  // Per input dimension: whether the slice keeps all of it in order (stride
  // 1 over the full range), so that it keeps its size even when unknown.
  std::vector<bool> takes_whole;
  // Per output dimension: its size (kUnknownDim when not known) and the input
  // dimension it comes from, or -1 for a new axis of size 1.
  std::vector<int64_t> final_shape;
  std::vector<int> final_source;
};

// Plans input[begin:end:strides] with the masks, where `input_dims` holds the
// input's sizes (kUnknownDim where unknown) and `num_terms` is the number of
// slice terms. `begin`, `end` and `strides` hold one value per term, or are
// nullptr when not known. Errors: more than one ellipsis, 32 or more terms,
// more indexing terms than input dimensions, a zero stride, a shrunk index
// with a non-positive stride or outside the dimension.
StatusOr<StridedSlicePlan> PlanStridedSlice(
    const std::vector<int64_t>& input_dims, int64_t num_terms,
    const std::vector<int64_t>* begin, const std::vector<int64_t>* end,
    const std::vector<int64_t>* strides, const StridedSliceMasks& masks);

// ---- Einsum -----------------------------------------------------------------

// An Einsum equation "ab,bc->ac" split into its subscripts. Each subscript is
// a string of labels (any character but '.', ',' and '->'), with at most one
// ellipsis "..." standing for broadcast dimensions.
struct EinsumEquation {
  std::vector<std::string> inputs;
  std::string output;
};

// Parses TensorFlow's explicit form: exactly one "->", one or two input
// subscripts, periods only as a single "..." per subscript.
StatusOr<EinsumEquation> ParseEinsumEquation(absl::string_view equation);

namespace shape_inference {

// Output 0 is input 0's shape (the very handle).
Status UnchangedShape(InferenceContext* c);
// Output 0 is input 0's shape, which must have at least / exactly `rank`.
Status UnchangedShapeWithRankAtLeast(InferenceContext* c, int64_t rank);
Status UnchangedShapeWithRank(InferenceContext* c, int64_t rank);
// Output 0 is a scalar.
Status ScalarShape(InferenceContext* c);
// Every output has unknown shape: for ops whose output shapes depend on data.
Status UnknownShape(InferenceContext* c);
// For ops without outputs.
Status NoOutputs(InferenceContext* c);

// NumPy broadcasting of x and y, aligned at their last dimensions. A known 1
// stretches to the other side; an unknown dimension against a known d > 1 is
// assumed to be d (the program is taken to be valid); against a known 1 it
// stays the very unknown handle; two different unknown dimensions give an
// unknown one. Unknown rank on either side gives unknown rank. Incompatible
// known sizes are an error naming both shapes.
Status BroadcastBinaryOpOutputShape(InferenceContext* c, ShapeHandle x,
                                    ShapeHandle y, ShapeHandle* out);
// Output 0 = broadcast(input 0, input 1).
Status BroadcastBinaryOpShape(InferenceContext* c);

// [m, k] x [k, n] -> [m, n], honoring the transpose_a / transpose_b attrs.
Status MatMulShape(InferenceContext* c);
// [..., m, k] x [..., k, n] -> [broadcast(...), m, n], honoring adj_x /
// adj_y; the batch dimensions broadcast.
Status BatchMatMulV2Shape(InferenceContext* c);

// Input 0 reduced over the axes in input 1 (a scalar or vector of int32 or
// int64, negative axes counting from the end), keeping size-1 dimensions
// when the `keep_dims` attr is true. Without a constant axes value the
// output is unknown (keep_dims: unknown dims of the input's rank).
Status ReductionShape(InferenceContext* c);

// Reshape of input 0 to the shape in input 1: at most one -1 is inferred
// from the element count; the counts must match when both are known.
Status ReshapeShape(InferenceContext* c);

// 2-D convolution: input [N,H,W,C] (or NCHW), filter [h, w, in, out];
// attrs strides, dilations, padding (with explicit_paddings), data_format.
// The input depth must be a multiple of the filter's in depth (grouped
// convolution).
Status Conv2DShape(InferenceContext* c);

// 2-D pooling: input [N,H,W,C] (or NCHW); attrs ksize, strides, padding
// (EXPLICIT with explicit_paddings where the op has them), data_format.
// MaxPool may also pool over depth; neither pools over the batch.
Status MaxPoolShape(InferenceContext* c);
Status AvgPoolShape(InferenceContext* c);

// value [..., C] (NHWC, rank >= 2) or [N, C, ...] (NCHW, rank >= 3) plus a
// bias vector [C]: output is the value's shape with C merged with the bias.
Status BiasAddShape(InferenceContext* c);

// Depthwise 2-D convolution: input [N,H,W,C] (or NCHW), filter
// [h, w, C, multiplier]; output depth C * multiplier. Attrs as Conv2D.
Status DepthwiseConv2DNativeShape(InferenceContext* c);
// The same for a given input shape (`input_name` in errors) and the filter
// at input `filter_input`, into *output (fused ops whose depthwise
// convolution reads a value they compute).
Status DepthwiseConv2DShapeOf(InferenceContext* c, ShapeHandle input,
                              const char* input_name, int filter_input,
                              ShapeHandle* output);

// The input gradient of Conv2D, as transposed convolution layers use it:
// input_sizes (input 0) is the result's shape, 4 values in data_format order
// or 2 spatial values (batch from out_backprop, depth from the filter);
// filter [h, w, in, out] (input 1); out_backprop (input 2) must have the size
// the forward convolution of that shape would produce.
Status Conv2DBackpropInputShape(InferenceContext* c);

// FusedBatchNormV3: x of rank 4 (NHWC/NCHW) or 5 (NDHWC/NCDHW), per-channel
// vectors scale, offset, and (unless training with exponential_avg_factor
// 1) mean and variance. Outputs: y like x; batch_mean, batch_variance,
// reserve_space_1 and reserve_space_2 of [C]; reserve_space_3 unknown (its
// size is up to the implementation).
Status FusedBatchNormV3Shape(InferenceContext* c);

// Einsum with the `equation` attr (see ParseEinsumEquation): each named
// label is one size across the inputs (repeated labels must agree), the
// ellipsis dimensions of two inputs broadcast, and the output takes the
// sizes of its labels.
Status EinsumShape(InferenceContext* c);

}  // namespace shape_inference
}  // namespace weft

#endif  // WEFT_OPS_COMMON_SHAPE_FNS_H_
