// Einsum on the CPU, for one or two operands, as TensorFlow evaluates it.
//
// The equation (ParseEinsumEquation, shared with shape inference) names
// each dimension with a label; "..." stands for broadcast dimensions, which
// are aligned at the right across the inputs and broadcast as in NumPy. The
// evaluation is a short pipeline of layout steps around one batched matrix
// product:
//
//  1. A label repeated within one input takes that input's diagonal
//     ("ii->i").
//  2. A label that appears in one input only and not in the output is
//     summed out ("ij->i", "ij,jk->k" sums i).
//  3. With two inputs, the remaining labels are batch (in both inputs and
//     the output), contracted (in both inputs only) or free (one input and
//     the output). Each operand is arranged as [batch, free, contracted] (x)
//     or [batch, contracted, free] (y); an operand already in that order,
//     or in its transposed order, is used in place (as an adjoint), others
//     are permuted once. If the output lists the second input's free labels
//     first the operands swap roles, so "aecd,abcd->acbe" needs no final
//     permutation. The product is BatchMatMulCompute (batch_matmul_op.cc),
//     broadcasting the batch dimensions.
//  4. The result is permuted to the output's order; a label repeated in the
//     output places the values on that diagonal with zeros elsewhere
//     ("ij,jk->ikk"), as TensorFlow does.
//
// The Keras attention equations ("abc,cd->abd", "abcd,cde->abe",
// "abc,cde->abde", ...) are a single product without any copy;
// "aecd,abcd->acbe" permutes both operands and "acbe,aecd->abcd" one operand
// and the result, like TensorFlow. Layout steps move bytes
// (copy_util::StridedGather), so they are compiled once per element width;
// the arithmetic reuses the Sum reduction and the shared GEMM.
//
// Errors as TensorFlow's: named labels must have one size everywhere
// (broadcasting applies to "..." only), a label repeated within one input
// must have one size, an output label must come from an input, and inputs
// with broadcast dimensions need "..." in the output. Dtypes: half,
// bfloat16, float, double, int32, int64 (TensorFlow's CPU kernels among
// weft's dtypes).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "kernels/common/copy_util.h"
#include "kernels/cpu/context_parallel_for.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/reduction_util.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"

