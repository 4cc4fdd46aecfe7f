// The kernel registry fed the way a session feeds it: an op built from spec
// strings, a node validated against it (defaults filled, signature
// resolved), then lookup, construction and Compute.
#include <memory>
#include <string>
#include <vector>

#include "core/tensor_types.h"
#include "device/cpu_device.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"
#include "ops/common_shape_fns.h"
#include "ops/op_def_builder.h"
#include "ops/op_def_util.h"

namespace weft {
namespace {

using register_kernel::Name;

// sum = inputs[0] + ... + inputs[N-1], written into the first input that
// may be taken over.
template <typename T>
class SumListOp : public OpKernel {
 public:
  explicit SumListOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("N", &n_));
  }

  void Compute(OpKernelContext* ctx) const override {
    absl::Span<const Tensor* const> inputs;
    OP_REQUIRES_OK(ctx, ctx->input_list("inputs", &inputs));
    OP_REQUIRES(ctx, static_cast<int64_t>(inputs.size()) == n_,
                errors::Internal("expected ", n_, " inputs"));
    for (const Tensor* t : inputs) {
      OP_REQUIRES(ctx, t->shape() == inputs[0]->shape(),
                  errors::InvalidArgument("inputs must have equal shapes, got ",
                                          inputs[0]->shape().DebugString(),
                                          " and ", t->shape().DebugString()));
    }
    std::vector<int> candidates;
    for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
      candidates.push_back(i);
    }
    Tensor* out = nullptr;
    int forwarded = -1;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output(
                       candidates, 0, inputs[0]->shape(), &out, &forwarded));
    // A forwarded output already holds that input's values.
    auto acc = out->flat<T>();
    if (forwarded < 0) acc.setZero();
    for (int i = 0; i < static_cast<int>(inputs.size()); ++i) {
      if (i != forwarded) acc += inputs[i]->flat<T>();
    }
  }

 private:
  int64_t n_ = 0;
};

class ValidatedNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<OpRegistrationData> data =
        OpDefBuilder("WeftSumList")
            .Input("inputs: N * T")
            .Output("sum: T")
            .Attr("N: int >= 1")
            .Attr("T: {float, int32, int64} = float")
            .SetShapeFn(shape_inference::UnknownShape)
            .Finalize();
    ASSERT_TRUE(data.ok()) << data.status();
    op_ = data->op_def;
    ASSERT_TRUE(
        registry_
            .Register(
                *Name("WeftSumList")
                     .Device(DEVICE_CPU)
                     .TypeConstraint<float>("T")
                     .Build(),
                [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
                  return std::make_unique<SumListOp<float>>(c);
                },
                "sum_float")
            .ok());
  }

  // A node summing `n` inputs, validated; `type` left unset uses the
  // default.
  StatusOr<NodeTypes> Validate(NodeDef* node, int n) {
    node->name = "total";
    node->op = "WeftSumList";
    for (int i = 0; i < n; ++i) node->input.push_back("x" + std::to_string(i));
    node->attr["N"] = AttrValue::Int(n);
    return ValidateNode(op_, node);
  }

  OpDef op_;
  KernelRegistry registry_;
};

TEST_F(ValidatedNodeTest, DefaultTypeSelectsTheFloatKernelAndRuns) {
  NodeDef node;
  StatusOr<NodeTypes> types = Validate(&node, 3);
  ASSERT_TRUE(types.ok()) << types.status();
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry_.CreateKernel(node, op_, *types, &device);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_EQ((*kernel)->num_inputs(), 3);
  EXPECT_EQ((*kernel)->num_outputs(), 1);
  int start = -1;
  int stop = -1;
  ASSERT_TRUE((*kernel)->InputRange("inputs", &start, &stop).ok());
  EXPECT_EQ(start, 0);
  EXPECT_EQ(stop, 3);

  Tensor a(DT_FLOAT, TensorShape({2}));
  Tensor b(DT_FLOAT, TensorShape({2}));
  Tensor c(DT_FLOAT, TensorShape({2}));
  a.flat<float>().setValues({1, 2});
  b.flat<float>().setValues({10, 20});
  c.flat<float>().setValues({100, 200});
  Tensor b_holder = b;  // b is shared: only c may be taken over
  const Tensor* inputs[] = {&a, &b, &c};
  bool forwardable[] = {false, true, true};
  Tensor out;
  OpKernelContext::Params params;
  params.device = &device;
  params.kernel = kernel->get();
  params.inputs = inputs;
  params.forwardable_inputs = forwardable;
  params.outputs = absl::Span<Tensor>(&out, 1);
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  ASSERT_TRUE(ctx.status().ok()) << ctx.status();
  EXPECT_TRUE(out.SharesBufferWith(c));
  EXPECT_FALSE(out.SharesBufferWith(b));
  EXPECT_EQ(out.flat<float>()(0), 111.0f);
  EXPECT_EQ(out.flat<float>()(1), 222.0f);
}

TEST_F(ValidatedNodeTest, ComputeErrorNamesTheNode) {
  NodeDef node;
  StatusOr<NodeTypes> types = Validate(&node, 2);
  ASSERT_TRUE(types.ok()) << types.status();
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry_.CreateKernel(node, op_, *types, &device);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Tensor a(DT_FLOAT, TensorShape({2}));
  Tensor b(DT_FLOAT, TensorShape({3}));
  const Tensor* inputs[] = {&a, &b};
  Tensor out;
  OpKernelContext::Params params;
  params.device = &device;
  params.kernel = kernel->get();
  params.inputs = inputs;
  params.outputs = absl::Span<Tensor>(&out, 1);
  OpKernelContext ctx(&params);
  (*kernel)->Compute(&ctx);
  EXPECT_EQ(ctx.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ctx.status().message(),
            "node 'total' (WeftSumList): inputs must have equal shapes, got "
            "[2] and [3]");
}

TEST_F(ValidatedNodeTest, UnregisteredTypeMissesWithTheRegistryMessage) {
  NodeDef node;
  node.attr["T"] = AttrValue::Type(DT_INT64);
  StatusOr<NodeTypes> types = Validate(&node, 2);
  ASSERT_TRUE(types.ok()) << types.status();
  CpuDevice device("cpu:0", nullptr);
  StatusOr<std::unique_ptr<OpKernel>> kernel =
      registry_.CreateKernel(node, op_, *types, &device);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().message(),
            "node 'total' (WeftSumList): no kernel for op 'WeftSumList' on "
            "device CPU with T=int64; registered: CPU{T in [float]}");
}

}  // namespace
}  // namespace weft
