#include "kernels/nn_gpu_plan.h"

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/conv2d.h"
#include "kernels/cpu/depthwise_conv.h"

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

TensorShape BatchShape(const TensorShape& s) {
  TensorShape batch;
  for (int d = 0; d + 2 < s.dims(); ++d) {
    // A sub-shape of a valid shape is valid.
    batch.AddDim(s.dim_size(d)).IgnoreError();
  }
  return batch;
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

Status CheckPoolAttrs(bool max, const WindowAttrs& attrs,
                      int64_t* depth_window) {
  // Copied from the CPU's ReadPoolAttrs (pooling_ops.cc, private there).
  const int n = attrs.index('N');
  if (attrs.ksize[n] != 1 || attrs.strides[n] != 1) {
    return errors::Unimplemented(
        "attrs 'ksize' ", WindowListString(attrs.ksize), " and 'strides' ",
        WindowListString(attrs.strides), " must be 1 at index ", n,
        ": pooling over the batch dimension is not supported");
  }
  if (attrs.padding == Padding::kExplicit) {
    for (char dim : {'H', 'W'}) {
      const int i = attrs.index(dim);
      for (int side = 0; side < 2; ++side) {
        if (attrs.explicit_paddings[2 * i + side] >= attrs.ksize[i]) {
          return errors::InvalidArgument(
              side == 0 ? (dim == 'H' ? "top" : "left")
                        : (dim == 'H' ? "bottom" : "right"),
              " padding ", attrs.explicit_paddings[2 * i + side],
              " must be smaller than the window size ", attrs.ksize[i],
              " (attr 'explicit_paddings' is ",
              WindowListString(attrs.explicit_paddings), ", 'ksize' ",
              WindowListString(attrs.ksize), ")");
        }
      }
    }
  }
  // Copied from the CPU's MaxPoolOp and AvgPoolOp constructors.
  const int c = attrs.index('C');
  *depth_window = attrs.ksize[c];
  if (!max) {
    if (attrs.ksize[c] != 1) {
      return errors::Unimplemented("AvgPool does not pool over depth; 'ksize' ",
                                   WindowListString(attrs.ksize),
                                   " must be 1 at index ", c);
    }
    return Status();
  }
  if (*depth_window != 1) {
    if (attrs.ksize[attrs.index('H')] != 1 ||
        attrs.ksize[attrs.index('W')] != 1) {
      return errors::Unimplemented(
          "MaxPool pools either over depth or over height and width, not "
          "both; 'ksize' is ",
          WindowListString(attrs.ksize));
    }
    if (attrs.strides[c] != *depth_window) {
      return errors::Unimplemented(
          "depthwise max pooling needs the depth stride to equal the depth "
          "window; 'ksize' is ",
          WindowListString(attrs.ksize), " and 'strides' ",
          WindowListString(attrs.strides));
    }
    if (attrs.padding == Padding::kExplicit) {
      return errors::Unimplemented(
          "depthwise max pooling does not support EXPLICIT padding");
    }
  }
  return Status();
}

Status PlanPool(const WindowAttrs& attrs, bool max, int64_t depth_window,
                float lowest, const TensorShape& input, gpu::PoolParams* params,
                TensorShape* out_shape) {
  if (input.dims() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional but has shape ",
                                   input.DebugString());
  }
  gpu::PoolParams pp;
  pp.lowest = lowest;
  pp.depth_window = depth_window;
  gpu::ConvParams& p = pp.geometry;
  p.batch = input.dim_size(attrs.index('N'));
  p.in_depth = input.dim_size(attrs.index('C'));
  SetLayout(attrs, input, &p);
  if (depth_window != 1) {
    // As the CPU's depthwise max pool: the spatial size is kept and the
    // spatial strides are ignored.
    if (p.in_depth % depth_window != 0) {
      return errors::Unimplemented(
          "depthwise max pooling needs the depth window ", depth_window,
          " to divide the input depth ", p.in_depth, " (input ",
          input.DebugString(), ")");
    }
    pp.kind = gpu::PoolKind::kDepthMax;
    p.in_rows = p.out_rows = input.dim_size(attrs.index('H'));
    p.in_cols = p.out_cols = input.dim_size(attrs.index('W'));
    p.out_depth = p.in_depth / depth_window;
  } else {
    pp.kind = max ? gpu::PoolKind::kMax : gpu::PoolKind::kAvg;
    WEFT_ASSIGN_OR_RETURN(
        WindowDim rows,
        ComputeWindowDim(attrs, 'H', input.dim_size(attrs.index('H')),
                         attrs.ksize[attrs.index('H')]));
    WEFT_ASSIGN_OR_RETURN(
        WindowDim cols,
        ComputeWindowDim(attrs, 'W', input.dim_size(attrs.index('W')),
                         attrs.ksize[attrs.index('W')]));
    SetWindow(rows, cols, &p);
    p.out_depth = p.in_depth;
  }
  *params = pp;
  *out_shape =
      FormatShape(attrs.format, p.batch, p.out_rows, p.out_cols, p.out_depth);
  return Status();
}

