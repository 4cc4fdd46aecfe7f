// Convolutions in NHWC on the layer shapes of ResNet50 and MobileNetV2 at
// 224x224, batch 1 (and a few of MobileNet's at 96x96, batch 8). Conv2D is
// judged against OpenBLAS's sgemm on the GEMM an im2col convolution reduces to
// ([N*Ho*Wo, Kh*Kw*Ci] x [Kh*Kw*Ci, Co]), which leaves out the im2col copy: a
// kernel at 100% of it does the arithmetic as fast as BLAS and hides the data
// movement. DepthwiseConv2dNative does a few flops per byte, so it is judged
// against the copy bandwidth at its input's size.
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/blas_reference.h"
#include "bench/kernel_runner.h"

namespace weft::bench {
namespace {

struct ConvShape {
  const char* name;
  int64_t n, h, w, ci;  // input, NHWC
  int64_t kh, kw, co;   // filter [kh, kw, ci, co]; for depthwise co = ci
  int64_t stride;
};

// SAME padding, so the output is ceil(input / stride).
int64_t OutSize(int64_t in, int64_t stride) {
  return (in + stride - 1) / stride;
}

AttrMap ConvAttrs(int64_t stride) {
  AttrMap attrs;
  attrs["T"] = AttrValue::Type(DT_FLOAT);
  attrs["strides"] = AttrValue::IntList({1, stride, stride, 1});
  attrs["padding"] = AttrValue::String("SAME");
  return attrs;
}

// `inputs` > 1: the runs take that many different inputs in turn, so that
// each comes from memory, as in a network whose activations outgrow the
// caches between one layer's write and the next's read (inputs x the
// input's bytes are meant to exceed L3); no reference figure then.
void RegisterConv(const ConvShape& c, bool depthwise, int threads,
                  int inputs = 1) {
  const char* op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
  const std::string name = absl::StrCat(
      op, "/", c.name, "/", c.n, "x", c.h, "x", c.w, "x", c.ci, "_k", c.kh, "x",
      c.kw, depthwise ? "" : absl::StrCat("x", c.co), "_s", c.stride,
      inputs > 1 ? absl::StrCat("/inputs:", inputs) : "", "/threads:", threads);
  const int64_t ho = OutSize(c.h, c.stride);
  const int64_t wo = OutSize(c.w, c.stride);
  const int64_t out_channels = depthwise ? c.ci : c.co;
  const double flops =
      2.0 * c.n * ho * wo * out_channels * c.kh * c.kw * (depthwise ? 1 : c.ci);
  const double bytes =
      4.0 * (c.n * c.h * c.w * c.ci + c.n * ho * wo * out_channels +
             c.kh * c.kw * c.ci * (depthwise ? 1 : c.co));
  Register(name, [=](benchmark::State& state) {
    const Tensor filter =
        RandomFloatTensor(depthwise ? TensorShape({c.kh, c.kw, c.ci, 1})
                                    : TensorShape({c.kh, c.kw, c.ci, c.co}),
                          2);
    std::vector<std::unique_ptr<KernelRunner>> runners;
    for (int i = 0; i < inputs; ++i) {
      auto runner = KernelRunner::Create(
          op, ConvAttrs(c.stride),
          {RandomFloatTensor(TensorShape({c.n, c.h, c.w, c.ci}), 1 + i),
           filter},
          threads);
      if (!runner.ok()) return SkipWithStatus(state, runner.status());
      runners.push_back(std::move(*runner));
    }
    if (inputs == 1) {
      if (!TimeRuns(state, std::move(runners[0]))) return;
    } else {
      size_t next = 0;
      for (auto _ : state) {
        if (Status s = runners[next]->Run(); !s.ok()) {
          return SkipWithStatus(state, s);
        }
        next = (next + 1) % runners.size();
      }
    }
    SetGflops(state, flops);
    SetGBps(state, bytes);
  });
  if (inputs > 1) return;
  if (depthwise) {
    ReferencePairs().push_back(
        {name, CopyReference(c.n * c.h * c.w * c.ci, threads), kGBps});
  } else {
    const std::string reference =
        absl::StrCat("OpenBLAS_sgemm_im2col/", c.name, "/threads:", threads);
    QueueSgemmReference(reference, 1, c.n * ho * wo, c.co, c.kh * c.kw * c.ci,
                        threads);
    ReferencePairs().push_back({name, reference, kGflops});
    ReferencePairs().push_back({name, FmaPeakReference(threads), kGflops});
  }
}

constexpr ConvShape kConvShapes[] = {
    {"resnet50_conv1", 1, 224, 224, 3, 7, 7, 64, 2},
    {"resnet50_res2_1x1", 1, 56, 56, 64, 1, 1, 64, 1},
    {"resnet50_res2_3x3", 1, 56, 56, 64, 3, 3, 64, 1},
    {"resnet50_res2_expand", 1, 56, 56, 64, 1, 1, 256, 1},
    {"resnet50_res3_3x3", 1, 28, 28, 128, 3, 3, 128, 1},
    {"resnet50_res4_3x3", 1, 14, 14, 256, 3, 3, 256, 1},
    {"resnet50_res5_reduce", 1, 7, 7, 2048, 1, 1, 512, 1},
    {"mobilenet_v2_stem", 1, 224, 224, 3, 3, 3, 32, 2},
    {"mobilenet_v2_expand", 1, 56, 56, 24, 1, 1, 144, 1},
    {"mobilenet_v2_project", 1, 28, 28, 192, 1, 1, 32, 1},
    {"mobilenet_v2_head", 1, 7, 7, 320, 1, 1, 1280, 1},
    // MobileNet's early pointwise layers at 96x96, batch 8: few input
    // channels over large maps (bench/RESULTS.md section 47).
    {"mobilenet_96_pw1_b8", 8, 48, 48, 32, 1, 1, 64, 1},
    {"mobilenet_96_pw3_b8", 8, 24, 24, 128, 1, 1, 128, 1},
};

constexpr ConvShape kDepthwiseShapes[] = {
    {"mobilenet_v2_dw112", 1, 112, 112, 32, 3, 3, 32, 1},
    {"mobilenet_v2_dw112_s2", 1, 112, 112, 96, 3, 3, 96, 2},
    {"mobilenet_v2_dw56", 1, 56, 56, 144, 3, 3, 144, 1},
    {"mobilenet_v2_dw28", 1, 28, 28, 192, 3, 3, 192, 1},
    {"mobilenet_v2_dw14", 1, 14, 14, 576, 3, 3, 576, 1},
    {"mobilenet_v2_dw7", 1, 7, 7, 960, 3, 3, 960, 1},
    {"mobilenet_96_dw2_b8_s2", 8, 48, 48, 64, 3, 3, 64, 2},
    {"mobilenet_96_dw3_b8", 8, 24, 24, 128, 3, 3, 128, 1},
};

// The shape called `name` in `shapes` (one is there).
template <size_t N>
const ConvShape& Shape(const ConvShape (&shapes)[N], std::string_view name) {
  for (const ConvShape& c : shapes) {
    if (name == c.name) return c;
  }
  std::abort();
}

}  // namespace

void RegisterConvBenchmarks() {
  for (int threads : {1, 2}) {
    for (const ConvShape& c : kConvShapes) RegisterConv(c, false, threads);
    for (const ConvShape& c : kDepthwiseShapes) RegisterConv(c, true, threads);
  }
  // MobileNet's first 1x1 and depthwise layers at 96x96, batch 8, their
  // inputs from memory (bench/RESULTS.md section 47).
  RegisterConv(Shape(kConvShapes, "mobilenet_96_pw1_b8"), false, 1,
               /*inputs=*/24);
  RegisterConv(Shape(kDepthwiseShapes, "mobilenet_96_dw2_b8_s2"), true, 1,
               /*inputs=*/12);
  RegisterConv(Shape(kDepthwiseShapes, "mobilenet_96_dw3_b8"), true, 1,
               /*inputs=*/24);
}

}  // namespace weft::bench
