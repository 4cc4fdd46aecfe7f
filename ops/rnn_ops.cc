// The fused LSTM cell, LSTMBlockCell, registered exactly as TensorFlow 2.21's
// rnn_ops.cc defines it (input, output and attr names, defaults, and the
// {half, float} type set), so frozen graphs of tf.compat.v1 LSTMBlockCell
// layers validate unchanged. Its seven outputs all have shape
// [batch, cell]: batch from x, cell from cs_prev, as TensorFlow infers them.
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

Status LstmBlockCellShape(InferenceContext* c) {
  ShapeHandle x;
  ShapeHandle cs_prev;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 2, &x),
                           "x (input 0) must be a matrix");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 2, &cs_prev),
                           "cs_prev (input 1) must be a matrix");
  const DimensionHandle batch = c->Dim(x, 0);
  const DimensionHandle cell = c->Dim(cs_prev, 1);
  const ShapeHandle out = c->Matrix(batch, cell);
  for (int i = 0; i < 7; ++i) c->set_output(i, out);
  return Status();
}

REGISTER_OP("LSTMBlockCell")
    .Input("x: T")
    .Input("cs_prev: T")
    .Input("h_prev: T")
    .Input("w: T")
    .Input("wci: T")
    .Input("wcf: T")
    .Input("wco: T")
    .Input("b: T")
    .Output("i: T")
    .Output("cs: T")
    .Output("f: T")
    .Output("o: T")
    .Output("ci: T")
    .Output("co: T")
    .Output("h: T")
    .Attr("forget_bias: float = 1.0")
    .Attr("cell_clip: float = 3.0")
    .Attr("use_peephole: bool = false")
    .Attr("T: {half, float}")
    .SetShapeFn(LstmBlockCellShape);

}  // namespace
}  // namespace weft
