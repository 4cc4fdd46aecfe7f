// Segment reductions: SegmentSum/Mean/Max/Min/Prod (sorted ids, one per row
// of data), UnsortedSegmentSum/Max/Min/Prod (any ids, a num_segments input)
// and SparseSegmentSum/Mean/SqrtN with their WithNumSegments forms (rows
// picked by indices, then reduced by sorted ids). Registered exactly as
// TensorFlow 2.21 defines them, sparse_gradient attr included, so that graph
// files validate unchanged; the shape functions follow TensorFlow's: the
// number of output rows is known only where num_segments is a constant.
#include <cstdint>

#include "ops/common_shape_fns.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::DimensionHandle;
using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// Segment*: [?] + data[1:]; the row count is the last id + 1, known only
// when the ids are.
Status SegmentReductionShape(InferenceContext* c) {
  ShapeHandle data;
  ShapeHandle ids;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &data),
                           "data (input 0) must have rank >= 1");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &ids),
                           "segment_ids (input 1) must be a vector");
  DimensionHandle rows;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(c->Dim(data, 0), c->Dim(ids, 0), &rows),
                           "segment_ids (input 1) must have one id per row "
                           "of data (input 0)");
  ShapeHandle inner;
  WEFT_RETURN_IF_ERROR(c->Subshape(data, 1, &inner));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(
      c->Concatenate(c->Vector(shape_inference::kUnknownDim), inner, &out));
  c->set_output(0, out);
  return Status();
}

// UnsortedSegment*: [num_segments] + data[rank(segment_ids):]; data's shape
// must start with segment_ids' shape.
Status UnsortedSegmentReductionShape(InferenceContext* c) {
  ShapeHandle num;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 0, &num),
                           "num_segments (input 2) must be a scalar");
  const ShapeHandle data = c->input(0);
  const ShapeHandle ids = c->input(1);
  if (!c->RankKnown(ids)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  const int64_t ids_rank = c->Rank(ids);
  ShapeHandle prefixed;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(data, ids_rank, &prefixed),
                           "data (input 0) must have at least the rank of "
                           "segment_ids (input 1)");
  if (c->RankKnown(prefixed)) {
    ShapeHandle prefix;
    WEFT_RETURN_IF_ERROR(c->Subshape(prefixed, 0, ids_rank, &prefix));
    ShapeHandle merged;
    const Status same = c->Merge(prefix, ids, &merged);
    if (!same.ok()) {
      return errors::InvalidArgument("data.shape = ", c->DebugString(data),
                                     " does not start with segment_ids.shape "
                                     "= ",
                                     c->DebugString(ids));
    }
  }
  DimensionHandle segments;
  WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(2, &segments));
  if (!c->RankKnown(prefixed)) {
    c->set_output(0, c->UnknownShape());
    return Status();
  }
  ShapeHandle inner;
  WEFT_RETURN_IF_ERROR(c->Subshape(prefixed, ids_rank, &inner));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(c->Vector(segments), inner, &out));
  c->set_output(0, out);
  return Status();
}

// SparseSegment*: [?] (or [num_segments] with the WithNumSegments forms) +
// data[1:]; indices and segment_ids are vectors of one length.
Status SparseSegmentReductionShape(InferenceContext* c, bool num_segments) {
  ShapeHandle data;
  ShapeHandle indices;
  ShapeHandle ids;
  WEFT_RETURN_IF_ERROR_CTX(c->WithRankAtLeast(c->input(0), 1, &data),
                           "data (input 0) must have rank >= 1");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(1), 1, &indices),
                           "indices (input 1) must be a vector");
  WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(2), 1, &ids),
                           "segment_ids (input 2) must be a vector");
  ShapeHandle merged;
  WEFT_RETURN_IF_ERROR_CTX(c->Merge(indices, ids, &merged),
                           "indices (input 1) and segment_ids (input 2) must "
                           "have the same length");
  DimensionHandle rows = c->UnknownDim();
  if (num_segments) {
    ShapeHandle num;
    WEFT_RETURN_IF_ERROR_CTX(c->WithRank(c->input(3), 0, &num),
                             "num_segments (input 3) must be a scalar");
    WEFT_RETURN_IF_ERROR(c->MakeDimForScalarInput(3, &rows));
  }
  ShapeHandle inner;
  WEFT_RETURN_IF_ERROR(c->Subshape(data, 1, &inner));
  ShapeHandle out;
  WEFT_RETURN_IF_ERROR(c->Concatenate(c->Vector(rows), inner, &out));
  c->set_output(0, out);
  return Status();
}

Status SparseSegmentShape(InferenceContext* c) {
  return SparseSegmentReductionShape(c, false);
}

Status SparseSegmentWithNumSegmentsShape(InferenceContext* c) {
  return SparseSegmentReductionShape(c, true);
}

}  // namespace

// TensorFlow's numbertype and realnumbertype, spelled out.
#define WEFT_SEGMENT_NUMBER_TYPES                                         \
  "{float, double, int32, uint8, int16, int8, complex64, int64, qint8, "  \
  "quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, " \
  "uint32, uint64}"
