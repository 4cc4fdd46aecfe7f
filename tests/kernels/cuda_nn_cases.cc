// The NN rows of the CUDA-vs-CPU table: FusedBatchNormV3 (inference),
// MaxPool, AvgPool, Conv2D, DepthwiseConv2dNative, BatchMatMulV2.
//
// Tolerances: the CUDA kernels sum in float like the CPU kernels. Conv2D
// and BatchMatMulV2 sum in another order than the CPU's GEMM (and use
// FMAs), so sums of K products get K-proportional absolute tolerances in
// float ulps for both dtypes (Case::float_compute), as MatMul's rows do.
// Depthwise convolution, pooling and batch-norm inference do the CPU's
// arithmetic in its order (products rounded, no FMA), so they get a couple of
// ulps (MaxPool, which selects an input, none).
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace {

// An NHWC shape [n, h, w, c], in NCHW order when `nchw`.
TensorShape Image(bool nchw, int64_t n, int64_t h, int64_t w, int64_t c) {
  return nchw ? TensorShape({n, c, h, w}) : TensorShape({n, h, w, c});
}

// A 4-value window attr in the layout's order.
AttrValue Four(bool nchw, int64_t h, int64_t w, int64_t c = 1) {
  return AttrValue::IntList(nchw ? std::vector<int64_t>{1, c, h, w}
                                 : std::vector<int64_t>{1, h, w, c});
}

struct Conv {
  const char* label;
  int64_t n, h, w, c;      // input
  int64_t fh, fw, fd, fo;  // filter
  const char* padding;
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::vector<int64_t> pads = {};  // top, bottom, left, right
  bool nhwc_only = false;
};

std::vector<Case> ConvCases(bool depthwise) {
  // Depthwise filters are [fh, fw, C, M]; Conv2D's [fh, fw, C / groups,
  // out].
  const int64_t m = 2;
  const std::vector<Conv> convs = {
      {"SAME", 2, 7, 6, 4, 3, 3, 4, depthwise ? m : 5, "SAME"},
      {"SAME_s2", 1, 8, 9, 3, 3, 2, 3, depthwise ? m : 4, "SAME", 2, 2},
      {"VALID_d2", 2, 9, 8, 3, 3, 3, 3, depthwise ? m : 2, "VALID", 1, 1, 2, 2},
      {"EXPLICIT_s2_d2",
       2,
       8,
       7,
       3,
       3,
       2,
       3,
       depthwise ? 1 : 3,
       "EXPLICIT",
       2,
       1,
       1,
       2,
       {1, 2, 3, 0}},
      {"1x1", 2, 5, 5, 8, 1, 1, 8, depthwise ? m : 6, "VALID"},
      {"empty_batch", 0, 5, 5, 3, 3, 3, 3, depthwise ? m : 4, "SAME"},
      {"grouped", 1, 6, 6, 6, 3, 3, depthwise ? 6 : 2, depthwise ? 3 : 9,
       "SAME"},
      {"large",
       4,
       32,
       32,
       32,
       3,
       3,
       32,
       depthwise ? 1 : 64,
       "SAME",
       1,
       1,
       1,
       1,
       {},
       true},
  };
  std::vector<Case> cases;
  for (bool nchw : {false, true}) {
    for (const Conv& v : convs) {
      if (nchw && v.nhwc_only) continue;
      Case c;
      c.op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
      c.shapes = {Image(nchw, v.n, v.h, v.w, v.c),
                  TensorShape({v.fh, v.fw, v.fd, v.fo})};
      c.values = {Values::kSigned, Values::kSigned};
      c.attrs["data_format"] = AttrValue::String(nchw ? "NCHW" : "NHWC");
      c.attrs["padding"] = AttrValue::String(v.padding);
      c.attrs["strides"] = Four(nchw, v.sh, v.sw);
      c.attrs["dilations"] = Four(nchw, v.dh, v.dw);
      if (!v.pads.empty()) {
        const std::vector<int64_t>& p = v.pads;
        c.attrs["explicit_paddings"] = AttrValue::IntList(
            nchw ? std::vector<int64_t>{0, 0, 0, 0, p[0], p[1], p[2], p[3]}
                 : std::vector<int64_t>{0, 0, p[0], p[1], p[2], p[3], 0, 0});
      }
      c.label = v.label;
      // Depthwise float is the CPU's arithmetic operation for operation
      // (conv_body.h); half may round a float sum that differs in its last
      // bits (the CPU's half path may use FMAs) one half ulp apart.
      c.atol_ulps = depthwise ? 2 : 4.0 * v.fh * v.fw * v.fd;
      c.rtol_ulps = depthwise ? 2 : 8;
      // Conv2D sums fh fw fd products in float for half too (the K above
      // counts float ulps; CaseTolerance adds the final roundings).
      c.float_compute = !depthwise;
      cases.push_back(c);
    }
  }
  return cases;
}

struct Pool {
  const char* label;
  int64_t n, h, w, c;
  int64_t kh, kw, sh, sw;
  const char* padding;
  std::vector<int64_t> pads = {};  // MaxPool only
  int64_t kc = 1;                  // depth window (MaxPool only)
  bool nhwc_only = false;
};

std::vector<Case> PoolCases() {
  const std::vector<Pool> pools = {
      {"SAME_3x3_s2", 2, 7, 8, 3, 3, 3, 2, 2, "SAME"},
      {"VALID_2x2_s2", 2, 6, 7, 3, 2, 2, 2, 2, "VALID"},
      {"VALID_3x1_s1", 1, 7, 5, 4, 3, 1, 1, 1, "VALID"},
      {"EXPLICIT", 2, 6, 5, 3, 3, 3, 2, 1, "EXPLICIT", {1, 2, 0, 1}},
      {"depth3", 2, 3, 4, 6, 1, 1, 1, 1, "VALID", {}, 3},
      {"empty_batch", 0, 5, 5, 3, 3, 3, 2, 2, "SAME"},
      {"large", 8, 56, 56, 32, 3, 3, 2, 2, "SAME", {}, 1, true},
  };
  std::vector<Case> cases;
  for (const char* op : {"MaxPool", "AvgPool"}) {
    const bool max = std::string(op) == "MaxPool";
    for (bool nchw : {false, true}) {
      for (const Pool& v : pools) {
        if (nchw && v.nhwc_only) continue;
        if (!max && (!v.pads.empty() || v.kc != 1)) continue;
        Case c;
        c.op = op;
        c.shapes = {Image(nchw, v.n, v.h, v.w, v.c)};
        c.values = {Values::kWide};
        c.attrs["data_format"] = AttrValue::String(nchw ? "NCHW" : "NHWC");
        c.attrs["padding"] = AttrValue::String(v.padding);
        c.attrs["ksize"] = Four(nchw, v.kh, v.kw, v.kc);
        c.attrs["strides"] = Four(nchw, v.sh, v.sw, v.kc);
        if (!v.pads.empty()) {
          const std::vector<int64_t>& p = v.pads;
          c.attrs["explicit_paddings"] = AttrValue::IntList(
              nchw ? std::vector<int64_t>{0, 0, 0, 0, p[0], p[1], p[2], p[3]}
                   : std::vector<int64_t>{0, 0, p[0], p[1], p[2], p[3], 0, 0});
        }
        c.label = v.label;
        // The same comparisons, and the same float sum and division (no
        // multiply-add to contract), as the CPU.
        c.atol_ulps = max ? 0 : 1;
        c.rtol_ulps = max ? 0 : 1;
        cases.push_back(c);
      }
    }
  }
  return cases;
}

std::vector<Case> BatchNormCases() {
  struct Shape {
    const char* format;
    TensorShape x;
    int64_t channels;
    const char* label;
    bool training = false;
    float factor = 1.0f;
  };
  const Shape shapes[] = {
      {"NHWC", TensorShape({2, 3, 4, 5}), 5, "inference"},
      {"NCHW", TensorShape({2, 5, 3, 4}), 5, "inference"},
      {"NDHWC", TensorShape({1, 2, 3, 4, 3}), 3, "inference"},
      {"NCDHW", TensorShape({2, 3, 2, 1, 4}), 3, "inference"},
      {"NHWC", TensorShape({0, 3, 3, 4}), 4, "inference_empty"},
      {"NHWC", TensorShape({8, 32, 32, 64}), 64, "inference"},
      {"NHWC", TensorShape({2, 3, 4, 5}), 5, "training", true},
      {"NCHW", TensorShape({2, 5, 3, 4}), 5, "training", true},
      {"NHWC", TensorShape({2, 3, 4, 5}), 5, "training_f025", true, 0.25f},
      {"NCDHW", TensorShape({2, 3, 2, 1, 4}), 3, "training_f025", true, 0.25f},
      {"NHWC", TensorShape({1, 1, 1, 6}), 6, "training_n1", true},
      {"NHWC", TensorShape({0, 3, 3, 4}), 4, "training_empty", true},
      // Many values per channel and thread, and more channels than a
      // block's threads.
      {"NCHW", TensorShape({8, 16, 64, 64}), 16, "training", true},
      {"NHWC", TensorShape({4, 8, 8, 512}), 512, "training", true, 0.5f},
  };
  std::vector<Case> cases;
  int seed = 0;
  for (const Shape& s : shapes) {
    Case c;
    c.op = "FusedBatchNormV3";
    const TensorShape cs({s.channels});
    c.shapes = {s.x, cs, cs, cs, cs};
    c.values = {Values::kWide, Values::kSigned, Values::kSigned,
                Values::kSigned, Values::kPositive};
    // The statistics are float (U) whatever T is.
    std::mt19937 rng(100 + seed++);
    c.fixed[1] = RandomTensor(DT_FLOAT, cs, Values::kWide, &rng);
    c.fixed[2] = RandomTensor(DT_FLOAT, cs, Values::kSigned, &rng);
    c.fixed[3] = RandomTensor(DT_FLOAT, cs, Values::kSigned, &rng);
    c.fixed[4] = RandomTensor(DT_FLOAT, cs, Values::kPositive, &rng);
    c.attrs["data_format"] = AttrValue::String(s.format);
    c.attrs["is_training"] = AttrValue::Bool(s.training);
    c.attrs["exponential_avg_factor"] = AttrValue::Float(s.factor);
    c.attrs["epsilon"] = AttrValue::Float(0.001f);
    c.label = s.label;
    // Inference is the CPU's arithmetic operation for operation
    // (batch_norm_body.h); training's double sums are ordered differently,
    // so a statistic may differ in its last bit, and y with it.
    c.atol_ulps = s.training ? 16 : 2;
    c.rtol_ulps = s.training ? 8 : 2;
    cases.push_back(c);
  }
  return cases;
}

std::vector<Case> BatchMatMulCases() {
  struct Shape {
    TensorShape x, y;
    bool adj_x = false, adj_y = false;
    const char* label;
  };
  const Shape shapes[] = {
      {TensorShape({3, 4}), TensorShape({4, 5}), false, false, "plain"},
      {TensorShape({2, 3, 4}), TensorShape({2, 4, 5}), false, false, "plain"},
      {TensorShape({2, 4, 3}), TensorShape({2, 4, 5}), true, false, "adj_x"},
      {TensorShape({2, 3, 4}), TensorShape({2, 5, 4}), false, true, "adj_y"},
      {TensorShape({2, 4, 3}), TensorShape({2, 5, 4}), true, true, "adj_xy"},
      // One y for the batch: folded into rows.
      {TensorShape({2, 3, 3, 4}), TensorShape({4, 5}), false, false, "fold"},
      {TensorShape({2, 4, 3}), TensorShape({4, 5}), true, false, "adj_x"},
      // x broadcast with stride 0.
      {TensorShape({3, 4}), TensorShape({3, 4, 5}), false, false, "bcast"},
      // A loop of strided-batched calls.
      {TensorShape({2, 1, 3, 4}), TensorShape({1, 5, 4, 6}), false, false,
       "loop"},
      {TensorShape({2, 3, 1, 4, 3}), TensorShape({3, 5, 5, 4}), true, true,
       "loop"},
      {TensorShape({0, 3, 4}), TensorShape({4, 5}), false, false, "empty"},
      {TensorShape({2, 3, 0}), TensorShape({2, 0, 5}), false, false, "k0"},
      {TensorShape({16, 128, 64}), TensorShape({16, 64, 96}), false, false,
       "large"},
  };
  std::vector<Case> cases;
  for (const Shape& s : shapes) {
    Case c;
    c.op = "BatchMatMulV2";
    c.shapes = {s.x, s.y};
    c.values = {Values::kSigned, Values::kSigned};
    c.attrs["adj_x"] = AttrValue::Bool(s.adj_x);
    c.attrs["adj_y"] = AttrValue::Bool(s.adj_y);
    c.label = s.label;
    const int64_t k = s.x.dim_size(s.x.dims() - (s.adj_x ? 2 : 1));
    c.atol_ulps = 4.0 * std::max<int64_t>(k, 1);
    c.rtol_ulps = 8;
    c.float_compute = true;
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

std::vector<Case> NnCases() {
  std::vector<Case> all;
  for (auto part : {ConvCases(false), ConvCases(true), PoolCases(),
                    BatchNormCases(), BatchMatMulCases()}) {
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

}  // namespace weft::test
