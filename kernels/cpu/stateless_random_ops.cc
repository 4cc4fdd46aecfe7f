// The stateless random ops on the CPU: the same inputs give the same
// numbers on every run, bit for bit TensorFlow's (see random_fill.h for the
// layout of the Philox stream over the output).
//
// V1 ops take a seed pair (int32 or int64), scrambled into a Philox key and
// counter as StatelessRandomGetKeyCounter does; V2 ops take that key [1],
// counter [>= 2] and an algorithm id, of which weft, like TensorFlow's CPU
// kernels, runs Philox (1) and auto-select (3, which means Philox). An
// empty output is returned before the bounds of the integer ops are read,
// as in TensorFlow ("zero impossible things are fine").
#include <cstdint>

#include "core/tensor.h"
#include "kernels/common/philox_random.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

constexpr int32_t kAlgPhilox = 1;
constexpr int32_t kAlgAutoSelect = 3;

// The seed pair of the V1 ops and of StatelessRandomGetKeyCounter[Alg].
Status ScrambledSeed(const Tensor& seed_t, const char* what, uint64_t* key,
                     uint64_t* counter0, uint64_t* counter1) {
  if (seed_t.dims() != 1 || seed_t.dim_size(0) != 2) {
    return errors::InvalidArgument(what, " must have shape [2], not ",
                                   seed_t.shape().DebugString());
  }
  uint64_t s0;
  uint64_t s1;
  if (seed_t.dtype() == DT_INT32) {
    // Sign-extended, as TensorFlow widens int32 seeds.
    s0 = static_cast<uint64_t>(int64_t{seed_t.data<int32_t>()[0]});
    s1 = static_cast<uint64_t>(int64_t{seed_t.data<int32_t>()[1]});
  } else if (seed_t.dtype() == DT_INT64) {
    s0 = static_cast<uint64_t>(seed_t.data<int64_t>()[0]);
    s1 = static_cast<uint64_t>(seed_t.data<int64_t>()[1]);
  } else {
    return errors::InvalidArgument(what, " must be int32 or int64, not ",
                                   DataTypeName(seed_t.dtype()));
  }
  philox::ScrambleSeed(s0, s1, key, counter0, counter1);
  return Status();
}

// The V2 ops' key (input 1), counter (input 2) and alg (input 3).
Status GeneratorFromKeyCounterAlg(const OpKernelContext* ctx,
                                  philox::Philox4x32* gen) {
  const Tensor& key = ctx->input(1);
  const Tensor& counter = ctx->input(2);
  const Tensor& alg_t = ctx->input(3);
  if (alg_t.dims() != 0) {
    return errors::InvalidArgument("alg (input 3) must have shape [], not ",
                                   alg_t.shape().DebugString());
  }
  int32_t alg = alg_t.data<int32_t>()[0];
  if (alg == kAlgAutoSelect) alg = kAlgPhilox;
  if (alg != kAlgPhilox) {
    return errors::InvalidArgument(
        "Unsupported algorithm id: ", alg,
        " (alg, input 3; the CPU kernels run Philox, 1, and auto-select, 3)");
  }
  if (key.dims() != 1 || key.dim_size(0) != 1) {
    return errors::InvalidArgument("key (input 1) must have shape [1], not ",
                                   key.shape().DebugString());
  }
  if (counter.dims() != 1 || counter.dim_size(0) < 2) {
    return errors::InvalidArgument(
        "counter (input 2) must be a vector with length at least 2 for "
        "Philox; got shape: ",
        counter.shape().DebugString());
  }
  const uint64_t* c = counter.data<uint64_t>();
  *gen = philox::FromKeyCounter(key.data<uint64_t>()[0], c[0], c[1]);
  return Status();
}

// StatelessRandom{Uniform,Normal}, StatelessTruncatedNormal,
// StatelessRandomUniformInt and their V2 forms, plus
// StatelessRandomUniformFullIntV2.
class StatelessRandomOp : public OpKernel {
 public:
  StatelessRandomOp(OpKernelConstruction* ctx, RandomDistribution dist, bool v2)
      : OpKernel(ctx), dist_(dist), v2_(v2) {}

