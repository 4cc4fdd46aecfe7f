#include "ops/shape_inference.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"

namespace weft {
namespace shape_inference {

namespace {

constexpr int64_t kAllRemaining = std::numeric_limits<int64_t>::max();

}  // namespace

InferenceContext::InferenceContext(
    const NodeDef& node, const OpDef& op_def,
    const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<PartialTensorShape>& input_tensors_as_shapes)
    : node_(node), op_def_(op_def) {
  Initialize(input_shapes, input_tensors, input_tensors_as_shapes);
}

Status InferenceContext::ArgRanges(
    const std::vector<OpDef::ArgDef>& args,
    std::vector<std::pair<std::string, std::pair<int, int>>>* ranges,
    int* total) const {
  int next = 0;
  for (const OpDef::ArgDef& arg : args) {
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      WEFT_RETURN_IF_ERROR(GetNodeAttr(node_.attr, arg.number_attr, &count));
      if (count < 0) {
        return errors::InvalidArgument("attr '", arg.number_attr,
                                       "' (the length of '", arg.name, "') is ",
                                       count, "; must be >= 0");
      }
    } else if (!arg.type_list_attr.empty()) {
      std::vector<DataType> types;
      WEFT_RETURN_IF_ERROR(GetNodeAttr(node_.attr, arg.type_list_attr, &types));
      count = static_cast<int64_t>(types.size());
    }
    if (count > std::numeric_limits<int>::max() - next) {
      return errors::InvalidArgument("arg '", arg.name, "' has ", count,
                                     " elements, too many");
    }
    ranges->push_back({arg.name, {next, next + static_cast<int>(count)}});
    next += static_cast<int>(count);
  }
  *total = next;
  return Status();
}

void InferenceContext::Initialize(
    const std::vector<PartialTensorShape>& input_shapes,
    const std::vector<const Tensor*>& input_tensors,
    const std::vector<PartialTensorShape>& tensors_as_shapes) {
  int num_in = 0;
  int num_out = 0;
  Status s = ArgRanges(op_def_.input_arg, &input_ranges_, &num_in);
  if (s.ok()) s = ArgRanges(op_def_.output_arg, &output_ranges_, &num_out);
  if (!s.ok()) {
    construction_status_ = s;
    return;
  }
  if (input_shapes.size() != static_cast<size_t>(num_in)) {
    construction_status_ = errors::InvalidArgument(
        "the node has ", num_in, " inputs but ", input_shapes.size(),
        " input shapes were given");
    return;
  }
  if (input_tensors.size() > static_cast<size_t>(num_in) ||
      tensors_as_shapes.size() > static_cast<size_t>(num_in)) {
    construction_status_ = errors::InvalidArgument(
        "the node has ", num_in, " inputs but ", input_tensors.size(),
        " input tensors and ", tensors_as_shapes.size(),
        " input values as shapes were given");
    return;
  }
  for (const PartialTensorShape& p : input_shapes) {
    ShapeHandle h;
    // Cannot fail: a PartialTensorShape is always a valid partial shape.
    (void)MakeShapeFromPartialTensorShape(p, &h);
    inputs_.push_back(h);
  }
  input_tensors_ = input_tensors;
  input_tensors_.resize(num_in, nullptr);
  input_tensors_as_shapes_.resize(num_in);
  for (size_t i = 0; i < tensors_as_shapes.size(); ++i) {
    if (tensors_as_shapes[i].unknown_rank()) continue;
    (void)MakeShapeFromPartialTensorShape(tensors_as_shapes[i],
                                          &input_tensors_as_shapes_[i]);
  }
  outputs_.resize(num_out);
}

Status InferenceContext::Run(const ShapeInferenceFn& fn) {
  Status s = construction_status_;
  if (s.ok()) {
    s = fn ? fn(this)
           : errors::FailedPrecondition("op '", op_def_.name,
                                        "' has no shape function");
  }
  if (s.ok()) s = pending_error_;
  for (int i = 0; s.ok() && i < num_outputs(); ++i) {
    if (!outputs_[i].IsSet()) {
      s = errors::Internal("the shape function of op '", op_def_.name,
                           "' did not set output ", i);
      break;
    }
    StatusOr<PartialTensorShape> p = ToPartialTensorShape(outputs_[i]);
    if (!p.ok()) {
      s = errors::InvalidArgument("output ", i, " would have shape ",
                                  DebugString(outputs_[i]),
                                  ", more than 2^62 elements");
    }
  }
  if (s.ok()) return s;

  std::string msg = absl::StrCat("node '", node_.name, "' (", op_def_.name,
                                 "): ", s.message());
  if (!inputs_.empty()) {
    absl::StrAppend(&msg, "; input shapes: ", InputShapesString());
  }
  // Known integer inputs are usually shapes or axes: worth showing.
  for (int i = 0; i < num_inputs(); ++i) {
    const Tensor* t = input_tensors_[i];
    if (t != nullptr && t->memory_space() == MemorySpace::kHost &&
        (t->dtype() == DT_INT32 || t->dtype() == DT_INT64)) {
      absl::StrAppend(&msg, "; input ", i, " = ", t->SummarizeValue(10));
    }
  }
  return Status(s.code(), msg);
}

std::string InferenceContext::InputShapesString() const {
  return absl::StrJoin(inputs_, ", ", [this](std::string* out, ShapeHandle s) {
    out->append(DebugString(s));
  });
}

// ---- inputs and outputs -----------------------------------------------------

ShapeHandle InferenceContext::input(int idx) const {
  WEFT_CHECK_MSG(idx >= 0 && idx < num_inputs(),
                 "shape function asked for an input index out of range");
  return inputs_[idx];
}

Status InferenceContext::input(absl::string_view input_name,
                               std::vector<ShapeHandle>* shapes) const {
  for (const auto& [name, range] : input_ranges_) {
    if (name != input_name) continue;
    shapes->assign(inputs_.begin() + range.first,
                   inputs_.begin() + range.second);
    return Status();
  }
  return errors::NotFound("op '", op_def_.name, "' has no input named '",
                          input_name, "'");
}

const Tensor* InferenceContext::input_tensor(int idx) const {
  WEFT_CHECK_MSG(idx >= 0 && idx < num_inputs(),
                 "shape function asked for an input index out of range");
  return input_tensors_[idx];
}

ShapeHandle InferenceContext::input_tensor_as_shape(int idx) const {
  WEFT_CHECK_MSG(idx >= 0 && idx < num_inputs(),
                 "shape function asked for an input index out of range");
  return input_tensors_as_shapes_[idx];
}

void InferenceContext::set_output(int idx, ShapeHandle shape) {
  if (idx < 0 || idx >= num_outputs()) {
    if (pending_error_.ok()) {
      pending_error_ = errors::Internal(
          "the shape function of op '", op_def_.name, "' set output ", idx,
          " but the node has ", num_outputs(), " outputs");
    }
    return;
  }
  outputs_[idx] = shape;
}

Status InferenceContext::set_output(absl::string_view output_name,
                                    const std::vector<ShapeHandle>& shapes) {
  for (const auto& [name, range] : output_ranges_) {
    if (name != output_name) continue;
    const int n = range.second - range.first;
    if (static_cast<int>(shapes.size()) != n) {
      return errors::InvalidArgument("output '", output_name, "' has ", n,
                                     " elements but ", shapes.size(),
                                     " shapes were given");
    }
    std::copy(shapes.begin(), shapes.end(), outputs_.begin() + range.first);
    return Status();
  }
  return errors::NotFound("op '", op_def_.name, "' has no output named '",
                          output_name, "'");
}

ShapeHandle InferenceContext::output(int idx) const {
  WEFT_CHECK_MSG(idx >= 0 && idx < num_outputs(),
                 "shape function asked for an output index out of range");
  return outputs_[idx];
}

// ---- reading ----------------------------------------------------------------

int32_t InferenceContext::Rank(ShapeHandle s) const {
  return s.IsSet() ? s.ptr_->rank_ : kUnknownRank;
}

DimensionHandle InferenceContext::Dim(ShapeHandle s, int64_t idx) {
  if (!RankKnown(s)) return UnknownDim();
  const int32_t rank = Rank(s);
  if (idx < 0) idx += rank;
  WEFT_CHECK_MSG(idx >= 0 && idx < rank,
                 "shape function asked for a dimension index out of range; "
                 "check the rank with WithRank* first");
  return s.ptr_->dims_[idx];
}

int64_t InferenceContext::Value(DimensionOrConstant d) const {
  const int64_t v = d.dim.IsSet() ? d.dim.ptr_->value_ : d.val;
  return v < 0 ? kUnknownDim : v;
}

bool InferenceContext::FullyDefined(ShapeHandle s) const {
  if (!RankKnown(s)) return false;
  for (DimensionHandle d : s.ptr_->dims_) {
    if (!ValueKnown(d)) return false;
  }
  return true;
}

DimensionHandle InferenceContext::NumElements(ShapeHandle s) {
  if (!RankKnown(s)) return UnknownDim();
  bool found_unknown = false;
  int64_t product = 1;
  for (DimensionHandle d : s.ptr_->dims_) {
    const int64_t v = Value(d);
    if (v == kUnknownDim) {
      found_unknown = true;
    } else if (v == 0) {
      return MakeDim(0);
    } else if (__builtin_mul_overflow(product, v, &product)) {
      // Too many elements to count; Run() rejects such outputs.
      found_unknown = true;
      product = 1;
    }
  }
  return found_unknown ? UnknownDim() : MakeDim(product);
}

std::string InferenceContext::DebugString(ShapeHandle s) const {
  if (!RankKnown(s)) return "?";
  return absl::StrCat(
      "[",
      absl::StrJoin(s.ptr_->dims_, ",",
                    [this](std::string* out, DimensionHandle d) {
                      out->append(DebugString(d));
                    }),
      "]");
}

std::string InferenceContext::DebugString(DimensionHandle d) const {
  return ValueKnown(d) ? absl::StrCat(Value(d)) : "?";
}

StatusOr<PartialTensorShape> InferenceContext::ToPartialTensorShape(
    ShapeHandle s) const {
  if (!RankKnown(s)) {
    // Copied from a constant: moving a fresh temporary trips a GCC
    // -Wmaybe-uninitialized false positive inside absl::InlinedVector.
    static const PartialTensorShape* const kUnknownRankShape =
        new PartialTensorShape();
    return *kUnknownRankShape;
  }
  std::vector<int64_t> dims;
  dims.reserve(s.ptr_->dims_.size());
  for (DimensionHandle d : s.ptr_->dims_) dims.push_back(Value(d));
  return PartialTensorShape::Build(dims);
}

int InferenceContext::FindInput(ShapeHandle s) const {
  for (int i = 0; i < num_inputs(); ++i) {
    if (inputs_[i].SameHandle(s)) return i;
  }
  return -1;
}

std::string InferenceContext::DescribeShape(ShapeHandle s) const {
  const int i = FindInput(s);
  return i >= 0 ? absl::StrCat("input ", i, " ", DebugString(s))
                : absl::StrCat("shape ", DebugString(s));
}

std::string InferenceContext::RankSubject(ShapeHandle s) const {
  const int i = FindInput(s);
  return i >= 0 ? absl::StrCat("input ", i)
                : absl::StrCat("shape ", DebugString(s));
}

std::string InferenceContext::DescribeDim(DimensionHandle d) const {
  const std::string value = DebugString(d);
  if (!d.IsSet()) return value;
  for (int i = 0; i < num_inputs(); ++i) {
    if (!RankKnown(inputs_[i])) continue;
    const std::vector<DimensionHandle>& dims = inputs_[i].ptr_->dims_;
    for (size_t j = 0; j < dims.size(); ++j) {
      if (dims[j].SameHandle(d)) {
        return absl::StrCat(value, " (input ", i, " dim ", j, ")");
      }
    }
  }
  return value;
}

// ---- making -----------------------------------------------------------------

DimensionHandle InferenceContext::NewDim(int64_t value) {
  all_dims_.emplace_back(value < 0 ? kUnknownDim : value);
  return DimensionHandle(&all_dims_.back());
}

ShapeHandle InferenceContext::NewShape(std::vector<DimensionHandle> dims) {
  // An unset handle would compare "same" as every other unset handle; give
  // each its own unknown dimension so identity keeps meaning equality.
  for (DimensionHandle& d : dims) {
    if (!d.IsSet()) d = UnknownDim();
  }
  all_shapes_.emplace_back(std::move(dims));
  return ShapeHandle(&all_shapes_.back());
}

ShapeHandle InferenceContext::Scalar() { return NewShape({}); }

ShapeHandle InferenceContext::Vector(DimensionOrConstant d) {
  return NewShape({MakeDim(d)});
}

ShapeHandle InferenceContext::Matrix(DimensionOrConstant rows,
                                     DimensionOrConstant cols) {
  return NewShape({MakeDim(rows), MakeDim(cols)});
}

ShapeHandle InferenceContext::MakeShape(
    const std::vector<DimensionHandle>& dims) {
  return NewShape(dims);
}

ShapeHandle InferenceContext::MakeShape(
    std::initializer_list<DimensionOrConstant> dims) {
  std::vector<DimensionHandle> handles;
  handles.reserve(dims.size());
  for (const DimensionOrConstant& d : dims) handles.push_back(MakeDim(d));
  return NewShape(std::move(handles));
}

ShapeHandle InferenceContext::UnknownShape() {
  all_shapes_.emplace_back();
  return ShapeHandle(&all_shapes_.back());
}

ShapeHandle InferenceContext::UnknownShapeOfRank(int64_t rank) {
  WEFT_CHECK_MSG(rank >= 0 && rank <= kMaxRank,
                 "UnknownShapeOfRank: rank outside [0, kMaxRank]");
  std::vector<DimensionHandle> dims;
  dims.reserve(rank);
  for (int64_t i = 0; i < rank; ++i) dims.push_back(UnknownDim());
  return NewShape(std::move(dims));
}

DimensionHandle InferenceContext::UnknownDim() { return NewDim(kUnknownDim); }

DimensionHandle InferenceContext::MakeDim(DimensionOrConstant d) {
  if (d.dim.IsSet()) return d.dim;
  return NewDim(d.val);
}

Status InferenceContext::MakeShapeFromPartialTensorShape(
    const PartialTensorShape& partial, ShapeHandle* out) {
  if (partial.unknown_rank()) {
    *out = UnknownShape();
    return Status();
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(partial.dims());
  for (int64_t d : partial.dim_sizes()) dims.push_back(NewDim(d));
  *out = NewShape(std::move(dims));
  return Status();
}

ShapeHandle InferenceContext::MakeShapeFromTensorShape(
    const TensorShape& shape) {
  std::vector<DimensionHandle> dims;
  dims.reserve(shape.dims());
  for (int64_t d : shape.dim_sizes()) dims.push_back(NewDim(d));
  return NewShape(std::move(dims));
}

Status InferenceContext::MakeShapeFromShapeTensor(int input_idx,
                                                  ShapeHandle* out) {
  *out = ShapeHandle();
  ShapeHandle vec;
  WEFT_RETURN_IF_ERROR(WithRank(input(input_idx), 1, &vec));
  if (const Tensor* t = input_tensor(input_idx)) {
    return MakeShapeFromTensor(*t, input_idx, out);
  }
  const DimensionHandle length = Dim(vec, 0);
  ShapeHandle partial = input_tensors_as_shapes_[input_idx];
  if (RankKnown(partial)) {
    if (ValueKnown(length) && Value(length) != Rank(partial)) {
      return errors::InvalidArgument(
          "input ", input_idx, " has shape ", DebugString(vec),
          " but its value is known to be the shape ", DebugString(partial),
          " of rank ", Rank(partial));
    }
    *out = partial;
    return Status();
  }
  if (!ValueKnown(length)) {
    *out = UnknownShape();
    return Status();
  }
  if (Value(length) > kMaxRank) {
    return errors::InvalidArgument(
        "input ", input_idx, " is a shape vector of length ", Value(length),
        ", more than the maximum rank ", kMaxRank);
  }
  *out = UnknownShapeOfRank(Value(length));
  return Status();
}

Status InferenceContext::MakeShapeFromTensor(const Tensor& t, int input_idx,
                                             ShapeHandle* out) {
  if (t.dims() != 1) {
    return errors::InvalidArgument("input ", input_idx,
                                   " must be a 1-D shape vector but its value "
                                   "has shape ",
                                   t.shape().DebugString());
  }
  if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) {
    return errors::InvalidArgument("input ", input_idx,
                                   " must be an int32 or int64 shape vector "
                                   "but is ",
                                   DataTypeName(t.dtype()));
  }
  const int64_t n = t.NumElements();
  if (n > kMaxRank) {
    return errors::InvalidArgument("input ", input_idx,
                                   " is a shape vector of length ", n,
                                   ", more than the maximum rank ", kMaxRank);
  }
  std::vector<DimensionHandle> dims;
  dims.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v =
        t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
    if (v < -1) {
      return errors::InvalidArgument("input ", input_idx, " is the shape ",
                                     t.SummarizeValue(kMaxRank), " with size ",
                                     v, " at index ", i,
                                     "; sizes must be >= 0, or -1 for unknown");
    }
    dims.push_back(NewDim(v));
  }
  *out = NewShape(std::move(dims));
  return Status();
}

