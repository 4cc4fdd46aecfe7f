// Array ops: constants, placeholders, identities and shape manipulation.
// Names, arguments, attrs and defaults follow TensorFlow's array_ops.cc so
// graph files validate unchanged.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::kUnknownDim;
using shape_inference::kUnknownRank;
using shape_inference::ShapeHandle;

Status ConstShape(InferenceContext* c) {
  Tensor value;
  WEFT_RETURN_IF_ERROR(c->GetAttr("value", &value));
  DataType dtype = DT_INVALID;
  WEFT_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (value.dtype() != dtype) {
    return errors::InvalidArgument(
        "attr 'value' is a ", DataTypeName(value.dtype()),
        " tensor but attr 'dtype' is ", DataTypeName(dtype));
  }
  c->set_output(0, c->MakeShapeFromTensorShape(value.shape()));
  return Status();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  c->set_output(0, out);
  return Status();
}

// The default must fit the declared shape; the output is the declared shape,
// since a fed value may be anything the declaration allows.
Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &out));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->input(0), out, &unused),
                           "the default value (input 0) does not fit attr "
                           "'shape' ",
                           c->DebugString(out));
  c->set_output(0, out);
  return Status();
}

Status IdentityNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
  return Status();
}

Status ShapeShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  c->set_output(0,
                c->Vector(c->RankKnown(input) ? c->Rank(input)
                                              : shape_inference::kUnknownDim));
  return Status();
}

Status ExpandDimsShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRankAtMost(c->input(1), 1, &unused));
  const Tensor* dim_t = c->input_tensor(1);
  if (dim_t != nullptr && dim_t->NumElements() != 1) {
    return errors::InvalidArgument(
        "input 1 ('dim') must hold exactly one "
        "value but has shape ",
        dim_t->shape().DebugString());
  }
  if (c->Rank(input) >= kMaxRank) {
    return errors::InvalidArgument("cannot add a dimension to input 0 of rank ",
                                   c->Rank(input), ", the maximum rank");
  }
  if (dim_t == nullptr || !c->RankKnown(input)) {
    // Without the axis only the rank is known.
    c->set_output(0, c->RankKnown(input)
                         ? c->UnknownShapeOfRank(c->Rank(input) + 1)
                         : c->UnknownShape());
    return Status();
  }
  int64_t dim = 0;
  if (dim_t->dtype() == DT_INT32) {
    dim = dim_t->data<int32_t>()[0];
  } else if (dim_t->dtype() == DT_INT64) {
    dim = dim_t->data<int64_t>()[0];
  } else {
    return errors::InvalidArgument(
        "input 1 ('dim') must be int32 or int64 "
        "but is ",
        DataTypeName(dim_t->dtype()));
  }
  const int64_t rank = c->Rank(input);
  if (dim < -rank - 1 || dim > rank) {
    return errors::InvalidArgument(
        "dim ", dim, " is out of range for input 0 ", c->DebugString(input),
        " of rank ", rank, "; it must be in [", -rank - 1, ", ", rank, "]");
  }
  if (dim < 0) dim += rank + 1;
  ShapeHandle front;
  ShapeHandle back;
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Subshape(input, 0, dim, &front));
  WEFT_RETURN_IF_ERROR(c->Subshape(input, dim, &back));
  WEFT_RETURN_IF_ERROR(c->Concatenate(front, c->Vector(1), &out));
  WEFT_RETURN_IF_ERROR(c->Concatenate(out, back, &out));
  c->set_output(0, out);
  return Status();
}