namespace weft {
namespace {

// Labels are the subscript characters (0..255); the broadcast dimensions
// of "..." are kEllipsisLabel + their position among all broadcast
// dimensions, counted so that the inputs align at the right.
constexpr int kEllipsisLabel = 256;

using Labels = std::vector<int>;

struct Operand {
  Tensor t;
  Labels labels;  // one per dimension of t
};

std::string LabelName(int label) {
  if (label < kEllipsisLabel) return std::string(1, static_cast<char>(label));
  return absl::StrCat("... dimension ", label - kEllipsisLabel);
}

bool Contains(const Labels& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// Each label once, in order of first appearance.
Labels Unique(const Labels& labels) {
  Labels unique;
  for (int l : labels) {
    if (!Contains(unique, l)) unique.push_back(l);
  }
  return unique;
}

Labels Concat(std::initializer_list<const Labels*> parts) {
  Labels all;
  for (const Labels* p : parts) all.insert(all.end(), p->begin(), p->end());
  return all;
}

std::vector<int64_t> RowMajorStrides(const Tensor& t) {
  std::vector<int64_t> strides(t.dims(), 1);
  for (int d = t.dims() - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * t.dim_size(d + 1);
  }
  return strides;
}

// The roles of a two-operand product's labels: batch (in both operands and
// the output), free (in one operand and the output), each in the output's
// order, and contracted (in both operands only), in a's order.
struct LabelRoles {
  Labels batch, free_a, free_b, contracted;
};
LabelRoles Roles(const Labels& a, const Labels& b, const Labels& out) {
  LabelRoles r;
  for (int l : out) {
    const bool in_a = Contains(a, l);
    const bool in_b = Contains(b, l);
    if (in_a && in_b) {
      r.batch.push_back(l);
    } else if (in_a) {
      r.free_a.push_back(l);
    } else {
      r.free_b.push_back(l);
    }
  }
  for (int l : a) {
    if (Contains(b, l) && !Contains(out, l)) r.contracted.push_back(l);
  }
  return r;
}

// The stride of `label` in `op` (row-major), 0 for a dimension of size 1
// (a broadcast one reads the same element for every index), -1 if absent.
int64_t StrideOf(const Operand& op, const std::vector<int64_t>& strides,
                 int label) {
  for (size_t d = 0; d < op.labels.size(); ++d) {
    if (op.labels[d] == label) {
      return op.t.dim_size(static_cast<int>(d)) == 1 ? 0 : strides[d];
    }
  }
  return -1;
}

// op(M) of an operand whose matrix labels `rows` and `cols` have strides
// `rs` and `cs`, read where it lies: false unless one of them is 1 (or its
// dimension has size 1, which any leading dimension serves).
bool MatrixView(int64_t rs, int64_t cs, int64_t num_rows, int64_t num_cols,
                GemmOperand<float>* m) {
  if (cs == 1 || num_cols == 1) {
    *m = {nullptr, num_rows == 1 ? num_cols : rs, false};
    return rs >= num_cols || num_rows == 1;
  }
  if (rs == 1 || num_rows == 1) {
    *m = {nullptr, num_cols == 1 ? num_rows : cs, true};
    return cs >= num_rows || num_cols == 1;
  }
  return false;
}

// The two-operand float product with no copies, when each operand's free
// labels and the contracted labels are one label each, and each operand
// and the output run with stride 1 along one of their two matrix labels:
// the attention products of Keras ("aecd,abcd->acbe" reads the query and
// key heads where the projections wrote them, "acbe,aecd->abcd" writes the
// heads into place) are then one GEMM per batch index with leading
// dimensions (gemm.h), where the general path permutes both operands (or
// one and the result) first. *done false: the shapes do not qualify, and
// the caller takes the general path. The bits are the general path's on
// the vector paths (the GEMM's value of an element depends only on k, its
// row of op(a) and its column of op(b)).
Status StridedProduct(OpKernelContext* ctx, const Operand& a, const Operand& b,
                      const Labels& out_labels,
                      const std::vector<int64_t>& size,
                      const TensorShape& out_shape, bool* done) {
  *done = false;
  const LabelRoles roles = Roles(a.labels, b.labels, out_labels);
  const Labels& batch = roles.batch;
  const Labels& free_a = roles.free_a;
  const Labels& free_b = roles.free_b;
  const Labels& contracted = roles.contracted;
  if (free_a.size() != 1 || free_b.size() != 1 || contracted.size() != 1) {
    return Status();
  }
  const int64_t m = size[free_a[0]];
  const int64_t k = size[contracted[0]];
  const int64_t n = size[free_b[0]];
  const std::vector<int64_t> sa = RowMajorStrides(a.t);
  const std::vector<int64_t> sb = RowMajorStrides(b.t);
  std::vector<int64_t> so(out_labels.size(), 1);
  for (int d = static_cast<int>(out_labels.size()) - 2; d >= 0; --d) {
    so[d] = so[d + 1] * out_shape.dim_size(d + 1);
  }
  auto out_stride = [&](int label) {
    const auto it = std::find(out_labels.begin(), out_labels.end(), label);
    return so[it - out_labels.begin()];
  };
  GemmOperand<float> op_a, op_b;
  if (!MatrixView(StrideOf(a, sa, free_a[0]), StrideOf(a, sa, contracted[0]), m,
                  k, &op_a) ||
      !MatrixView(StrideOf(b, sb, contracted[0]), StrideOf(b, sb, free_b[0]), k,
                  n, &op_b)) {
    return Status();
  }
  const int64_t ldc = n == 1 ? 1 : out_stride(free_a[0]);
  if (n > 1 && out_stride(free_b[0]) != 1) return Status();
  if (m > 1 && ldc < n) return Status();
  // The batch index's offsets in a, b and the output.
  int64_t batches = 1;
  std::vector<int64_t> bdims, bsa, bsb, bso;
  for (int l : batch) {
    batches *= size[l];
    bdims.push_back(size[l]);
    bsa.push_back(StrideOf(a, sa, l));
    bsb.push_back(StrideOf(b, sb, l));
    bso.push_back(out_stride(l));
  }
  Tensor* out = nullptr;
  WEFT_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
  *done = true;
  if (out->NumElements() == 0) return Status();
  const float* pa = a.t.data<float>();
  const float* pb = b.t.data<float>();
  float* pc = out->data<float>();
  auto product = [&](int64_t index, const ParallelForFn* parallel) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (int d = static_cast<int>(bdims.size()) - 1; d >= 0; --d) {
      const int64_t i = index % bdims[d];
      index /= bdims[d];
      oa += i * bsa[d];
      ob += i * bsb[d];
      oc += i * bso[d];
    }
    GemmOperand<float> x = op_a, y = op_b;
    x.data = pa + oa;
    y.data = pb + ob;
    if (parallel != nullptr) {
      Gemm(*parallel, m, k, n, x, y, pc + oc, ldc);
    } else {
      GemmSerial(m, k, n, x, y, pc + oc, ldc);
    }
  };
  if (batches == 1) {
    const ParallelForFn parallel = ContextParallelFor(*ctx);
    product(0, &parallel);
    return Status();
  }
  ctx->ParallelFor(batches, 2 * m * n * std::max<int64_t>(k, 1),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) product(i, nullptr);
                   });
  return Status();
}