Status InferenceContext::GetScalarFromTensor(const Tensor* t, int64_t* value) {
  if (t == nullptr) {
    return errors::InvalidArgument("the scalar's value is not known");
  }
  if (t->dims() != 0) {
    return errors::InvalidArgument(
        "expected a scalar but got a tensor of "
        "shape ",
        t->shape().DebugString());
  }
  if (t->dtype() == DT_INT32) {
    *value = t->data<int32_t>()[0];
  } else if (t->dtype() == DT_INT64) {
    *value = t->data<int64_t>()[0];
  } else {
    return errors::InvalidArgument("expected an int32 or int64 scalar but got ",
                                   DataTypeName(t->dtype()));
  }
  return Status();
}

Status InferenceContext::GetInputInts(int idx, int max_rank, bool* known,
                                      std::vector<int64_t>* values) const {
  *known = false;
  values->clear();
  const Tensor* t = input_tensor(idx);
  if (t == nullptr || t->memory_space() != MemorySpace::kHost) return Status();
  if (t->dims() > max_rank) {
    return errors::InvalidArgument("input ", idx, " must have rank at most ",
                                   max_rank, " but its value has shape ",
                                   t->shape().DebugString());
  }
  const int64_t n = t->NumElements();
  values->reserve(n);
  switch (t->dtype()) {
    case DT_INT8:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int8_t>()[i]);
      break;
    case DT_INT16:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int16_t>()[i]);
      break;
    case DT_INT32:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int32_t>()[i]);
      break;
    case DT_INT64:
      for (int64_t i = 0; i < n; ++i) values->push_back(t->data<int64_t>()[i]);
      break;
    default:
      return errors::InvalidArgument(
          "input ", idx,
          " must be an integer tensor (int8, int16, int32 or "
          "int64) but its value is ",
          DataTypeName(t->dtype()));
  }
  *known = true;
  return Status();
}