Status SqueezeShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  if (!c->RankKnown(input)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  std::vector<int64_t> squeeze_dims;
  WEFT_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  const int32_t rank = c->Rank(input);
  std::set<int64_t> wanted;
  for (int64_t d : squeeze_dims) {
    if (d < -rank || d >= rank) {
      return errors::InvalidArgument(
          "attr 'squeeze_dims' names dimension ", d, " but input 0 ",
          c->DebugString(input), " has rank ", rank,
          "; dimensions must be in [", -rank, ", ", rank, ")");
    }
    wanted.insert(d < 0 ? d + rank : d);
  }
  std::vector<DimensionHandle> dims;
  for (int32_t i = 0; i < rank; ++i) {
    const DimensionHandle d = c->Dim(input, i);
    const bool listed = wanted.count(i) > 0;
    if (!c->ValueKnown(d)) {
      if (listed) continue;  // Taken to be 1; the kernel checks.
      if (squeeze_dims.empty()) {
        // Whether it is squeezed depends on its run-time size.
        c->set_output(0, c->UnknownShape());
        return Status();
      }
      dims.push_back(d);
    } else if (c->Value(d) == 1) {
      if (!listed && !squeeze_dims.empty()) dims.push_back(d);
    } else {
      if (listed) {
        return errors::InvalidArgument(
            "cannot squeeze dimension ", i, " of input 0 ",
            c->DebugString(input), ": its size is ", c->Value(d), ", not 1");
      }
      dims.push_back(d);
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

std::string IntList(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// ---- Transpose --------------------------------------------------------------

// y[i] = x[perm[i]]; perm is a permutation of the dimensions.
Status TransposeShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle perm_shape;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &perm_shape));
  bool known = false;
  std::vector<int64_t> perm;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &perm));
  int64_t rank = c->Rank(input);
  if (rank == kUnknownRank) {
    if (known) {
      rank = static_cast<int64_t>(perm.size());
    } else if (c->ValueKnown(c->Dim(perm_shape, 0))) {
      rank = c->Value(c->Dim(perm_shape, 0));
    }
  }
  if (rank == kUnknownRank) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  if (!c->RankKnown(input) && rank < 2) {
    // A permutation of length 0 or 1 changes nothing.
    c->set_output(0, input);
    return Status();
  }
  WEFT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(
      c->WithValue(c->Dim(perm_shape, 0), rank, &unused),
      "perm (input 1) must have one entry per dimension of input 0 ",
      c->DebugString(c->input(0)));
  if (!known) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status();
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return errors::InvalidArgument("perm (input 1) is ", IntList(perm),
                                   " but input 0 has rank ", rank);
  }
  // Negative entries count from the end, as the kernel reads them.
  std::vector<bool> seen(rank, false);
  std::vector<DimensionHandle> dims;
  for (int64_t p : perm) {
    const int64_t d = p < 0 ? p + rank : p;
    if (d < 0 || d >= rank || seen[d]) {
      return errors::InvalidArgument(
          "perm (input 1) is ", IntList(perm),
          " but must be a permutation of the dimensions of input 0 (rank ",
          rank, ")");
    }
    seen[d] = true;
    dims.push_back(c->Dim(input, d));
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// ---- ConcatV2, Pack, Unpack -------------------------------------------------

// values: N tensors of one rank, equal except along `axis` (input N, a
// scalar; negative counts from the end); the output's axis is their sum.
Status ConcatV2Shape(InferenceContext* c) {
  const int n = c->num_inputs() - 1;
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(n), 0, &unused));
  int64_t rank = kUnknownRank;
  int rank_from = -1;
  for (int i = 0; i < n; ++i) {
    if (c->RankKnown(c->input(i))) {
      rank = c->Rank(c->input(i));
      rank_from = i;
      break;
    }
  }
  if (rank == 0) {
    return errors::InvalidArgument(
        "input ", rank_from,
        " is a scalar; scalars cannot be concatenated (Pack stacks them)");
  }
  for (int i = 0; i < n && rank != kUnknownRank; ++i) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(i), rank, &unused),
                             "all inputs to concatenate must have the rank of "
                             "input ",
                             rank_from, " ",
                             c->DebugString(c->input(rank_from)));
  }
  bool known = false;
  std::vector<int64_t> axis_value;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(n, 0, &known, &axis_value));
  if (rank == kUnknownRank) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  if (!known) {
    c->set_output(0, c->UnknownShapeOfRank(rank));
    return Status();
  }
  int64_t axis = axis_value[0];
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("axis (input ", n, ") is ", axis,
                                   " but must be in [", -rank, ", ", rank,
                                   ") for inputs of rank ", rank);
  }
  if (axis < 0) axis += rank;
  std::vector<DimensionHandle> dims(rank);
  for (int64_t d = 0; d < rank; ++d) dims[d] = c->Dim(c->input(0), d);
  for (int i = 1; i < n; ++i) {
    const ShapeHandle in = c->input(i);
    for (int64_t d = 0; d < rank; ++d) {
      const DimensionHandle di = c->Dim(in, d);
      if (d == axis) {
        WEFT_RETURN_IF_ERROR(c->Add(dims[d], di, &dims[d]));
      } else {
        WEFT_RETURN_IF_ERROR_CTX(
            c->Merge(dims[d], di, &dims[d]), "input ", i, " ",
            c->DebugString(in), " must match input 0 ",
            c->DebugString(c->input(0)), " in every dimension but the axis ",
            axis, ", and dimension ", d, " differs");
      }
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// N tensors of one shape stacked along a new dimension `axis` of size N.
Status PackShape(InferenceContext* c) {
  ShapeHandle merged = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    WEFT_RETURN_IF_ERROR_CTX(c->Merge(merged, c->input(i), &merged),
                             "all inputs to stack must have one shape");
  }
  if (!c->RankKnown(merged)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t rank = c->Rank(merged);
  int64_t axis = 0;
  WEFT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -(rank + 1) || axis > rank) {
    return errors::InvalidArgument("attr 'axis' is ", axis, " but must be in [",
                                   -(rank + 1), ", ", rank + 1,
                                   ") to stack inputs of rank ", rank);
  }
  if (rank + 1 > kMaxRank) {
    return errors::InvalidArgument("stacking inputs of rank ", rank,
                                   " exceeds the maximum rank ", kMaxRank);
  }
  if (axis < 0) axis += rank + 1;
  std::vector<DimensionHandle> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) dims.push_back(c->MakeDim(c->num_inputs()));
    dims.push_back(c->Dim(merged, d));
  }
  if (axis == rank) dims.push_back(c->MakeDim(c->num_inputs()));
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// value's dimension `axis` (of size num) removed; num outputs of that shape.
Status UnpackShape(InferenceContext* c) {
  const ShapeHandle value = c->input(0);
  ShapeHandle out = c->UnknownShape();
  if (c->RankKnown(value)) {
    const int64_t rank = c->Rank(value);
    int64_t axis = 0;
    WEFT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("attr 'axis' is ", axis,
                                     " but must be in [", -rank, ", ", rank,
                                     ") to unstack input 0 of rank ", rank);
    }
    if (axis < 0) axis += rank;
    DimensionHandle unused;
    WEFT_RETURN_IF_ERROR_CTX(
        c->WithValue(c->Dim(value, axis), c->num_outputs(), &unused),
        "attr 'num' is ", c->num_outputs(), " but must be the size of axis ",
        axis, " of input 0 ", c->DebugString(value));
    std::vector<DimensionHandle> dims;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis) dims.push_back(c->Dim(value, d));
    }
    out = c->MakeShape(dims);
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status();
}

