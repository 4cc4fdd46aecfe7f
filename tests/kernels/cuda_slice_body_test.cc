// Host checks of the CUDA data-movement kernels (Slice, StridedSlice, Pad,
// PadV2, MirrorPad, GatherV2, Fill, ZerosLike, OnesLike). Each test plans
// the op with the function its CUDA kernel class calls
// (kernels/cuda/plan/movement_plan.h), runs the kernel's per-element body
// (kernels/cuda/*_body.h) on the host over every output index, with the
// element type the device instantiates (an unsigned integer of the
// element's size), and compares with the CPU kernel on the same inputs.
// Errors must carry the CPU kernel's message. Runs without GPU or CUDA.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/tensor.h"
#include "gtest/gtest.h"
#include "kernels/common/copy_util.h"
#include "kernels/cuda/gather_body.h"
#include "kernels/cuda/pad_body.h"
#include "kernels/cuda/plan/movement_plan.h"
#include "kernels/cuda/slice_body.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/index_tensor_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace cuda_slice_body_test {

const DataType kTypes[] = {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64, DT_BOOL};

// Calls fn(E{}) with the unsigned type of `dtype`'s element size, as the
// launchers in slice_ops_gpu.cu do.
template <typename Fn>
void WithElement(DataType dtype, Fn&& fn) {
  switch (DataTypeSize(dtype)) {
    case 1:
      fn(uint8_t{});
      break;
    case 2:
      fn(uint16_t{});
      break;
    case 4:
      fn(uint32_t{});
      break;
    case 8:
      fn(uint64_t{});
      break;
    default:
      ADD_FAILURE() << "element size " << DataTypeSize(dtype);
  }
}

template <typename E>
std::vector<E> Elements(const Tensor& t) {
  std::vector<E> v(t.NumElements());
  if (!v.empty()) std::memcpy(v.data(), t.raw_data(), v.size() * sizeof(E));
  return v;
}

template <typename E>
void Store(const std::vector<E>& v, Tensor* t) {
  if (!v.empty()) std::memcpy(t->raw_data(), v.data(), v.size() * sizeof(E));
}

TensorShape Shape(const std::vector<int64_t>& dims) {
  StatusOr<TensorShape> shape = TensorShape::Build(dims);
  EXPECT_TRUE(shape.ok()) << shape.status();
  return shape.ok() ? *shape : TensorShape();
}

// Random values of `dtype`; float inputs also get NaN, infinities and -0 so
// that the copies are seen to move bits, not values.
Tensor Random(DataType dtype, const TensorShape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = RandomTensor(dtype, shape, Values::kWide, &rng);
  if (dtype == DT_FLOAT && t.NumElements() >= 4) {
    float* p = t.data<float>();
    p[0] = std::numeric_limits<float>::quiet_NaN();
    p[1] = std::numeric_limits<float>::infinity();
    p[2] = -std::numeric_limits<float>::infinity();
    p[3] = -0.0f;
  }
  return t;
}

StatusOr<Tensor> RunCpu(const std::string& op, const AttrMap& attrs,
                        const std::vector<Tensor>& inputs) {
  OpRunner cpu(op, attrs);
  cpu.set_forwardable(false);
  WEFT_ASSIGN_OR_RETURN(std::vector<Tensor> out, cpu.Run(inputs));
  return out[0];
}

// The plan's error must be the CPU kernel's.
void ExpectSameError(const Status& gpu, const StatusOr<Tensor>& cpu) {
  ASSERT_FALSE(gpu.ok());
  ASSERT_FALSE(cpu.ok()) << "the CPU kernel accepts what the plan rejects: "
                         << gpu;
  EXPECT_EQ(gpu.code(), cpu.status().code());
  EXPECT_NE(
      std::string(cpu.status().message()).find(std::string(gpu.message())),
      std::string::npos)
      << "plan: " << gpu << "\ncpu: " << cpu.status();
}

// `got` (what the CUDA kernel's body computed) must be, bit for bit, what
// the CPU kernel computes from the same inputs.
void ExpectMatchesCpu(const Tensor& got, const std::string& op,
                      const AttrMap& attrs, const std::vector<Tensor>& inputs) {
  StatusOr<Tensor> want = RunCpu(op, attrs, inputs);
  ASSERT_TRUE(want.ok()) << want.status();
  ExpectTensorEqual(got, *want);
}

