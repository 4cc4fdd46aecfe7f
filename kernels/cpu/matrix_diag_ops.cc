// The diagonal ops on the CPU: MatrixDiag (build matrices from diagonals),
// MatrixDiagPart (read diagonals out) and MatrixSetDiag (replace them), each
// in TensorFlow's three forms. V1 handles the main diagonal only; V2 and V3
// take a range k = [lower, upper] of diagonals (d = column - row), V2/V3's
// MatrixDiag an output size and padding value, and V3 an alignment saying
// whether super- and subdiagonals shorter than the longest are packed to the
// left or the right of their row in the diagonal tensor (V1 and V2 pack
// everything left). Diagonal d is row upper - d of that tensor.
//
// The ops only move elements, so they work on bytes by element width
// (copy_util), one instantiation per width. Errors are TensorFlow's, in its
// words; where TensorFlow crashes (a k range with a 1-D diagonal) weft
// reports an error.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Which of the two kinds of diagonals are packed right.
struct Alignment {
  bool super_right = false;
  bool sub_right = false;
};

Status ParseAlignment(OpKernelConstruction* ctx, Alignment* out) {
  if (!ctx->HasAttr("align")) return Status();  // V1, V2: LEFT_LEFT
  std::string align;
  WEFT_RETURN_IF_ERROR(ctx->GetAttr("align", &align));
  if (align == "RIGHT_LEFT") {
    out->super_right = true;
  } else if (align == "LEFT_RIGHT") {
    out->sub_right = true;
  } else if (align == "RIGHT_RIGHT") {
    out->super_right = out->sub_right = true;
  } else if (align != "LEFT_LEFT") {
    return errors::InvalidArgument("unknown align '", align, "'");
  }
  return Status();
}

// The band of diagonals [lower, upper] of [rows, cols] matrices.
struct Band {
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t max_len = 0;
  Alignment align;

  int64_t num_diags() const { return upper - lower + 1; }
  int64_t Length(int64_t d) const {
    return std::min(cols - std::max<int64_t>(d, 0),
                    rows + std::min<int64_t>(d, 0));
  }
  // Where diagonal d's first element sits in its row of the diagonal
  // tensor.
  int64_t Offset(int64_t d) const {
    const bool right =
        (d >= 0 && align.super_right) || (d <= 0 && align.sub_right);
    return right ? max_len - Length(d) : 0;
  }
};

// k: a scalar or a vector of one or two int32 values.
Status ReadK(const Tensor& k, int64_t* lower, int64_t* upper) {
  if (k.dims() > 1) {
    return errors::InvalidArgument(
        "diag_index must be a scalar or vector, received shape: ",
        k.shape().DebugString());
  }
  const int64_t n = k.NumElements();
  if (n < 1) {
    return errors::InvalidArgument(
        "Expected diag_index to have at least 1 element");
  }
  if (n > 2) {
    return errors::InvalidArgument(
        "diag_index must have only one or two elements, received ", n,
        " elements.");
  }
  const int32_t* v = k.data<int32_t>();
  *lower = v[0];
  *upper = n == 2 ? v[1] : v[0];
  if (*lower > *upper) {
    return errors::InvalidArgument(
        "lower_diag_index must not be larger than upper_diag_index: ", *lower,
        " > ", *upper);
  }
  return Status();
}

// out[b, i, j] = diag[b, upper - d, min(i, j) + offset(d)] for d = j - i in
// the band, the padding value elsewhere.
template <typename E>
void BuildMatrices(const OpKernelContext& ctx, const Band& band, int64_t batch,
                   const E* diag, const E* pad, E* out) {
  const int64_t total_rows = batch * band.rows;
  ctx.ParallelFor(total_rows, band.cols + 8, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = r / band.rows;
      const int64_t i = r % band.rows;
      E* row = out + r * band.cols;
      std::fill_n(row, band.cols, *pad);
      const int64_t d_lo = std::max(band.lower, -i);
      const int64_t d_hi = std::min(band.upper, band.cols - 1 - i);
      for (int64_t d = d_lo; d <= d_hi; ++d) {
        const int64_t j = i + d;
        const int64_t at = std::min(i, j) + band.Offset(d);
        if (at < 0 || at >= band.max_len) continue;
        row[j] =
            diag[(b * band.num_diags() + band.upper - d) * band.max_len + at];
      }
    }
  });
}