namespace {

// Reads input idx as a known scalar integer; *known false when not known.
Status ReadScalarInput(const InferenceContext& c, int idx, bool* known,
                       int64_t* value) {
  std::vector<int64_t> values;
  WEFT_RETURN_IF_ERROR(c.GetInputInts(idx, 0, known, &values));
  if (*known) *value = values[0];
  return Status();
}

}  // namespace

Status InferenceContext::MakeDimForScalarInput(int idx, DimensionHandle* out) {
  *out = DimensionHandle();
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(WithRank(input(idx), 0, &unused));
  bool known = false;
  int64_t value = 0;
  WEFT_RETURN_IF_ERROR(ReadScalarInput(*this, idx, &known, &value));
  if (!known) {
    *out = UnknownDim();
    return Status();
  }
  if (value < 0) {
    return errors::InvalidArgument("input ", idx,
                                   " is a dimension size but its value is ",
                                   value, "; sizes must be >= 0");
  }
  *out = MakeDim(value);
  return Status();
}

Status InferenceContext::MakeDimForScalarInputWithNegativeIndexing(
    int idx, int64_t input_rank, DimensionHandle* out) {
  *out = DimensionHandle();
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(WithRank(input(idx), 0, &unused));
  bool known = false;
  int64_t value = 0;
  WEFT_RETURN_IF_ERROR(ReadScalarInput(*this, idx, &known, &value));
  if (!known || (value < 0 && input_rank == kUnknownRank)) {
    *out = UnknownDim();
    return Status();
  }
  if (input_rank != kUnknownRank &&
      (value < -input_rank || value >= input_rank)) {
    return errors::InvalidArgument(
        "input ", idx, " is the axis ", value, " but it must be in [",
        -input_rank, ", ", input_rank, ") for a shape of rank ", input_rank);
  }
  *out = MakeDim(value < 0 ? value + input_rank : value);
  return Status();
}