Status PlanBatchNorm(const std::string& format, const TensorShape& x,
                     const TensorShape* const stats[4], float epsilon,
                     bool is_training, float exponential_avg_factor,
                     gpu::BatchNormParams* params) {
  const int rank = static_cast<int>(format.size());
  const bool channels_last = format == "NHWC" || format == "NDHWC";
  // The CPU kernel's checks and messages (fused_batch_norm_op.cc).
  if (x.dims() != rank) {
    return errors::InvalidArgument("x must have rank ", rank, " for ", format,
                                   " but has shape ", x.DebugString());
  }
  gpu::BatchNormParams p;
  p.channels = x.dim_size(channels_last ? rank - 1 : 1);
  if (channels_last) {
    p.outer = p.channels == 0 ? 0 : x.num_elements() / p.channels;
    p.inner = 1;
  } else {
    p.outer = x.dim_size(0);
    p.inner = 1;
    for (int d = 2; d < rank; ++d) p.inner *= x.dim_size(d);
  }
  p.epsilon = epsilon;
  p.exponential_avg_factor = exponential_avg_factor;
  p.size = x.num_elements();
  const bool uses_estimates = !is_training || exponential_avg_factor != 1;
  static constexpr const char* kNames[] = {"scale", "offset", "mean",
                                           "variance"};
  for (int i = 0; i < (uses_estimates ? 4 : 2); ++i) {
    const TensorShape& v = *stats[i];
    if (v.dims() != 1 || v.dim_size(0) != p.channels) {
      return errors::InvalidArgument(
          kNames[i], " (input ", i + 1, ") has shape ", v.DebugString(),
          " but must be [", p.channels, "], one value per channel of x ",
          x.DebugString(),
          is_training ? " (mean and variance are needed when training with "
                        "exponential_avg_factor != 1)"
                      : "");
    }
  }
  for (int i = 2; i < 4 && !uses_estimates; ++i) {
    if (stats[i]->dims() != 1) {
      return errors::InvalidArgument(kNames[i], " (input ", i + 1,
                                     ") must be a vector but has shape ",
                                     stats[i]->DebugString());
    }
  }
  // The kernels divide by inner and channels; an empty x has nothing to
  // index anyway.
  if (p.inner == 0) p.inner = 1;
  *params = p;
  return Status();
}

Status PlanBatchMatMul(const TensorShape& x, const TensorShape& y, bool adj_x,
                       bool adj_y, BatchMatMulPlan* plan) {
  // The CPU kernel's checks and messages (batch_matmul_op.cc).
  if (x.dims() < 2) {
    return errors::InvalidArgument(
        "x (input 0) must have rank >= 2 but has shape ", x.DebugString());
  }
  if (y.dims() < 2) {
    return errors::InvalidArgument(
        "y (input 1) must have rank >= 2 but has shape ", y.DebugString());
  }
  const int xr = x.dims();
  const int yr = y.dims();
  BatchMatMulPlan p;
  p.adj_x = adj_x;
  p.adj_y = adj_y;
  p.ldx = x.dim_size(xr - 1);
  p.ldy = y.dim_size(yr - 1);
  p.m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  p.k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t k_y = y.dim_size(adj_y ? yr - 1 : yr - 2);
  p.n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  if (p.k != k_y) {
    return errors::InvalidArgument(
        "inner dimensions differ: x has shape ", x.DebugString(),
        " (adj_x=", adj_x ? "true" : "false", ") and y has shape ",
        y.DebugString(), " (adj_y=", adj_y ? "true" : "false",
        "), so x contributes ", p.k, " and y ", k_y);
  }
  BinaryBroadcast bcast;
  const Status batch_ok = bcast.Init(BatchShape(x), BatchShape(y));
  if (!batch_ok.ok()) {
    return errors::InvalidArgument("the batch dimensions of x ",
                                   x.DebugString(), " and y ", y.DebugString(),
                                   " do not broadcast: ", batch_ok.message());
  }
  std::vector<int64_t> out_dims(bcast.output_shape().dim_sizes().begin(),
                                bcast.output_shape().dim_sizes().end());
  out_dims.push_back(p.m);
  out_dims.push_back(p.n);
  WEFT_ASSIGN_OR_RETURN(p.out_shape, TensorShape::Build(out_dims));
  p.batch = bcast.output_size();
  p.rows = p.m;
  if (p.out_shape.num_elements() == 0) {
    *plan = std::move(p);
    return Status();
  }
  const absl::Span<const int64_t> dims = bcast.reduced_dims();
  if (!adj_x && bcast.y_is_scalar() && bcast.x_complete()) {
    // One y for the whole batch: x's matrices are consecutive rows of one
    // [batch * m, k] operand, one GEMM instead of a batch of thin ones.
    p.rows = p.m * p.batch;
    p.calls.push_back({0, 0, 0, 0, 0, 0, 1});
  } else if (dims.empty()) {
    p.calls.push_back({0, 0, 0, 0, 0, 0, 1});
  } else {
    // The innermost merged dimension is batched; the outer ones are an
    // odometer of calls. The output is complete, so its strides are the
    // row-major ones.
    const int rank = static_cast<int>(dims.size());
    const absl::Span<const int64_t> xs = bcast.x_strides();
    const absl::Span<const int64_t> ys = bcast.y_strides();
    const int inner = rank - 1;
    const int64_t outer = p.batch / dims[inner];
    std::vector<int64_t> index(rank, 0);
    int64_t xo = 0, yo = 0;
    for (int64_t o = 0; o < outer; ++o) {
      p.calls.push_back(
          {xo, yo, o * dims[inner], xs[inner], ys[inner], 1, dims[inner]});
      for (int d = inner - 1; d >= 0; --d) {
        xo += xs[d];
        yo += ys[d];
        if (++index[d] < dims[d]) break;
        xo -= xs[d] * dims[d];
        yo -= ys[d] * dims[d];
        index[d] = 0;
      }
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