// diag[b, upper - d, t] = in[b, i, j] for the t-th position of diagonal d,
// the padding value where the diagonal is shorter than max_len.
template <typename E>
void ReadDiagonals(const OpKernelContext& ctx, const Band& band, int64_t batch,
                   const E* in, const E* pad, E* diag) {
  const int64_t lines = batch * band.num_diags();
  ctx.ParallelFor(lines, band.max_len + 8, [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t b = line / band.num_diags();
      const int64_t d = band.upper - line % band.num_diags();
      const int64_t len = band.Length(d);
      const int64_t offset = band.Offset(d);
      E* out = diag + line * band.max_len;
      const E* m = in + b * band.rows * band.cols;
      const int64_t i0 = std::max<int64_t>(-d, 0);
      const int64_t j0 = std::max<int64_t>(d, 0);
      for (int64_t t = 0; t < band.max_len; ++t) {
        const int64_t p = t - offset;
        out[t] = p >= 0 && p < len ? m[(i0 + p) * band.cols + j0 + p] : *pad;
      }
    }
  });
}

// out (a copy of the input) gets diag's elements on the band.
template <typename E>
void WriteDiagonals(const OpKernelContext& ctx, const Band& band, int64_t batch,
                    const E* diag, E* out) {
  const int64_t lines = batch * band.num_diags();
  ctx.ParallelFor(lines, band.max_len + 8, [&](int64_t begin, int64_t end) {
    for (int64_t line = begin; line < end; ++line) {
      const int64_t b = line / band.num_diags();
      const int64_t d = band.upper - line % band.num_diags();
      const int64_t len = band.Length(d);
      const int64_t offset = band.Offset(d);
      const E* src = diag + line * band.max_len + offset;
      E* m = out + b * band.rows * band.cols;
      const int64_t i0 = std::max<int64_t>(-d, 0);
      const int64_t j0 = std::max<int64_t>(d, 0);
      for (int64_t p = 0; p < len; ++p) {
        m[(i0 + p) * band.cols + j0 + p] = src[p];
      }
    }
  });
}

// Calls fn(TypeTag<E>{}) with an unsigned integer (or 16-byte block) type of
// the dtype's width; the ops are registered for plain-bytes dtypes only.
template <typename Fn>
void VisitWidth(DataType dtype, Fn&& fn) {
  copy_util::VisitElementType(dtype, [&](auto tag) {
    using E = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<E, std::string>) fn(tag);
  });
}

class MatrixDiagOp : public OpKernel {
 public:
  explicit MatrixDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseAlignment(ctx, &align_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& diag = ctx->input(0);
    const bool v1 = ctx->num_inputs() == 1;
    Band band;
    band.align = align_;
    int64_t rows = -1;
    int64_t cols = -1;
    if (!v1) {
      OP_REQUIRES_OK(ctx, ReadK(ctx->input(1), &band.lower, &band.upper));
      OP_REQUIRES(ctx, ctx->input(2).dims() == 0,
                  errors::InvalidArgument("num_rows must be a scalar"));
      OP_REQUIRES(ctx, ctx->input(3).dims() == 0,
                  errors::InvalidArgument("num_cols must be a scalar"));
      OP_REQUIRES(ctx, ctx->input(4).dims() == 0,
                  errors::InvalidArgument("padding_value must be a scalar"));
      rows = ctx->input(2).data<int32_t>()[0];
      cols = ctx->input(3).data<int32_t>()[0];
    }
    const int rank = diag.dims();
    OP_REQUIRES(ctx, rank >= 1,
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    diag.shape().DebugString()));
    const int64_t num_diags = band.num_diags();
    if (band.lower != band.upper) {
      OP_REQUIRES(ctx, rank >= 2,
                  errors::InvalidArgument(
                      "diagonal must be at least 2-dim when k is a range of "
                      "diagonals, received shape: ",
                      diag.shape().DebugString()));
      OP_REQUIRES(ctx, diag.dim_size(rank - 2) == num_diags,
                  errors::InvalidArgument(
                      "The number of diagonals provided in the input does not "
                      "match the lower_diag_index and upper_diag_index "
                      "range."));
    }
    band.max_len = diag.dim_size(rank - 1);
    const int64_t min_rows = band.max_len - std::min<int64_t>(band.upper, 0);
    const int64_t min_cols = band.max_len + std::max<int64_t>(band.lower, 0);
    if (rows == -1 && cols == -1) {
      rows = cols = std::max(min_rows, min_cols);
    } else if (rows == -1) {
      rows = min_rows;
    } else if (cols == -1) {
      cols = min_cols;
    }
    OP_REQUIRES(ctx, rows >= min_rows,
                errors::InvalidArgument("The number of rows is too small."));
    OP_REQUIRES(ctx, cols >= min_cols,
                errors::InvalidArgument("The number of columns is too small."));
    OP_REQUIRES(ctx, rows == min_rows || cols == min_cols,
                errors::InvalidArgument(
                    "The number of rows or columns is not consistent with "
                    "the specified d_lower, d_upper, and diagonal."));
    band.rows = rows;
    band.cols = cols;
    const int batch_rank = rank - (band.lower == band.upper ? 1 : 2);
    std::vector<int64_t> out_dims(
        diag.shape().dim_sizes().begin(),
        diag.shape().dim_sizes().begin() + batch_rank);
    int64_t batch = 1;
    for (int64_t d : out_dims) batch *= d;
    out_dims.push_back(rows);
    out_dims.push_back(cols);
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    // V1 pads with zero bytes: 0, 0.0 or false.
    const uint64_t zero[2] = {0, 0};
    const void* pad =
        v1 ? static_cast<const void*>(zero) : ctx->input(4).raw_data();
    VisitWidth(diag.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      BuildMatrices<E>(
          *ctx, band, batch, static_cast<const E*>(diag.raw_data()),
          static_cast<const E*>(pad), static_cast<E*>(out->raw_data()));
    });
  }

 private:
  Alignment align_;
};

