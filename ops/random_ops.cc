// Random number ops: the stateless family (seeded by an input: the V1 ops by
// a seed pair, the V2 ops by a Philox key, counter and algorithm that
// StatelessRandomGetKeyCounter[Alg] derive from a seed pair) and the
// stateful RandomUniform, RandomStandardNormal, RandomUniformInt and
// Multinomial (seeded by attrs; marked stateful, as in TensorFlow, so that
// the optimizer neither folds nor merges them). Names, arguments, attrs and
// defaults follow TensorFlow's random_ops.cc, stateless_random_ops.cc and
// stateless_random_ops_v2.cc so graph files validate unchanged; kernels are
// in kernels/cpu/stateless_random_ops.cc and kernels/cpu/random_ops.cc.
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// The output shape is the value of the shape tensor (input 0): known dims
// where the tensor is (partly) known.
Status RandomShape(InferenceContext* c) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR_CTX(c->MakeShapeFromShapeTensor(0, &out),
                           "shape (input 0)");
  c->set_output(0, out);
  return Status();
}

Status CheckScalar(InferenceContext* c, int input, const char* what) {
  ShapeHandle unused;
  return AddContext(c->WithRank(c->input(input), 0, &unused), what);
}

// A seed pair: a vector of 2.
Status CheckSeed(InferenceContext* c, int input) {
  ShapeHandle seed;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(input), 1, &seed),
                           "seed must be a vector of 2");
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(seed, 0), 2, &unused),
                           "seed must be a vector of 2");
  return Status();
}

// StatelessRandomUniform and friends: shape, seed[2].
Status StatelessShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR(CheckSeed(c, 1));
  return RandomShape(c);
}

// The V2 ops: shape, key[1], counter (a vector), alg (a scalar).
Status StatelessShapeV2(InferenceContext* c) {
  ShapeHandle key;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &key),
                           "key (input 1) must be a vector of 1");
  ShapeHandle counter;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &counter),
                           "counter (input 2) must be a vector");
  WEFT_RETURN_IF_ERROR(CheckScalar(c, 3, "alg (input 3) must be a scalar"));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(key, 0), 1, &unused),
                           "key (input 1) must be a vector of 1");
  return RandomShape(c);
}

// Key [1] and counter [2] (Philox's counter size, the largest of TF's
// algorithms), then `alg` a scalar.
Status KeyCounterShape(InferenceContext* c, bool alg) {
  WEFT_RETURN_IF_ERROR(CheckSeed(c, 0));
  c->set_output(0, c->Vector(1));
  c->set_output(1, c->Vector(2));
  if (alg) c->set_output(2, c->Scalar());
  return Status();
}

}  // namespace

// ---- Stateless, V2 (key, counter, alg) --------------------------------------

REGISTER_OP("StatelessRandomUniformV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShapeV2);

REGISTER_OP("StatelessRandomNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShapeV2);

REGISTER_OP("StatelessTruncatedNormalV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShapeV2);

REGISTER_OP("StatelessRandomUniformIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64}")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) {
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 4, "minval (input 4) must be a scalar"));
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 5, "maxval (input 5) must be a scalar"));
      return StatelessShapeV2(c);
    });

REGISTER_OP("StatelessRandomUniformFullIntV2")
    .Input("shape: Tshape")
    .Input("key: uint64")
    .Input("counter: uint64")
    .Input("alg: int32")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(StatelessShapeV2);

REGISTER_OP("StatelessRandomGetKeyCounterAlg")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Output("alg: int32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) { return KeyCounterShape(c, true); });

REGISTER_OP("StatelessRandomGetKeyCounter")
    .Input("seed: Tseed")
    .Output("key: uint64")
    .Output("counter: uint64")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) { return KeyCounterShape(c, false); });

// Stateful in TensorFlow (the default algorithm may depend on the device).
REGISTER_OP("StatelessRandomGetAlg")
    .Output("alg: int32")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->Scalar());
      return Status();
    });

// ---- Stateless, V1 (seed pair) ----------------------------------------------

REGISTER_OP("StatelessRandomUniform")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(StatelessShape);

REGISTER_OP("StatelessRandomNormal")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(StatelessShape);

REGISTER_OP("StatelessTruncatedNormal")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Output("output: dtype")
    .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
    .Attr("T: {int32, int64} = DT_INT32")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn(StatelessShape);

REGISTER_OP("StatelessRandomUniformInt")
    .Input("shape: T")
    .Input("seed: Tseed")
    .Input("minval: dtype")
    .Input("maxval: dtype")
    .Output("output: dtype")
    .Attr("dtype: {int32, int64}")
    .Attr("T: {int32, int64}")
    .Attr("Tseed: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 2, "minval (input 2) must be a scalar"));
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 3, "maxval (input 3) must be a scalar"));
      return StatelessShape(c);
    });

// ---- Stateful (seed, seed2 attrs) -------------------------------------------

REGISTER_OP("RandomUniform")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomShape);

REGISTER_OP("RandomStandardNormal")
    .Input("shape: T")
    .SetIsStateful()
    .Output("output: dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("dtype: {half, bfloat16, float, double}")
    .Attr("T: {int32, int64}")
    .SetShapeFn(RandomShape);

REGISTER_OP("RandomUniformInt")
    .Input("shape: T")
    .Input("minval: Tout")
    .Input("maxval: Tout")
    .SetIsStateful()
    .Output("output: Tout")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("Tout: {int32, int64}")
    .Attr("T: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 1, "minval (input 1) must be a scalar"));
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 2, "maxval (input 2) must be a scalar"));
      return RandomShape(c);
    });

REGISTER_OP("Multinomial")
    .SetIsStateful()
    .Input("logits: T")
    .Input("num_samples: int32")
    .Output("output: output_dtype")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64}")
    .Attr("output_dtype: {int32, int64} = DT_INT64")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle logits;
      WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 2, &logits),
                               "logits (input 0) must be a matrix");
      WEFT_RETURN_IF_ERROR(
          CheckScalar(c, 1, "num_samples (input 1) must be a scalar"));
      DimensionHandle samples;
      WEFT_RETURN_IF_ERROR_CTX(c->MakeDimForScalarInput(1, &samples),
                               "num_samples (input 1)");
      c->set_output(0, c->Matrix(c->Dim(logits, 0), samples));
      return Status();
    });

}  // namespace weft
