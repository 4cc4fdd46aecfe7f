// `weft ops --used-by`: what a graph needs for a selective build. Expected
// op and kernel class names are read off the graphs below and the
// REGISTER_KERNEL_BUILDER lines of kernels/cpu/ (the class as the macro
// spells it after expansion), not from the tool's output.
#include "tools/ops_to_register.h"

#include <string>

#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "gtest/gtest.h"

namespace weft::cli {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// x -> Conv2D(w) -> BiasAdd(b) -> Relu, float32 NHWC: the optimizer fuses
// the three into one _FusedConv2D.
constexpr char kConvChain[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "shape"
      value {
        shape {
          dim { size: 1 }
          dim { size: 3 }
          dim { size: 3 }
          dim { size: 2 }
        }
      }
    }
  }
  node {
    name: "w"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape {
            dim { size: 1 }
            dim { size: 1 }
            dim { size: 2 }
            dim { size: 2 }
          }
          float_val: 1
          float_val: 2
          float_val: 3
          float_val: 4
        }
      }
    }
  }
  node {
    name: "conv"
    op: "Conv2D"
    input: "x"
    input: "w"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
    attr {
      key: "strides"
      value { list { i: 1 i: 1 i: 1 i: 1 } }
    }
    attr {
      key: "padding"
      value { s: "VALID" }
    }
  }
  node {
    name: "b"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim { size: 2 } }
          float_val: 0.5
          float_val: -0.5
        }
      }
    }
  }
  node {
    name: "bias"
    op: "BiasAdd"
    input: "conv"
    input: "b"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "relu"
    op: "Relu"
    input: "bias"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
)pb";

OpsToRegister Collect(const char* text) {
  auto graph_def = ParseTextGraphDef(text, "test.pbtxt");
  EXPECT_TRUE(graph_def.ok()) << graph_def.status();
  OpsToRegister out;
  Status s = AddGraphDef(*graph_def, "test.pbtxt", &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

TEST(OpsToRegisterTest, GraphOpsAndWhatTheOptimizerMakesOfThem) {
  OpsToRegister out = Collect(kConvChain);
  // The graph's own ops stay (optimize = false runs them) next to the fused
  // op the optimizer makes.
  EXPECT_THAT(out.ops, ElementsAre("BiasAdd", "Const", "Conv2D", "Placeholder",
                                   "Relu", "_FusedConv2D"));
  EXPECT_THAT(out.kernel_classes,
              AllOf(Contains("Conv2DOp<float>"), Contains("BiasAddOp<float>"),
                    Contains("ActivationOp<float, Relu<float>>"),
                    Contains("ConstantOp"), Contains("PlaceholderOp"),
                    Contains("FusedConv2DOp")));
  // Only the dtype the graph uses.
  EXPECT_THAT(out.kernel_classes,
              AllOf(Not(Contains("ActivationOp<double, Relu<double>>")),
                    Not(Contains("BiasAddOp<half>"))));
  EXPECT_THAT(out.sources, ElementsAre("test.pbtxt"));
}

TEST(OpsToRegisterTest, FusionCandidatesCountWhenThisSignatureDoesNotFuse) {
  // conv feeds BiasAdd and is also fetched itself (a second consumer, the
  // Identity): the all-outputs signature cannot fuse it, a signature that
  // fetches only `relu` can.
  std::string text = kConvChain;
  text += R"pb(
    node {
      name: "conv_out"
      op: "Identity"
      input: "conv"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  OpsToRegister out = Collect(text.c_str());
  EXPECT_THAT(out.ops, Contains("_FusedConv2D"));
  EXPECT_THAT(out.kernel_classes, Contains("FusedConv2DOp"));
}

TEST(OpsToRegisterTest, ScaleHeadCandidateWhenThisSignatureDoesNotFuse) {
  // x * s + o (a batch normalization standing alone) becomes a 1x1
  // _FusedDepthwiseConv2dNative, but the Mul is also fetched here (the
  // Identity), so only the candidate can list it.
  constexpr char kScale[] = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value {
          shape {
            dim { size: 1 }
            dim { size: 3 }
            dim { size: 3 }
            dim { size: 2 }
          }
        }
      }
    }
    node {
      name: "s"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            float_val: 2
          }
        }
      }
    }
    node {
      name: "scaled"
      op: "Mul"
      input: "x"
      input: "s"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "out"
      op: "AddV2"
      input: "scaled"
      input: "s"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "scaled_out"
      op: "Identity"
      input: "scaled"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  OpsToRegister out = Collect(kScale);
  EXPECT_THAT(out.ops, Contains("_FusedDepthwiseConv2dNative"));
}

TEST(OpsToRegisterTest, DenseBiasCandidateWhenThisSignatureDoesNotFuse) {
  // A BatchMatMulV2 by a constant kernel, then a bias: the dense bias rule
  // makes a _FusedMatMul of them, but the product is also fetched here (the
  // Identity), so only the candidate can list it.
  constexpr char kDense[] = R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "w"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape {
              dim { size: 2 }
              dim { size: 2 }
            }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "b"
      op: "Const"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "value"
        value {
          tensor {
            dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } }
            float_val: 1
          }
        }
      }
    }
    node {
      name: "mm"
      op: "BatchMatMulV2"
      input: "x"
      input: "w"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "out"
      op: "BiasAdd"
      input: "mm"
      input: "b"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    node {
      name: "mm_out"
      op: "Identity"
      input: "mm"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
  )pb";
  OpsToRegister out = Collect(kDense);
  EXPECT_THAT(out.ops, Contains("_FusedMatMul"));
  EXPECT_THAT(out.kernel_classes, Contains("FusedMatMulOp"));
}

