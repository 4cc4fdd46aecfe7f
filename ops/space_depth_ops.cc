// Ops that move blocks of spatial positions into the batch or the depth and
// back: SpaceToBatchND, BatchToSpaceND (dilated convolutions in frozen
// graphs run as SpaceToBatchND, Conv2D, BatchToSpaceND), SpaceToDepth and
// DepthToSpace. Names, arguments, attrs and defaults follow TensorFlow
// 2.21's array_ops.cc; the shape functions know every output dimension the
// constant block shapes, paddings and crops decide.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// SpaceToBatchND (`to_batch`) and BatchToSpaceND: input 0 [batch] +
// spatial [M] + remaining, block_shape (input 1) [M] of values >= 1, input 2
// (paddings or crops) [M, 2] of values >= 0.
Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  const char* amounts = to_batch ? "paddings (input 2)" : "crops (input 2)";
  ShapeHandle block_shape;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &block_shape),
                           "block_shape (input 1) must be a vector");
  ShapeHandle pads;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 2, &pads), amounts,
                           " must be a matrix");
  DimensionHandle m_dim;
  WEFT_RETURN_IF_ERROR_CTX(
      c->Merge(c->Dim(block_shape, 0), c->Dim(pads, 0), &m_dim), amounts,
      " must have one row per value of block_shape (input 1)");
  DimensionHandle unused;
  WEFT_RETURN_IF_ERROR_CTX(c->WithValue(c->Dim(pads, 1), 2, &unused), amounts,
                           " must have 2 columns");
  if (!c->ValueKnown(m_dim)) {
    ShapeHandle input;
    WEFT_RETURN_IF_ERROR(c->WithRankAtLeast(c->input(0), 1, &input));
    c->set_output(0, c->RankKnown(input) ? c->UnknownShapeOfRank(c->Rank(input))
                                         : c->UnknownShape());
    return Status();
  }
  const int64_t m = c->Value(m_dim);
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1 + m, &input),
                           "input 0 must have the batch dimension and ", m,
                           " spatial dimensions");
  bool block_known = false;
  bool pads_known = false;
  std::vector<int64_t> block, pad;
  WEFT_RETURN_IF_ERROR(c->GetInputInts(1, 1, &block_known, &block));
  WEFT_RETURN_IF_ERROR(c->GetInputInts(2, 2, &pads_known, &pad));
  int64_t block_size = 1;
  if (block_known) {
    for (int64_t b : block) {
      if (b < 1) {
        return errors::InvalidArgument("block_shape (input 1) is [",
                                       absl::StrJoin(block, ","),
                                       "] but its values must be >= 1");
      }
      if (__builtin_mul_overflow(block_size, b, &block_size)) {
        return errors::InvalidArgument("block_shape (input 1) [",
                                       absl::StrJoin(block, ","),
                                       "] has too many blocks");
      }
    }
  }
  if (pads_known) {
    for (int64_t p : pad) {
      if (p < 0) {
        return errors::InvalidArgument(
            amounts, " are [", absl::StrJoin(pad, ","), "] but must be >= 0");
      }
    }
  }
  std::vector<DimensionHandle> dims;
  DimensionHandle batch = c->Dim(input, 0);
  if (!block_known) {
    batch = c->UnknownDim();
  } else if (to_batch) {
    WEFT_RETURN_IF_ERROR(c->Multiply(batch, block_size, &batch));
  } else {
    WEFT_RETURN_IF_ERROR_CTX(
        c->Divide(batch, block_size, /*evenly_divisible=*/true, &batch),
        "the batch dimension of input 0 ", c->DebugString(input),
        " must be divisible by the product of block_shape (input 1), ",
        block_size);
  }
  dims.push_back(batch);
  for (int64_t i = 0; i < m; ++i) {
    const DimensionHandle in = c->Dim(input, i + 1);
    if (!block_known || !pads_known || !c->ValueKnown(in)) {
      dims.push_back(c->UnknownDim());
      continue;
    }
    const int64_t size = c->Value(in);
    const int64_t before = pad[2 * i];
    const int64_t after = pad[2 * i + 1];
    if (to_batch) {
      int64_t padded = 0;
      if (__builtin_add_overflow(size, before, &padded) ||
          __builtin_add_overflow(padded, after, &padded)) {
        return errors::InvalidArgument(amounts, " [", before, ", ", after,
                                       "] overflow int64");
      }
      if (padded % block[i] != 0) {
        return errors::InvalidArgument(
            "padded spatial dimension ", i, " of input 0 ",
            c->DebugString(input), " (", size, " + ", before, " + ", after,
            ") is not divisible by block_shape[", i, "] = ", block[i]);
      }
      dims.push_back(c->MakeDim(padded / block[i]));
    } else {
      int64_t full = 0;
      if (__builtin_mul_overflow(size, block[i], &full) ||
          before + after > full) {
        return errors::InvalidArgument(
            "crops [", before, ", ", after, "] of spatial dimension ", i,
            " are larger than its size after BatchToSpace, ", size, " * ",
            block[i]);
      }
      dims.push_back(c->MakeDim(full - before - after));
    }
  }
  ShapeHandle outer = c->MakeShape(dims);
  ShapeHandle remaining;
  WEFT_RETURN_IF_ERROR(c->Subshape(input, 1 + m, &remaining));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(outer, remaining, &out));
  c->set_output(0, out);
  return Status();
}

