#include "kernels/cuda/plan/nn_plan.h"

#include <cstdint>
#include <vector>

namespace weft {
namespace {

// The layout fields of `p` for an input of `input_shape` and an output in
// attrs.format; the geometry fields are the caller's.
void SetLayout(const WindowAttrs& attrs, const TensorShape& input_shape,
               gpu::ConvParams* p) {
  // Element strides of the input's four dimensions, row-major.
  int64_t strides[4];
  int64_t s = 1;
  for (int d = 3; d >= 0; --d) {
    strides[d] = s;
    s *= input_shape.dim_size(d);
  }
  p->in_stride_n = strides[attrs.index('N')];
  p->in_stride_r = strides[attrs.index('H')];
  p->in_stride_c = strides[attrs.index('W')];
  p->in_stride_d = strides[attrs.index('C')];
  p->out_nchw = attrs.format == TensorFormat::kNCHW;
}

void SetWindow(const WindowDim& rows, const WindowDim& cols,
               gpu::ConvParams* p) {
  p->in_rows = rows.input;
  p->in_cols = cols.input;
  p->out_rows = rows.output;
  p->out_cols = cols.output;
  p->filter_rows = rows.window;
  p->filter_cols = cols.window;
  p->stride_rows = rows.stride;
  p->stride_cols = cols.stride;
  p->dilation_rows = rows.dilation;
  p->dilation_cols = cols.dilation;
  p->pad_top = rows.pad_before;
  p->pad_left = cols.pad_before;
}

}  // namespace

Status PlanConv2D(const WindowAttrs& attrs, const Tensor& input,
                  const Tensor& filter, gpu::ConvParams* params,
                  TensorShape* out_shape) {
  Conv2DGeometry s;
  WEFT_RETURN_IF_ERROR(MakeConv2DGeometry(attrs, input, filter, &s));
  gpu::ConvParams p;
  p.batch = s.batch;
  p.in_depth = s.in_depth;
  p.out_depth = s.out_depth;
  // An input without channels sums nothing: no channel of the filter is
  // visited (its depth is still >= 1).
  p.filter_depth = s.in_depth == 0 ? 0 : s.filter_depth;
  p.out_depth_per_group = std::max<int64_t>(1, s.out_depth_per_group());
  SetWindow(s.rows, s.cols, &p);
  SetLayout(attrs, input.shape(), &p);
  *params = p;
  *out_shape = FormatShape(attrs.format, s.batch, s.rows.output, s.cols.output,
                           s.out_depth);
  return Status();
}

Status PlanDepthwiseConv(const WindowAttrs& attrs, const Tensor& input,
                         const Tensor& filter, gpu::ConvParams* params,
                         TensorShape* out_shape) {
  DepthwiseGeometry g;
  WEFT_RETURN_IF_ERROR(ComputeDepthwiseGeometry(attrs, input, filter, &g));
  gpu::ConvParams p;
  p.batch = g.batch;
  p.in_depth = g.depth;
  p.out_depth = g.out_depth();
  p.multiplier = std::max<int64_t>(1, g.multiplier);
  SetWindow(g.rows, g.cols, &p);
  SetLayout(attrs, input.shape(), &p);
  *params = p;
  *out_shape = FormatShape(attrs.format, g.batch, g.rows.output, g.cols.output,
                           g.out_depth());
  return Status();
}

Status PlanPool(const WindowAttrs& attrs, bool max, int64_t depth_window,
                float lowest, const TensorShape& input, gpu::PoolParams* params,
                TensorShape* out_shape) {
  WEFT_ASSIGN_OR_RETURN(const PoolShape s,
                        GetPoolShape(attrs, depth_window, input));
  gpu::PoolParams pp;
  pp.lowest = lowest;
  pp.depth_window = depth_window;
  gpu::ConvParams& p = pp.geometry;
  p.batch = s.batch;
  p.in_depth = s.depth;
  p.out_depth = s.out_depth;
  SetLayout(attrs, input, &p);
  if (depth_window != 1) {
    pp.kind = gpu::PoolKind::kDepthMax;
    p.in_rows = s.rows.input;
    p.out_rows = s.rows.output;
    p.in_cols = s.cols.input;
    p.out_cols = s.cols.output;
  } else {
    pp.kind = max ? gpu::PoolKind::kMax : gpu::PoolKind::kAvg;
    SetWindow(s.rows, s.cols, &p);
  }
  *params = pp;
  *out_shape = s.OutputShape(attrs);
  return Status();
}

Status PlanBatchNorm(const BatchNormAttrs& attrs, const TensorShape& x,
                     const TensorShape* const stats[4],
                     gpu::BatchNormParams* params) {
  WEFT_ASSIGN_OR_RETURN(const BatchNormLayout l,
                        GetBatchNormLayout(attrs, x, stats));
  gpu::BatchNormParams p;
  p.channels = l.channels;
  p.outer = l.outer;
  // The kernels divide by inner and channels; an empty x has nothing to
  // index anyway.
  p.inner = l.inner == 0 ? 1 : l.inner;
  p.epsilon = attrs.epsilon;
  p.exponential_avg_factor = attrs.exponential_avg_factor;
  p.size = x.num_elements();
  *params = p;
  return Status();
}

Status PlanBatchMatMul(const TensorShape& x, const TensorShape& y, bool adj_x,
                       bool adj_y, BatchMatMulPlan* plan) {
  BatchMatMulShape s;
  WEFT_RETURN_IF_ERROR(GetBatchMatMulShape(x, y, adj_x, adj_y, &s));
  BatchMatMulPlan p;
  p.adj_x = adj_x;
  p.adj_y = adj_y;
  p.ldx = x.dim_size(x.dims() - 1);
  p.ldy = y.dim_size(y.dims() - 1);
  p.m = s.dims.m;
  p.k = s.dims.k;
  p.n = s.dims.n;
  p.out_shape = s.out_shape;
  p.batch = s.batch.output_size();
  p.rows = p.m;
  if (p.out_shape.num_elements() == 0) {
    *plan = std::move(p);
    return Status();
  }
  const absl::Span<const int64_t> dims = s.batch.reduced_dims();
  if (s.batch_in_rows) {
    // x's matrices are consecutive rows of one operand: one GEMM instead of
    // a batch of thin ones.
    p.rows = p.m * p.batch;
    p.calls.push_back({0, 0, 0, 0, 0, 0, 1});
  } else if (dims.empty()) {
    p.calls.push_back({0, 0, 0, 0, 0, 0, 1});
  } else {
    // The innermost merged dimension is batched; the outer ones are walked
    // as the CPU kernel walks the batch, one call each. The output is
    // complete, so its strides are the row-major ones.
    const int inner = static_cast<int>(dims.size()) - 1;
    const int64_t x_stride = s.batch.x_strides()[inner];
    const int64_t y_stride = s.batch.y_strides()[inner];
    const int64_t outer = p.batch / dims[inner];
    BroadcastOdometer at(s.batch, inner);
    for (int64_t o = 0; o < outer; ++o) {
      p.calls.push_back({at.x(), at.y(), o * dims[inner], x_stride, y_stride, 1,
                         dims[inner]});
      at.Next();
    }
  }
  *plan = std::move(p);
  return Status();
}

StridedGemm BatchMatMulGemm(const BatchMatMulPlan& plan,
                            const BatchMatMulCall& call) {
  const int64_t x_size = plan.m * plan.k;
  const int64_t y_size = plan.k * plan.n;
  const int64_t out_size = plan.m * plan.n;
  StridedGemm g;
  g.trans_a = plan.adj_y;
  g.trans_b = plan.adj_x;
  g.m = plan.n;
  g.n = plan.rows;
  g.k = plan.k;
  g.a_offset = call.y_offset * y_size;
  g.lda = plan.ldy;
  g.stride_a = call.y_stride * y_size;
  g.b_offset = call.x_offset * x_size;
  g.ldb = plan.ldx;
  g.stride_b = call.x_stride * x_size;
  g.c_offset = call.out_offset * out_size;
  g.ldc = plan.n;
  g.stride_c = call.out_stride * out_size;
  g.count = call.count;
  return g;
}

}  // namespace weft