TEST(OpsToRegisterTest, KernelsFollowTheNodesDtype) {
  OpsToRegister out = Collect(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
      attr {
        key: "shape"
        value { shape { dim { size: 4 } } }
      }
    }
    node {
      name: "n"
      op: "Neg"
      input: "x"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb");
  EXPECT_THAT(out.ops, ElementsAre("Neg", "Placeholder"));
  EXPECT_THAT(out.kernel_classes,
              Contains("UnaryCwiseOp<int32_t, "
                       "WrappingNeg<CwiseComputeT<int32_t>>>"));
  EXPECT_THAT(out.kernel_classes,
              Not(Contains("UnaryCwiseOp<float, "
                           "NegFunctor<CwiseComputeT<float>>>")));
}

TEST(OpsToRegisterTest, IntegerScalarNodesMayBecomeFusedScalars) {
  // A loop's counter comparison (scalar_fusion_rule.h); a float Less would
  // not join one.
  OpsToRegister out = Collect(R"pb(
    node {
      name: "i"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_INT32 }
      }
    }
    node {
      name: "less"
      op: "Less"
      input: "i"
      input: "i"
      attr {
        key: "T"
        value { type: DT_INT32 }
      }
    }
  )pb");
  EXPECT_THAT(out.ops, AllOf(Contains("Less"), Contains("_FusedScalars")));
  EXPECT_THAT(out.kernel_classes, Contains("FusedScalarsOp"));
}

TEST(OpsToRegisterTest, FunctionBodiesCount) {
  // `scaled` calls library function `scale` by name; the body's ops count,
  // and a body node whose type is the function's attr ("$T") takes every
  // kernel of its op: which one a call selects depends on the call.
  OpsToRegister out = Collect(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      attr {
        key: "dtype"
        value { type: DT_FLOAT }
      }
      attr {
        key: "shape"
        value { shape { dim { size: 2 } } }
      }
    }
    node {
      name: "scaled"
      op: "scale"
      input: "x"
      attr {
        key: "T"
        value { type: DT_FLOAT }
      }
    }
    library {
      function {
        signature {
          name: "scale"
          input_arg { name: "v" type_attr: "T" }
          output_arg { name: "out" type_attr: "T" }
          attr { name: "T" type: "type" }
        }
        node_def {
          name: "sq"
          op: "Square"
          input: "v"
          attr {
            key: "T"
            value { type: DT_FLOAT }
          }
        }
        node_def {
          name: "neg"
          op: "Neg"
          input: "sq:y:0"
          attr {
            key: "T"
            value { placeholder: "T" }
          }
        }
        ret { key: "out" value: "neg:y:0" }
      }
    }
  )pb");
  // Neg reads Square: the body may hold a _FusedElementwise once a call
  // instantiates it with T = float.
  EXPECT_THAT(out.ops, AllOf(Contains("Placeholder"), Contains("Square"),
                             Contains("Neg"), Not(Contains("scale")),
                             Contains("_FusedElementwise")));
  EXPECT_THAT(out.kernel_classes, Contains("FusedElementwiseOp"));
  EXPECT_THAT(
      out.kernel_classes,
      AllOf(Contains("UnaryCwiseOp<float, "
                     "ei::scalar_square_op<CwiseComputeT<float>>>"),
            Not(Contains("UnaryCwiseOp<double, "
                         "ei::scalar_square_op<CwiseComputeT<double>>>")),
            Contains("UnaryCwiseOp<float, "
                     "NegFunctor<CwiseComputeT<float>>>"),
            Contains("UnaryCwiseOp<int64_t, "
                     "WrappingNeg<CwiseComputeT<int64_t>>>")));
}

TEST(OpsToRegisterTest, UnknownOpNamesTheNode) {
  auto graph_def = ParseTextGraphDef(R"pb(
                                       node { name: "y" op: "NoSuchOpAnywhere" }
                                     )pb",
                                     "bad.pbtxt");
  ASSERT_TRUE(graph_def.ok());
  OpsToRegister out;
  Status s = AddGraphDef(*graph_def, "bad.pbtxt", &out);
  EXPECT_THAT(std::string(s.message()),
              AllOf(HasSubstr("bad.pbtxt: node 'y' (NoSuchOpAnywhere)"),
                    HasSubstr("unknown op")));
}

TEST(OpsToRegisterTest, DirectoryThatIsNoSavedModelIsRefused) {
  OpsToRegister out;
  Status s = AddGraphFile(WEFT_SOURCE_DIR "/tests", &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("SavedModel"));
}

TEST(OpsToRegisterTest, HeaderListsNamesAsConstexprFilters) {
  OpsToRegister out;
  out.ops = {"Conv2D", "Relu"};
  out.kernel_classes = {"ActivationOp<float, Relu<float>>", "Quote\"Op"};
  out.sources = {"model.pb"};
  std::string header = OpsToRegisterHeader(out);
  EXPECT_THAT(
      header,
      AllOf(HasSubstr("//   model.pb\n"), HasSubstr("    \"Conv2D\",\n"),
            HasSubstr("    \"ActivationOp<float, Relu<float>>\",\n"),
            HasSubstr("    \"Quote\\\"Op\",\n"),
            HasSubstr("constexpr bool ShouldRegisterOp(const char* "
                      "name)"),
            HasSubstr("constexpr bool ShouldRegisterOpKernel(const "
                      "char* kernel_class)")));
  // C++ has no empty arrays.
  EXPECT_THAT(OpsToRegisterHeader(OpsToRegister()),
              HasSubstr("    \"\",  // none\n"));
}

}  // namespace
}  // namespace weft::cli
