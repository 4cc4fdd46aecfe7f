#include "tests/kernels/kernel_testutil.h"

#include <cmath>
#include <complex>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/kernel_registry.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"

namespace weft::test {
namespace {

constexpr int kMaxReported = 10;

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

template <typename T>
constexpr bool kIsFloating =
    std::is_floating_point_v<T> || std::is_same_v<T, half> ||
    std::is_same_v<T, bfloat16>;

template <typename T>
std::string ValueString(const T& v) {
  std::ostringstream os;
  os.precision(17);
  if constexpr (IsComplex<T>::value) {
    os << "(" << v.real() << "," << v.imag() << ")";
  } else if constexpr (std::is_same_v<T, bool>) {
    os << (v ? "true" : "false");
  } else if constexpr (std::is_integral_v<T>) {
    os << static_cast<int64_t>(v);
  } else {
    os << static_cast<double>(v);
  }
  return os.str();
}

template <typename T>
bool ElementsEqual(const T& a, const T& b) {
  if constexpr (IsComplex<T>::value) {
    return ElementsEqual(a.real(), b.real()) &&
           ElementsEqual(a.imag(), b.imag());
  } else if constexpr (kIsFloating<T>) {
    const double x = static_cast<double>(a);
    const double y = static_cast<double>(b);
    return x == y || (std::isnan(x) && std::isnan(y));
  } else {
    return a == b;
  }
}

bool SameDtypeAndShape(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype()) {
    ADD_FAILURE() << "dtype: got " << DataTypeName(actual.dtype())
                  << ", expected " << DataTypeName(expected.dtype());
    return false;
  }
  if (actual.shape() != expected.shape()) {
    ADD_FAILURE() << "shape: got " << actual.shape().DebugString()
                  << ", expected " << expected.shape().DebugString();
    return false;
  }
  return true;
}

// Reports differing elements; `differ(i)` says whether element i differs
// and `describe(i)` prints "got ..., expected ...".
template <typename Differ, typename Describe>
void ReportDifferences(const Tensor& t, Differ differ, Describe describe) {
  int64_t count = 0;
  std::ostringstream os;
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (!differ(i)) continue;
    if (count < kMaxReported) os << "\n  element " << i << ": " << describe(i);
    ++count;
  }
  if (count > 0) {
    ADD_FAILURE() << count << " of " << t.NumElements() << " elements of "
                  << t.DebugString() << " differ:" << os.str()
                  << (count > kMaxReported ? "\n  ..." : "");
  }
}

}  // namespace

Tensor AsTensorOfType(DataType dtype, const std::vector<double>& values,
                      const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    ADD_FAILURE() << "AsTensorOfType: " << values.size() << " values for shape "
                  << shape.DebugString();
    return t;
  }
  const bool known = VisitNumericType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        p[i] = values[i] != 0;
      } else if constexpr (IsComplex<T>::value) {
        p[i] = T(static_cast<typename T::value_type>(values[i]), 0);
      } else {
        p[i] = static_cast<T>(values[i]);
      }
    }
  });
  if (!known) {
    ADD_FAILURE() << "AsTensorOfType: " << DataTypeName(dtype)
                  << " is not numeric";
  }
  return t;
}

double UnitRoundoff(DataType dtype) {
  switch (dtype) {
    case DT_HALF:
      return std::ldexp(1.0, -11);
    case DT_BFLOAT16:
      return std::ldexp(1.0, -8);
    case DT_FLOAT:
      return std::ldexp(1.0, -24);
    case DT_DOUBLE:
      return std::ldexp(1.0, -53);
    default:
      return 0;
  }
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out;
  const bool known = VisitNumericType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (IsComplex<T>::value) {
      ADD_FAILURE() << "ToDoubles: complex tensors are not supported";
    } else {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        out.push_back(static_cast<double>(p[i]));
      }
    }
  });
  if (!known) {
    ADD_FAILURE() << "ToDoubles: " << DataTypeName(t.dtype())
                  << " is not numeric";
  }
  return out;
}

