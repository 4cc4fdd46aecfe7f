// Constant weights packed once (OpKernelConstruction::constant_input in
// Conv2D, _FusedConv2D, MatMul and _FusedMatMul), through a session: a
// graph whose filters and weights are Const nodes must give, bit for bit,
// what the same graph gives with them fed through placeholders (the
// per-run packing path), with and without the optimizer (which makes the
// fused kernels), at 1 and 2 threads; a signature that feeds the Const
// itself must get the fed value's result, not the packed constant's. The
// plain products are also checked against a double reference within the
// k-term dot product bound (k + 2) * 2^-24 * sum |a b| (Higham, eq. 3.5).
//
// In tests/kernels rather than tests/executor so that the CI step forcing
// the baseline CPU path (WEFT_CPU_ISA=baseline, kernel and model labels)
// runs it there too, where GemmPackedRhs keeps the operand unpacked.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/tensor.h"
#include "executor/session.h"
#include "graph/graph_def.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"

namespace weft {
namespace cpu_constant_weights_test {

Tensor Random(const TensorShape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

NodeDef Node(const std::string& name, const std::string& op,
             std::vector<std::string> inputs) {
  NodeDef n;
  n.name = name;
  n.op = op;
  n.input = std::move(inputs);
  if (op != "Const" && op != "Placeholder") {
    n.attr["T"] = AttrValue::Type(DT_FLOAT);
  }
  return n;
}

NodeDef Const(const std::string& name, const Tensor& value) {
  NodeDef n = Node(name, "Const", {});
  n.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  n.attr["value"] = AttrValue::TensorValue(value);
  return n;
}

NodeDef Placeholder(const std::string& name, const TensorShape& shape) {
  NodeDef n = Node(name, "Placeholder", {});
  n.attr["dtype"] = AttrValue::Type(DT_FLOAT);
  n.attr["shape"] = AttrValue::Shape(PartialTensorShape(shape));
  return n;
}

// x (fed) and the weights w (a Const holding `w`, or a Placeholder) feed
// two products of kind `op` ("Conv2D" or "MatMul", `attrs` added): "plain",
// fetched as it is, and "act" = Relu(BiasAdd(product, bias)), which the
// optimizer fuses.
std::shared_ptr<const Graph> ProductGraph(const std::string& op,
                                          const AttrMap& attrs,
                                          const TensorShape& x_shape,
                                          const Tensor& w, bool constant) {
  GraphDef def;
  def.node.push_back(Placeholder("x", x_shape));
  def.node.push_back(constant ? Const("w", w) : Placeholder("w", w.shape()));
  // The output's channels: the last dimension of op(w).
  auto tb = attrs.find("transpose_b");
  const int64_t channels = tb != attrs.end() && tb->second.b
                               ? w.dim_size(0)
                               : w.dim_size(w.dims() - 1);
  def.node.push_back(Const("bias", Random(TensorShape({channels}), 77)));
  for (const char* name : {"plain", "product"}) {
    NodeDef p = Node(name, op, {"x", "w"});
    for (const auto& [k, v] : attrs) p.attr[k] = v;
    def.node.push_back(std::move(p));
  }
  def.node.push_back(Node("biased", "BiasAdd", {"product", "bias"}));
  def.node.push_back(Node("act", "Relu", {"biased"}));
  ImportOptions io;
  io.source_name = "weights.pbtxt";
  auto g = ImportGraphDef(def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  so.source_name = "weights.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  return std::shared_ptr<const Graph>(std::move(*g));
}

// Runs the graph's "plain" and "act" with `feeds` in a fresh session.
std::vector<Tensor> Run(
    std::shared_ptr<const Graph> g, bool optimize, int threads,
    const std::vector<std::pair<std::string, Tensor>>& feeds) {
  SessionOptions options;
  options.threads = threads;
  options.optimize = optimize;
  options.source_name = "weights.pbtxt";
  auto session = Session::Create(std::move(g), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return {};
  auto out = (*session)->Run(feeds, {"plain", "act"});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>();
}

void ExpectBitsEqual(const std::vector<Tensor>& got,
                     const std::vector<Tensor>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what;
    EXPECT_EQ(0, std::memcmp(got[i].raw_data(), want[i].raw_data(),
                             got[i].TotalBytes()))
        << what << ": output " << i << " differs";
  }
}

// For one product: the constant-weight graph against the fed-weight graph,
// each way, and a signature feeding the Const with other weights. Returns
// the fed path's "plain" output at 1 thread, unoptimized, for a reference
// check.
Tensor CheckConstantEqualsFed(const std::string& op, const AttrMap& attrs,
                              const Tensor& x, const Tensor& w,
                              const std::string& what) {
  const Tensor other = Random(w.shape(), 991);
  auto const_graph = ProductGraph(op, attrs, x.shape(), w, true);
  auto fed_graph = ProductGraph(op, attrs, x.shape(), w, false);
  Tensor plain;
  for (bool optimize : {false, true}) {
    const std::vector<Tensor> want =
        Run(fed_graph, optimize, 1, {{"x", x}, {"w", w}});
    const std::vector<Tensor> want_other =
        Run(fed_graph, optimize, 1, {{"x", x}, {"w", other}});
    if (!optimize && !want.empty()) plain = want[0];
    for (int threads : {1, 2}) {
      const std::string w_what = absl::StrCat(
          what, optimize ? " optimized" : "", " threads=", threads);
      ExpectBitsEqual(Run(const_graph, optimize, threads, {{"x", x}}), want,
                      w_what + " constant");
      ExpectBitsEqual(Run(fed_graph, optimize, threads, {{"x", x}, {"w", w}}),
                      want, w_what + " fed");
      // The Const fed with other weights: the kernel, made with the
      // constant, must notice and use the fed tensor.
      ExpectBitsEqual(
          Run(const_graph, optimize, threads, {{"x", x}, {"w", other}}),
          want_other, w_what + " constant fed other weights");
    }
  }
  return plain;
}

// |got - sum| within the dot-product bound, per element (ref and abs_ref
// computed by the caller in double).
void ExpectWithinBound(const Tensor& got, const std::vector<double>& ref,
                       const std::vector<double>& abs_ref, int64_t k,
                       const std::string& what) {
  ASSERT_EQ(got.NumElements(), static_cast<int64_t>(ref.size())) << what;
  int bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double bound = (k + 2) * std::ldexp(1.0, -24) * abs_ref[i];
    if (!(std::fabs(got.data<float>()[i] - ref[i]) <= bound) && ++bad <= 3) {
      ADD_FAILURE() << what << ": element " << i << " is "
                    << got.data<float>()[i] << ", reference " << ref[i];
    }
  }
}

TEST(CpuConstantWeightsTest, MatMulConstantEqualsFed) {
  struct Case {
    int64_t m, k, n;
    bool tb;
  };
  unsigned seed = 1;
  for (const Case& c :
       {Case{1, 300, 17, false}, Case{1, 3, 33, true}, Case{0, 3, 17, false},
        Case{9, 1, 1, false}, Case{57, 300, 33, true},
        Case{100, 17, 2100, false}, Case{3, 1000, 1, false}}) {
    const std::string what = absl::StrCat("MatMul m=", c.m, " k=", c.k,
                                          " n=", c.n, c.tb ? " b^T" : "");
    const Tensor x = Random(TensorShape({c.m, c.k}), seed++);
    const Tensor w = Random(
        c.tb ? TensorShape({c.n, c.k}) : TensorShape({c.k, c.n}), seed++);
    AttrMap attrs;
    attrs["transpose_b"] = AttrValue::Bool(c.tb);
    const Tensor plain = CheckConstantEqualsFed("MatMul", attrs, x, w, what);
    std::vector<double> ref(c.m * c.n), abs_ref(c.m * c.n);
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        for (int64_t l = 0; l < c.k; ++l) {
          const double p =
              double(x.data<float>()[i * c.k + l]) *
              double(w.data<float>()[c.tb ? j * c.k + l : l * c.n + j]);
          ref[i * c.n + j] += p;
          abs_ref[i * c.n + j] += std::fabs(p);
        }
      }
    }
    ExpectWithinBound(plain, ref, abs_ref, c.k, what);
  }
}

// Sets an environment variable for a scope and restores what it was: the
// sanitizer suite runs many tests per process (gtest shards), so a test
// must not leave the environment changed for the next.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    EXPECT_EQ(setenv(name, value, 1), 0);
  }
  ~ScopedEnv() {
    if (old_.has_value()) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(CpuConstantWeightsTest, Conv2DConstantEqualsFed) {
  // The bit-for-bit premise is the direct path's: a constant 3x3 filter at
  // unit strides would otherwise be computed by Winograd (conv2d_winograd.h,
  // other roundings), which the next test covers.
  ScopedEnv direct("WEFT_CONV_WINOGRAD", "0");
  struct Case {
    int64_t batch, size, in_depth, window, filter_depth, out_depth, stride;
  };
  unsigned seed = 100;
  for (const Case& c : {
           Case{1, 3, 64, 3, 64, 33, 1},   // a late layer: 9 output pixels
           Case{1, 5, 3, 3, 3, 17, 2},     // k = 27, n = 17, stride 2
           Case{2, 20, 64, 3, 64, 33, 1},  // many patch chunks
           Case{1, 7, 1, 1, 1, 1, 1},      // 1x1 in place: k = 1, n = 1
           Case{2, 6, 40, 1, 40, 17, 1},   // 1x1 in place
           Case{0, 5, 8, 3, 8, 16, 1},     // empty batch
           Case{1, 6, 8, 3, 4, 6, 1},      // 2 groups (packed per call)
       }) {
    const std::string what = absl::StrCat(
        "Conv2D batch=", c.batch, " size=", c.size, " in=", c.in_depth,
        " window=", c.window, " filter_depth=", c.filter_depth,
        " out=", c.out_depth, " stride=", c.stride);
    const Tensor x =
        Random(TensorShape({c.batch, c.size, c.size, c.in_depth}), seed++);
    const Tensor w = Random(
        TensorShape({c.window, c.window, c.filter_depth, c.out_depth}), seed++);
    AttrMap attrs;
    attrs["strides"] = AttrValue::IntList({1, c.stride, c.stride, 1});
    attrs["padding"] = AttrValue::String("SAME");
    const Tensor plain = CheckConstantEqualsFed("Conv2D", attrs, x, w, what);
    // The double reference: SAME padding, groups of filter_depth channels.
    const int64_t out = (c.size + c.stride - 1) / c.stride;
    const int64_t pad =
        std::max<int64_t>(0, (out - 1) * c.stride + c.window - c.size) / 2;
    const int64_t cout_per_group = c.out_depth / (c.in_depth / c.filter_depth);
    std::vector<double> ref(c.batch * out * out * c.out_depth);
    std::vector<double> abs_ref(ref.size());
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t oh = 0; oh < out; ++oh) {
        for (int64_t ow = 0; ow < out; ++ow) {
          for (int64_t co = 0; co < c.out_depth; ++co) {
            const int64_t o = ((n * out + oh) * out + ow) * c.out_depth + co;
            const int64_t g = co / cout_per_group;
            for (int64_t kh = 0; kh < c.window; ++kh) {
              for (int64_t kw = 0; kw < c.window; ++kw) {
                const int64_t ih = oh * c.stride - pad + kh;
                const int64_t iw = ow * c.stride - pad + kw;
                if (ih < 0 || ih >= c.size || iw < 0 || iw >= c.size) continue;
                for (int64_t ci = 0; ci < c.filter_depth; ++ci) {
                  const double p =
                      double(x.data<float>()[((n * c.size + ih) * c.size + iw) *
                                                 c.in_depth +
                                             g * c.filter_depth + ci]) *
                      double(w.data<float>()
                                 [((kh * c.window + kw) * c.filter_depth + ci) *
                                      c.out_depth +
                                  co]);
                  ref[o] += p;
                  abs_ref[o] += std::fabs(p);
                }
              }
            }
          }
        }
      }
    }
    ExpectWithinBound(plain, ref, abs_ref, c.window * c.window * c.filter_depth,
                      what);
  }
}

