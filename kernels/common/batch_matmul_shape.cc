#include "kernels/common/batch_matmul_shape.h"

#include <cstdint>
#include <vector>

namespace weft {
namespace {

TensorShape BatchShape(const TensorShape& s) {
  TensorShape batch;
  for (int d = 0; d + 2 < s.dims(); ++d) {
    // A sub-shape of a valid shape is valid.
    batch.AddDim(s.dim_size(d)).IgnoreError();
  }
  return batch;
}

}  // namespace

Status GetBatchMatMulShape(const TensorShape& x, const TensorShape& y,
                           bool adj_x, bool adj_y, BatchMatMulShape* shape) {
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
  BatchMatMulShape& s = *shape;
  s.dims.m = x.dim_size(adj_x ? xr - 1 : xr - 2);
  s.dims.k = x.dim_size(adj_x ? xr - 2 : xr - 1);
  const int64_t k_y = y.dim_size(adj_y ? yr - 1 : yr - 2);
  s.dims.n = y.dim_size(adj_y ? yr - 2 : yr - 1);
  if (s.dims.k != k_y) {
    return errors::InvalidArgument(
        "inner dimensions differ: x has shape ", x.DebugString(),
        " (adj_x=", adj_x ? "true" : "false", ") and y has shape ",
        y.DebugString(), " (adj_y=", adj_y ? "true" : "false",
        "), so x contributes ", s.dims.k, " and y ", k_y);
  }
  const Status batch_ok = s.batch.Init(BatchShape(x), BatchShape(y));
  if (!batch_ok.ok()) {
    return errors::InvalidArgument("the batch dimensions of x ",
                                   x.DebugString(), " and y ", y.DebugString(),
                                   " do not broadcast: ", batch_ok.message());
  }
  std::vector<int64_t> out_dims(s.batch.output_shape().dim_sizes().begin(),
                                s.batch.output_shape().dim_sizes().end());
  out_dims.push_back(s.dims.m);
  out_dims.push_back(s.dims.n);
  WEFT_ASSIGN_OR_RETURN(s.out_shape, TensorShape::Build(out_dims));
  s.batch_in_rows = !adj_x && s.batch.y_is_scalar() && s.batch.x_complete();
  return Status();
}

BroadcastOdometer::BroadcastOdometer(const BinaryBroadcast& batch, int rank)
    : batch_(batch), index_(rank, 0) {}

void BroadcastOdometer::Next() {
  const absl::Span<const int64_t> dims = batch_.reduced_dims();
  const absl::Span<const int64_t> xs = batch_.x_strides();
  const absl::Span<const int64_t> ys = batch_.y_strides();
  for (int d = static_cast<int>(index_.size()) - 1; d >= 0; --d) {
    x_ += xs[d];
    y_ += ys[d];
    if (++index_[d] < dims[d]) return;
    x_ -= xs[d] * dims[d];
    y_ -= ys[d] * dims[d];
    index_[d] = 0;
  }
}

}  // namespace weft