// ---- constraining -----------------------------------------------------------

namespace {

Status CheckRankArg(int64_t rank) {
  if (rank < 0 || rank > kMaxRank) {
    return errors::InvalidArgument("rank ", rank, " is outside [0, ", kMaxRank,
                                   "]");
  }
  return Status();
}

}  // namespace

Status InferenceContext::WithRank(ShapeHandle s, int64_t rank,
                                  ShapeHandle* out) {
  *out = ShapeHandle();
  WEFT_RETURN_IF_ERROR(CheckRankArg(rank));
  const int32_t existing = Rank(s);
  if (existing == rank) {
    *out = s;
    return Status();
  }
  if (existing == kUnknownRank) {
    *out = UnknownShapeOfRank(rank);
    return Status();
  }
  return errors::InvalidArgument(RankSubject(s), " has rank ", existing,
                                 " but rank ", rank, " was required");
}

Status InferenceContext::WithRankAtLeast(ShapeHandle s, int64_t rank,
                                         ShapeHandle* out) {
  *out = ShapeHandle();
  WEFT_RETURN_IF_ERROR(CheckRankArg(rank));
  const int32_t existing = Rank(s);
  if (existing == kUnknownRank || existing >= rank) {
    *out = s;
    return Status();
  }
  return errors::InvalidArgument(RankSubject(s), " has rank ", existing,
                                 " but rank at least ", rank, " was required");
}