void ExpectTensorEqual(const Tensor& actual, const Tensor& expected) {
  if (!SameDtypeAndShape(actual, expected)) return;
  if (actual.dtype() == DT_STRING) {
    const std::string* a = actual.data<std::string>();
    const std::string* e = expected.data<std::string>();
    ReportDifferences(
        actual, [&](int64_t i) { return a[i] != e[i]; },
        [&](int64_t i) {
          return "got '" + a[i] + "', expected '" + e[i] + "'";
        });
    return;
  }
  const bool known = VisitNumericType(actual.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* a = actual.data<T>();
    const T* e = expected.data<T>();
    ReportDifferences(
        actual, [&](int64_t i) { return !ElementsEqual(a[i], e[i]); },
        [&](int64_t i) {
          return "got " + ValueString(a[i]) + ", expected " + ValueString(e[i]);
        });
  });
  if (!known) {
    ADD_FAILURE() << "ExpectTensorEqual: cannot compare "
                  << DataTypeName(actual.dtype()) << " tensors";
  }
}

void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol,
                      double rtol) {
  if (!SameDtypeAndShape(actual, expected)) return;
  const std::vector<double> a = ToDoubles(actual);
  const std::vector<double> e = ToDoubles(expected);
  if (a.size() != e.size()) return;  // ToDoubles reported why
  ReportDifferences(
      actual,
      [&](int64_t i) {
        if (std::isnan(a[i]) || std::isnan(e[i])) {
          return !(std::isnan(a[i]) && std::isnan(e[i]));
        }
        if (std::isinf(a[i]) || std::isinf(e[i])) return a[i] != e[i];
        return !(std::fabs(a[i] - e[i]) <= atol + rtol * std::fabs(e[i]));
      },
      [&](int64_t i) {
        std::ostringstream os;
        os.precision(17);
        os << "got " << a[i] << ", expected " << e[i] << " (difference "
           << std::fabs(a[i] - e[i]) << ", allowed "
           << atol + rtol * std::fabs(e[i]) << ")";
        return os.str();
      });
}

// ---------------------------------------------------------------------------
// OpRunner

OpRunner::OpRunner(std::string op, AttrMap attrs, int threads)
    : op_(std::move(op)), attrs_(std::move(attrs)) {
  if (threads > 0) {
    arena_ = std::make_unique<tbb::task_arena>(threads);
    arena_->initialize();
  }
  device_ = std::make_unique<CpuDevice>("cpu:0", arena_.get());
}

OpRunner::~OpRunner() = default;

Status MakeTestNode(const std::string& op, const AttrMap& attrs,
                    const std::vector<DataType>& input_types, NodeDef* node,
                    NodeTypes* types) {
  WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                        OpRegistry::Global()->LookUp(op));
  const OpDef& op_def = reg->op_def;

  NodeDef& def = *node;
  def = NodeDef();
  def.name = "kernel_test/" + op;
  def.op = op;
  def.attr = attrs;
  for (size_t i = 0; i < input_types.size(); ++i) {
    def.input.push_back("input" + std::to_string(i));
  }

  // How many inputs each input arg takes: one, or for a list arg the count
  // its attr gives; a single list arg of unknown length takes the rest.
  const int num_args = static_cast<int>(op_def.input_arg.size());
  std::vector<int> counts(num_args, 1);
  int unknown_list = -1;
  int known = 0;
  for (int k = 0; k < num_args; ++k) {
    const OpDef::ArgDef& arg = op_def.input_arg[k];
    const std::string& len_attr =
        !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
    if (len_attr.empty()) {
      known += 1;
      continue;
    }
    auto it = def.attr.find(len_attr);
    if (it == def.attr.end()) {
      if (unknown_list >= 0) {
        return errors::InvalidArgument("OpRunner: op '", op,
                                       "' has several list inputs; give attr '",
                                       len_attr, "' explicitly");
      }
      unknown_list = k;
      continue;
    }
    counts[k] = it->second.kind == AttrValue::Kind::kInt
                    ? static_cast<int>(it->second.i)
                    : static_cast<int>(it->second.list->size());
    known += counts[k];
  }
  if (unknown_list >= 0) {
    counts[unknown_list] = static_cast<int>(input_types.size()) - known;
    if (counts[unknown_list] < 0) {
      return errors::InvalidArgument("OpRunner: op '", op, "' needs at least ",
                                     known, " inputs, got ",
                                     input_types.size());
    }
  }

  // Infer the attrs the caller left out from the inputs' dtypes.
  size_t next = 0;
  for (int k = 0; k < num_args && next <= input_types.size(); ++k) {
    const OpDef::ArgDef& arg = op_def.input_arg[k];
    const int n = counts[k];
    if (next + n > input_types.size()) break;  // ValidateNode reports the count
    if (!arg.number_attr.empty() && !def.attr.count(arg.number_attr)) {
      def.attr[arg.number_attr] = AttrValue::Int(n);
    }
    if (!arg.type_attr.empty() && !def.attr.count(arg.type_attr) && n > 0) {
      def.attr[arg.type_attr] = AttrValue::Type(input_types[next]);
    }
    if (!arg.type_list_attr.empty() && !def.attr.count(arg.type_list_attr)) {
      std::vector<DataType> list;
      for (int i = 0; i < n; ++i) list.push_back(input_types[next + i]);
      def.attr[arg.type_list_attr] = AttrValue::TypeList(list);
    }
    next += n;
  }

  WEFT_ASSIGN_OR_RETURN(*types, ValidateNode(op_def, &def));
  for (size_t i = 0; i < input_types.size(); ++i) {
    if (input_types[i] != types->input_types[i]) {
      return errors::InvalidArgument("OpRunner: input ", i, " is ",
                                     DataTypeName(input_types[i]), " but node ",
                                     def.name, " expects ",
                                     DataTypeName(types->input_types[i]));
    }
  }
  return Status();
}