// ---- Split, SplitV ----------------------------------------------------------

// value (input 1) cut into num_split equal parts along split_dim (input 0).
Status SplitShape(InferenceContext* c) {
  const ShapeHandle value = c->input(1);
  DimensionHandle axis;
  WEFT_RETURN_IF_ERROR(
      c->MakeDimForScalarInputWithNegativeIndexing(0, c->Rank(value), &axis));
  const int num_split = c->num_outputs();
  ShapeHandle out;
  if (!c->ValueKnown(axis)) {
    out = c->RankKnown(value) ? c->UnknownShapeOfRank(c->Rank(value))
                              : c->UnknownShape();
  } else {
    const int64_t a = c->Value(axis);
    ShapeHandle in;
    WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(value, a + 1, &in));
    DimensionHandle part;
    WEFT_RETURN_IF_ERROR_CTX(
        c->Divide(c->Dim(in, a), num_split, /*evenly_divisible=*/true, &part),
        "cannot split dimension ", a, " of input 1 ", c->DebugString(value),
        " into ", num_split, " equal parts");
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(in, a, part, &out));
  }
  for (int i = 0; i < num_split; ++i) c->set_output(i, out);
  return Status();
}

// value (input 0) cut along split_dim (input 2) into parts of the sizes in
// size_splits (input 1); one size may be -1, meaning "the rest".
Status SplitVShape(InferenceContext* c) {
  const ShapeHandle value = c->input(0);
  const int num_split = c->num_outputs();
  ShapeHandle sizes_shape;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &sizes_shape));
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(
      c->WithValue(c->Dim(sizes_shape, 0), num_split, &unused),
      "size_splits (input 1) must have num_split = ", num_split, " entries");
  DimensionHandle axis;
  WEFT_RETURN_IF_ERROR(
      c->MakeDimForScalarInputWithNegativeIndexing(2, c->Rank(value), &axis));
  if (!c->RankKnown(value)) {
    for (int i = 0; i < num_split; ++i) c->set_output(i, c->UnknownShape());
    return Status();
  }
  const int64_t rank = c->Rank(value);
  if (rank == 0) {
    return errors::InvalidArgument(
        "input 0 is a scalar; scalars cannot be split");
  }
  bool known = false;
  std::vector<int64_t> sizes;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &sizes));
  if (known && static_cast<int>(sizes.size()) != num_split) {
    return errors::InvalidArgument("size_splits (input 1) is ", IntList(sizes),
                                   " but num_split is ", num_split);
  }
  int64_t total = 0;
  int wildcard = -1;
  for (int i = 0; known && i < num_split; ++i) {
    if (sizes[i] == -1) {
      if (wildcard >= 0) {
        return errors::InvalidArgument(
            "size_splits (input 1) is ", IntList(sizes),
            "; at most one size can be -1 (inferred)");
      }
      wildcard = i;
    } else if (sizes[i] < 0) {
      return errors::InvalidArgument("size_splits (input 1) is ",
                                     IntList(sizes),
                                     "; sizes must be >= 0, or -1 for the "
                                     "rest");
    } else if (__builtin_add_overflow(total, sizes[i], &total)) {
      return errors::InvalidArgument("size_splits (input 1) ", IntList(sizes),
                                     " overflows int64");
    }
  }
  if (!c->ValueKnown(axis)) {
    for (int i = 0; i < num_split; ++i) {
      c->set_output(i, c->UnknownShapeOfRank(rank));
    }
    return Status();
  }
  const int64_t a = c->Value(axis);
  const DimensionHandle split_dim = c->Dim(value, a);
  if (!known) {
    for (int i = 0; i < num_split; ++i) {
      ShapeHandle out;
      WEFT_RETURN_IF_ERROR(c->ReplaceDim(value, a, c->UnknownDim(), &out));
      c->set_output(i, out);
    }
    return Status();
  }
  if (c->ValueKnown(split_dim)) {
    const int64_t size = c->Value(split_dim);
    if (wildcard >= 0 ? total > size : total != size) {
      return errors::InvalidArgument(
          "cannot split dimension ", a, " of size ", size, " of input 0 ",
          c->DebugString(value), " into parts of sizes ", IntList(sizes));
    }
  }
  for (int i = 0; i < num_split; ++i) {
    DimensionHandle part;
    if (i == wildcard) {
      part = c->ValueKnown(split_dim) ? c->MakeDim(c->Value(split_dim) - total)
                                      : c->UnknownDim();
    } else {
      part = c->MakeDim(sizes[i]);
    }
    ShapeHandle out;
    WEFT_RETURN_IF_ERROR(c->ReplaceDim(value, a, part, &out));
    c->set_output(i, out);
  }
  return Status();
}