Status InferenceContext::WithRankAtMost(ShapeHandle s, int64_t rank,
                                        ShapeHandle* out) {
  *out = ShapeHandle();
  WEFT_RETURN_IF_ERROR(CheckRankArg(rank));
  const int32_t existing = Rank(s);
  if (existing == kUnknownRank || existing <= rank) {
    *out = s;
    return Status();
  }
  return errors::InvalidArgument(RankSubject(s), " has rank ", existing,
                                 " but rank at most ", rank, " was required");
}

Status InferenceContext::WithValue(DimensionHandle d, int64_t value,
                                   DimensionHandle* out) {
  *out = DimensionHandle();
  if (value < 0) {
    return errors::InvalidArgument("required dimension value ", value,
                                   " is negative");
  }
  const int64_t existing = Value(d);
  if (existing == value) {
    *out = d;
    return Status();
  }
  if (existing == kUnknownDim) {
    *out = MakeDim(value);
    return Status();
  }
  return errors::InvalidArgument("dimension ", DescribeDim(d), " must be ",
                                 value);
}

Status InferenceContext::Merge(DimensionHandle d0, DimensionHandle d1,
                               DimensionHandle* out) {
  if (d0.SameHandle(d1) || !ValueKnown(d1)) {
    *out = d0.IsSet() ? d0 : UnknownDim();
    return Status();
  }
  if (!ValueKnown(d0)) {
    *out = d1;
    return Status();
  }
  if (Value(d0) == Value(d1)) {
    *out = d0;
    return Status();
  }
  *out = DimensionHandle();
  return errors::InvalidArgument("dimensions must be equal, but are ",
                                 DescribeDim(d0), " and ", DescribeDim(d1));
}

