// Shape inference: computing a node's output shapes from what is known about
// its inputs (partial shapes, constant values) and its attrs, without running
// it. Each op registers a ShapeInferenceFn (ops/op_def.h) that reads inputs
// from an InferenceContext and sets the outputs.
//
// Shapes and dimensions are handed out as handles: cheap pointers to objects
// the context owns. Handles carry identity, not just values, so a shape
// function can say "output dim 0 is the very same unknown dim as input 0 dim
// 0"; graph-level inference and tests rely on that to propagate facts about
// unknown sizes. A handle is valid for the lifetime of its context only.
//
//   Status MatMulLike(InferenceContext* c) {
//     ShapeHandle a, b;
//     WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 2, &a));
//     WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &b));
//     DimensionHandle inner;
//     WEFT_RETURN_IF_ERROR(c->Merge(c->Dim(a, 1), c->Dim(b, 0), &inner));
//     c->set_output(0, c->Matrix(c->Dim(a, 0), c->Dim(b, 1)));
//     return Status();
//   }
//
// Errors from the helpers describe shapes that are node inputs as "input i"
// (found by handle identity), so a shape function gets messages like "input 0
// has rank 1 but rank 2 was required" without passing indices around; Run()
// then puts "node 'name' (Op): " in front and the input shapes behind.
#ifndef WEFT_OPS_SHAPE_INFERENCE_H_
#define WEFT_OPS_SHAPE_INFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"
#include "ops/op_def.h"

namespace weft {
namespace shape_inference {

inline constexpr int64_t kUnknownDim = -1;
inline constexpr int32_t kUnknownRank = -1;

class InferenceContext;

// A dimension: a size >= 0, or kUnknownDim. The context owns them; shape
// functions see them only through handles.
class Dimension {
 public:
  explicit Dimension(int64_t value) : value_(value) {}
  Dimension(const Dimension&) = delete;
  Dimension& operator=(const Dimension&) = delete;

 private:
  friend class InferenceContext;
  int64_t value_;
};

class DimensionHandle {
 public:
  DimensionHandle() = default;
  // Identity: two handles to the same dimension object.
  bool SameHandle(DimensionHandle d) const { return ptr_ == d.ptr_; }
  // False for a default-constructed handle; the context reads an unset
  // dimension handle as an unknown dimension.
  bool IsSet() const { return ptr_ != nullptr; }
  // For hashing and ordering by identity.
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }

 private:
  friend class InferenceContext;
  explicit DimensionHandle(const Dimension* ptr) : ptr_(ptr) {}
  const Dimension* ptr_ = nullptr;
};

// A shape: unknown rank, or a list of dimension handles.
class Shape {
 public:
  Shape() : rank_(kUnknownRank) {}
  explicit Shape(std::vector<DimensionHandle> dims)
      : rank_(static_cast<int32_t>(dims.size())), dims_(std::move(dims)) {}
  Shape(const Shape&) = delete;
  Shape& operator=(const Shape&) = delete;

 private:
  friend class InferenceContext;
  int32_t rank_;
  std::vector<DimensionHandle> dims_;
};

class ShapeHandle {
 public:
  ShapeHandle() = default;
  bool SameHandle(ShapeHandle s) const { return ptr_ == s.ptr_; }
  // False for a default-constructed handle; the context reads an unset shape
  // handle as a shape of unknown rank.
  bool IsSet() const { return ptr_ != nullptr; }
  std::size_t Handle() const { return reinterpret_cast<std::size_t>(ptr_); }

 private:
  friend class InferenceContext;
  explicit ShapeHandle(const Shape* ptr) : ptr_(ptr) {}
  const Shape* ptr_ = nullptr;
};

// Either an existing dimension or a constant size (kUnknownDim for unknown),
// so the helpers below accept both `c->Dim(s, 0)` and `3`.
struct DimensionOrConstant {
  DimensionOrConstant(DimensionHandle d) : dim(d) {}  // NOLINT (implicit)
  DimensionOrConstant(int64_t v) : val(v) {}          // NOLINT (implicit)

