// The stateful random ops on the CPU: RandomUniform, RandomStandardNormal,
// RandomUniformInt and Multinomial.
//
// Each kernel instance owns one Philox stream, keyed as TensorFlow keys it:
// with seed or seed2 set, by (seed, seed2), so a fresh kernel's first run,
// and each run after it, give TensorFlow's numbers; with both 0, by two
// 64-bit seeds from std::random_device, different per kernel. Every run
// reserves the blocks it may use (256 words per output element, as
// TensorFlow reserves) by one atomic fetch_add on the instance's block
// offset, so concurrent runs of one kernel get disjoint parts of the stream
// without a lock; which run gets which part is then the order of the
// fetch_adds.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/dtype_traits.h"
#include "core/tensor.h"
#include "kernels/common/philox_random.h"
#include "kernels/cpu/random_fill.h"
#include "kernels/kernel_registry.h"
#include "kernels/op_kernel.h"

namespace weft {
namespace {

// The per-instance stream: a base generator and the blocks handed out.
class GuardedPhilox {
 public:
  explicit GuardedPhilox(OpKernelConstruction* ctx) {
    int64_t seed = 0;
    int64_t seed2 = 0;
    Status s = ctx->GetAttr("seed", &seed);
    if (s.ok()) s = ctx->GetAttr("seed2", &seed2);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    uint64_t s1 = static_cast<uint64_t>(seed);
    uint64_t s2 = static_cast<uint64_t>(seed2);
    if (s1 == 0 && s2 == 0) {
      std::random_device device;
      s1 = uint64_t{device()} << 32 | device();
      s2 = uint64_t{device()} << 32 | device();
    }
    base_ = philox::FromSeeds(s1, s2);
  }

  // The generator for a run that may use `blocks` blocks.
  philox::Philox4x32 Reserve(uint64_t blocks) const {
    const uint64_t start = offset_.fetch_add(blocks, std::memory_order_relaxed);
    philox::Philox4x32 gen = base_;
    gen.Skip(start);
    return gen;
  }

 private:
  philox::Philox4x32 base_;
  mutable std::atomic<uint64_t> offset_{0};
};

// RandomUniform, RandomStandardNormal and RandomUniformInt.
class StatefulRandomOp : public OpKernel {
 public:
  StatefulRandomOp(OpKernelConstruction* ctx, RandomDistribution dist)
      : OpKernel(ctx), dist_(dist), philox_(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    StatusOr<TensorShape> shape = RandomOutputShape(ctx->input(0));
    OP_REQUIRES_OK(ctx, shape.status());
    uint64_t lo = 0;
    uint64_t range = 0;
    if (dist_ == RandomDistribution::kUniformInt) {
      // Before the output, as TensorFlow checks them, even for an empty one.
      OP_REQUIRES_OK(
          ctx, ReadIntBounds(ctx->input(1), ctx->input(2), 1, &lo, &range));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const philox::Philox4x32 gen =
        philox_.Reserve(PhiloxBlocksReserved(out->NumElements()));
    OP_REQUIRES_OK(ctx, FillPhiloxRandom(ctx, gen, dist_, out, lo, range));
  }

 private:
  const RandomDistribution dist_;
  const GuardedPhilox philox_;
};

template <RandomDistribution kDist>
class StatefulRandomKernel : public StatefulRandomOp {
 public:
  explicit StatefulRandomKernel(OpKernelConstruction* ctx)
      : StatefulRandomOp(ctx, kDist) {}
};

// Multinomial: per row, the unnormalized CDF of exp(logit - max) in double
// over the finite logits, and per sample the first class whose CDF exceeds
// a uniform double (two words) times the total. The rows read one word
// stream in order, so the result matches TensorFlow's wherever TensorFlow
// does not split the batch over threads (its shards start at offsets that
// depend on the split); weft never splits it.
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), philox_(ctx) {}