// What a kernel's per-element body computes from `input` into an output of
// `shape`: body(in, out, i) at every output index i, with the elements as
// the unsigned type of their size (as the launchers instantiate the
// bodies). Stops at the first fatal failure, such as a body's check that
// it reads inside the input.
template <typename Body>
Tensor RunBody(const Tensor& input, const TensorShape& shape, Body&& body) {
  Tensor out(input.dtype(), shape);
  const int64_t n = out.NumElements();
  if (n == 0) return out;
  WithElement(input.dtype(), [&](auto tag) {
    using E = decltype(tag);
    const std::vector<E> in = Elements<E>(input);
    std::vector<E> o(n);
    for (int64_t i = 0; i < n && !::testing::Test::HasFatalFailure(); ++i) {
      body(in.data(), o.data(), i);
    }
    Store(o, &out);
  });
  return out;
}

// The CUDA kernel's output for a slice plan: the input itself or the
// strided copy's body at every index.
Tensor RunSliceBody(const Tensor& input, const GpuSlicePlan& plan) {
  if (plan.forward_input) {
    StatusOr<Tensor> t = input.Reshaped(plan.shape);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? *t : Tensor();
  }
  return RunBody(input, plan.shape, [&](const auto* in, auto* out, int64_t i) {
    const int64_t s = gpu::StridedCopySource(plan.copy, i);
    ASSERT_TRUE(s >= 0 && s < input.NumElements())
        << "output " << i << " reads input " << s;
    gpu::StridedCopyElement(plan.copy, in, out, i);
  });
}

// ---- Slice -------------------------------------------------------------

struct SliceCase {
  std::vector<int64_t> shape, begin, size;
};

const SliceCase kSlices[] = {
    {{4, 5, 6}, {1, 0, 2}, {2, -1, 3}},
    {{}, {}, {}},
    {{0, 3}, {0, 1}, {0, 2}},
    {{3, 4}, {1, 4}, {2, 0}},
    {{1, 5, 1}, {0, 1, 0}, {1, 3, 1}},
    {{3, 4}, {0, 0}, {-1, -1}},
    {{3, 4}, {3, 0}, {0, 4}},
    {{7}, {6}, {1}},
    {{2, 3, 4}, {1, 0, 0}, {1, 3, 4}},  // a contiguous block: one dimension
    {{2, 2, 2, 2, 2, 2, 2, 2, 2, 2},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
     {2, 2, 2, 2, 2, 2, 2, 2, 2, 1}},  // rank 10, merges to 1
    {{64, 300, 17}, {3, 10, 1}, {50, 256, 15}},
};

TEST(CudaSliceBodyTest, SliceMatchesCpu) {
  int checked = 0;
  for (const SliceCase& c : kSlices) {
    for (DataType index : {DT_INT32, DT_INT64}) {
      for (DataType dtype : kTypes) {
        SCOPED_TRACE(Shape(c.shape).DebugString() + " begin " +
                     IndexListString(c.begin) + " size " +
                     IndexListString(c.size) + " " + DataTypeName(dtype));
        const Tensor input = Random(dtype, Shape(c.shape), 1);
        const Tensor begin = Vec(c.begin, index);
        const Tensor size = Vec(c.size, index);
        StatusOr<GpuSlicePlan> plan = PlanGpuSlice(input, begin, size);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunSliceBody(input, *plan), "Slice", {},
                         {input, begin, size});
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 11 * 2 * 5);
}

TEST(CudaSliceBodyTest, SliceErrorsAreTheCpuKernels) {
  const Tensor input = Random(DT_FLOAT, TensorShape({3, 4}), 2);
  const std::vector<std::vector<Tensor>> bad = {
      {Vec({0}), Vec({1})},         // one value for two dimensions
      {Vec({-1, 0}), Vec({1, 1})},  // negative begin
      {Vec({4, 0}), Vec({1, 1})},   // begin past the end
      {Vec({1, 0}), Vec({3, 1})},   // size past the end
      {Vec({1, 0}), Vec({-2, 1})},  // size below -1
  };
  for (const auto& b : bad) {
    StatusOr<GpuSlicePlan> plan = PlanGpuSlice(input, b[0], b[1]);
    ExpectSameError(plan.status(), RunCpu("Slice", {}, {input, b[0], b[1]}));
  }
}

// More dimensions than the kernel indexes, after merging, is Unimplemented
// on CUDA (the CPU kernel takes any rank).
TEST(CudaSliceBodyTest, SliceOfTooManyDimensionsIsUnimplemented) {
  const std::vector<int64_t> shape(9, 3);
  const Tensor input = Random(DT_FLOAT, Shape(shape), 3);
  StatusOr<GpuSlicePlan> plan = PlanGpuSlice(
      input, Vec(std::vector<int64_t>(9, 0)), Vec(std::vector<int64_t>(9, 2)));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented)
      << plan.status();
}