  DimensionHandle dim;
  int64_t val = kUnknownDim;
};

class InferenceContext {
 public:
  // `node` must already be validated against `op_def` (ValidateNode filled
  // its attr defaults); both must outlive the context. `input_shapes` has one
  // entry per flattened input. `input_tensors[i]` is input i's constant value
  // when graph analysis knows it, else nullptr (missing trailing entries
  // count as nullptr); the tensors must outlive the context.
  // `input_tensors_as_shapes[i]` is what is known of the value of an int
  // shape-vector input (e.g. the output of a Shape op): unknown rank when
  // nothing is known. Inconsistent arguments do not abort: they make Run()
  // fail with the reason.
  InferenceContext(
      const NodeDef& node, const OpDef& op_def,
      const std::vector<PartialTensorShape>& input_shapes,
      const std::vector<const Tensor*>& input_tensors,
      const std::vector<PartialTensorShape>& input_tensors_as_shapes = {});

  InferenceContext(const InferenceContext&) = delete;
  InferenceContext& operator=(const InferenceContext&) = delete;

  // Runs `fn` on this context. Fails when the context was built from
  // inconsistent arguments, when `fn` fails, or when `fn` leaves an output
  // unset or sets one whose known dimensions multiply past 2^62 elements.
  // Errors read "node 'name' (Op): <what fn said>; input shapes: [2,3], ?".
  Status Run(const ShapeInferenceFn& fn);

  // ---- the node -----------------------------------------------------------

  const NodeDef& node() const { return node_; }
  const OpDef& op_def() const { return op_def_; }
  const AttrMap& attrs() const { return node_.attr; }

  // Typed attr lookup; see GetNodeAttr in ops/attr_value.h for the types.
  template <typename T>
  Status GetAttr(absl::string_view attr_name, T* value) const {
    return GetNodeAttr(node_.attr, attr_name, value);
  }

  // ---- inputs and outputs -------------------------------------------------

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }

  // An index outside [0, num_inputs()) is a bug in the shape function and
  // aborts.
  ShapeHandle input(int idx) const;
  // The shapes of the inputs an OpDef input arg covers ("values: N * T").
  // NotFound when the op has no input of that name.
  Status input(absl::string_view input_name,
               std::vector<ShapeHandle>* shapes) const;
  // Input idx's constant value, or nullptr when it is not known.
  const Tensor* input_tensor(int idx) const;
  // What is known of input idx's value read as a shape (see the
  // constructor); unknown rank when nothing is.
  ShapeHandle input_tensor_as_shape(int idx) const;

  // An out-of-range index is recorded and makes Run() fail.
  void set_output(int idx, ShapeHandle shape);
  Status set_output(absl::string_view output_name,
                    const std::vector<ShapeHandle>& shapes);
  // Unset until set_output; an index outside [0, num_outputs()) aborts.
  ShapeHandle output(int idx) const;

  // ---- reading shapes and dimensions --------------------------------------

  // kUnknownRank when unknown.
  int32_t Rank(ShapeHandle s) const;
  bool RankKnown(ShapeHandle s) const { return Rank(s) != kUnknownRank; }
  // Dimension idx of s; a negative idx counts from the end. Unknown rank
  // gives a fresh unknown dimension. An index outside the rank is a bug in
  // the shape function (check with WithRank* first) and aborts.
  DimensionHandle Dim(ShapeHandle s, int64_t idx);
  // kUnknownDim when unknown.
  int64_t Value(DimensionOrConstant d) const;
  bool ValueKnown(DimensionOrConstant d) const {
    return Value(d) != kUnknownDim;
  }
  // Known rank and every dimension known.
  bool FullyDefined(ShapeHandle s) const;
  // The product of the dimensions: known only when the shape is fully
  // defined (a known 0 dimension makes it 0 even beside unknown ones).
  DimensionHandle NumElements(ShapeHandle s);