  void Compute(OpKernelContext* ctx) const override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_t = ctx->input(1);
    OP_REQUIRES(ctx, logits.dims() == 2,
                errors::InvalidArgument(
                    "logits (input 0) should be a matrix, got shape ",
                    logits.shape().DebugString()));
    OP_REQUIRES(ctx, num_samples_t.dims() == 0,
                errors::InvalidArgument(
                    "num_samples (input 1) should be a scalar, got shape ",
                    num_samples_t.shape().DebugString()));
    const int64_t num_samples = num_samples_t.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, num_samples >= 0,
        errors::InvalidArgument(
            "num_samples (input 1) should be non-negative, got ", num_samples));
    const int64_t batch = logits.dim_size(0);
    const int64_t classes = logits.dim_size(1);
    OP_REQUIRES(ctx,
                batch <= std::numeric_limits<int32_t>::max() &&
                    classes <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(
                    "logits (input 0) dims cannot exceed max int, got shape ",
                    logits.shape().DebugString()));
    OP_REQUIRES(ctx, classes > 0,
                errors::InvalidArgument("num_classes should be positive, got ",
                                        classes));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
    if (out->NumElements() == 0) return;
    // Doubles take two words each: 2 * (samples rounded up to 4) per row.
    const int64_t words = batch * ((num_samples + 3) / 4 * 4) * 2;
    const philox::Philox4x32 gen = philox_.Reserve(PhiloxBlocksReserved(words));
    std::vector<double> logits_d(static_cast<size_t>(batch * classes));
    VisitLogits(logits, logits_d.data());
    std::vector<double> cdf(static_cast<size_t>(classes));
    std::vector<bool> finite(static_cast<size_t>(classes));
    philox::Philox4x32 g = gen;
    philox::Philox4x32::Block block{};
    int used = 4;
    auto word = [&]() {
      if (used == 4) {
        block = g.Next();
        used = 0;
      }
      return block[used++];
    };
    const bool out64 = out->dtype() == DT_INT64;
    for (int64_t b = 0; b < batch; ++b) {
      const double* row = logits_d.data() + b * classes;
      // The logits were converted exactly, so max and finiteness in double
      // are TensorFlow's in T.
      double max = std::numeric_limits<double>::lowest();
      if (logits.dtype() != DT_DOUBLE) {
        max = LowestOf(logits.dtype());
      }
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(row[j])) max = std::max(max, row[j]);
      }
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(row[j])) total += std::exp(row[j] - max);
        cdf[j] = total;
      }
      for (int64_t j = 0; j < num_samples; ++j) {
        const uint32_t x0 = word();
        const uint32_t x1 = word();
        const double to_find = philox::Uint64ToDouble(x0, x1) * total;
        const int64_t k =
            std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin();
        if (out64) {
          out->data<int64_t>()[b * num_samples + j] = k;
        } else {
          out->data<int32_t>()[b * num_samples + j] = static_cast<int32_t>(k);
        }
      }
    }
  }

 private:
  static void VisitLogits(const Tensor& logits, double* out) {
    const int64_t n = logits.NumElements();
    VisitNumericType(logits.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, half> ||
                    std::is_same_v<T, bfloat16>) {
        const T* in = logits.data<T>();
        for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(in[i]);
      }
    });
  }

  // TensorFlow starts the max at T's lowest finite value.
  static double LowestOf(DataType dtype) {
    switch (dtype) {
      case DT_HALF:
        return -65504.0;
      case DT_BFLOAT16:
        return -3.3895313892515355e38;
      default:
        return std::numeric_limits<float>::lowest();
    }
  }

  const GuardedPhilox philox_;
};

const std::vector<DataType>& FloatTypes() {
  static const auto* types =
      new std::vector<DataType>{DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  return *types;
}

REGISTER_KERNEL_BUILDER(Name("RandomUniform")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatefulRandomKernel<RandomDistribution::kUniform>);
REGISTER_KERNEL_BUILDER(Name("RandomStandardNormal")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("dtype", FloatTypes()),
                        StatefulRandomKernel<RandomDistribution::kNormal>);
REGISTER_KERNEL_BUILDER(Name("RandomUniformInt")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tout", {DT_INT32, DT_INT64}),
                        StatefulRandomKernel<RandomDistribution::kUniformInt>);
REGISTER_KERNEL_BUILDER(Name("Multinomial")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", FloatTypes())
                            .TypeConstraint("output_dtype",
                                            {DT_INT32, DT_INT64}),
                        MultinomialOp);

}  // namespace
}  // namespace weft