// A tensor of `labels` laid out in `order` (each label of `order` once),
// where `op`'s labels may repeat (a diagonal) but hold every label of
// `order`: element [i_0, ...] of the result is op.t at the index where each
// dimension takes the index of its label.
Status Gather(OpKernelContext* ctx, const Operand& op, const Labels& order,
              Operand* out) {
  const std::vector<int64_t> in_strides = RowMajorStrides(op.t);
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  for (int l : order) {
    int64_t stride = 0;
    int64_t size = 0;
    for (size_t d = 0; d < op.labels.size(); ++d) {
      if (op.labels[d] == l) {
        stride += in_strides[d];
        size = op.t.dim_size(static_cast<int>(d));
      }
    }
    dims.push_back(size);
    strides.push_back(stride);
  }
  WEFT_ASSIGN_OR_RETURN(const TensorShape shape, TensorShape::Build(dims));
  Tensor result;
  WEFT_RETURN_IF_ERROR(ctx->allocate_temp(op.t.dtype(), shape, &result));
  if (shape.num_elements() > 0) {
    copy_util::StridedGather(*ctx, op.t.dtype(), op.t.raw_data(), 0, dims,
                             strides, result.raw_data());
  }
  out->t = std::move(result);
  out->labels = order;
  return Status();
}

// Rearranges `op` to hold `order` (its labels without repeats, in any
// order), copying only when something changes.
Status Arrange(OpKernelContext* ctx, Operand* op, const Labels& order) {
  if (op->labels == order) return Status();
  Operand arranged;
  WEFT_RETURN_IF_ERROR(Gather(ctx, *op, order, &arranged));
  *op = std::move(arranged);
  return Status();
}

// Sums out every label of `op` not in `keep`.
Status SumOut(OpKernelContext* ctx, Operand* op, const Labels& keep) {
  std::vector<int64_t> axes;
  Labels kept;
  for (size_t d = 0; d < op->labels.size(); ++d) {
    if (Contains(keep, op->labels[d])) {
      kept.push_back(op->labels[d]);
    } else {
      axes.push_back(static_cast<int64_t>(d));
    }
  }
  if (axes.empty()) return Status();
  ReductionPlan plan;
  WEFT_RETURN_IF_ERROR(PlanReduction(op->t.shape(), axes, false, &plan));
  if (plan.IsCopy()) {
    WEFT_ASSIGN_OR_RETURN(op->t, op->t.Reshaped(plan.output_shape));
  } else {
    const ReduceFns* sum = SumReduceFns(op->t.dtype());
    if (sum == nullptr) {
      return errors::InvalidArgument("einsum cannot sum ",
                                     DataTypeName(op->t.dtype()), " values");
    }
    Tensor reduced;
    WEFT_RETURN_IF_ERROR(
        ctx->allocate_temp(op->t.dtype(), plan.output_shape, &reduced));
    WEFT_RETURN_IF_ERROR(RunReduction(ctx, *sum, op->t, plan, &reduced));
    op->t = std::move(reduced);
  }
  op->labels = std::move(kept);
  return Status();
}

int64_t Product(const Labels& labels, const Tensor& t, const Labels& t_labels) {
  // Sizes as `t` holds them (1 for a broadcast dimension it does not
  // stretch).
  int64_t p = 1;
  for (int l : labels) {
    for (size_t d = 0; d < t_labels.size(); ++d) {
      if (t_labels[d] == l) {
        p *= t.dim_size(static_cast<int>(d));
        break;
      }
    }
  }
  return p;
}

