// Loading op libraries into this process with LoadOpLibrary: the examples
// built out of tree against the installed package, and small C libraries
// built in tree (tests/plugin/testdata/*.c), some broken on purpose.
//
// ctest runs every test in its own process, so each starts with only the
// in-tree ops registered.
#include "api/op_library.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "api/plugin_api.h"
#include "core/tensor_types.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "ops/op_registry.h"
#include "tests/plugin/package_testutil.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

const testing::Package& BuiltPackage() {
  const testing::Package& p = testing::Package::Get();
  EXPECT_TRUE(p.status().ok()) << p.status();
  return p;
}

std::unique_ptr<Session> MakeSession(const std::string& text, int threads) {
  auto def = ParseTextGraphDef(text, "test.pbtxt");
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return nullptr;
  ImportOptions io;
  io.source_name = "test.pbtxt";
  auto g = ImportGraphDef(*def, io);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return nullptr;
  ShapeInferenceOptions so;
  so.source_name = "test.pbtxt";
  Status s = InferShapes(g->get(), so);
  EXPECT_TRUE(s.ok()) << s;
  SessionOptions options;
  options.threads = threads;
  auto session =
      Session::Create(std::shared_ptr<const Graph>(std::move(*g)), options);
  EXPECT_TRUE(session.ok()) << session.status();
  return session.ok() ? std::move(*session) : nullptr;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

template <typename T>
Tensor Vec(const std::vector<T>& values) {
  Tensor t(DataTypeToEnum<T>::value,
           TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<T>()(i) = values[i];
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  std::vector<T> v(t.NumElements());
  for (int64_t i = 0; i < t.NumElements(); ++i) v[i] = t.flat<T>()(i);
  return v;
}

// A scratch folder, removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir()
      : path_(fs::temp_directory_path() /
              ("weft_plugin_test_" + std::to_string(::getpid()))) {
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const {
    return (path_ / name).string();
  }

 private:
  fs::path path_;
};

TEST(OpLibraryTest, ZeroOutFromTheExampleRunsInAGraph) {
  const auto& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  const std::string lib = package.variants()[0].zero_out;
  ASSERT_TRUE(LoadOpLibrary(lib).ok());

  auto op = OpRegistry::Global()->LookUp("ZeroOut");
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->source, lib);
  EXPECT_EQ(KernelRegistry::Global()->SummarizeKernelsForOp("ZeroOut"),
            "CPU{T in [float, int32]}");

  auto session =
      MakeSession(ReadFile(testing::PluginTestdata("zero_out.pbtxt")), 2);
  ASSERT_NE(session, nullptr);
  // ZeroOut keeps element 0 and sets every other element to 0.
  auto out = session->Run({{"xi", Vec<int32_t>({7, 3, -2, 9, 1})},
                           {"xf", Vec<float>({1.5f, -2.0f, 3.0f})}},
                          {"zi", "zf"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{7, 0, 0, 0, 0}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{1.5f, 0, 0}));

  // An empty input has no first element to keep.
  auto empty =
      session->Run({{"xi", Vec<int32_t>({})}, {"xf", Vec<float>({})}}, {"zi"});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].NumElements(), 0);
}

TEST(OpLibraryTest, LoadingTheSameFileAgainIsANoOp) {
  const auto& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  const std::string lib = package.variants()[0].zero_out;
  ASSERT_TRUE(LoadOpLibrary(lib).ok());
  const size_t ops = OpRegistry::Global()->ListOps().size();

  Status again = LoadOpLibrary(lib);
  EXPECT_TRUE(again.ok()) << again;
  // The same file by another spelling of its path.
  fs::path p(lib);
  Status respelled =
      LoadOpLibrary((p.parent_path() / "." / p.filename()).string());
  EXPECT_TRUE(respelled.ok()) << respelled;

  EXPECT_EQ(OpRegistry::Global()->ListOps().size(), ops);
  EXPECT_EQ(LoadedOpLibraries(), std::vector<std::string>{lib});
}

TEST(OpLibraryTest, TwoLibrariesDefiningTheSameOpNameBothPaths) {
  const auto& package = BuiltPackage();
  ASSERT_TRUE(package.status().ok());
  ASSERT_GE(package.variants().size(), 2u);
  // Both builds of examples/zero_out define ZeroOut.
  const std::string first = package.variants()[0].zero_out;
  const std::string second = package.variants()[1].zero_out;
  ASSERT_TRUE(LoadOpLibrary(first).ok());

  Status s = LoadOpLibrary(second);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists) << s;
  EXPECT_EQ(std::string(s.message()),
            "op library '" + second + "': op 'ZeroOut' registered twice: at " +
                first + " and at " + second);

  // The first library's registration is untouched.
  auto op = OpRegistry::Global()->LookUp("ZeroOut");
  ASSERT_TRUE(op.ok());
  EXPECT_EQ((*op)->source, first);
  EXPECT_EQ(LoadedOpLibraries(), std::vector<std::string>{first});
}