// SpaceToDepth (`to_depth`) and DepthToSpace on a rank-4 input in
// data_format (NHWC or NCHW; NCHW_VECT_C is for qint8, which weft does not
// support).
Status SpaceDepthShape(InferenceContext* c, bool to_depth) {
  std::string format;
  WEFT_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format != "NHWC" && format != "NCHW") {
    return errors::InvalidArgument("data_format '", format,
                                   "' is not supported; use NHWC or NCHW");
  }
  int64_t block = 0;
  WEFT_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  // block_size^2 must fit in int64 (3037000499^2 < 2^63).
  if (block < 2 || block > 3037000499) {
    return errors::InvalidArgument("attr 'block_size' is ", block,
                                   " but must be in [2, 3037000499]");
  }
  ShapeHandle input;
  WEFT_RETURN_IF_ERROR(c->WithRank(c->input(0), 4, &input));
  const bool nhwc = format == "NHWC";
  const int h = nhwc ? 1 : 2;
  const int w = nhwc ? 2 : 3;
  const int ch = nhwc ? 3 : 1;
  std::vector<DimensionHandle> dims = {c->Dim(input, 0), c->Dim(input, 1),
                                       c->Dim(input, 2), c->Dim(input, 3)};
  if (to_depth) {
    for (int d : {h, w}) {
      WEFT_RETURN_IF_ERROR_CTX(
          c->Divide(dims[d], block, /*evenly_divisible=*/true, &dims[d]),
          "dimension ", d, " of input 0 ", c->DebugString(input),
          " must be divisible by block_size ", block);
    }
    WEFT_RETURN_IF_ERROR(c->Multiply(dims[ch], block * block, &dims[ch]));
  } else {
    for (int d : {h, w}) {
      WEFT_RETURN_IF_ERROR(c->Multiply(dims[d], block, &dims[d]));
    }
    WEFT_RETURN_IF_ERROR_CTX(
        c->Divide(dims[ch], block * block, /*evenly_divisible=*/true,
                  &dims[ch]),
        "the depth of input 0 ", c->DebugString(input),
        " must be divisible by block_size * block_size = ", block * block);
  }
  c->set_output(0, c->MakeShape(dims));
  return Status();
}

}  // namespace

REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, true); });

REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = DT_INT32")
    .Attr("Tcrops: {int32, int64} = DT_INT32")
    .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, false); });

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, true); });

REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, false); });

}  // namespace weft