// ---- StridedSlice ------------------------------------------------------

struct StridedCase {
  std::vector<int64_t> shape, begin, end, strides;
  StridedSliceMasks masks;
};

StridedSliceMasks Masks(int64_t begin, int64_t end, int64_t ellipsis,
                        int64_t new_axis, int64_t shrink) {
  StridedSliceMasks m;
  m.begin = begin;
  m.end = end;
  m.ellipsis = ellipsis;
  m.new_axis = new_axis;
  m.shrink_axis = shrink;
  return m;
}

// The CPU kernel's attrs for `m`.
AttrMap MaskAttrs(const StridedSliceMasks& m) {
  AttrMap attrs;
  attrs["begin_mask"] = AttrValue::Int(m.begin);
  attrs["end_mask"] = AttrValue::Int(m.end);
  attrs["ellipsis_mask"] = AttrValue::Int(m.ellipsis);
  attrs["new_axis_mask"] = AttrValue::Int(m.new_axis);
  attrs["shrink_axis_mask"] = AttrValue::Int(m.shrink_axis);
  return attrs;
}

std::vector<StridedCase> StridedCases() {
  return {
      {{5, 6}, {1, -1}, {4, 0}, {1, -1}, Masks(0, 0, 0, 0, 0)},
      {{5, 6}, {4, 5}, {0, 0}, {-1, -2}, Masks(0, 0, 0, 0, 0)},
      {{5, 6, 7}, {0, 1}, {0, 3}, {1, 1}, Masks(0, 0, 1, 0, 0)},
      {{5, 6, 7}, {1, 0, 2}, {3, 0, 6}, {1, 1, 2}, Masks(0, 0, 2, 0, 0)},
      {{4, 5}, {0, 0, 1}, {0, 0, 3}, {1, 1, 1}, Masks(2, 2, 0, 1, 0)},
      {{4, 5}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, Masks(0, 0, 1, 2, 0)},
      {{4, 5, 6}, {2, 0, 0}, {3, 0, 0}, {1, 1, 1}, Masks(6, 6, 0, 0, 1)},
      {{4, 5, 6}, {-1, 0, -2}, {0, 0, 0}, {1, 1, 1}, Masks(2, 2, 0, 0, 5)},
      {{4, 5, 6}, {2, -1, 3}, {3, 0, 4}, {1, 1, 1}, Masks(0, 0, 0, 0, 7)},
      {{10}, {0}, {0}, {-2}, Masks(1, 1, 0, 0, 0)},
      {{10}, {0}, {0}, {-1}, Masks(1, 1, 0, 0, 0)},
      {{10}, {-100}, {100}, {3}, Masks(0, 0, 0, 0, 0)},
      {{10}, {100}, {-100}, {-4}, Masks(0, 0, 0, 0, 0)},
      {{5}, {3}, {1}, {1}, Masks(0, 0, 0, 0, 0)},
      {{0, 4}, {0}, {0}, {1}, Masks(1, 1, 0, 0, 0)},
      {{3, 4}, {0, 0}, {3, 4}, {1, 1}, Masks(0, 0, 0, 0, 0)},
      {{}, {0}, {0}, {1}, Masks(0, 0, 0, 1, 0)},
      {{1, 3, 1}, {0, 2, 0}, {1, -4, 1}, {1, -1, 1}, Masks(0, 0, 0, 0, 0)},
      {{256, 512}, {1, 511}, {255, 0}, {2, -1}, Masks(0, 2, 0, 0, 0)},
  };
}