// ---- Slice, StridedSlice ----------------------------------------------------

// input[begin[i] : begin[i] + size[i]] per dimension; size -1 means "to the
// end". begin and size are vectors with one entry per input dimension.
Status SliceShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle begin_shape;
  ShapeHandle size_shape;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &begin_shape));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &size_shape));
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(begin_shape, size_shape, &begin_shape),
                           "begin (input 1) and size (input 2) must have one "
                           "length");
  const DimensionHandle length = c->Dim(begin_shape, 0);
  if (c->ValueKnown(length)) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(input, c->Value(length), &input),
                             "begin and size have ", c->Value(length),
                             " entries, one per dimension of input 0");
  }
  bool begin_known = false;
  bool size_known = false;
  std::vector<int64_t> begin;
  std::vector<int64_t> size;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &begin_known, &begin));
  WEFT_RETURN_IF_ERROR(c->GetInputInts(2, 1, &size_known, &size));
  if (begin_known && size_known && begin.size() != size.size()) {
    return errors::InvalidArgument("begin (input 1) ", IntList(begin),
                                   " and size (input 2) ", IntList(size),
                                   " must have one length");
  }
  if (!size_known) {
    // What is known of the sizes, read as a shape (-1 is unknown there).
    ShapeHandle partial = c->input_tensor_as_shape(2);
    if (c->RankKnown(partial)) {
      WEFT_RETURN_IF_ERROR(c->WithRank(input, c->Rank(partial), &input));
      c->set_output(0, partial);
    } else if (begin_known) {
      WEFT_RETURN_IF_ERROR(c->WithRank(input, begin.size(), &input));
      c->set_output(0, c->UnknownShapeOfRank(begin.size()));
    } else {
      c->set_output(0, c->RankKnown(input)
                           ? c->UnknownShapeOfRank(c->Rank(input))
                           : c->UnknownShape());
    }
    return Status();
  }
  const int64_t rank = static_cast<int64_t>(size.size());
  WEFT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const DimensionHandle dim = c->Dim(input, i);
    const int64_t b = begin_known ? begin[i] : 0;
    if (begin_known && (b < 0 || (c->ValueKnown(dim) && b > c->Value(dim)))) {
      return errors::InvalidArgument(
          "begin (input 1) is ", IntList(begin), " but begin[", i, "] = ", b,
          " must be in [0, ", c->DebugString(dim), "] for dimension ", i,
          " of input 0 ", c->DebugString(c->input(0)));
    }
    if (size[i] == -1) {
      if (begin_known && b == 0) {
        dims.push_back(dim);
      } else if (begin_known) {
        DimensionHandle rest;
        WEFT_RETURN_IF_ERROR(c->Subtract(dim, b, &rest));
        dims.push_back(rest);
      } else {
        dims.push_back(c->UnknownDim());
      }
      continue;
    }
    if (size[i] < 0) {
      return errors::InvalidArgument("size (input 2) is ", IntList(size),
                                     " but size[", i, "] = ", size[i],
                                     "; sizes must be >= 0, or -1 for the "
                                     "rest of the dimension");
    }
    if (begin_known && c->ValueKnown(dim) && size[i] > c->Value(dim) - b) {
      return errors::InvalidArgument(
          "slice [", b, ", ", b, " + ", size[i], ") of dimension ", i,
          " of input 0 ", c->DebugString(c->input(0)), " is out of bounds");
    }
    dims.push_back(c->MakeDim(size[i]));
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