TEST(OpLibraryTest, LibraryForANewerPluginApiIsRefused) {
  const std::string lib = WEFT_TEST_FUTURE_API_PLUGIN;
  Status s = LoadOpLibrary(lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_EQ(
      std::string(s.message()),
      absl::StrCat("op library '", lib, "' was built for plugin API ",
                   kPluginApiVersion + 1, "; this weft provides API ",
                   kPluginApiVersion, " (weft ", WEFT_VERSION_STRING, ")"));
  EXPECT_FALSE(OpRegistry::Global()->LookUp("FutureOp").ok());
  EXPECT_TRUE(LoadedOpLibraries().empty());
}

TEST(OpLibraryTest, AFailedLoadRegistersNothing) {
  const std::string lib = WEFT_TEST_HALF_BAD_PLUGIN;
  Status s = LoadOpLibrary(lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              StartsWith("op library '" + lib + "': op 'HalfBadBroken'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("doubel"));
  // The op registered before the broken one is not kept either.
  EXPECT_FALSE(OpRegistry::Global()->LookUp("HalfBadGood").ok());
  EXPECT_FALSE(OpRegistry::Global()->LookUp("HalfBadBroken").ok());
  // Not remembered as loaded: a second try fails the same way.
  EXPECT_EQ(LoadOpLibrary(lib), s);
}

TEST(OpLibraryTest, ASharedObjectThatIsNoPluginSaysSo) {
  const std::string lib = WEFT_TEST_NOT_A_PLUGIN;
  Status s = LoadOpLibrary(lib);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              StartsWith("op library '" + lib +
                         "' is not a weft op library: it does not export "
                         "weft_plugin_init ("));
  // The loader's own reason follows.
  EXPECT_THAT(std::string(s.message()), HasSubstr("undefined symbol"));
}

TEST(OpLibraryTest, AFileThatIsNoSharedObjectGetsTheLoadersReason) {
  ScratchDir dir;
  const std::string path = dir / "libgarbage.so";
  std::ofstream(path) << std::string(256, 'x');
  Status s = LoadOpLibrary(path);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              StartsWith("op library '" + path + "' cannot be loaded: "));
  EXPECT_THAT(std::string(s.message()), HasSubstr("invalid ELF header"));
}

TEST(OpLibraryTest, AMissingFileIsNotFound) {
  ScratchDir dir;
  const std::string path = dir / "libnothing_here.so";
  Status s = LoadOpLibrary(path);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_EQ(std::string(s.message()),
            "op library '" + path + "': no such file");
}

// The plain-C library: attrs read at kernel creation, per-node state freed
// by destroy, and the work split with parallel_for.
TEST(OpLibraryTest, PlainCLibraryRunsWithAttrsAndParallelFor) {
  ASSERT_TRUE(LoadOpLibrary(WEFT_TEST_NEGATE_PLUGIN).ok());
  const std::string graph =
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } }\n"
      "node { name: 'half' op: 'PluginNegate' input: 'x' attr { key: 'scale' "
      "value { f: 0.5 } } }\n"
      "node { name: 'plain' op: 'PluginNegate' input: 'x' }\n";
  auto session = MakeSession(graph, 4);
  ASSERT_NE(session, nullptr);
  const int n = 100000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 97) - 48.0f;
  auto out = session->Run({{"x", Vec<float>(x)}}, {"half", "plain"});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<float> half = Values<float>((*out)[0]);
  std::vector<float> plain = Values<float>((*out)[1]);
  ASSERT_EQ(half.size(), x.size());
  for (int i = 0; i < n; ++i) {
    // Halving and negating are exact in binary floating point.
    ASSERT_EQ(half[i], -x[i] * 0.5f) << i;
    ASSERT_EQ(plain[i], -x[i]) << i;
  }
}

TEST(OpLibraryTest, PluginShapeFunctionsFeedShapeInference) {
  ASSERT_TRUE(LoadOpLibrary(WEFT_TEST_NEGATE_PLUGIN).ok());
  auto def = ParseTextGraphDef(
      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: "
      "DT_FLOAT } } attr { key: 'shape' value { shape { dim { size: 3 } dim "
      "{ size: -1 } } } } }\n"
      "node { name: 'y' op: 'PluginNegate' input: 'x' }\n",
      "shapes.pbtxt");
  ASSERT_TRUE(def.ok()) << def.status();
  auto g = ImportGraphDef(*def, {});
  ASSERT_TRUE(g.ok()) << g.status();
  ShapeInferenceOptions so;
  ASSERT_TRUE(InferShapes(g->get(), so).ok());
  const Node* y = (*g)->FindNode("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ((*g)->output_shape(y, 0).DebugString(), "[3,?]");
}

}  // namespace
}  // namespace weft
