// The forward Fourier transforms of the inference set: FFT (complex, over
// the innermost dimension), RFFT and RFFT2D (real input, innermost one or
// two dimensions, fft_length given as an int32 input), registered exactly
// as TensorFlow 2.21's spectral_ops.cc defines them, with the Tcomplex and
// Treal attrs that pick the single or double precision pair.
//
// RFFT*'s output replaces the transformed dimensions with fft_length, the
// innermost with fft_length / 2 + 1 (0 stays 0), as TensorFlow's RFFTShape
// does; they are unknown until fft_length is a known constant. Where
// TensorFlow's shape function would build a dimension from a negative
// fft_length, weft reports the kernel's error at graph load instead, and
// it reports an input dimension shorter than fft_length (the kernel's other
// error) as soon as both are known.
#include <cstdint>
#include <vector>

#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

Status RfftShape(InferenceContext* c, int rank) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), rank, &out),
                           "input (input 0) must have rank >= ", rank);
  ShapeHandle length;
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &length),
                           "fft_length (input 1) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(length, 0), rank, &unused),
                           "fft_length (input 1) must have ", rank,
                           " elements");
  bool known = false;
  std::vector<int64_t> lengths;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &lengths));
  for (int i = 0; i < rank; ++i) {
    const int64_t axis = -rank + i;
    if (!known) {
      WEFT_RETURN_IF_ERROR(c->ReplaceDim(out, axis, c->UnknownDim(), &out));
      continue;
    }
    const int64_t n = lengths[i];
    if (n < 0) {
      return errors::InvalidArgument("fft_length[", i,
                                     "] must >= 0, but got: ", n);
    }
    if (c->RankKnown(out)) {
      const int64_t in = c->Value(c->Dim(out, axis));
      if (in != shape_inference::kUnknownDim && in != 0 && in < n) {
        return errors::InvalidArgument("Input dimension ", c->Rank(out) + axis,
                                       " must have length of at least ", n,
                                       " but got: ", in);
      }
    }
    const int64_t dim = i == rank - 1 && n != 0 ? n / 2 + 1 : n;
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(out, axis, dim, &out));
  }
  c->set_output(0, out);
  return Status();
}

REGISTER_OP("FFT")
    .Input("input: Tcomplex")
    .Output("output: Tcomplex")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn([](InferenceContext* c) {
      return shape_inference::UnchangedShapeWithRankAtLeast(c, 1);
    });

REGISTER_OP("RFFT")
    .Input("input: Treal")
    .Input("fft_length: int32")
    .Output("output: Tcomplex")
    .Attr("Treal: {float, double} = DT_FLOAT")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn([](InferenceContext* c) { return RfftShape(c, 1); });

REGISTER_OP("RFFT2D")
    .Input("input: Treal")
    .Input("fft_length: int32")
    .Output("output: Tcomplex")
    .Attr("Treal: {float, double} = DT_FLOAT")
    .Attr("Tcomplex: {complex64, complex128} = DT_COMPLEX64")
    .SetShapeFn([](InferenceContext* c) { return RfftShape(c, 2); });

}  // namespace
}  // namespace weft