Status OpRunner::Prepare(const std::vector<Tensor>& inputs) {
  std::vector<DataType> input_types;
  for (const Tensor& t : inputs) input_types.push_back(t.dtype());
  NodeTypes types;
  WEFT_RETURN_IF_ERROR(MakeTestNode(op_, attrs_, input_types, &node_, &types));
  WEFT_ASSIGN_OR_RETURN(const OpRegistrationData* reg,
                        OpRegistry::Global()->LookUp(op_));
  const OpDef& op_def = reg->op_def;
  kernel_.reset();
  WEFT_ASSIGN_OR_RETURN(kernel_, KernelRegistry::Global()->CreateKernel(
                                     node_, op_def, types, device_.get()));
  return Status();
}

StatusOr<std::vector<Tensor>> OpRunner::Run(std::vector<Tensor> inputs) {
  WEFT_RETURN_IF_ERROR(Prepare(inputs));

  std::vector<const Tensor*> input_ptrs;
  for (const Tensor& t : inputs) input_ptrs.push_back(&t);
  std::unique_ptr<bool[]> forwardable(new bool[inputs.size() + 1]);
  for (size_t i = 0; i < inputs.size(); ++i) forwardable[i] = forwardable_;
  std::vector<Tensor> outputs(kernel_->num_outputs());

  OpKernelContext::Params params;
  params.device = device_.get();
  params.kernel = kernel_.get();
  params.inputs = input_ptrs;
  params.forwardable_inputs =
      absl::Span<const bool>(forwardable.get(), inputs.size());
  params.outputs = absl::MakeSpan(outputs);
  OpKernelContext ctx(&params);
  if (arena_ != nullptr) {
    arena_->execute([&] { kernel_->Compute(&ctx); });
  } else {
    kernel_->Compute(&ctx);
  }
  WEFT_RETURN_IF_ERROR(ctx.status());

  for (int i = 0; i < kernel_->num_outputs(); ++i) {
    if (!outputs[i].IsInitialized()) {
      return errors::Internal(kernel_->node_label(), ": kernel left output ", i,
                              " unset");
    }
    if (outputs[i].dtype() != kernel_->output_type(i)) {
      return errors::Internal(kernel_->node_label(), ": output ", i, " is ",
                              DataTypeName(outputs[i].dtype()),
                              " but the op declares ",
                              DataTypeName(kernel_->output_type(i)));
    }
  }
  return outputs;
}

ParallelForFn SplitOverThreads(int threads) {
  return [threads](int64_t n, int64_t,
                   const std::function<void(int64_t, int64_t)>& fn) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
      if (begin < end) pool.emplace_back([&fn, begin, end] { fn(begin, end); });
    }
    for (std::thread& th : pool) th.join();
  };
}

}  // namespace weft::test