Status StridedSliceShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle spec;
  ShapeHandle other;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &spec));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 1, &other));
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(spec, other, &spec),
                           "begin (input 1) and end (input 2) must have one "
                           "length");
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(3), 1, &other));
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(spec, other, &spec),
                           "begin (input 1) and strides (input 3) must have "
                           "one length");
  std::vector<int64_t> values[3];
  bool known[3] = {false, false, false};
  for (int i = 0; i < 3; ++i) {
    WEFT_RETURN_IF_ERROR(c->GetInputInts(i + 1, 1, &known[i], &values[i]));
  }
  int64_t num_terms = c->Value(c->Dim(spec, 0));
  for (int i = 0; i < 3 && num_terms == kUnknownDim; ++i) {
    if (known[i]) num_terms = static_cast<int64_t>(values[i].size());
  }
  if (!c->RankKnown(input) || num_terms == kUnknownDim) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  StridedSliceMasks masks;
  WEFT_RETURN_IF_ERROR(ReadStridedSliceMasks(c->attrs(), &masks));
  std::vector<int64_t> input_dims;
  for (int32_t d = 0; d < c->Rank(input); ++d) {
    input_dims.push_back(c->Value(c->Dim(input, d)));
  }
  WEFT_ASSIGN_OR_RETURN(
      const StridedSlicePlan plan,
      PlanStridedSlice(input_dims, num_terms, known[0] ? &values[0] : nullptr,
                       known[1] ? &values[1] : nullptr,
                       known[2] ? &values[2] : nullptr, masks));
  if (static_cast<int64_t>(plan.final_shape.size()) > kMaxRank) {
    return errors::InvalidArgument("the slice's new axes give rank ",
                                   plan.final_shape.size(),
                                   ", more than the maximum ", kMaxRank);
  }
  std::vector<DimensionHandle> dims;
  for (size_t k = 0; k < plan.final_shape.size(); ++k) {
    const int source = plan.final_source[k];
    if (source >= 0 && plan.takes_whole[source]) {
      dims.push_back(c->Dim(input, source));
    } else {
      dims.push_back(c->MakeDim(plan.final_shape[k]));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// ---- Pad, PadV2, MirrorPad --------------------------------------------------

// paddings (input 1) is [rank, 2]: elements added before and after each
// dimension. MirrorPad reflects the input, so its paddings may not exceed
// the dimension (REFLECT: size - 1, SYMMETRIC: size).
Status PadShape(InferenceContext* c) {
  ShapeHandle paddings;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 2, &paddings));
  DimensionHandle rank_dim = c->Dim(paddings, 0);
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(paddings, 1), 2, &unused),
                           "paddings (input 1) must be [rank, 2]");
  ShapeHandle input = c->input(0);
  if (c->ValueKnown(rank_dim)) {
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(input, c->Value(rank_dim), &input),
                             "paddings (input 1) ", c->DebugString(c->input(1)),
                             " must have one row per dimension of input 0");
  } else if (c->RankKnown(input)) {
    rank_dim = c->MakeDim(c->Rank(input));
  }
  bool known = false;
  std::vector<int64_t> pads;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 2, &known, &pads));
  if (!known) {
    c->set_output(0, c->ValueKnown(rank_dim)
                         ? c->UnknownShapeOfRank(c->Value(rank_dim))
                         : c->UnknownShape());
    return Status();
  }
  const TensorShape& pads_shape = c->input_tensor(1)->shape();
  if (pads_shape.dims() != 2 || pads_shape.dim_size(1) != 2) {
    return errors::InvalidArgument(
        "paddings (input 1) must be [rank, 2] but "
        "its value has shape ",
        pads_shape.DebugString());
  }
  const int64_t rank = pads_shape.dim_size(0);
  WEFT_RETURN_IF_ERROR(c->WithRank(input, rank, &input));
  int64_t max_offset = -1;  // how far the padding may reach past the edge
  std::string mode;
  if (c->op_def().FindAttr("mode") != nullptr) {
    WEFT_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
    if (mode == "REFLECT") {
      max_offset = 1;
    } else if (mode == "SYMMETRIC") {
      max_offset = 0;
    } else {
      return errors::InvalidArgument("attr 'mode' is '", mode,
                                     "'; expected REFLECT or SYMMETRIC");
    }
  }
  std::vector<DimensionHandle> dims;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t before = pads[2 * i];
    const int64_t after = pads[2 * i + 1];
    const DimensionHandle dim = c->Dim(input, i);
    if (before < 0 || after < 0) {
      return errors::InvalidArgument("paddings (input 1) are ", IntList(pads),
                                     " but must be >= 0 (dimension ", i, ")");
    }
    if (max_offset >= 0 && c->ValueKnown(dim) &&
        (before > c->Value(dim) - max_offset ||
         after > c->Value(dim) - max_offset)) {
      return errors::InvalidArgument(
          "paddings (input 1) are ", IntList(pads), " but ", mode,
          " padding of dimension ", i, " of input 0 ",
          c->DebugString(c->input(0)), " allows at most ",
          c->Value(dim) - max_offset, " on each side");
    }
    int64_t total = 0;
    if (__builtin_add_overflow(before, after, &total)) {
      return errors::InvalidArgument("paddings (input 1) ", IntList(pads),
                                     " overflow int64");
    }
    DimensionHandle padded;
    WEFT_RETURN_IF_ERROR(c->Add(dim, total, &padded));
    dims.push_back(padded);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// ---- Tile, Fill, BroadcastTo ------------------------------------------------