Status InferenceContext::Merge(ShapeHandle s0, ShapeHandle s1,
                               ShapeHandle* out) {
  if (s0.SameHandle(s1) || !RankKnown(s1)) {
    *out = s0.IsSet() ? s0 : UnknownShape();
    return Status();
  }
  if (!RankKnown(s0)) {
    *out = s1;
    return Status();
  }
  const int32_t rank = Rank(s0);
  if (rank != Rank(s1)) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        DescribeShape(s0), " and ", DescribeShape(s1),
        " are incompatible: ranks ", rank, " and ", Rank(s1), " differ");
  }
  bool return_s0 = true;
  bool return_s1 = true;
  for (int32_t i = 0; i < rank; ++i) {
    const DimensionHandle d0 = s0.ptr_->dims_[i];
    const DimensionHandle d1 = s1.ptr_->dims_[i];
    if (d0.SameHandle(d1)) continue;
    const int64_t v0 = Value(d0);
    const int64_t v1 = Value(d1);
    if (v0 == kUnknownDim) {
      if (v1 != kUnknownDim) return_s0 = false;
    } else if (v1 == kUnknownDim) {
      return_s1 = false;
    } else if (v0 != v1) {
      *out = ShapeHandle();
      return errors::InvalidArgument(
          DescribeShape(s0), " and ", DescribeShape(s1),
          " are incompatible: dimension ", i, " is ", v0, " vs ", v1);
    }
  }
  if (return_s0 || return_s1) {
    *out = return_s0 ? s0 : s1;
    return Status();
  }
  std::vector<DimensionHandle> dims(rank);
  for (int32_t i = 0; i < rank; ++i) {
    // Cannot fail: compatibility was checked above.
    (void)Merge(s0.ptr_->dims_[i], s1.ptr_->dims_[i], &dims[i]);
  }
  *out = NewShape(std::move(dims));
  return Status();
}