// The bounds MatrixDiagPart and MatrixSetDiag put on k for [rows, cols]
// matrices; `separator` is where TensorFlow's two messages differ.
Status CheckBandInMatrix(int64_t index, const char* name, int64_t rows,
                         int64_t cols, const char* separator) {
  if ((-rows < index && index < cols) || index == 0) return Status();
  return errors::InvalidArgument(name, " is out of bound: ", index, separator,
                                 "It must be between ", -rows, " and ", cols);
}

class MatrixDiagPartOp : public OpKernel {
 public:
  explicit MatrixDiagPartOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseAlignment(ctx, &align_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const bool v1 = ctx->num_inputs() == 1;
    Band band;
    band.align = align_;
    if (!v1) {
      OP_REQUIRES_OK(ctx, ReadK(ctx->input(1), &band.lower, &band.upper));
      OP_REQUIRES(ctx, ctx->input(2).dims() == 0,
                  errors::InvalidArgument("padding_value must be a scalar"));
    }
    const int rank = in.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(
                    "input must be at least 2-dim, received shape: ",
                    in.shape().DebugString()));
    band.rows = in.dim_size(rank - 2);
    band.cols = in.dim_size(rank - 1);
    OP_REQUIRES_OK(ctx, CheckBandInMatrix(band.lower, "lower_diag_index",
                                          band.rows, band.cols, ". "));
    OP_REQUIRES_OK(ctx, CheckBandInMatrix(band.upper, "upper_diag_index",
                                          band.rows, band.cols, ". "));
    band.max_len = std::min(band.rows + std::min<int64_t>(band.upper, 0),
                            band.cols - std::max<int64_t>(band.lower, 0));
    band.max_len = std::max<int64_t>(band.max_len, 0);
    std::vector<int64_t> out_dims(in.shape().dim_sizes().begin(),
                                  in.shape().dim_sizes().end() - 2);
    int64_t batch = 1;
    for (int64_t d : out_dims) batch *= d;
    if (band.lower != band.upper) out_dims.push_back(band.num_diags());
    out_dims.push_back(band.max_len);
    StatusOr<TensorShape> shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    const uint64_t zero[2] = {0, 0};
    const void* pad =
        v1 ? static_cast<const void*>(zero) : ctx->input(2).raw_data();
    VisitWidth(in.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      ReadDiagonals<E>(*ctx, band, batch, static_cast<const E*>(in.raw_data()),
                       static_cast<const E*>(pad),
                       static_cast<E*>(out->raw_data()));
    });
  }

 private:
  Alignment align_;
};