// Each dimension repeated multiples[i] times (input 1, one per dimension).
Status TileShape(InferenceContext* c) {
  ShapeHandle input = c->input(0);
  ShapeHandle multiples_shape;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 1, &multiples_shape));
  DimensionHandle length = c->Dim(multiples_shape, 0);
  if (c->RankKnown(input)) {
    WEFT_RETURN_IF_ERROR_CTX(
        c->WithValue(length, c->Rank(input), &length),
        "multiples (input 1) must have one entry per dimension of input 0 ",
        c->DebugString(input));
  } else if (c->ValueKnown(length)) {
    WEFT_RETURN_IF_ERROR(c->WithRank(input, c->Value(length), &input));
  }
  bool known = false;
  std::vector<int64_t> multiples;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &multiples));
  ShapeHandle partial;
  if (known) {
    WEFT_RETURN_IF_ERROR(c->WithRank(input, multiples.size(), &input));
    std::vector<DimensionHandle> m;
    for (int64_t v : multiples) {
      if (v < 0) {
        return errors::InvalidArgument("multiples (input 1) are ",
                                       IntList(multiples), " but must be >= 0");
      }
      m.push_back(c->MakeDim(v));
    }
    partial = c->MakeShape(m);
  } else {
    partial = c->input_tensor_as_shape(1);
    if (!c->RankKnown(partial) && c->RankKnown(input)) {
      partial = c->UnknownShapeOfRank(c->Rank(input));
    }
  }
  if (!c->RankKnown(partial)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  WEFT_RETURN_IF_ERROR(c->WithRank(input, c->Rank(partial), &input));
  std::vector<DimensionHandle> dims(c->Rank(partial));
  for (int32_t i = 0; i < c->Rank(partial); ++i) {
    WEFT_RETURN_IF_ERROR(
        c->Multiply(c->Dim(input, i), c->Dim(partial, i), &dims[i]));
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// A tensor of shape dims (input 0) filled with the scalar value (input 1).
Status FillShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(1), 0, &unused));
  bool known = false;
  std::vector<int64_t> dims;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(0, 1, &known, &dims));
  for (int64_t d : dims) {
    if (d < 0) {
      return errors::InvalidArgument("dims (input 0) are ", IntList(dims),
                                     " but must be >= 0");
    }
  }
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(0, &out));
  c->set_output(0, out);
  return Status();
}

