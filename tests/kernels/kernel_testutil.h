// Test harness for kernels: builds tensors from literals, runs one op's
// registered kernel on given inputs the way the executor would (node
// validated against the registered op, kernel looked up in the global
// KernelRegistry, OpKernelContext with input forwarding, the CPU device's
// arena for intra-op parallelism), and compares results.
//
//   OpRunner add("AddV2");  // attr T inferred from the inputs
//   StatusOr<std::vector<Tensor>> out =
//       add.Run({AsTensor<float>({1, 2}, {2}), AsScalar<float>(3)});
//   ASSERT_TRUE(out.ok()) << out.status();
//   ExpectTensorEqual((*out)[0], AsTensor<float>({4, 5}, {2}));
#ifndef WEFT_TESTS_KERNELS_KERNEL_TESTUTIL_H_
#define WEFT_TESTS_KERNELS_KERNEL_TESTUTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <oneapi/tbb/task_arena.h>

#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"
#include "core/types.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/op_kernel.h"
#include "ops/attr_value.h"
#include "ops/node_def.h"
#include "ops/op_def_util.h"

namespace weft::test {

// Run's input vector built by moving (or copying) each argument in. A braced
// list {x, y} copies its elements and keeps the copies alive until the end
// of the full expression, so inputs given that way are always shared during
// Run and never forwarded; Inputs(std::move(x), y) hands x over alone.
template <typename... Ts>
std::vector<Tensor> Inputs(Ts&&... tensors) {
  std::vector<Tensor> v;
  v.reserve(sizeof...(Ts));
  (v.emplace_back(std::forward<Ts>(tensors)), ...);
  return v;
}

// A tensor of `shape` holding `values` in row-major order. A count that
// does not match the shape is a test failure (the tensor is then zeros).
template <typename T>
Tensor AsTensor(const std::vector<T>& values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    ADD_FAILURE() << "AsTensor: " << values.size() << " values for shape "
                  << shape.DebugString();
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      t.data<T>()[i] = T();
    }
    return t;
  }
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

template <typename T>
Tensor AsScalar(const T& value) {
  return AsTensor<T>({value}, TensorShape());
}

// `values` converted to `dtype` (any numeric dtype or bool): the way to write
// one literal for several dtypes, and for half and bfloat16, which have no
// literals. Values must be exactly representable where exactness matters.
Tensor AsTensorOfType(DataType dtype, const std::vector<double>& values,
                      const TensorShape& shape);

// The elements of a numeric or bool tensor as doubles (complex: not
// supported, a test failure).
std::vector<double> ToDoubles(const Tensor& t);

// Half the distance from 1 to the next value of a floating dtype (2^-24
// for float, 2^-11 for half, 2^-8 for bfloat16, 2^-53 for double): the
// relative error of one correctly rounded operation. 0 for other dtypes.
double UnitRoundoff(DataType dtype);

// Same dtype, same shape and equal elements; floating NaN equals NaN (and,
// as with ==, -0 equals 0).
// Strings, bool and complex are compared too. Reports every difference (up
// to ten) as a test failure.
void ExpectTensorEqual(const Tensor& actual, const Tensor& expected);

// Same dtype and shape, and |actual - expected| <= atol + rtol * |expected|
// per element; NaN must meet NaN and an infinity the same infinity. Numeric
// dtypes only (not complex).
void ExpectTensorNear(const Tensor& actual, const Tensor& expected, double atol,
                      double rtol);

// The node OpRunner runs: op `op` with `attrs` and one data input per entry
// of `input_types`, the type attrs ("T", list(type) attrs) and number attrs
// ("N") the caller left out inferred from those types, validated against
// the registered op. Also what device-specific runners (the CUDA one) build
// their nodes with.
Status MakeTestNode(const std::string& op, const AttrMap& attrs,
                    const std::vector<DataType>& input_types, NodeDef* node,
                    NodeTypes* types);

// Runs one op's CPU kernel outside any session.
class OpRunner {
 public:
  // `attrs` are the node's attrs; those the caller leaves out are filled:
  // type attrs ("T", a list(type) attr) and number attrs ("N") from the
  // inputs given to Run, the rest from the op's defaults. `threads` = 0 runs
  // on the calling thread with no arena; k > 0 gives the device a
  // tbb::task_arena of k threads and runs Compute inside it, as a session
  // created with threads = k does.
  explicit OpRunner(std::string op, AttrMap attrs = {}, int threads = 0);
  ~OpRunner();

  // Whether the kernel may take over the inputs' buffers (the executor's
  // "last reader" flag). Default true: an input the caller moved in (see
  // Inputs), and so holds nowhere else, may become an output.
  void set_forwardable(bool forwardable) { forwardable_ = forwardable; }

  // Validates a node with inputs.size() data inputs, creates its kernel in
  // the global registry, runs it once and returns the outputs. Errors: op
  // lookup, validation, kernel lookup or construction, and the kernel's
  // own status, all as the registry and context word them.
  StatusOr<std::vector<Tensor>> Run(std::vector<Tensor> inputs);

  // The validated node and the kernel of the last successful creation.
  const NodeDef& node() const { return node_; }
  const OpKernel* kernel() const { return kernel_.get(); }
  const CpuDevice& device() const { return *device_; }

 private:
  // Builds and validates the node for `inputs`; creates the kernel.
  Status Prepare(const std::vector<Tensor>& inputs);

  std::string op_;
  AttrMap attrs_;
  bool forwardable_ = true;
  std::unique_ptr<tbb::task_arena> arena_;
  std::unique_ptr<CpuDevice> device_;
  NodeDef node_;
  std::unique_ptr<OpKernel> kernel_;
};

// A ParallelForFn that splits the units over `threads` std::threads, a
// contiguous range each, joined before it returns: how the tests of the
// math layer (kernels/cpu/*.h) run a kernel on several threads without an
// arena.
ParallelForFn SplitOverThreads(int threads);

}  // namespace weft::test

#endif  // WEFT_TESTS_KERNELS_KERNEL_TESTUTIL_H_
