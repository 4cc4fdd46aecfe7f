// FFT, RFFT and RFFT2D on the CPU, single and double precision
// (complex64, and float -> complex64; complex128, and double ->
// complex128), the pairs TensorFlow's CPU kernels accept. The transforms
// are Eigen's FFT module (unsupported/Eigen/FFT, its default KISS FFT
// backend: mixed radix 2, 3, 4, 5 and a generic butterfly for other
// factors, twiddles computed in double), forward and unscaled, as
// TensorFlow's. TensorFlow's own CPU FFT is a different library (DUCC), so
// results agree to rounding, not bit for bit; the golden test states the
// bound.
//
// RFFT and RFFT2D read the first fft_length elements of each transformed
// dimension (TensorFlow crops longer inputs, refuses shorter ones unless
// they are empty) and return the fft_length / 2 + 1 non-negative
// frequencies of the innermost one. An empty input with a non-empty output
// (an innermost dimension of 0 and fft_length > 0) gives zeros, the
// transform of an all-zero signal; TensorFlow leaves that output unwritten.
//
// Rows (and RFFT2D's columns) are split over the arena; each task keeps its
// own Eigen::FFT object, whose plans are not shareable between threads.
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include <unsupported/Eigen/FFT>

#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Rough cost of one length-n transform, for ParallelFor.
int64_t FftCost(int64_t n) {
  int64_t log = 1;
  while ((int64_t{1} << log) < n) ++log;
  return 8 * n * log + 1;
}

Status CheckLength(int64_t n) {
  if (n > std::numeric_limits<int>::max()) {
    return errors::InvalidArgument("FFT length ", n,
                                   " exceeds the supported maximum ",
                                   std::numeric_limits<int>::max());
  }
  return Status();
}

// One transform of length n >= 1 from src to dst (no overlap). Length 1 is
// the identity, done here: KISS FFT's plan for it runs a generic butterfly
// on an empty scratch buffer.
template <typename S>
void Forward(Eigen::FFT<S>* fft, std::complex<S>* dst,
             const std::complex<S>* src, int64_t n) {
  if (n == 1) {
    dst[0] = src[0];
  } else {
    fft->fwd(dst, src, n);
  }
}

// The n / 2 + 1 non-negative frequencies of a real signal of length n >= 1
// (fft must have the HalfSpectrum flag).
template <typename S>
void ForwardReal(Eigen::FFT<S>* fft, std::complex<S>* dst, const S* src,
                 int64_t n) {
  if (n == 1) {
    dst[0] = std::complex<S>(src[0], 0);
  } else {
    fft->fwd(dst, src, n);
  }
}

template <typename S>
class FftOp : public OpKernel {
 public:
  explicit FftOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    using C = std::complex<S>;
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(
        ctx, in.dims() >= 1,
        errors::InvalidArgument("Input must have rank of at least 1 but got: ",
                                in.shape().DebugString()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    const int64_t n = in.dim_size(in.dims() - 1);
    OP_REQUIRES_OK(ctx, CheckLength(n));
    const C* src = in.data<C>();
    C* dst = out->data<C>();
    ctx->ParallelFor(in.NumElements() / n, FftCost(n),
                     [&](int64_t begin, int64_t end) {
                       Eigen::FFT<S> fft;
                       for (int64_t r = begin; r < end; ++r) {
                         Forward(&fft, dst + r * n, src + r * n, n);
                       }
                     });
  }
};

// RFFT (Rank 1) and RFFT2D (Rank 2).
template <typename S, int Rank>
class RfftOp : public OpKernel {
 public:
  explicit RfftOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    using C = std::complex<S>;
    const Tensor& in = ctx->input(0);
    const Tensor& fft_length = ctx->input(1);
    OP_REQUIRES(
        ctx, in.dims() >= Rank,
        errors::InvalidArgument("Input must have rank of at least ", Rank,
                                " but got: ", in.shape().DebugString()));
    OP_REQUIRES(
        ctx, fft_length.dims() == 1 && fft_length.dim_size(0) == Rank,
        errors::InvalidArgument("fft_length must have shape [", Rank, "]"));
    const int rank = in.dims();
    std::vector<int64_t> out_dims(in.shape().dim_sizes().begin(),
                                  in.shape().dim_sizes().end());
    int64_t lengths[Rank];
    for (int i = 0; i < Rank; ++i) {
      const int64_t n = fft_length.data<int32_t>()[i];
      OP_REQUIRES(ctx, n >= 0,
                  errors::InvalidArgument("fft_length[", i,
                                          "] must >= 0, but got: ", n));
      const int axis = rank - Rank + i;
      const int64_t have = in.dim_size(axis);
      OP_REQUIRES(ctx, have == 0 || have >= n,
                  errors::InvalidArgument("Input dimension ", axis,
                                          " must have length of at least ", n,
                                          " but got: ", have));
      OP_REQUIRES_OK(ctx, CheckLength(n));
      lengths[i] = n;
      out_dims[axis] = i == Rank - 1 && n != 0 ? n / 2 + 1 : n;
    }
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    const int64_t total = out->NumElements();
    if (total == 0) return;
    C* dst = out->data<C>();
    if (in.NumElements() == 0) {
      for (int64_t i = 0; i < total; ++i) dst[i] = C(0, 0);
      return;
    }