// A constant 3x3 filter at unit strides goes through Winograd: the same
// bits at 1 and 2 threads, optimized (the bias and Relu fused) or not,
// within the dot-product bound of the exact sum; the Const fed with other
// weights still gives the fed graph's (direct) result.
TEST(CpuConstantWeightsTest, Conv2DConstantWinogradIsOneResult) {
  ScopedEnv winograd("WEFT_CONV_WINOGRAD", "1");
  const int64_t batch = 2, size = 12, cin = 48, cout = 40;
  const Tensor x = Random(TensorShape({batch, size, size, cin}), 300);
  const Tensor w = Random(TensorShape({3, 3, cin, cout}), 301);
  const Tensor other = Random(w.shape(), 302);
  AttrMap attrs;
  attrs["strides"] = AttrValue::IntList({1, 1, 1, 1});
  attrs["padding"] = AttrValue::String("SAME");
  auto const_graph = ProductGraph("Conv2D", attrs, x.shape(), w, true);
  auto fed_graph = ProductGraph("Conv2D", attrs, x.shape(), w, false);
  const std::vector<Tensor> first =
      cpu_constant_weights_test::Run(const_graph, false, 1, {{"x", x}});
  ASSERT_EQ(first.size(), 2u);
  for (bool optimize : {false, true}) {
    for (int threads : {1, 2}) {
      const std::string what = absl::StrCat(
          "Winograd", optimize ? " optimized" : "", " threads=", threads);
      ExpectBitsEqual(cpu_constant_weights_test::Run(const_graph, optimize,
                                                     threads, {{"x", x}}),
                      first, what);
      ExpectBitsEqual(
          cpu_constant_weights_test::Run(const_graph, optimize, threads,
                                         {{"x", x}, {"w", other}}),
          cpu_constant_weights_test::Run(fed_graph, optimize, threads,
                                         {{"x", x}, {"w", other}}),
          what + " constant fed other weights");
    }
  }
  std::vector<double> ref(batch * size * size * cout);
  std::vector<double> abs_ref(ref.size());
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oh = 0; oh < size; ++oh) {
      for (int64_t ow = 0; ow < size; ++ow) {
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
            if (ih < 0 || ih >= size || iw < 0 || iw >= size) continue;
            for (int64_t ci = 0; ci < cin; ++ci) {
              for (int64_t co = 0; co < cout; ++co) {
                const double p =
                    double(x.data<float>()[((n * size + ih) * size + iw) * cin +
                                           ci]) *
                    double(w.data<float>()[((kh * 3 + kw) * cin + ci) * cout +
                                           co]);
                const int64_t o = ((n * size + oh) * size + ow) * cout + co;
                ref[o] += p;
                abs_ref[o] += std::fabs(p);
              }
            }
          }
        }
      }
    }
  }
  ExpectWithinBound(first[0], ref, abs_ref, 9 * cin, "Winograd");
}

}  // namespace cpu_constant_weights_test
}  // namespace weft