Status InferenceContext::Concatenate(ShapeHandle s1, ShapeHandle s2,
                                     ShapeHandle* out) {
  if (!RankKnown(s1) || !RankKnown(s2)) {
    *out = UnknownShape();
    return Status();
  }
  if (Rank(s1) + Rank(s2) > kMaxRank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("concatenating ", DescribeShape(s1), " and ",
                                   DescribeShape(s2),
                                   " exceeds the maximum rank ", kMaxRank);
  }
  std::vector<DimensionHandle> dims = s1.ptr_->dims_;
  dims.insert(dims.end(), s2.ptr_->dims_.begin(), s2.ptr_->dims_.end());
  *out = NewShape(std::move(dims));
  return Status();
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start,
                                  ShapeHandle* out) {
  return Subshape(s, start, kAllRemaining, out);
}

Status InferenceContext::Subshape(ShapeHandle s, int64_t start, int64_t end,
                                  ShapeHandle* out) {
  if (!RankKnown(s)) {
    *out =
        (start == 0 && end == kAllRemaining && s.IsSet()) ? s : UnknownShape();
    return Status();
  }
  const int64_t rank = Rank(s);
  const int64_t orig_start = start;
  const int64_t orig_end = end;
  start = std::min(start, rank);
  end = std::min(end, rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  if (start < 0 || end < 0) {
    *out = ShapeHandle();
    return errors::InvalidArgument(
        "subshape [", orig_start, ", ",
        orig_end == kAllRemaining ? std::string("end") : absl::StrCat(orig_end),
        ") is out of bounds for ", DescribeShape(s), " of rank ", rank);
  }
  if (start > end) {
    *out = ShapeHandle();
    return errors::InvalidArgument("subshape [", orig_start, ", ", orig_end,
                                   ") of ", DescribeShape(s), " starts at ",
                                   start, " after its end ", end);
  }
  if (start == 0 && end == rank) {
    *out = s;
    return Status();
  }
  const std::vector<DimensionHandle>& all = s.ptr_->dims_;
  *out = NewShape(
      std::vector<DimensionHandle>(all.begin() + start, all.begin() + end));
  return Status();
}

Status InferenceContext::ReplaceDim(ShapeHandle s, int64_t dim_index,
                                    DimensionOrConstant new_dim,
                                    ShapeHandle* out) {
  if (!RankKnown(s)) {
    *out = UnknownShape();
    return Status();
  }
  const int64_t rank = Rank(s);
  const int64_t idx = dim_index < 0 ? dim_index + rank : dim_index;
  if (idx < 0 || idx >= rank) {
    *out = ShapeHandle();
    return errors::InvalidArgument("dimension index ", dim_index,
                                   " is out of range for ", DescribeShape(s),
                                   " of rank ", rank);
  }
  std::vector<DimensionHandle> dims = s.ptr_->dims_;
  dims[idx] = MakeDim(new_dim);
  *out = NewShape(std::move(dims));
  return Status();
}

// ---- arithmetic -------------------------------------------------------------

Status InferenceContext::Add(DimensionHandle first, DimensionOrConstant second,
                             DimensionHandle* out) {
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = MakeDim(first);
  } else if (a == 0) {
    *out = MakeDim(second);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum)) {
      *out = DimensionHandle();
      return errors::InvalidArgument("dimension size overflow: ", a, " + ", b,
                                     " does not fit in int64");
    }
    *out = MakeDim(sum);
  }
  return Status();
}

