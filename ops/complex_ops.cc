// ComplexAbs, registered exactly as TensorFlow 2.21's math_ops.cc defines
// it: |x| of a complex64 (complex128) tensor as float (double), the type
// pair chosen by T and Tout. Kept out of ops/math_ops.cc, which holds the
// real-valued element-wise ops.
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"

namespace weft {
namespace {

REGISTER_OP("ComplexAbs")
    .Input("x: T")
    .Output("y: Tout")
    .Attr("T: {complex64, complex128} = DT_COMPLEX64")
    .Attr("Tout: {float, double} = DT_FLOAT")
    .SetShapeFn(shape_inference::UnchangedShape);

}  // namespace
}  // namespace weft