// Writes `compact` (labels Unique(out_labels), in that order) into `out`
// (labels out_labels, some repeated): the diagonals of the repeated labels
// hold the values, everything else is zero.
void Inflate(const Tensor& compact, const Labels& compact_labels,
             const Labels& out_labels, Tensor* out) {
  std::memset(out->raw_data(), 0, out->TotalBytes());
  const std::vector<int64_t> out_strides = RowMajorStrides(*out);
  const int rank = static_cast<int>(compact_labels.size());
  std::vector<int64_t> dims(rank);
  std::vector<int64_t> strides(rank, 0);
  for (int k = 0; k < rank; ++k) {
    dims[k] = compact.dim_size(k);
    for (size_t p = 0; p < out_labels.size(); ++p) {
      if (out_labels[p] == compact_labels[k]) strides[k] += out_strides[p];
    }
  }
  const int64_t n = compact.NumElements();
  copy_util::VisitElementType(compact.dtype(), [&](auto tag) {
    using E = typename decltype(tag)::type;
    const char* from = static_cast<const char*>(compact.raw_data());
    char* to = static_cast<char*>(out->raw_data());
    std::vector<int64_t> index(rank, 0);
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      copy_util::MoveOne<E>(to + offset * sizeof(E), from + i * sizeof(E));
      for (int k = rank - 1; k >= 0; --k) {
        offset += strides[k];
        if (++index[k] < dims[k]) break;
        offset -= strides[k] * dims[k];
        index[k] = 0;
      }
    }
  });
}