class MatrixSetDiagOp : public OpKernel {
 public:
  explicit MatrixSetDiagOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ParseAlignment(ctx, &align_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    Band band;
    band.align = align_;
    if (ctx->num_inputs() > 2) {
      OP_REQUIRES_OK(ctx, ReadK(ctx->input(2), &band.lower, &band.upper));
    }
    const int rank = in.dims();
    OP_REQUIRES(ctx, rank >= 2,
                errors::InvalidArgument(
                    "input must be at least 2-dim, received shape: ",
                    in.shape().DebugString()));
    OP_REQUIRES(ctx, diag.dims() >= 1,
                errors::InvalidArgument(
                    "diagonal must be at least 1-dim, received shape: ",
                    diag.shape().DebugString()));
    band.rows = in.dim_size(rank - 2);
    band.cols = in.dim_size(rank - 1);
    OP_REQUIRES_OK(ctx, CheckBandInMatrix(band.lower, "lower_diag_index",
                                          band.rows, band.cols, " "));
    OP_REQUIRES_OK(ctx, CheckBandInMatrix(band.upper, "upper_diag_index",
                                          band.rows, band.cols, " "));
    band.max_len = std::max<int64_t>(
        0, std::min(band.rows + std::min<int64_t>(band.upper, 0),
                    band.cols - std::max<int64_t>(band.lower, 0)));
    // diagonal must be input.shape[:-2] + ([num_diags] if a range) +
    // [max_len].
    std::vector<int64_t> want(in.shape().dim_sizes().begin(),
                              in.shape().dim_sizes().end() - 2);
    int64_t batch = 1;
    for (int64_t d : want) batch *= d;
    if (band.lower != band.upper) {
      OP_REQUIRES(ctx,
                  diag.dims() >= 2 &&
                      diag.dim_size(diag.dims() - 2) == band.num_diags(),
                  errors::InvalidArgument(
                      "The number of diagonals provided in `diag` is not "
                      "consistent with `lower_diag_index` and "
                      "`upper_diag_index`"));
      want.push_back(band.num_diags());
    }
    want.push_back(band.max_len);
    const absl::Span<const int64_t> got = diag.shape().dim_sizes();
    OP_REQUIRES(
        ctx, std::equal(got.begin(), got.end(), want.begin(), want.end()),
        errors::InvalidArgument(
            "Either first dimensions of diagonal don't match input.shape[:-2], "
            "or diagonal.shape[:-1] is not equal to the longests diagonal in "
            "range [lower_diag_index:upper_diag_index].\nInput shape: ",
            in.shape().DebugString(),
            "\nDiagonal shape: ", diag.shape().DebugString(),
            "\nExpected diagonal shape: ", IndexListString(want)));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output({0}, 0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    if (out->raw_data() != in.raw_data()) {
      copy_util::CopyElements(in.dtype(), in.raw_data(), out->raw_data(),
                              in.NumElements());
    }
    if (band.max_len == 0) return;
    VisitWidth(in.dtype(), [&](auto tag) {
      using E = typename decltype(tag)::type;
      WriteDiagonals<E>(*ctx, band, batch,
                        static_cast<const E*>(diag.raw_data()),
                        static_cast<E*>(out->raw_data()));
    });
  }

 private:
  Alignment align_;
};

#define WEFT_REGISTER_DIAG(name, op)                                       \
  REGISTER_KERNEL_BUILDER(Name(name)                                       \
                              .Device(DEVICE_CPU)                          \
                              .TypeConstraint("T", NumericAndBoolTypes()), \
                          op)

WEFT_REGISTER_DIAG("MatrixDiag", MatrixDiagOp);
WEFT_REGISTER_DIAG("MatrixDiagV2", MatrixDiagOp);
WEFT_REGISTER_DIAG("MatrixDiagV3", MatrixDiagOp);
WEFT_REGISTER_DIAG("MatrixDiagPart", MatrixDiagPartOp);
WEFT_REGISTER_DIAG("MatrixDiagPartV2", MatrixDiagPartOp);
WEFT_REGISTER_DIAG("MatrixDiagPartV3", MatrixDiagPartOp);
WEFT_REGISTER_DIAG("MatrixSetDiag", MatrixSetDiagOp);
WEFT_REGISTER_DIAG("MatrixSetDiagV2", MatrixSetDiagOp);
WEFT_REGISTER_DIAG("MatrixSetDiagV3", MatrixSetDiagOp);

#undef WEFT_REGISTER_DIAG

}  // namespace
}  // namespace weft