TEST(CudaSliceBodyTest, StridedSliceMatchesCpu) {
  int checked = 0;
  for (const StridedCase& c : StridedCases()) {
    for (DataType index : {DT_INT32, DT_INT64}) {
      for (DataType dtype : kTypes) {
        SCOPED_TRACE(Shape(c.shape).DebugString() + " begin " +
                     IndexListString(c.begin) + " end " +
                     IndexListString(c.end) + " strides " +
                     IndexListString(c.strides) + " " + DataTypeName(dtype));
        const Tensor input = Random(dtype, Shape(c.shape), 4);
        const Tensor b = Vec(c.begin, index);
        const Tensor e = Vec(c.end, index);
        const Tensor s = Vec(c.strides, index);
        StatusOr<GpuSlicePlan> plan =
            PlanGpuStridedSlice(input, b, e, s, c.masks);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunSliceBody(input, *plan), "StridedSlice",
                         MaskAttrs(c.masks), {input, b, e, s});
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 19 * 2 * 5);
}

TEST(CudaSliceBodyTest, StridedSliceErrorsAreTheCpuKernels) {
  const Tensor input = Random(DT_FLOAT, TensorShape({3, 4}), 5);
  struct Bad {
    Tensor b, e, s;
    StridedSliceMasks masks;
  };
  const Bad bad[] = {
      {Vec({0, 0}), Vec({1, 1}), Vec({1, 0}), Masks(0, 0, 0, 0, 0)},
      {Vec({5}), Vec({6}), Vec({1}), Masks(0, 0, 0, 0, 1)},
      {Vec({0, 0, 0}), Vec({1, 1, 1}), Vec({1, 1, 1}), Masks(0, 0, 0, 0, 0)},
      {Vec({0, 0}), Vec({1, 1}), Vec({1, 1}), Masks(0, 0, 3, 0, 0)},
      {Ints(DT_INT32, {0, 0}, TensorShape({1, 2})), Vec({1, 1}), Vec({1, 1}),
       Masks(0, 0, 0, 0, 0)},
  };
  for (const Bad& c : bad) {
    StatusOr<GpuSlicePlan> plan =
        PlanGpuStridedSlice(input, c.b, c.e, c.s, c.masks);
    ExpectSameError(plan.status(), RunCpu("StridedSlice", MaskAttrs(c.masks),
                                          {input, c.b, c.e, c.s}));
  }
}

// ---- Pad, PadV2, MirrorPad ------------------------------------------------

// The CUDA kernel's output for a pad plan: the input itself or the pad
// body at every index.
Tensor RunPadBody(const Tensor& input, const GpuPadPlan& plan,
                  uint64_t value_bits) {
  if (plan.forward_input) return input;
  return RunBody(input, plan.shape, [&](const auto* in, auto* out, int64_t i) {
    using E = std::remove_pointer_t<decltype(out)>;
    const int64_t s = gpu::PadSource(plan.pad, i);
    ASSERT_TRUE(s >= -1 && s < input.NumElements())
        << "output " << i << " reads input " << s;
    gpu::PadElement(plan.pad, in, static_cast<E>(value_bits), out, i);
  });
}

// MirrorPad's attrs for `mode` (REFLECT or SYMMETRIC).
AttrMap ModeAttr(const std::string& mode) {
  AttrMap attrs;
  attrs["mode"] = AttrValue::String(mode);
  return attrs;
}

struct PadCase {
  std::vector<int64_t> shape, paddings;
  bool mirror;  // valid for REFLECT (and so SYMMETRIC) too
};

const PadCase kPads[] = {
    {{3, 4}, {1, 2, 0, 3}, true},
    {{2, 3, 4, 5}, {0, 0, 1, 1, 2, 2, 0, 0}, true},
    {{2, 3, 4, 5}, {1, 0, 0, 0, 0, 0, 0, 2}, true},
    {{}, {}, true},
    {{3, 4}, {0, 0, 0, 0}, true},
    {{1, 4, 2}, {0, 0, 1, 1, 1, 0}, true},
    {{1, 4, 1}, {0, 0, 1, 1, 0, 0}, true},
    {{5}, {4, 4}, true},
    {{2, 1, 3}, {0, 0, 1, 1, 0, 0}, false},  // SYMMETRIC up to 1 only
    {{1}, {1, 1}, false},
    {{0, 3}, {1, 1, 0, 0}, false},
    {{0, 3}, {0, 0, 1, 1}, false},
    {{2, 2, 2, 2, 2, 2, 2, 2, 2},
     {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
     true},  // rank 9, merges to 4
    {{128, 64, 32}, {1, 1, 2, 3, 0, 0}, true},
};

TEST(CudaSliceBodyTest, PadMatchesCpu) {
  int checked = 0;
  for (const PadCase& c : kPads) {
    const int64_t rank = static_cast<int64_t>(c.shape.size());
    for (DataType dtype : kTypes) {
      SCOPED_TRACE(Shape(c.shape).DebugString() + " paddings " +
                   IndexListString(c.paddings) + " " + DataTypeName(dtype));
      const Tensor input = Random(dtype, Shape(c.shape), 6);
      const Tensor paddings = Ints(dtype == DT_HALF ? DT_INT64 : DT_INT32,
                                   c.paddings, TensorShape({rank, 2}));
      // Pad: zero.
      {
        StatusOr<GpuPadPlan> plan =
            PlanGpuPad(input, paddings, PadMode::kConstant);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunPadBody(input, *plan, 0), "Pad", {},
                         {input, paddings});
        ++checked;
      }
      // PadV2: a random constant.
      {
        const Tensor value = Random(dtype, TensorShape(), 7);
        StatusOr<uint64_t> bits = PadConstantBits(value);
        ASSERT_TRUE(bits.ok()) << bits.status();
        StatusOr<GpuPadPlan> plan =
            PlanGpuPad(input, paddings, PadMode::kConstant);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunPadBody(input, *plan, *bits), "PadV2", {},
                         {input, paddings, value});
        ++checked;
      }
      for (PadMode mode : {PadMode::kReflect, PadMode::kSymmetric}) {
        if (mode == PadMode::kReflect && !c.mirror) continue;
        if (c.shape.size() == 2 && c.shape[0] == 0 && c.paddings[0] > 0) {
          continue;  // nothing to mirror
        }
        const char* name = mode == PadMode::kReflect ? "REFLECT" : "SYMMETRIC";
        SCOPED_TRACE(name);
        StatusOr<GpuPadPlan> plan = PlanGpuPad(input, paddings, mode);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunPadBody(input, *plan, 0), "MirrorPad",
                         ModeAttr(name), {input, paddings});
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 51 * 5);
}

TEST(CudaSliceBodyTest, PadErrorsAreTheCpuKernels) {
  const Tensor input = Random(DT_FLOAT, TensorShape({3, 4}), 8);
  struct Bad {
    Tensor paddings;
    PadMode mode;
  };
  const Bad bad[] = {
      {Ints(DT_INT32, {1, 1}, TensorShape({1, 2})), PadMode::kConstant},
      {Ints(DT_INT32, {1, 1, 1, 1}, TensorShape({4})), PadMode::kConstant},
      {Ints(DT_INT32, {0, -1, 0, 0}, TensorShape({2, 2})), PadMode::kConstant},
      {Ints(DT_INT32, {3, 0, 0, 0}, TensorShape({2, 2})), PadMode::kReflect},
      {Ints(DT_INT32, {0, 0, 0, 5}, TensorShape({2, 2})), PadMode::kSymmetric},
  };
  for (const Bad& c : bad) {
    StatusOr<GpuPadPlan> plan = PlanGpuPad(input, c.paddings, c.mode);
    if (c.mode == PadMode::kConstant) {
      ExpectSameError(plan.status(), RunCpu("Pad", {}, {input, c.paddings}));
    } else {
      ExpectSameError(plan.status(), RunCpu("MirrorPad",
                                            ModeAttr(c.mode == PadMode::kReflect
                                                         ? "REFLECT"
                                                         : "SYMMETRIC"),
                                            {input, c.paddings}));
    }
  }
  const Tensor paddings = Ints(DT_INT32, {1, 1, 1, 1}, TensorShape({2, 2}));
  const Tensor vector_value = Random(DT_FLOAT, TensorShape({1}), 9);
  ExpectSameError(PadConstantBits(vector_value).status(),
                  RunCpu("PadV2", {}, {input, paddings, vector_value}));
}

// ---- GatherV2 ----------------------------------------------------------

template <typename E, typename Index>
void GatherBody(const GpuGatherPlan& plan, const E* params,
                const Index* indices, E* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    gpu::GatherElement(plan.gather, params, indices, out, i);
  }
}