  // "[2,?]", "[]" for a scalar, "?" for unknown rank.
  std::string DebugString(ShapeHandle s) const;
  // "3" or "?".
  std::string DebugString(DimensionHandle d) const;
  // The shape as a PartialTensorShape. Fails only when its known dimensions
  // multiply past 2^62 (never for outputs after a successful Run()).
  StatusOr<PartialTensorShape> ToPartialTensorShape(ShapeHandle s) const;

  // ---- making shapes and dimensions ---------------------------------------

  ShapeHandle Scalar();
  ShapeHandle Vector(DimensionOrConstant d);
  ShapeHandle Matrix(DimensionOrConstant rows, DimensionOrConstant cols);
  ShapeHandle MakeShape(const std::vector<DimensionHandle>& dims);
  ShapeHandle MakeShape(std::initializer_list<DimensionOrConstant> dims);
  ShapeHandle UnknownShape();
  // A shape of `rank` fresh unknown dimensions. `rank` must be in
  // [0, kMaxRank]; out of that range is a bug in the shape function and
  // aborts.
  ShapeHandle UnknownShapeOfRank(int64_t rank);
  DimensionHandle UnknownDim();
  // Returns d.dim itself when it is a dimension; a constant makes a new
  // dimension (a negative constant makes an unknown one).
  DimensionHandle MakeDim(DimensionOrConstant d);

  Status MakeShapeFromPartialTensorShape(const PartialTensorShape& partial,
                                         ShapeHandle* out);
  ShapeHandle MakeShapeFromTensorShape(const TensorShape& shape);

  // Input input_idx is a 1-D int32/int64 tensor whose value is a shape (the
  // `shape` input of Reshape or Fill). Uses, in order: its constant value
  // (-1 entries are unknown dimensions, other negatives are errors); its
  // partially known value (input_tensors_as_shapes); the length of the
  // vector, giving that many unknown dimensions; else unknown rank.
  Status MakeShapeFromShapeTensor(int input_idx, ShapeHandle* out);

  // Reads a scalar int32/int64 tensor (e.g. from input_tensor(i)).
  static Status GetScalarFromTensor(const Tensor* t, int64_t* value);

  // Input idx's constant value read as integers in row-major order, when
  // graph analysis knows it: an int8, int16, int32 or int64 tensor of rank at
  // most max_rank (axes, paddings, begin/end vectors). Sets *known to false
  // and returns OK when the value is not known (or not in host memory).
  // Errors name the input when the value has another dtype or rank.
  Status GetInputInts(int idx, int max_rank, bool* known,
                      std::vector<int64_t>* values) const;
  // Input idx is a scalar whose value is a size (OneHot's depth): *out is
  // that size, or an unknown dimension when the value is not known. The
  // input must be a scalar; a negative value is an error.
  Status MakeDimForScalarInput(int idx, DimensionHandle* out);
  // Input idx is a scalar axis into a shape of rank `input_rank` (may be
  // kUnknownRank), negative values counting from the end (Split's
  // split_dim). *out is the axis in [0, rank), or an unknown dimension when
  // the value is not known, or is negative while the rank is unknown. Values
  // outside [-rank, rank) are errors.
  Status MakeDimForScalarInputWithNegativeIndexing(int idx, int64_t input_rank,
                                                   DimensionHandle* out);

  // ---- constraining shapes ------------------------------------------------
  // Each returns in *out the most specific shape satisfying both its input
  // and the constraint, or an error (with *out unset) naming what failed.

  // s must have rank `rank`; an unknown-rank s becomes `rank` unknown dims.
  Status WithRank(ShapeHandle s, int64_t rank, ShapeHandle* out);
  Status WithRankAtLeast(ShapeHandle s, int64_t rank, ShapeHandle* out);
  Status WithRankAtMost(ShapeHandle s, int64_t rank, ShapeHandle* out);
  // d must be `value`; an unknown d becomes a known dimension of `value`.
  Status WithValue(DimensionHandle d, int64_t value, DimensionHandle* out);

