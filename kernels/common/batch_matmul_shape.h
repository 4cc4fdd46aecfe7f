// The shape contract of BatchMatMulV2, shared by its kernels on every
// device (kernels/cpu/batch_matmul_op.cc, kernels/cuda/matmul_op.cc): the
// operand checks and their errors, the broadcast of the batch dimensions
// and the walk over it, so that both devices pair the same matrices.
#ifndef WEFT_KERNELS_COMMON_BATCH_MATMUL_SHAPE_H_
#define WEFT_KERNELS_COMMON_BATCH_MATMUL_SHAPE_H_

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "core/tensor_shape.h"
#include "kernels/common/broadcast.h"
#include "kernels/common/matmul_shape.h"

namespace weft {

// out[..., :, :] = op(x[..., :, :]) * op(y[..., :, :]), the batch
// dimensions broadcast as in NumPy.
struct BatchMatMulShape {
  // Of each product: op(x) is m x k and op(y) is k x n.
  MatMulDims dims;
  // The batch dimensions (all but the last two) of x and y, broadcast.
  BinaryBroadcast batch;
  // The broadcast batch shape followed by [m, n].
  TensorShape out_shape;
  // y is one matrix for the whole batch and x is not adjoint: x's matrices
  // are consecutive rows of one [batch * m, k] operand, so the batch folds
  // into the rows of a single product (what a Dense layer applied to a
  // sequence produces).
  bool batch_in_rows = false;
};

// InvalidArgument when x or y has rank below 2, when the inner dimensions
// differ (naming both shapes and adj flags) or when the batch dimensions do
// not broadcast.
Status GetBatchMatMulShape(const TensorShape& x, const TensorShape& y,
                           bool adj_x, bool adj_y, BatchMatMulShape* shape);

// Walks the first `rank` merged dimensions of a broadcast
// (BinaryBroadcast::reduced_dims) in row-major order, keeping the x and y
// offsets, in whole matrices, of the current position.
class BroadcastOdometer {
 public:
  BroadcastOdometer(const BinaryBroadcast& batch, int rank);
  int64_t x() const { return x_; }
  int64_t y() const { return y_; }
  // To the next position, innermost dimension first; after the last one it
  // wraps to the first.
  void Next();

 private:
  const BinaryBroadcast& batch_;
  std::vector<int64_t> index_;
  int64_t x_ = 0;
  int64_t y_ = 0;
};

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_BATCH_MATMUL_SHAPE_H_