Tensor RunGatherBody(const Tensor& params, const Tensor& indices,
                     const GpuGatherPlan& plan) {
  const bool wide = indices.dtype() == DT_INT64;
  const int64_t* i64 = wide ? indices.data<int64_t>() : nullptr;
  const int32_t* i32 = wide ? nullptr : indices.data<int32_t>();
  return RunBody(params, plan.shape, [&](const auto* p, auto* out, int64_t i) {
    if (wide) {
      gpu::GatherElement(plan.gather, p, i64, out, i);
    } else {
      gpu::GatherElement(plan.gather, p, i32, out, i);
    }
  });
}

// GatherV2's attrs for `batch_dims`.
AttrMap BatchDimsAttr(int64_t batch_dims) {
  AttrMap attrs;
  attrs["batch_dims"] = AttrValue::Int(batch_dims);
  return attrs;
}

struct GatherCase {
  std::vector<int64_t> params, indices, values;
  int64_t axis, batch_dims;
};

std::vector<GatherCase> GatherCases() {
  std::vector<int64_t> large(5000);
  for (size_t i = 0; i < large.size(); ++i) large[i] = (i * 7919) % 1000;
  return {
      {{5, 3}, {4}, {0, 4, 2, 2}, 0, 0},
      {{5, 3}, {4}, {0, 2, 1, 1}, 1, 0},
      {{2, 5, 3}, {2, 2}, {1, 0, 2, 2}, 1, 0},
      {{2, 5, 3}, {3}, {2, 0, 1}, -1, 0},
      {{2, 5, 3}, {3}, {4, 0, 1}, -2, 0},
      {{5, 3}, {}, {3}, 0, 0},
      {{5}, {}, {3}, 0, 0},
      {{5, 3}, {0}, {}, 0, 0},
      {{0, 5}, {2}, {1, 4}, 1, 0},
      {{5, 0}, {2}, {1, 4}, 0, 0},
      {{1, 1, 1}, {2, 2}, {0, 0, 0, 0}, 1, 0},
      {{2, 5, 3}, {2, 4}, {0, 4, 1, 1, 3, 3, 2, 0}, 1, 1},
      {{2, 5, 3}, {2, 4}, {0, 4, 1, 1, 3, 3, 2, 0}, 1, -1},
      {{2, 3, 5, 4}, {2, 6}, {0, 1, 2, 3, 4, 0, 4, 3, 2, 1, 0, 4}, 2, 1},
      {{2, 3, 5}, {2, 3, 2}, {0, 4, 1, 1, 3, 3, 2, 0, 0, 0, 4, 4}, 2, 2},
      {{1000, 64}, {5000}, large, 0, 0},
  };
}