Status InferenceContext::Subtract(DimensionHandle first,
                                  DimensionOrConstant second,
                                  DimensionHandle* out) {
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (b == 0) {
    *out = MakeDim(first);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else if (a < b) {
    *out = DimensionHandle();
    return errors::InvalidArgument(
        "negative dimension size caused by "
        "subtracting ",
        b, " from ", a);
  } else {
    *out = MakeDim(a - b);
  }
  return Status();
}

Status InferenceContext::Multiply(DimensionHandle first,
                                  DimensionOrConstant second,
                                  DimensionHandle* out) {
  const int64_t a = Value(first);
  const int64_t b = Value(second);
  if (a == 0) {
    *out = MakeDim(first);
  } else if (b == 0) {
    *out = MakeDim(second);
  } else if (a == 1) {
    *out = MakeDim(second);
  } else if (b == 1) {
    *out = MakeDim(first);
  } else if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
  } else {
    int64_t product;
    if (__builtin_mul_overflow(a, b, &product)) {
      *out = DimensionHandle();
      return errors::InvalidArgument("dimension size overflow: ", a, " * ", b,
                                     " does not fit in int64");
    }
    *out = MakeDim(product);
  }
  return Status();
}

Status InferenceContext::Divide(DimensionHandle dividend,
                                DimensionOrConstant divisor,
                                bool evenly_divisible, DimensionHandle* out) {
  const int64_t a = Value(dividend);
  const int64_t b = Value(divisor);
  if (b == 1) {
    *out = MakeDim(dividend);
    return Status();
  }
  if (b == 0) {
    *out = DimensionHandle();
    return errors::InvalidArgument(
        "dimension divisor must be positive but is "
        "0");
  }
  if (a == kUnknownDim || b == kUnknownDim) {
    *out = UnknownDim();
    return Status();
  }
  if (evenly_divisible && a % b != 0) {
    *out = DimensionHandle();
    return errors::InvalidArgument("dimension size ", a,
                                   " is not evenly divisible by ", b);
  }
  *out = MakeDim(a / b);
  return Status();
}

}  // namespace shape_inference
}  // namespace weft