#define WEFT_SEGMENT_REAL_TYPES                                          \
  "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, " \
  "half, uint32, uint64}"

#define WEFT_SEGMENT_OP(name, types)   \
  REGISTER_OP(name)                    \
      .Input("data: T")                \
      .Input("segment_ids: Tindices")  \
      .Output("output: T")             \
      .Attr("T: " types)               \
      .Attr("Tindices: {int32,int64}") \
      .SetShapeFn(SegmentReductionShape)

WEFT_SEGMENT_OP("SegmentSum", WEFT_SEGMENT_NUMBER_TYPES);
WEFT_SEGMENT_OP("SegmentMean", WEFT_SEGMENT_NUMBER_TYPES);
WEFT_SEGMENT_OP("SegmentProd", WEFT_SEGMENT_NUMBER_TYPES);
WEFT_SEGMENT_OP("SegmentMax", WEFT_SEGMENT_REAL_TYPES);
WEFT_SEGMENT_OP("SegmentMin", WEFT_SEGMENT_REAL_TYPES);

#define WEFT_UNSORTED_SEGMENT_OP(name, types, index_types) \
  REGISTER_OP(name)                                        \
      .Input("data: T")                                    \
      .Input("segment_ids: Tindices")                      \
      .Input("num_segments: Tnumsegments")                 \
      .Output("output: T")                                 \
      .Attr("T: " types)                                   \
      .Attr("Tindices: " index_types)                      \
      .Attr("Tnumsegments: {int32,int64} = DT_INT32")      \
      .SetShapeFn(UnsortedSegmentReductionShape)

// UnsortedSegmentSum alone also takes int16 ids (TensorFlow 2.21).
WEFT_UNSORTED_SEGMENT_OP("UnsortedSegmentSum", WEFT_SEGMENT_NUMBER_TYPES,
                         "{int16,int32,int64}");
WEFT_UNSORTED_SEGMENT_OP("UnsortedSegmentProd", WEFT_SEGMENT_NUMBER_TYPES,
                         "{int32,int64}");
WEFT_UNSORTED_SEGMENT_OP("UnsortedSegmentMax", WEFT_SEGMENT_REAL_TYPES,
                         "{int32,int64}");
WEFT_UNSORTED_SEGMENT_OP("UnsortedSegmentMin", WEFT_SEGMENT_REAL_TYPES,
                         "{int32,int64}");

#define WEFT_SPARSE_SEGMENT_OP(name, types)           \
  REGISTER_OP(name)                                   \
      .Input("data: T")                               \
      .Input("indices: Tidx")                         \
      .Input("segment_ids: Tsegmentids")              \
      .Output("output: T")                            \
      .Attr("T: " types)                              \
      .Attr("Tidx: {int32, int64} = DT_INT32")        \
      .Attr("Tsegmentids: {int32, int64} = DT_INT32") \
      .Attr("sparse_gradient: bool = false")          \
      .SetShapeFn(SparseSegmentShape)

#define WEFT_SPARSE_SEGMENT_NUM_OP(name, types)       \
  REGISTER_OP(name)                                   \
      .Input("data: T")                               \
      .Input("indices: Tidx")                         \
      .Input("segment_ids: Tsegmentids")              \
      .Input("num_segments: Tnumsegments")            \
      .Output("output: T")                            \
      .Attr("T: " types)                              \
      .Attr("Tidx: {int32, int64} = DT_INT32")        \
      .Attr("Tnumsegments: {int32,int64} = DT_INT32") \
      .Attr("Tsegmentids: {int32, int64} = DT_INT32") \
      .Attr("sparse_gradient: bool = false")          \
      .SetShapeFn(SparseSegmentWithNumSegmentsShape)

#define WEFT_SPARSE_FLOAT_TYPES "{bfloat16, half, float, double}"

WEFT_SPARSE_SEGMENT_OP("SparseSegmentSum", WEFT_SEGMENT_REAL_TYPES);
WEFT_SPARSE_SEGMENT_OP("SparseSegmentMean", WEFT_SPARSE_FLOAT_TYPES);
WEFT_SPARSE_SEGMENT_OP("SparseSegmentSqrtN", WEFT_SPARSE_FLOAT_TYPES);
WEFT_SPARSE_SEGMENT_NUM_OP("SparseSegmentSumWithNumSegments",
                           WEFT_SEGMENT_REAL_TYPES);
WEFT_SPARSE_SEGMENT_NUM_OP("SparseSegmentMeanWithNumSegments",
                           WEFT_SPARSE_FLOAT_TYPES);
WEFT_SPARSE_SEGMENT_NUM_OP("SparseSegmentSqrtNWithNumSegments",
                           WEFT_SPARSE_FLOAT_TYPES);

#undef WEFT_SPARSE_SEGMENT_NUM_OP
#undef WEFT_SPARSE_SEGMENT_OP
#undef WEFT_SPARSE_FLOAT_TYPES
#undef WEFT_UNSORTED_SEGMENT_OP
#undef WEFT_SEGMENT_OP
#undef WEFT_SEGMENT_REAL_TYPES
#undef WEFT_SEGMENT_NUMBER_TYPES

}  // namespace weft
