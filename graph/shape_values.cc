#include "graph/shape_values.h"

#include <string>

#include "ops/attr_value.h"
#include "ops/common_shape_fns.h"

namespace weft {
namespace {

bool IsInteger(DataType t) { return t == DT_INT32 || t == DT_INT64; }

// The elements of an int32 or int64 constant; false otherwise.
bool Ints(const Tensor* t, std::vector<int64_t>* out) {
  if (t == nullptr || !IsInteger(t->dtype())) return false;
  out->clear();
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    out->push_back(t->dtype() == DT_INT32 ? t->data<int32_t>()[i]
                                          : t->data<int64_t>()[i]);
  }
  return true;
}

ShapeValue Vector(std::vector<int64_t> dims) {
  for (int64_t& d : dims) d = d < 0 ? -1 : d;
  ShapeValue v;
  auto shape = PartialTensorShape::Build(dims);
  if (shape.ok()) v.vector = *std::move(shape);
  return v;
}

ShapeValue Scalar(int64_t dim) {
  ShapeValue v;
  v.scalar = true;
  v.dim = dim < 0 ? -1 : dim;
  return v;
}

// input[begin:end:stride] of a known vector, one term, as the op's own
// shape function plans it (PlanStridedSlice).
ShapeValue SliceOf(const Node& node, const ShapeValue& in,
                   const std::vector<const Tensor*>& constants) {
  std::vector<int64_t> b, e, s;
  StridedSliceMasks masks;
  if (in.vector.unknown_rank() || !Ints(constants[1], &b) ||
      !Ints(constants[2], &e) || !Ints(constants[3], &s) || b.size() != 1 ||
      !ReadStridedSliceMasks(node.attrs(), &masks).ok() ||
      masks.ellipsis != 0 || masks.new_axis != 0) {
    return {};
  }
  const int64_t n = in.vector.dims();
  auto plan = PlanStridedSlice({n}, 1, &b, &e, &s, masks);
  if (!plan.ok()) return {};
  const int64_t begin = plan->begin[0], end = plan->end[0];
  const int64_t stride = plan->strides[0];
  if (masks.shrink_axis & 1) {
    if (begin < 0 || begin >= n) return {};
    return Scalar(in.vector.dim_size(static_cast<int>(begin)));
  }
  std::vector<int64_t> dims;
  for (int64_t i = begin; stride > 0 ? i < end : i > end; i += stride) {
    dims.push_back(in.vector.dim_size(static_cast<int>(i)));
  }
  return Vector(dims);
}

}  // namespace

ShapeValue InferShapeValue(
    const Node& node, const std::vector<ShapeValue>& inputs,
    const std::vector<const Tensor*>& constants,
    const std::vector<PartialTensorShape>& input_shapes) {
  if (node.num_outputs() < 1 || !IsInteger(node.output_type(0))) return {};
  const std::string& op = node.op();
  const int n = node.num_inputs();
  if (op == "Shape" && n == 1) {
    if (input_shapes[0].unknown_rank()) return {};
    return Vector({input_shapes[0].dim_sizes().begin(),
                   input_shapes[0].dim_sizes().end()});
  }
  if (op == "Const") {
    auto it = node.attrs().find("value");
    std::vector<int64_t> v;
    if (it != node.attrs().end() && it->second.tensor.IsInitialized() &&
        it->second.tensor.dims() == 0 && Ints(&it->second.tensor, &v)) {
      return Scalar(v[0]);
    }
    return {};
  }
  if (op == "Cast" && n == 1 && IsInteger(node.input_type(0))) {
    return inputs[0];
  }
  if (op == "StridedSlice" && n == 4)
    return SliceOf(node, inputs[0], constants);
  if (op == "Pack" && n >= 1) {
    int64_t axis = 0;
    GetNodeAttr(node.attrs(), "axis", &axis).IgnoreError();
    if (axis != 0) return {};
    std::vector<int64_t> dims;
    for (int i = 0; i < n; ++i) {
      if (input_shapes[i].unknown_rank() || input_shapes[i].dims() != 0) {
        return {};
      }
      dims.push_back(inputs[i].scalar ? inputs[i].dim : -1);
    }
    return Vector(dims);
  }
  if (op == "ConcatV2" && n >= 2) {
    std::vector<int64_t> axis;
    if (!Ints(constants[n - 1], &axis) || axis.size() != 1 ||
        (axis[0] != 0 && axis[0] != -1)) {
      return {};
    }
    std::vector<int64_t> dims;
    for (int i = 0; i + 1 < n; ++i) {
      const PartialTensorShape& v = inputs[i].vector;
      if (v.unknown_rank()) return {};
      dims.insert(dims.end(), v.dim_sizes().begin(), v.dim_sizes().end());
    }
    return Vector(dims);
  }
  return {};
}

}  // namespace weft