class EinsumOp : public OpKernel {
 public:
  explicit EinsumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("equation", &equation_));
    StatusOr<EinsumEquation> parsed = ParseEinsumEquation(equation_);
    OP_REQUIRES_OK(ctx, parsed.status());
    eq_ = *std::move(parsed);
    OP_REQUIRES(ctx, static_cast<int>(eq_.inputs.size()) == ctx->num_inputs(),
                errors::InvalidArgument("einsum equation '", equation_,
                                        "' has ", eq_.inputs.size(),
                                        " input subscripts but the node has ",
                                        ctx->num_inputs(), " inputs"));
    for (size_t k = 0; k < eq_.output.size(); ++k) {
      if (eq_.output[k] == '.') continue;
      bool found = false;
      for (const std::string& in : eq_.inputs) {
        if (in.find(eq_.output[k]) != std::string::npos) found = true;
      }
      OP_REQUIRES(ctx, found,
                  errors::InvalidArgument("einsum equation '", equation_,
                                          "' has output label '",
                                          std::string(1, eq_.output[k]),
                                          "' that no input subscript has"));
    }
  }

  void Compute(OpKernelContext* ctx) const override {
    const int num = ctx->num_inputs();
    std::vector<Operand> ops(num);
    std::vector<int> ellipsis_dims(num, 0);
    int max_ellipsis = 0;
    for (int i = 0; i < num; ++i) {
      const std::string& sub = eq_.inputs[i];
      const Tensor& t = ctx->input(i);
      const size_t ell = sub.find("...");
      const int named =
          static_cast<int>(sub.size()) - (ell == std::string::npos ? 0 : 3);
      if (ell == std::string::npos) {
        OP_REQUIRES(ctx, t.dims() == named,
                    errors::InvalidArgument(
                        "input ", i, " has shape ", t.shape().DebugString(),
                        " but subscript '", sub, "' of einsum equation '",
                        equation_, "' names ", named, " dimensions"));
      } else {
        OP_REQUIRES(
            ctx, t.dims() >= named,
            errors::InvalidArgument(
                "input ", i, " has shape ", t.shape().DebugString(),
                " but subscript '", sub, "' of einsum equation '", equation_,
                "' names ", named, " dimensions besides the ellipsis"));
        ellipsis_dims[i] = t.dims() - named;
      }
      max_ellipsis = std::max(max_ellipsis, ellipsis_dims[i]);
    }

    // Labels per dimension, and one size per label.
    std::vector<int64_t> size(kEllipsisLabel + max_ellipsis, -1);
    for (int i = 0; i < num; ++i) {
      const std::string& sub = eq_.inputs[i];
      const Tensor& t = ctx->input(i);
      Operand& op = ops[i];
      op.t = t;
      for (size_t k = 0; k < sub.size(); ++k) {
        if (sub.compare(k, 3, "...") == 0) {
          for (int e = 0; e < ellipsis_dims[i]; ++e) {
            op.labels.push_back(kEllipsisLabel + max_ellipsis -
                                ellipsis_dims[i] + e);
          }
          k += 2;
        } else {
          op.labels.push_back(static_cast<unsigned char>(sub[k]));
        }
      }
      for (int d = 0; d < t.dims(); ++d) {
        const int l = op.labels[d];
        const int64_t s = t.dim_size(d);
        if (l < kEllipsisLabel) {
          OP_REQUIRES(ctx, size[l] < 0 || size[l] == s,
                      errors::InvalidArgument(
                          "label '", LabelName(l), "' of einsum equation '",
                          equation_, "' has size ", size[l],
                          " elsewhere but dimension ", d, " of input ", i,
                          " (shape ", t.shape().DebugString(), ") is ", s));
          size[l] = s;
        } else {
          OP_REQUIRES(ctx,
                      size[l] < 0 || size[l] == s || size[l] == 1 || s == 1,
                      errors::InvalidArgument(
                          "the ellipsis dimensions of einsum equation '",
                          equation_, "' do not broadcast: ", LabelName(l),
                          " has sizes ", size[l], " and ", s));
          if (size[l] < 0 || size[l] == 1) size[l] = s;
        }
      }
    }

    // The output's labels.
    Labels out_labels;
    const bool out_ellipsis = eq_.output.find("...") != std::string::npos;
    OP_REQUIRES(
        ctx, out_ellipsis || max_ellipsis == 0,
        errors::InvalidArgument("einsum equation '", equation_,
                                "' has no ellipsis in its output "
                                "but the inputs' ellipsis stands for ",
                                max_ellipsis, " broadcast dimension(s)"));
    for (size_t k = 0; k < eq_.output.size(); ++k) {
      if (eq_.output.compare(k, 3, "...") == 0) {
        for (int e = 0; e < max_ellipsis; ++e) {
          out_labels.push_back(kEllipsisLabel + e);
        }
        k += 2;
      } else {
        out_labels.push_back(static_cast<unsigned char>(eq_.output[k]));
      }
    }
    std::vector<int64_t> out_dims;
    for (int l : out_labels) out_dims.push_back(size[l]);
    StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    const Labels out_unique = Unique(out_labels);

    // Diagonals, then labels nobody else needs.
    for (int i = 0; i < num; ++i) {
      Operand& op = ops[i];
      const Labels unique = Unique(op.labels);
      if (unique.size() != op.labels.size()) {
        OP_REQUIRES_OK(ctx, Arrange(ctx, &op, unique));
      }
      Labels keep = out_unique;
      if (num == 2) {
        const Labels& other = ops[1 - i].labels;
        keep.insert(keep.end(), other.begin(), other.end());
      }
      OP_REQUIRES_OK(ctx, SumOut(ctx, &op, keep));
    }

    if (num == 2 && out_unique.size() == out_labels.size() &&
        ops[0].t.dtype() == DT_FLOAT) {
      bool done = false;
      OP_REQUIRES_OK(ctx, StridedProduct(ctx, ops[0], ops[1], out_labels, size,
                                         *out_shape, &done));
      if (done) return;
    }
    Operand result;
    if (num == 1) {
      result = std::move(ops[0]);
    } else {
      OP_REQUIRES_OK(
          ctx, Contract(ctx, &ops[0], &ops[1], out_unique, size, &result));
    }

    // To the output's order.
    if (out_unique.size() == out_labels.size()) {
      if (result.labels == out_labels) {
        StatusOr<Tensor> same = result.t.Reshaped(*out_shape);
        OP_REQUIRES_OK(ctx, same.status());
        ctx->set_output(0, *std::move(same));
        return;
      }
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
      if (out->NumElements() == 0) return;
      const std::vector<int64_t> in_strides = RowMajorStrides(result.t);
      std::vector<int64_t> strides;
      for (int l : out_labels) {
        const auto it =
            std::find(result.labels.begin(), result.labels.end(), l);
        strides.push_back(in_strides[it - result.labels.begin()]);
      }
      copy_util::StridedGather(*ctx, result.t.dtype(), result.t.raw_data(), 0,
                               out_dims, strides, out->raw_data());
      return;
    }
    OP_REQUIRES_OK(ctx, Arrange(ctx, &result, out_unique));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    Inflate(result.t, result.labels, out_labels, out);
  }

 private:
  // The product of two operands (diagonals taken, private labels summed
  // out) into `result`, labelled batch + free(x) + free(y).
  Status Contract(OpKernelContext* ctx, Operand* a, Operand* b,
                  const Labels& out_unique, const std::vector<int64_t>& size,
                  Operand* result) const {
    LabelRoles roles = Roles(a->labels, b->labels, out_unique);
    // The output lists y's free labels first: swap the roles, so the
    // product comes out in the output's order.
    const Labels natural = Concat({&roles.batch, &roles.free_a, &roles.free_b});
    const Labels swapped = Concat({&roles.batch, &roles.free_b, &roles.free_a});
    if (out_unique != natural && out_unique == swapped) {
      std::swap(a, b);
      roles = Roles(a->labels, b->labels, out_unique);
    }
    const Labels& batch = roles.batch;
    const Labels& free_a = roles.free_a;
    const Labels& free_b = roles.free_b;
    const Labels& contracted = roles.contracted;
    // x as [batch, free, contracted] (or its adjoint), y as [batch,
    // contracted, free] (or its adjoint).
    bool adj_a = false;
    if (a->labels == Concat({&batch, &contracted, &free_a})) {
      adj_a = true;
    } else {
      WEFT_RETURN_IF_ERROR(
          Arrange(ctx, a, Concat({&batch, &free_a, &contracted})));
    }
    bool adj_b = false;
    if (b->labels == Concat({&batch, &free_b, &contracted})) {
      adj_b = true;
    } else {
      WEFT_RETURN_IF_ERROR(
          Arrange(ctx, b, Concat({&batch, &contracted, &free_b})));
    }
    const int64_t m = Product(free_a, a->t, a->labels);
    const int64_t k = Product(contracted, a->t, a->labels);
    const int64_t n = Product(free_b, b->t, b->labels);
    const int nb = static_cast<int>(batch.size());
    std::vector<int64_t> a_dims(a->t.shape().dim_sizes().begin(),
                                a->t.shape().dim_sizes().begin() + nb);
    std::vector<int64_t> b_dims(b->t.shape().dim_sizes().begin(),
                                b->t.shape().dim_sizes().begin() + nb);
    std::vector<int64_t> r_dims;
    for (int l : batch) r_dims.push_back(size[l]);
    a_dims.push_back(adj_a ? k : m);
    a_dims.push_back(adj_a ? m : k);
    b_dims.push_back(adj_b ? n : k);
    b_dims.push_back(adj_b ? k : n);
    std::vector<int64_t> full_dims = r_dims;
    for (int l : free_a) full_dims.push_back(size[l]);
    for (int l : free_b) full_dims.push_back(size[l]);
    r_dims.push_back(m);
    r_dims.push_back(n);
    WEFT_ASSIGN_OR_RETURN(const TensorShape a_shape,
                          TensorShape::Build(a_dims));
    WEFT_ASSIGN_OR_RETURN(const TensorShape b_shape,
                          TensorShape::Build(b_dims));
    WEFT_ASSIGN_OR_RETURN(const TensorShape r_shape,
                          TensorShape::Build(r_dims));
    WEFT_ASSIGN_OR_RETURN(const TensorShape full_shape,
                          TensorShape::Build(full_dims));
    WEFT_ASSIGN_OR_RETURN(const Tensor x, a->t.Reshaped(a_shape));
    WEFT_ASSIGN_OR_RETURN(const Tensor y, b->t.Reshaped(b_shape));
    Tensor r;
    WEFT_RETURN_IF_ERROR(ctx->allocate_temp(x.dtype(), r_shape, &r));
    WEFT_RETURN_IF_ERROR(BatchMatMulCompute(ctx, x, adj_a, y, adj_b, &r));
    WEFT_ASSIGN_OR_RETURN(result->t, r.Reshaped(full_shape));
    result->labels = Concat({&batch, &free_a, &free_b});
    return Status();
  }

  std::string equation_;
  EinsumEquation eq_;
};

#define WEFT_REGISTER_EINSUM(T) \
  REGISTER_KERNEL_BUILDER(      \
      Name("Einsum").Device(DEVICE_CPU).TypeConstraint<T>("T"), EinsumOp)

WEFT_REGISTER_EINSUM(half);
WEFT_REGISTER_EINSUM(bfloat16);
WEFT_REGISTER_EINSUM(float);
WEFT_REGISTER_EINSUM(double);
WEFT_REGISTER_EINSUM(int32_t);
WEFT_REGISTER_EINSUM(int64_t);

#undef WEFT_REGISTER_EINSUM

}  // namespace
}  // namespace weft
