// What Cast's kernels share on every device: the SrcT, DstT and Truncate
// attrs, and the output: the input itself when SrcT == DstT, else a new
// tensor of the input's shape that the device's kernel converts into.
#ifndef WEFT_KERNELS_COMMON_CAST_OP_BASE_H_
#define WEFT_KERNELS_COMMON_CAST_OP_BASE_H_

#include "core/tensor.h"
#include "core/types.h"
#include "kernels/op_kernel.h"

namespace weft {

class CastOpBase : public OpKernel {
 public:
  // Errors: the attrs' lookup errors, set on `ctx`. A derived constructor
  // runs after a failed one too, and must check ctx->status().
  explicit CastOpBase(OpKernelConstruction* ctx);

  // Converting elements costs a few cycles each; passing the input through
  // costs nothing.
  bool IsExpensive() const override { return !identity(); }

  void Compute(OpKernelContext* ctx) const final;

 protected:
  DataType src() const { return src_; }
  DataType dst() const { return dst_; }
  // The Truncate attr as given; each device decides where it applies.
  bool truncate() const { return truncate_; }
  bool identity() const { return src_ == dst_; }

  // y[i] = Cast(x[i]) for every element; y has x's shape and dtype dst().
  // Not called for an identity cast; called for empty tensors too.
  virtual void Convert(OpKernelContext* ctx, const Tensor& x,
                       Tensor* y) const = 0;

 private:
  DataType src_ = DT_INVALID;
  DataType dst_ = DT_INVALID;
  bool truncate_ = false;
};

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_CAST_OP_BASE_H_