  // Two shapes that must describe the same shape: equal ranks when both are
  // known, equal values where both dimensions are known. *out is s0 when s0
  // is at least as specific as s1 in every dimension, else s1 when that one
  // is, else a new shape of the more specific dimension at each position.
  Status Merge(ShapeHandle s0, ShapeHandle s1, ShapeHandle* out);
  // Two dimensions that must be equal: *out is d0 unless only d1 is known.
  Status Merge(DimensionHandle d0, DimensionHandle d1, DimensionHandle* out);

  // s1's dimensions followed by s2's; unknown rank if either rank is.
  Status Concatenate(ShapeHandle s1, ShapeHandle s2, ShapeHandle* out);
  // Dimensions [start, end) of s, with Python-style negative indices counted
  // from the end; positive indices past the rank clamp to it. A negative
  // index before the start, or start > end, is an error. On an unknown-rank
  // s the result is s for the whole range, else unknown rank.
  Status Subshape(ShapeHandle s, int64_t start, ShapeHandle* out);
  Status Subshape(ShapeHandle s, int64_t start, int64_t end, ShapeHandle* out);
  // s with dimension dim_index (negative counts from the end) replaced.
  Status ReplaceDim(ShapeHandle s, int64_t dim_index,
                    DimensionOrConstant new_dim, ShapeHandle* out);

  // ---- dimension arithmetic -----------------------------------------------
  // Unknown in, unknown out, except where one side decides the result
  // (x + 0 = x, x * 1 = x, x * 0 = 0, x / 1 = x: then *out is the very
  // handle). Errors: negative results, int64 overflow, division by 0, and
  // (with evenly_divisible) a remainder.

  Status Add(DimensionHandle first, DimensionOrConstant second,
             DimensionHandle* out);
  Status Subtract(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  Status Multiply(DimensionHandle first, DimensionOrConstant second,
                  DimensionHandle* out);
  Status Divide(DimensionHandle dividend, DimensionOrConstant divisor,
                bool evenly_divisible, DimensionHandle* out);

  // ---- describing things in messages --------------------------------------

  // "input 1 [2,?]" when s is an input's shape, else "[2,?]".
  std::string DescribeShape(ShapeHandle s) const;
  // "3 (input 0 dim 1)" when d is an input's dimension, else "3" / "?".
  std::string DescribeDim(DimensionHandle d) const;

 private:
  ShapeHandle NewShape(std::vector<DimensionHandle> dims);
  DimensionHandle NewDim(int64_t value);
  Status MakeShapeFromTensor(const Tensor& t, int input_idx, ShapeHandle* out);
  // Sets construction_status_ on a malformed argument list.
  void Initialize(const std::vector<PartialTensorShape>& input_shapes,
                  const std::vector<const Tensor*>& input_tensors,
                  const std::vector<PartialTensorShape>& tensors_as_shapes);
  Status ArgRanges(
      const std::vector<OpDef::ArgDef>& args,
      std::vector<std::pair<std::string, std::pair<int, int>>>* ranges,
      int* total) const;
  std::string InputShapesString() const;
  // The input whose shape handle s is, or -1.
  int FindInput(ShapeHandle s) const;
  // "input 0" for an input's shape, else "shape [2,?]".
  std::string RankSubject(ShapeHandle s) const;

  const NodeDef& node_;
  const OpDef& op_def_;

  // Deques keep element addresses stable as they grow, so handles stay valid.
  std::deque<Shape> all_shapes_;
  std::deque<Dimension> all_dims_;

  std::vector<ShapeHandle> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<ShapeHandle> input_tensors_as_shapes_;
  std::vector<ShapeHandle> outputs_;
  std::vector<std::pair<std::string, std::pair<int, int>>> input_ranges_;
  std::vector<std::pair<std::string, std::pair<int, int>>> output_ranges_;

  Status construction_status_;
  // The first misuse recorded by a void setter (set_output out of range).
  Status pending_error_;
};

}  // namespace shape_inference
}  // namespace weft

#endif  // WEFT_OPS_SHAPE_INFERENCE_H_