    // Innermost: real transforms of the first n1 elements of each row,
    // straight into the output rows of h values.
    const int64_t n1 = lengths[Rank - 1];
    const int64_t h = n1 / 2 + 1;
    const int64_t in_cols = in.dim_size(rank - 1);
    const int64_t in_rows_per = Rank == 2 ? in.dim_size(rank - 2) : 1;
    const int64_t rows_per = Rank == 2 ? lengths[0] : 1;
    const int64_t batch = total / (rows_per * h);
    const S* src = in.data<S>();
    ctx->ParallelFor(batch * rows_per, FftCost(n1),
                     [&](int64_t begin, int64_t end) {
                       Eigen::FFT<S> fft;
                       fft.SetFlag(Eigen::FFT<S>::HalfSpectrum);
                       for (int64_t r = begin; r < end; ++r) {
                         const int64_t b = r / rows_per;
                         const int64_t row = r % rows_per;
                         const S* x = src + (b * in_rows_per + row) * in_cols;
                         ForwardReal(&fft, dst + r * h, x, n1);
                       }
                     });
    if (Rank == 1) return;

    // RFFT2D: complex transforms down each of the h columns.
    const int64_t n0 = lengths[0];
    ctx->ParallelFor(batch * h, FftCost(n0) + 4 * n0,
                     [&](int64_t begin, int64_t end) {
                       Eigen::FFT<S> fft;
                       std::vector<C> col(static_cast<size_t>(n0));
                       std::vector<C> res(static_cast<size_t>(n0));
                       for (int64_t k = begin; k < end; ++k) {
                         C* base = dst + (k / h) * n0 * h + k % h;
                         for (int64_t i = 0; i < n0; ++i) col[i] = base[i * h];
                         Forward(&fft, res.data(), col.data(), n0);
                         for (int64_t i = 0; i < n0; ++i) base[i * h] = res[i];
                       }
                     });
  }
};

REGISTER_KERNEL_BUILDER(
    Name("FFT").Device(DEVICE_CPU).TypeConstraint("Tcomplex", {DT_COMPLEX64}),
    FftOp<float>);
REGISTER_KERNEL_BUILDER(
    Name("FFT").Device(DEVICE_CPU).TypeConstraint("Tcomplex", {DT_COMPLEX128}),
    FftOp<double>);
REGISTER_KERNEL_BUILDER(Name("RFFT")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Treal", {DT_FLOAT})
                            .TypeConstraint("Tcomplex", {DT_COMPLEX64}),
                        RfftOp<float, 1>);
REGISTER_KERNEL_BUILDER(Name("RFFT")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Treal", {DT_DOUBLE})
                            .TypeConstraint("Tcomplex", {DT_COMPLEX128}),
                        RfftOp<double, 1>);
REGISTER_KERNEL_BUILDER(Name("RFFT2D")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Treal", {DT_FLOAT})
                            .TypeConstraint("Tcomplex", {DT_COMPLEX64}),
                        RfftOp<float, 2>);
REGISTER_KERNEL_BUILDER(Name("RFFT2D")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Treal", {DT_DOUBLE})
                            .TypeConstraint("Tcomplex", {DT_COMPLEX128}),
                        RfftOp<double, 2>);

}  // namespace
}  // namespace weft
