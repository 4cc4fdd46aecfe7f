// Assert, ControlTrigger and Bitcast on the CPU (ops/assert_bitcast_ops.cc).
//  - Assert: nothing when the condition holds; else an InvalidArgument
//    "assertion failed: [data 0] [data 1] ..." with the first `summarize`
//    elements of each data tensor laid out as TensorFlow's
//    Tensor::SummarizeValue does ("1 2 3", "[1 2][3 4]", strings C-escaped,
//    "..." when cut short, floats in the fewest of 6 or 9 digits (15 or 17
//    for doubles) that read back exactly, bools as 1 / 0, complex as "?");
//    SetStatus prefixes the node's name.
//  - ControlTrigger: nothing (an ordering point for control edges).
//  - Bitcast: the input's bytes as `type` elements, copied (TensorFlow shares
//    the buffer; weft's tensors keep one dtype per buffer).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// Shortest of %.{digits}g and %.{more}g that reads back as `v`, as
// TensorFlow's FloatToBuffer / DoubleToBuffer print.
template <typename F>
std::string FormatFloat(F v, int digits, int more) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  if (std::isfinite(v)) {
    const F back = std::is_same_v<F, float> ? std::strtof(buf, nullptr)
                                            : std::strtod(buf, nullptr);
    if (back != v) {
      std::snprintf(buf, sizeof(buf), "%.*g", more, static_cast<double>(v));
    }
  }
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\%03o", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out;
}

template <typename T>
std::string FormatOne(const T& v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half> ||
                std::is_same_v<T, bfloat16>) {
    return FormatFloat(static_cast<float>(v), FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, double>) {
    return FormatFloat(v, DBL_DIG, DBL_DIG + 2);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, complex64> ||
                       std::is_same_v<T, complex128>) {
    return "?";  // what TensorFlow prints for complex elements
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Escape(v);
  } else {
    return absl::StrCat(static_cast<int64_t>(v));
  }
}

// TensorFlow's layout: elements of the last dimension space-separated, each
// outer row in brackets, at most `limit` elements.
template <typename T>
void AppendDim(int dim, const TensorShape& shape, int64_t limit, const T* data,
               int64_t* next, std::string* out) {
  if (*next >= limit) return;
  const int64_t n = shape.dim_size(dim);
  if (dim == shape.dims() - 1) {
    for (int64_t i = 0; i < n; ++i) {
      if (*next >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += FormatOne(data[(*next)++]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    bool opened = false;
    if (*next < limit) {
      *out += "[";
      opened = true;
    }
    AppendDim(dim + 1, shape, limit, data, next, out);
    if (*next < limit || opened) *out += "]";
  }
}

template <typename T>
std::string SummarizeAs(const Tensor& t, int64_t limit) {
  const T* data = static_cast<const T*>(t.raw_data());
  const int64_t n = t.NumElements();
  std::string out;
  if (t.dims() == 0) {
    for (int64_t i = 0; i < limit; ++i) {
      if (i > 0) out += " ";
      out += FormatOne(data[i]);
    }
  } else {
    int64_t next = 0;
    AppendDim(0, t.shape(), limit, data, &next, &out);
  }
  if (n > limit) out += "...";
  return out;
}

std::string Summarize(const Tensor& t, int64_t max_entries) {
  const int64_t n = t.NumElements();
  const int64_t limit = max_entries < 0 ? n : std::min(max_entries, n);
  if (limit > 0 && !t.IsInitialized()) {
    return absl::StrCat("uninitialized Tensor of ", n, " elements of type ",
                        DataTypeName(t.dtype()));
  }
  if (t.dtype() == DT_STRING) return SummarizeAs<std::string>(t, limit);
  std::string out;
  const bool known = VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    out = SummarizeAs<T>(t, limit);
  });
  return known ? out : t.SummarizeValue(max_entries);
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& cond = ctx->input(0);
    // TensorFlow's legacy scalars: [] or [1].
    OP_REQUIRES(ctx,
                cond.dims() == 0 || (cond.dims() == 1 && cond.dim_size(0) == 1),
                errors::InvalidArgument("In[0] should be a scalar: ",
                                        cond.shape().DebugString()));
    if (*cond.data<bool>()) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, "[", Summarize(ctx->input(i), summarize_), "]");
      if (i < ctx->num_inputs() - 1) msg += " ";
    }
    ctx->SetStatus(errors::InvalidArgument(msg));
  }

  bool IsExpensive() const override { return false; }

 private:
  int64_t summarize_ = 3;
};

class ControlTriggerOp : public OpKernel {
 public:
  explicit ControlTriggerOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) const override {}
  bool IsExpensive() const override { return false; }
};

class BitcastOp : public OpKernel {
 public:
  explicit BitcastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("T", &in_type_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("type", &out_type_));
    in_size_ = static_cast<int64_t>(DataTypeSize(in_type_));
    out_size_ = static_cast<int64_t>(DataTypeSize(out_type_));
    OP_REQUIRES(
        ctx, in_size_ > 0 && out_size_ > 0,
        errors::InvalidArgument("Cannot bitcast from ", DataTypeName(in_type_),
                                " to ", DataTypeName(out_type_)));
  }

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const int rank = input.dims();
    OP_REQUIRES(
        ctx,
        in_size_ >= out_size_ ||
            (rank > 0 && input.dim_size(rank - 1) == out_size_ / in_size_),
        errors::InvalidArgument("Cannot bitcast from ", DataTypeName(in_type_),
                                " to ", DataTypeName(out_type_), ": shape ",
                                input.shape().DebugString()));
    TensorShape shape;
    const int kept = out_size_ > in_size_ ? rank - 1 : rank;
    for (int d = 0; d < kept; ++d) {
      OP_REQUIRES_OK(ctx, shape.AddDim(input.dim_size(d)));
    }
    if (out_size_ < in_size_) {
      OP_REQUIRES_OK(ctx, shape.AddDim(in_size_ / out_size_));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (input.TotalBytes() > 0) {
      std::memcpy(out->raw_data(), input.raw_data(), input.TotalBytes());
    }
  }

 private:
  DataType in_type_ = DT_INVALID;
  DataType out_type_ = DT_INVALID;
  int64_t in_size_ = 0;
  int64_t out_size_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("Assert").Device(DEVICE_CPU), AssertOp);
REGISTER_KERNEL_BUILDER(Name("ControlTrigger").Device(DEVICE_CPU),
                        ControlTriggerOp);
REGISTER_KERNEL_BUILDER(Name("Bitcast").Device(DEVICE_CPU), BitcastOp);

}  // namespace
}  // namespace weft
