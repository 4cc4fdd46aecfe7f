// What shape inference knows of the values of small integer tensors that
// carry shapes: a Shape node's output is its input's shape even where that
// is partly unknown, one element of it taken out by a StridedSlice is that
// dimension, and a Pack or ConcatV2 of such pieces and constants is a shape
// again. Keras writes a state of [batch, units] zeros as
// Fill(Pack(StridedSlice(Shape(x), 0), units), 0.0), whose shape is then
// [?, units] rather than [?, ?]; an RNN's loop, whose variables start as
// such zeros, keeps that shape in every iteration, so its body's element-
// wise nodes fuse. Shape functions get the value through
// InferenceContext's input_tensors_as_shapes (MakeShapeFromShapeTensor).
#ifndef WEFT_GRAPH_SHAPE_VALUES_H_
#define WEFT_GRAPH_SHAPE_VALUES_H_

#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "graph/graph.h"

namespace weft {

// The partly known value of an int32 or int64 output: a vector of
// dimensions (`vector` of known rank, -1 where an element is unknown or
// negative), or a scalar (`scalar`, `dim` -1 when unknown or negative), or
// nothing known (neither).
struct ShapeValue {
  PartialTensorShape vector;  // unknown rank: not a known vector
  bool scalar = false;
  int64_t dim = -1;
};

// The value of output 0 of `node`, from what is known of its inputs:
// `inputs[i]` the value of the tensor input i reads (nothing known for an
// output other than 0), `constants[i]` its constant value or null,
// `input_shapes[i]` its shape. Shape, Const (int scalars), Cast between
// integer types, StridedSlice of a vector (one element or a range), Pack of
// scalars along axis 0 and ConcatV2 of vectors along axis 0; nothing known
// for anything else (the caller passes values through Identity-like nodes,
// as it does constants).
ShapeValue InferShapeValue(const Node& node,
                           const std::vector<ShapeValue>& inputs,
                           const std::vector<const Tensor*>& constants,
                           const std::vector<PartialTensorShape>& input_shapes);

}  // namespace weft

#endif  // WEFT_GRAPH_SHAPE_VALUES_H_