  void Compute(OpKernelContext* ctx) const override {
    philox::Philox4x32 gen;
    if (v2_) {
      OP_REQUIRES_OK(ctx, GeneratorFromKeyCounterAlg(ctx, &gen));
    } else {
      uint64_t key, c0, c1;
      OP_REQUIRES_OK(
          ctx, ScrambledSeed(ctx->input(1), "seed (input 1)", &key, &c0, &c1));
      gen = philox::FromKeyCounter(key, c0, c1);
    }
    StatusOr<TensorShape> shape = RandomOutputShape(ctx->input(0));
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    uint64_t lo = 0;
    uint64_t range = 0;
    if (dist_ == RandomDistribution::kUniformInt) {
      const int min_input = v2_ ? 4 : 2;
      OP_REQUIRES_OK(
          ctx, ReadIntBounds(ctx->input(min_input), ctx->input(min_input + 1),
                             min_input, &lo, &range));
    }
    OP_REQUIRES_OK(ctx, FillPhiloxRandom(ctx, gen, dist_, out, lo, range));
  }

 private:
  const RandomDistribution dist_;
  const bool v2_;
};

template <RandomDistribution kDist, bool kV2>
class StatelessRandomKernel : public StatelessRandomOp {
 public:
  explicit StatelessRandomKernel(OpKernelConstruction* ctx)
      : StatelessRandomOp(ctx, kDist, kV2) {}
};

// StatelessRandomGetKeyCounterAlg and StatelessRandomGetKeyCounter: the
// scrambled seed as key [1] and counter [2] (and alg, Philox).
class GetKeyCounterOp : public OpKernel {
 public:
  explicit GetKeyCounterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    uint64_t key, c0, c1;
    OP_REQUIRES_OK(
        ctx, ScrambledSeed(ctx->input(0), "seed (input 0)", &key, &c0, &c1));
    Tensor* key_t = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({1}), &key_t));
    Tensor* counter_t = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({2}), &counter_t));
    key_t->data<uint64_t>()[0] = key;
    counter_t->data<uint64_t>()[0] = c0;
    counter_t->data<uint64_t>()[1] = c1;
    if (num_outputs() == 3) {
      Tensor* alg = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape(), &alg));
      alg->data<int32_t>()[0] = kAlgPhilox;
    }
  }

  bool IsExpensive() const override { return false; }
};

class GetAlgOp : public OpKernel {
 public:
  explicit GetAlgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    Tensor* alg = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &alg));
    alg->data<int32_t>()[0] = kAlgPhilox;
  }

  bool IsExpensive() const override { return false; }
};

const std::vector<DataType>& FloatTypes() {
  static const auto* types =
      new std::vector<DataType>{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return *types;
}

using Dist = RandomDistribution;

REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniform")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kUniform, false>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomNormal")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kNormal, false>);
REGISTER_KERNEL_BUILDER(Name("StatelessTruncatedNormal")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kTruncatedNormal, false>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformInt")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", {DT_INT32, DT_INT64}),
                        StatelessRandomKernel<Dist::kUniformInt, false>);

REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kUniform, true>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomNormalV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kNormal, true>);
REGISTER_KERNEL_BUILDER(Name("StatelessTruncatedNormalV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatelessRandomKernel<Dist::kTruncatedNormal, true>);
// int32 and int64 only, as TensorFlow's CPU kernels (the op also allows
// uint32 and uint64).
REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformIntV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", {DT_INT32, DT_INT64}),
                        StatelessRandomKernel<Dist::kUniformInt, true>);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomUniformFullIntV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", {DT_INT32, DT_INT64,
                                                      DT_UINT32, DT_UINT64}),
                        StatelessRandomKernel<Dist::kFullInt, true>);

REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounterAlg")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),
                        GetKeyCounterOp);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetKeyCounter")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tseed", {DT_INT32, DT_INT64}),
                        GetKeyCounterOp);
REGISTER_KERNEL_BUILDER(Name("StatelessRandomGetAlg").Device(DEVICE_CPU),
                        GetAlgOp);

}  // namespace
}  // namespace weft