TEST(CudaSliceBodyTest, GatherMatchesCpu) {
  int checked = 0;
  for (const GatherCase& c : GatherCases()) {
    for (DataType index : {DT_INT32, DT_INT64}) {
      for (DataType dtype : kTypes) {
        SCOPED_TRACE(Shape(c.params).DebugString() + " indices " +
                     Shape(c.indices).DebugString() + " axis " +
                     std::to_string(c.axis) + " batch_dims " +
                     std::to_string(c.batch_dims) + " " + DataTypeName(dtype));
        const Tensor params = Random(dtype, Shape(c.params), 10);
        const Tensor indices = Ints(index, c.values, Shape(c.indices));
        const Tensor axis = Ints(index == DT_INT32 ? DT_INT64 : DT_INT32,
                                 {c.axis}, TensorShape());
        StatusOr<GpuGatherPlan> plan =
            PlanGpuGather(params, indices, axis, c.batch_dims);
        ASSERT_TRUE(plan.ok()) << plan.status();
        ExpectMatchesCpu(RunGatherBody(params, indices, *plan), "GatherV2",
                         BatchDimsAttr(c.batch_dims), {params, indices, axis});
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 16 * 2 * 5);
}

// What the CUDA kernel does where the CPU kernel reports an error: an index
// outside [0, 5) gives a row of zeros, and nothing outside params is read.
// params sits between guard elements that no output may contain.
TEST(CudaSliceBodyTest, GatherOutOfRangeIndexGivesZerosAndReadsNoGuard) {
  const int64_t rows = 5, cols = 3;
  const uint32_t kGuard = 0xDEADBEEF;
  std::vector<uint32_t> buffer(rows * cols + 2 * 64, kGuard);
  uint32_t* params = buffer.data() + 64;
  for (int64_t i = 0; i < rows * cols; ++i) params[i] = 100 + i;
  const std::vector<int64_t> values = {
      -1, 5, 2, -64, 1000000, 4, std::numeric_limits<int64_t>::min()};
  for (DataType index : {DT_INT32, DT_INT64}) {
    const Tensor params_t =
        Random(DT_INT32, TensorShape({rows, cols}), 11);  // shape only
    const Tensor indices = index == DT_INT64
                               ? Vec(values, DT_INT64)
                               : Vec({-1, 5, 2, -64, 1000000, 4,
                                      std::numeric_limits<int32_t>::min()},
                                     DT_INT32);
    StatusOr<GpuGatherPlan> plan =
        PlanGpuGather(params_t, indices, Ints(DT_INT32, {0}, TensorShape()), 0);
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->shape, TensorShape({7, cols}));
    std::vector<uint32_t> out(7 * cols, 1);
    if (index == DT_INT64) {
      GatherBody(*plan, static_cast<const uint32_t*>(params),
                 indices.data<int64_t>(), out.data(), 7 * cols);
    } else {
      GatherBody(*plan, static_cast<const uint32_t*>(params),
                 indices.data<int32_t>(), out.data(), 7 * cols);
    }
    for (int64_t r = 0; r < 7; ++r) {
      for (int64_t k = 0; k < cols; ++k) {
        const uint32_t got = out[r * cols + k];
        EXPECT_NE(got, kGuard) << "row " << r << " read outside params";
        const uint32_t want = r == 2   ? 100 + 2 * cols + k
                              : r == 5 ? 100 + 4 * cols + k
                                       : 0;
        EXPECT_EQ(got, want) << "row " << r << " column " << k;
      }
    }
    // The CPU kernel rejects the same indices.
    StatusOr<Tensor> cpu =
        RunCpu("GatherV2", {},
               {params_t, indices, Ints(DT_INT32, {0}, TensorShape())});
    EXPECT_FALSE(cpu.ok());
  }
}

TEST(CudaSliceBodyTest, GatherErrorsAreTheCpuKernels) {
  const Tensor params = Random(DT_FLOAT, TensorShape({2, 5, 3}), 12);
  const Tensor indices = Ints(DT_INT32, {0, 1, 2, 3}, TensorShape({2, 2}));
  const Tensor bad_batch = Ints(DT_INT32, {0, 1, 2}, TensorShape({3, 1}));
  struct Bad {
    Tensor params, indices, axis;
    int64_t batch_dims;
  };
  const Bad bad[] = {
      {params, indices, Ints(DT_INT32, {3}, TensorShape()), 0},
      {params, indices, Ints(DT_INT32, {-4}, TensorShape()), 0},
      {params, indices, Ints(DT_INT32, {0}, TensorShape({1})), 0},
      {params, indices, Ints(DT_INT32, {1}, TensorShape()), 3},
      {params, indices, Ints(DT_INT32, {0}, TensorShape()), 1},
      {params, bad_batch, Ints(DT_INT32, {1}, TensorShape()), 1},
      {Random(DT_FLOAT, TensorShape(), 13), indices,
       Ints(DT_INT32, {0}, TensorShape()), 0},
  };
  for (const Bad& c : bad) {
    StatusOr<GpuGatherPlan> plan =
        PlanGpuGather(c.params, c.indices, c.axis, c.batch_dims);
    ExpectSameError(plan.status(),
                    RunCpu("GatherV2", BatchDimsAttr(c.batch_dims),
                           {c.params, c.indices, c.axis}));
  }
}

// ---- Fill, ZerosLike, OnesLike -------------------------------------------

// The fill kernel: every element is the low bytes of `bits`.
Tensor RunFillBody(DataType dtype, const TensorShape& shape, uint64_t bits) {
  Tensor out(dtype, shape);
  WithElement(dtype, [&](auto tag) {
    using E = decltype(tag);
    std::vector<E> o(out.NumElements());
    for (E& e : o) e = static_cast<E>(bits);
    Store(o, &out);
  });
  return out;
}

TEST(CudaSliceBodyTest, FillMatchesCpu) {
  struct F {
    std::vector<int64_t> dims;
    TensorShape value;
  };
  const F fills[] = {
      {{2, 3}, TensorShape()},    {{}, TensorShape()},
      {{0, 4}, TensorShape()},    {{4}, TensorShape({1})},
      {{1, 1, 1}, TensorShape()}, {{(1 << 20) + 3}, TensorShape()},
  };
  int checked = 0;
  for (const F& f : fills) {
    for (DataType index : {DT_INT32, DT_INT64}) {
      for (DataType dtype : kTypes) {
        for (uint32_t seed : {14u, 15u}) {
          const Tensor dims = Vec(f.dims, index);
          const Tensor value = Random(dtype, f.value, seed);
          StatusOr<GpuFillPlan> plan = PlanGpuFill(dims, value);
          ASSERT_TRUE(plan.ok()) << plan.status();
          ExpectMatchesCpu(RunFillBody(dtype, plan->shape, plan->value_bits),
                           "Fill", {}, {dims, value});
          ++checked;
        }
      }
    }
  }
  // NaN and infinity move as bits.
  for (float v : {std::numeric_limits<float>::quiet_NaN(),
                  -std::numeric_limits<float>::infinity(), -0.0f}) {
    const Tensor dims = Vec({3});
    const Tensor value = AsScalar<float>(v);
    StatusOr<GpuFillPlan> plan = PlanGpuFill(dims, value);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ExpectMatchesCpu(RunFillBody(DT_FLOAT, plan->shape, plan->value_bits),
                     "Fill", {}, {dims, value});
  }
  EXPECT_EQ(checked, 6 * 2 * 5 * 2);
}

TEST(CudaSliceBodyTest, FillErrorsAreTheCpuKernels) {
  const Tensor value = AsScalar<float>(1);
  const std::vector<std::pair<Tensor, Tensor>> bad = {
      {Ints(DT_INT32, {2, 3}, TensorShape({1, 2})), value},
      {Vec({2, -3}), value},
      {Vec({2}), Random(DT_FLOAT, TensorShape({2}), 16)},
  };
  for (const auto& [dims, v] : bad) {
    ExpectSameError(PlanGpuFill(dims, v).status(),
                    RunCpu("Fill", {}, {dims, v}));
  }
}

TEST(CudaSliceBodyTest, ZerosLikeAndOnesLikeMatchCpu) {
  for (DataType dtype : kTypes) {
    for (const TensorShape& shape :
         {TensorShape(), TensorShape({0, 3}), TensorShape({3, 5})}) {
      const Tensor x = Random(dtype, shape, 17);
      ExpectMatchesCpu(RunFillBody(dtype, shape, 0), "ZerosLike", {}, {x});
      StatusOr<uint64_t> one = OneBits(dtype);
      ASSERT_TRUE(one.ok()) << one.status();
      ExpectMatchesCpu(RunFillBody(dtype, shape, *one), "OnesLike", {}, {x});
    }
  }
}

// The index inputs the plans read on the host are HostMemory in the CUDA
// kernels' definitions, and the data inputs are not (the executor places
// inputs by these declarations).
TEST(CudaSliceBodyTest, IndexInputsAreHostMemory) {
#if !WEFT_HAVE_CUDA
  GTEST_SKIP() << "weft was built without CUDA";
#else
  struct Op {
    const char* name;
    std::vector<DataType> inputs;
    std::vector<std::string> host;
  };
  const Op ops[] = {
      {"Slice", {DT_FLOAT, DT_INT32, DT_INT32}, {"begin", "size"}},
      {"StridedSlice",
       {DT_HALF, DT_INT64, DT_INT64, DT_INT64},
       {"begin", "end", "strides"}},
      {"Pad", {DT_INT32, DT_INT32}, {"paddings"}},
      {"PadV2", {DT_BOOL, DT_INT64, DT_BOOL}, {"paddings", "constant_values"}},
      {"MirrorPad", {DT_INT64, DT_INT32}, {"paddings"}},
      {"GatherV2", {DT_FLOAT, DT_INT64, DT_INT32}, {"axis"}},
      {"Fill", {DT_INT32, DT_HALF}, {"dims", "value"}},
      {"ZerosLike", {DT_BOOL}, {}},
      {"OnesLike", {DT_INT64}, {}},
  };
  for (const Op& op : ops) {
    SCOPED_TRACE(op.name);
    AttrMap attrs;
    if (std::string(op.name) == "MirrorPad") {
      attrs["mode"] = AttrValue::String("REFLECT");
    }
    NodeDef node;
    NodeTypes types;
    ASSERT_TRUE(MakeTestNode(op.name, attrs, op.inputs, &node, &types).ok());
    auto reg = OpRegistry::Global()->LookUp(op.name);
    ASSERT_TRUE(reg.ok()) << reg.status();
    auto found =
        KernelRegistry::Global()->FindKernel(node, (*reg)->op_def, DEVICE_CUDA);
    ASSERT_TRUE(found.ok()) << found.status();
    std::vector<std::string> host = (*found)->def.host_memory_args;
    std::sort(host.begin(), host.end());
    std::vector<std::string> want = op.host;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(host, want);
  }
#endif
}

}  // namespace cuda_slice_body_test
}  // namespace weft::test
