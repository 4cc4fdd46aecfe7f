// Slice and StridedSlice on the CPU. Both are resolved to a strided view of
// the input by kernels/common/slice_shape.h, which the CUDA kernels share (the
// StridedSlice view by PlanStridedSlice, the very function its shape
// inference uses), and then copy that view with StridedGather (memcpy runs
// along a contiguous innermost range); a slice that keeps everything in
// order shares the input's buffer. Dtype-agnostic (element width only),
// strings and the quantized types TensorFlow registers included.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/mutex.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/common/slice_shape.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Output 0 = `view` of `input`: the input itself, reshaped, when the view
// is all of it in order, otherwise a strided copy.
void EmitSlice(OpKernelContext* ctx, const Tensor& input,
               const SliceView& view) {
  if (view.whole) {
    StatusOr<Tensor> out = input.Reshaped(view.shape);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, *std::move(out));
    return;
  }
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, view.shape, &out));
  if (view.shape.num_elements() == 0) return;
  const copy_util::Dims in_strides = copy_util::RowMajorStrides(input.shape());
  copy_util::Dims strides(input.dims());
  int64_t offset = 0;
  for (int d = 0; d < input.dims(); ++d) {
    strides[d] = in_strides[d] * view.steps[d];
    offset += view.begin[d] * in_strides[d];
  }
  copy_util::StridedGather(*ctx, input.dtype(), input.raw_data(), offset,
                           view.dims, strides, out->raw_data());
}

// input[begin[i] : begin[i] + size[i]] per dimension; a size of -1 takes the
// rest of the dimension.
class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<SliceView> view =
        ResolveSlice(ctx->input(0), ctx->input(1), ctx->input(2));
    OP_REQUIRES_OK(ctx, view.status());
    EmitSlice(ctx, ctx->input(0), *view);
  }
};

// The views a StridedSlice with constant begin, end and strides resolved,
// by input shape: at most kMaxShapes of them, kept for the kernel's life
// and never changed once published, so that runs read them without a lock
// (a new shape takes one to publish its view).
class ResolvedViews {
 public:
  // The view resolved for `shape`, or null.
  const SliceView* Find(const TensorShape& shape) const {
    const int count = count_.load(std::memory_order_acquire);
    for (int i = 0; i < count; ++i) {
      const Entry* e = entries_[i].load(std::memory_order_acquire);
      if (e->shape == shape) return &e->view;
    }
    return nullptr;
  }

  // Keeps `view` for `shape` while there is room.
  void Remember(const TensorShape& shape, const SliceView& view) {
    MutexLock lock(&mu_);
    const int count = count_.load(std::memory_order_relaxed);
    if (count == kMaxShapes || Find(shape) != nullptr) return;
    owned_[count] = std::make_unique<Entry>(Entry{shape, view});
    entries_[count].store(owned_[count].get(), std::memory_order_release);
    count_.store(count + 1, std::memory_order_release);
  }

 private:
  // A loop body sees one shape per input; a model fed several batch sizes
  // a few. Shapes past these are resolved in every run, as without.
  static constexpr int kMaxShapes = 8;
  struct Entry {
    TensorShape shape;
    SliceView view;
  };
  std::atomic<const Entry*> entries_[kMaxShapes] = {};
  std::atomic<int> count_{0};
  Mutex mu_;
  std::unique_ptr<Entry> owned_[kMaxShapes] ABSL_GUARDED_BY(mu_);
};

// Where begin, end and strides are session constants (Keras and
// tf.function write them as Const nodes), the view is resolved once per
// input shape rather than in every run: resolving reads the three vectors,
// plans the masks and allocates a dozen small vectors, which a GRU step
// (three slices) paid in every iteration (bench/RESULTS.md section 50).
// A run that feeds any of them resolves its own view.
class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ReadStridedSliceMasks(ctx, &masks_));
    const Tensor* begin = ctx->constant_input(1);
    const Tensor* end = ctx->constant_input(2);
    const Tensor* strides = ctx->constant_input(3);
    if (begin != nullptr && end != nullptr && strides != nullptr) {
      spec_ = std::make_unique<ConstantSpec>();
      spec_->begin = *begin;
      spec_->end = *end;
      spec_->strides = *strides;
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const bool constant = spec_ != nullptr &&
                          ConstantInputMatches(ctx->input(1), spec_->begin) &&
                          ConstantInputMatches(ctx->input(2), spec_->end) &&
                          ConstantInputMatches(ctx->input(3), spec_->strides);
    if (constant) {
      if (const SliceView* view = spec_->views.Find(input.shape())) {
        EmitSlice(ctx, input, *view);
        return;
      }
    }
    StatusOr<SliceView> view = ResolveStridedSlice(
        input, ctx->input(1), ctx->input(2), ctx->input(3), masks_);
    OP_REQUIRES_OK(ctx, view.status());
    if (constant) spec_->views.Remember(input.shape(), *view);
    EmitSlice(ctx, input, *view);
  }

 private:
  struct ConstantSpec {
    Tensor begin;
    Tensor end;
    Tensor strides;
    ResolvedViews views;
  };
  StridedSliceMasks masks_;
  // Null unless begin, end and strides are constants.
  std::unique_ptr<ConstantSpec> spec_;
};

std::vector<DataType> SliceTypes() {
  return NumericAndBoolTypesPlus({DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32});
}

REGISTER_KERNEL_BUILDER(
    Name("Slice").Device(DEVICE_CPU).TypeConstraint("T", SliceTypes()),
    SliceOp);
REGISTER_KERNEL_BUILDER(
    Name("StridedSlice").Device(DEVICE_CPU).TypeConstraint("T", SliceTypes()),
    StridedSliceOp);

}  // namespace
}  // namespace weft
