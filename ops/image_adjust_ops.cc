// Image colour adjustment, fake quantization and CTC greedy decoding:
// AdjustContrastv2, AdjustHue, AdjustSaturation, FakeQuantWithMinMaxArgs,
// FakeQuantWithMinMaxVars and CTCGreedyDecoder, with names, arguments,
// attrs and defaults as in TensorFlow's image_ops.cc, array_ops.cc and
// ctc_ops.cc so graph files validate unchanged. Kernels:
// kernels/cpu/adjust_image_ops.cc, fake_quant_ops.cc, ctc_decoder_op.cc.
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// images [..., height, width, channels] (rank >= 3) and a scalar factor:
// the output has the images' shape.
Status AdjustShape(InferenceContext* c, const char* factor) {
  ShapeHandle images;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 3, &images),
                           "images (input 0) must be at least 3-D");
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused), factor,
                           " (input 1) must be a scalar");
  c->set_output(0, images);
  return Status();
}

}  // namespace

REGISTER_OP("AdjustContrastv2")
    .Input("images: T")
    .Input("contrast_factor: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      return AdjustShape(c, "contrast_factor");
    });

REGISTER_OP("AdjustHue")
    .Input("images: T")
    .Input("delta: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return AdjustShape(c, "delta"); });

REGISTER_OP("AdjustSaturation")
    .Input("images: T")
    .Input("scale: float")
    .Output("output: T")
    .Attr("T: {half, float} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) { return AdjustShape(c, "scale"); });

REGISTER_OP("FakeQuantWithMinMaxArgs")
    .Attr("min: float = -6.0")
    .Attr("max: float = 6.0")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .Input("inputs: float")
    .Output("outputs: float")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("FakeQuantWithMinMaxVars")
    .Attr("num_bits: int = 8")
    .Attr("narrow_range: bool = false")
    .Input("inputs: float")
    .Input("min: float")
    .Input("max: float")
    .Output("outputs: float")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle unused;
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused),
                               "min (input 1) must be a scalar");
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 0, &unused),
                               "max (input 2) must be a scalar");
      c->set_output(0, c->input(0));
      return Status();
    });

// inputs [max_time, batch, num_classes], sequence_length [batch]: a sparse
// result of unknown size, its dense shape [2] and log_probability [batch, 1].
REGISTER_OP("CTCGreedyDecoder")
    .Input("inputs: T")
    .Input("sequence_length: int32")
    .Attr("merge_repeated: bool = false")
    .Attr("blank_index: int = -1")
    .Output("decoded_indices: int64")
    .Output("decoded_values: int64")
    .Output("decoded_shape: int64")
    .Output("log_probability: T")
    .Attr("T: {float, double} = DT_FLOAT")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle inputs;
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 3, &inputs),
                               "inputs (input 0) must be 3-D");
      ShapeHandle lengths;
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &lengths),
                               "sequence_length (input 1) must be a vector");
      DimensionHandle batch;
      WEFT_RETURN_IF_ERROR_CTX(
          c->Merge(c->Dim(inputs, 1), c->Dim(lengths, 0), &batch),
          "sequence_length (input 1) must have one length per batch entry");
      const DimensionHandle total = c->UnknownDim();
      c->set_output(0, c->Matrix(total, 2));
      c->set_output(1, c->Vector(total));
      c->set_output(2, c->Vector(2));
      c->set_output(3, c->Matrix(batch, 1));
      return Status();
    });

}  // namespace weft