// input broadcast to shape (input 1): aligned at the end, each input
// dimension is 1 or the target's size.
Status BroadcastToShape(InferenceContext* c) {
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromShapeTensor(1, &out));
  const ShapeHandle in = c->input(0);
  if (!c->RankKnown(out) || !c->RankKnown(in)) {
    c->set_output(0, out);
    return Status();
  }
  const int32_t out_rank = c->Rank(out);
  const int32_t in_rank = c->Rank(in);
  if (in_rank > out_rank) {
    return errors::InvalidArgument("input 0 ", c->DebugString(in), " has rank ",
                                   in_rank, ", more than the target shape ",
                                   c->DebugString(out));
  }
  std::vector<DimensionHandle> dims(out_rank);
  for (int32_t i = 0; i < out_rank; ++i) dims[i] = c->Dim(out, i);
  for (int32_t i = 0; i < in_rank; ++i) {
    const DimensionHandle d = c->Dim(in, i);
    DimensionHandle& target = dims[out_rank - in_rank + i];
    if (!c->ValueKnown(d) || c->Value(d) == 1) continue;
    // Only size 1 stretches: anything else must already be the target size.
    DimensionHandle merged;
    if (c->Merge(target, d, &merged).ok()) {
      target = merged;
    } else {
      return errors::InvalidArgument(
          "input 0 ", c->DebugString(in), " cannot be broadcast to ",
          c->DebugString(out), ": its dimension ", i, " is ", c->Value(d),
          " but the target's is ", c->DebugString(target));
    }
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// ---- GatherV2, OneHot -------------------------------------------------------

// params[:axis] + indices[batch_dims:] + params[axis+1:]; the first
// batch_dims dimensions of params and indices must agree.
Status GatherV2Shape(InferenceContext* c) {
  ShapeHandle params;
  WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &params));
  const ShapeHandle indices = c->input(1);
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  int64_t batch_dims = 0;
  WEFT_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
  if (c->RankKnown(indices)) {
    const int64_t ir = c->Rank(indices);
    if (batch_dims < -ir || batch_dims > ir) {
      return errors::InvalidArgument(
          "attr 'batch_dims' is ", batch_dims, " but must be in [", -ir, ", ",
          ir, "] for indices (input 1) ", c->DebugString(indices));
    }
    if (batch_dims < 0) batch_dims += ir;
  } else if (batch_dims < 0) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  bool known = false;
  std::vector<int64_t> axis_value;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(2, 0, &known, &axis_value));
  if (!known) {
    if (c->RankKnown(params) && c->RankKnown(indices)) {
      const int64_t rank = c->Rank(params) + c->Rank(indices) - 1 - batch_dims;
      if (rank < 0 || rank > kMaxRank) {
        return errors::InvalidArgument(
            "params (input 0) ", c->DebugString(params),
            " and indices (input 1) ", c->DebugString(indices),
            " with batch_dims ", batch_dims, " do not make a valid gather");
      }
      c->set_output(0, c->UnknownShapeOfRank(rank));
    } else {
      c->set_output(0, c->UnknownShape());
    }
    return Status();
  }
  int64_t axis = axis_value[0];
  if (!c->RankKnown(params)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t pr = c->Rank(params);
  if (axis < -pr || axis >= pr) {
    return errors::InvalidArgument(
        "axis (input 2) is ", axis, " but must be in [", -pr, ", ", pr,
        ") for params (input 0) ", c->DebugString(params));
  }
  if (axis < 0) axis += pr;
  if (batch_dims > axis) {
    return errors::InvalidArgument("attr 'batch_dims' is ", batch_dims,
                                   " but must be <= axis ", axis);
  }
  std::vector<DimensionHandle> dims;
  for (int64_t d = 0; d < axis; ++d) dims.push_back(c->Dim(params, d));
  if (!c->RankKnown(indices)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  for (int64_t d = 0; d < batch_dims; ++d) {
    WEFT_RETURN_IF_ERROR_CTX(
        c->Merge(dims[d], c->Dim(indices, d), &dims[d]), "batch dimension ", d,
        " of params (input 0) and indices (input 1) must agree");
  }
  for (int32_t d = batch_dims; d < c->Rank(indices); ++d) {
    dims.push_back(c->Dim(indices, d));
  }
  for (int64_t d = axis + 1; d < pr; ++d) dims.push_back(c->Dim(params, d));
  if (static_cast<int64_t>(dims.size()) > kMaxRank) {
    return errors::InvalidArgument("the gather's output would have rank ",
                                   dims.size(), ", more than the maximum ",
                                   kMaxRank);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

// indices with a new dimension of size depth (input 1) at `axis` (-1: last).
Status OneHotShape(InferenceContext* c) {
  int64_t axis = -1;
  WEFT_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (axis < -1) {
    return errors::InvalidArgument("attr 'axis' is ", axis,
                                   " but must be -1 or a dimension index");
  }
  DimensionHandle depth;
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(1, &depth));
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(2), 0, &unused));
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(3), 0, &unused));
  const ShapeHandle indices = c->input(0);
  if (!c->RankKnown(indices)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t rank = c->Rank(indices);
  if (axis > rank) {
    return errors::InvalidArgument("attr 'axis' is ", axis,
                                   " but the output has rank ", rank + 1);
  }
  if (rank + 1 > kMaxRank) {
    return errors::InvalidArgument("indices of rank ", rank,
                                   " make an output of more than the maximum "
                                   "rank ",
                                   kMaxRank);
  }
  const int64_t at = axis == -1 ? rank : axis;
  ShapeHandle front;
  ShapeHandle back;
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Subshape(indices, 0, at, &front));
  WEFT_RETURN_IF_ERROR(c->Subshape(indices, at, &back));
  WEFT_RETURN_IF_ERROR(c->Concatenate(front, c->Vector(depth), &out));
  WEFT_RETURN_IF_ERROR(c->Concatenate(out, back, &out));
  c->set_output(0, out);
  return Status();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape);

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = <unknown>")
    .SetShapeFn(PlaceholderShape);

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape);

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn(IdentityNShape);

REGISTER_OP("NoOp").SetShapeFn(shape_inference::NoOutputs);

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ReshapeShape);

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeShape);

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = DT_INT32")
    .SetShapeFn(ExpandDimsShape);

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) >= 0 = []")
    .SetShapeFn(SqueezeShape);

REGISTER_OP("PreventGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("message: string = ''")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("Snapshot")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: type")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, "
        "uint32, int64, uint64, complex64, complex128, bool}")
    .SetShapeFn(shape_inference::UnchangedShape);

// Size and Rank are scalars; their values are known when the input's shape
// is, which constant folding (not the shape function) exploits.
REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_inference::ScalarShape);

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = DT_INT32")
    .SetShapeFn(TransposeShape);

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(ConcatV2Shape);

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape);

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape);

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape);

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int8, int32, int64} = DT_INT64")
    .SetShapeFn(SplitVShape);

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShape);

REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int16, int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape);

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape);

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadShape);

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(PadShape);

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = DT_INT32")
    .SetShapeFn(TileShape);

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index_type: {int32, int64} = DT_INT32")
    .SetShapeFn(FillShape);

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastToShape);

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Attr("batch_dims: int = 0")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape);

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Attr("axis: int = -1")
    .Output("output: T")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = DT_INT64")
    .SetShapeFn(OneHotShape);

// ---- the inference op set of issue 13: indexing, checks and plumbing --------

namespace {

// Input `idx` has rank at most 1 (a scalar or a vector of values).
Status ScalarOrVector(InferenceContext* c, int idx) {
  ShapeHandle unused;
  return c->WithRankAtMost(c->input(idx), 1, &unused);
}

Status MatrixBandPartShape(InferenceContext* c) {
  ShapeHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 0, &unused),
                           "num_lower (input 1) must be a scalar");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 0, &unused),
                           "num_upper (input 2) must be a scalar");
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 2, &input),
                           "input 0 must be at least a matrix");
  c->set_output(0, input);
  return Status();
}

Status ReverseV2Shape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  ShapeHandle axis;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &axis),
                           "axis (input 1) must be a vector");
  if (c->RankKnown(input) && c->Rank(input) > 8) {
    return errors::InvalidArgument(
        "ReverseV2 handles tensors of rank up to 8, but input 0 has rank ",
        c->Rank(input));
  }
  bool known = false;
  std::vector<int64_t> axes;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &known, &axes));
  if (known && c->RankKnown(input)) {
    const int64_t rank = c->Rank(input);
    std::vector<bool> seen(rank, false);
    for (int64_t a : axes) {
      const int64_t d = a < 0 ? a + rank : a;
      if (d < 0 || d >= rank) {
        return errors::InvalidArgument("axis (input 1) holds ", a,
                                       ", outside [", -rank, ", ", rank,
                                       ") for input 0 of rank ", rank);
      }
      if (seen[d]) {
        return errors::InvalidArgument("axis (input 1) names dimension ", d,
                                       " more than once");
      }
      seen[d] = true;
    }
  }
  c->set_output(0, input);
  return Status();
}

Status RollShape(InferenceContext* c) {
  WEFT_RETURN_IF_ERROR_CTX(ScalarOrVector(c, 1),
                           "shift (input 1) must be a scalar or a vector");
  WEFT_RETURN_IF_ERROR_CTX(ScalarOrVector(c, 2),
                           "axis (input 2) must be a scalar or a vector");
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &input),
                           "input 0 must have rank at least 1");
  c->set_output(0, input);
  return Status();
}

Status InvertPermutationShape(InferenceContext* c) {
  ShapeHandle x;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 1, &x),
                           "x (input 0) must be a vector");
  c->set_output(0, x);
  return Status();
}

// [number of true elements, rank of the input].
Status WhereShape(InferenceContext* c) {
  const ShapeHandle input = c->input(0);
  c->set_output(0,
                c->Matrix(shape_inference::kUnknownDim,
                          c->RankKnown(input) ? c->Rank(input)
                                              : shape_inference::kUnknownDim));
  return Status();
}

Status EnsureShapeShape(InferenceContext* c) {
  PartialTensorShape shape;
  WEFT_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  ShapeHandle expected;
  WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shape, &expected));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->input(0), expected, &out), "input 0 ",
                           c->DebugString(c->input(0)),
                           " is not compatible with attr 'shape' ",
                           c->DebugString(expected));
  c->set_output(0, out);
  return Status();
}

Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    const ShapeHandle input = c->input(i);
    c->set_output(
        i, c->Vector(c->RankKnown(input) ? c->Rank(input)
                                         : shape_inference::kUnknownDim));
  }
  return Status();
}

// A vector as long as the longer of the two shape vectors.
Status BroadcastArgsShape(InferenceContext* c) {
  ShapeHandle s0;
  ShapeHandle s1;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(0), 1, &s0),
                           "s0 (input 0) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &s1),
                           "s1 (input 1) must be a vector");
  const DimensionHandle d0 = c->Dim(s0, 0);
  const DimensionHandle d1 = c->Dim(s1, 0);
  if (!c->ValueKnown(d0) || !c->ValueKnown(d1)) {
    c->set_output(0, c->Vector(shape_inference::kUnknownDim));
    return Status();
  }
  c->set_output(0, c->Vector(std::max(c->Value(d0), c->Value(d1))));
  return Status();
}

}  // namespace

REGISTER_OP("MatrixBandPart")
    .Input("input: T")
    .Input("num_lower: Tindex")
    .Input("num_upper: Tindex")
    .Output("band: T")
    .Attr("T: type")
    .Attr("Tindex: {int32, int64} = DT_INT64")
    .SetShapeFn(MatrixBandPartShape);

REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr(
        "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, "
        "bfloat16, half, float, double, complex64, complex128, string}")
    .SetShapeFn(ReverseV2Shape);

REGISTER_OP("Roll")
    .Input("input: T")
    .Input("shift: Tshift")
    .Input("axis: Taxis")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshift: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(RollShape);

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(InvertPermutationShape);

REGISTER_OP("Where")
    .Input("input: T")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .Output("index: int64")
    .SetShapeFn(WhereShape);

REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {bfloat16, half, float, double}")
    .Attr("message: string")
    .SetShapeFn(shape_inference::UnchangedShape);

REGISTER_OP("EnsureShape")
    .Input("input: T")
    .Output("output: T")
    .Attr("shape: shape")
    .Attr("T: type")
    .SetShapeFn(EnsureShapeShape);

REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = DT_INT32")
    .SetShapeFn(ShapeNShape);

REGISTER_OP("BroadcastArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Attr("T: {int32, int64} = DT_INT32")
    .SetShapeFn(BroadcastArgsShape);

}  // namespace weft
