// A Keras LSTM's While loop run as one recurrence (executor/lstm_loop.h):
// found in the frozen Keras models of tests/models/testdata/rnn (one
// direction and both, with and without return_sequences, masked by an
// Embedding or not, without a bias; Keras 3's and tf.keras 2's) and nowhere
// else there (GRU, SimpleRNN, an LSTM with relu), nor in an LSTM body changed
// in any one place; sessions give what the loop's own nodes give
// (WEFT_LSTM_LOOP=0) at every thread count; and runs it does not take (items
// not set, indices out of range, shapes off, the iteration cap, no iteration)
// are left to the loop's graph, while cancellation stops it. The recurrence's
// arithmetic is tested in tests/kernels/cpu_lstm_recurrence_test.cc, the models
// against TensorFlow in tests/models/control_flow_test.cc.
#include "executor/lstm_loop.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/tensor_list.h"
#include "core/variant.h"
#include "executor/function_graph_index.h"
#include "executor/session.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "graph/import.h"
#include "graph/shape_inference_pass.h"
#include "gtest/gtest.h"
#include "kernels/cpu/parallel_for.h"

namespace weft {
namespace lstm_loop_test {
namespace {

using ::testing::HasSubstr;

std::string RnnPath(const std::string& name) {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/rnn/" + name +
         ".pb";
}

// A While of a fixture, its functions instantiated as the kernel does, with
// the loop variables that are Consts of the outer graph (through Identity
// nodes) and passed through as its constants.
struct Loop {
  FunctionGraph cond, body;
  std::vector<bool> through;
  std::vector<Tensor> constants;
};

std::vector<Loop> Loops(const std::string& name) {
  std::vector<Loop> loops;
  auto def = LoadGraphDef(RnnPath(name));
  EXPECT_TRUE(def.ok()) << def.status();
  if (!def.ok()) return loops;
  auto graph = ImportGraphDef(*def, ImportOptions());
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return loops;
  const FunctionGraphIndex index(*def);
  for (const NodeDef& n : def->node) {
    // Keras 3 writes While, tf.keras 2 StatelessWhile.
    if (n.op != "While" && n.op != "StatelessWhile") continue;
    const std::vector<PartialTensorShape> shapes(DataInputs(n));
    Loop loop;
    for (const char* role : {"cond", "body"}) {
      auto f = FunctionBodyGraph((*graph)->library(), *n.attr.at(role).func,
                                 n.name + "/" + role + "/", shapes,
                                 OpRegistry::Global());
      EXPECT_TRUE(f.ok()) << f.status();
      if (!f.ok()) return {};
      (role[0] == 'c' ? loop.cond : loop.body) = *std::move(f);
    }
    loop.through = PassedThroughInputs(loop.body);
    loop.constants.resize(shapes.size());
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Tensor* value = ConstValue(index.Source(n, static_cast<int>(i)));
      if (value != nullptr && loop.through[i]) loop.constants[i] = *value;
    }
    loops.push_back(std::move(loop));
  }
  return loops;
}

bool Finds(const Loop& loop) {
  return LstmLoop::Find(loop.cond, loop.body, loop.through, loop.constants) !=
         nullptr;
}

TEST(LstmLoopTest, FindsKerasLstmLoops) {
  for (const char* name :
       {"lstm", "lstm_seq", "bilstm", "bilstm_seq", "masked_lstm",
        "masked_lstm_seq", "masked_bilstm", "masked_bilstm_seq", "lstm_nobias",
        "tfk_lstm_seq", "tfk_masked_lstm", "tfk_masked_bilstm_seq"}) {
    const std::vector<Loop> loops = Loops(name);
    EXPECT_EQ(loops.size(), absl::StrContains(name, "bilstm") ? 2u : 1u)
        << name;
    for (const Loop& loop : loops) EXPECT_TRUE(Finds(loop)) << name;
  }
}

TEST(LstmLoopTest, FindsNoOtherLoop) {
  for (const char* name :
       {"gru", "gru_seq", "simple_rnn", "simple_rnn_seq", "lstm_relu"}) {
    const std::vector<Loop> loops = Loops(name);
    EXPECT_FALSE(loops.empty()) << name;
    for (const Loop& loop : loops) EXPECT_FALSE(Finds(loop)) << name;
  }
}

// The node of `g` whose name ends with `suffix`.
NodeDef* Node(GraphDef* g, const std::string& suffix) {
  for (NodeDef& n : g->node) {
    if (absl::EndsWith(n.name, suffix)) return &n;
  }
  ADD_FAILURE() << "no node " << suffix;
  static NodeDef none;
  return &none;
}

using Changes = std::vector<std::pair<std::string, std::function<void(Loop*)>>>;

// Fixture `name`'s one loop is found, and not after any one of `changes`.
void ExpectNoneFoundAfter(const char* name, const Changes& changes) {
  const std::vector<Loop> loops = Loops(name);
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_TRUE(Finds(loops[0]));
  for (const auto& [what, change] : changes) {
    Loop loop = loops[0];
    change(&loop);
    EXPECT_FALSE(Finds(loop)) << what;
  }
}

// One change anywhere in the recurrence and it is not an LSTM's any more.
TEST(LstmLoopTest, FindsNoChangedLoop) {
  ExpectNoneFoundAfter(
      "lstm_seq",
      {
          {"output gate tanh",
           [](Loop* l) {
             Node(&l->body.graph_def, "lstm_cell_1/Sigmoid_2")->op = "Tanh";
           }},
          {"cell input sigmoid",
           [](Loop* l) {
             Node(&l->body.graph_def, "lstm_cell_1/Tanh")->op = "Sigmoid";
           }},
          {"output gate from the forget gate's part",
           [](Loop* l) {
             Node(&l->body.graph_def, "lstm_cell_1/Sigmoid_2")->input[0] =
                 Node(&l->body.graph_def, "lstm_cell_1/Sigmoid_1")->input[0];
           }},
          {"recurrent product transposed",
           [](Loop* l) {
             Node(&l->body.graph_def, "lstm_cell_1/MatMul_1")
                 ->attr["transpose_b"] = AttrValue::Bool(true);
           }},
          {"split along rows",
           [](Loop* l) {
             Tensor zero(DT_INT32, TensorShape());
             *zero.data<int32_t>() = 0;
             Node(&l->body.graph_def, "lstm_cell_1/split/split_dim")
                 ->attr["value"] = AttrValue::TensorValue(zero);
           }},
          {"forget gate times h",
           [](Loop* l) {
             NodeDef* mul = Node(&l->body.graph_def, "lstm_cell_1/mul");
             NodeDef* product =
                 Node(&l->body.graph_def, "lstm_cell_1/MatMul_1");
             mul->input[1] = product->input[0];
           }},
          {"cell state squared",
           [](Loop* l) {
             NodeDef* add = Node(&l->body.graph_def, "lstm_cell_1/add_1");
             add->input[1] = add->input[0];
           }},
          {"an op outside the recurrence's",
           [](Loop* l) {
             Node(&l->body.graph_def, "lstm_cell_1/Tanh_1")->op = "Relu";
           }},
          {"recurrent kernel fed",
           [](Loop* l) {
             for (Tensor& t : l->constants) {
               if (t.IsInitialized() && t.dims() == 2 &&
                   t.dim_size(0) * 4 == t.dim_size(1)) {
                 t = Tensor();
               }
             }
           }},
          {"time that does not grow",
           [](Loop* l) {
             Tensor zero(DT_INT32, TensorShape());
             *zero.data<int32_t>() = 0;
             Node(&l->body.graph_def, "while/add/y")->attr["value"] =
                 AttrValue::TensorValue(zero);
           }},
          {"cond LessEqual",
           [](Loop* l) {
             Node(&l->cond.graph_def, "while/Less")->op = "LessEqual";
           }},
      });
}

// Sets Tile multiples node `name` of `l`'s body to [1, n].
void Retile(Loop* l, const std::string& name, int32_t n) {
  Tensor m(DT_INT32, TensorShape({2}));
  m.data<int32_t>()[0] = 1;
  m.data<int32_t>()[1] = n;
  Node(&l->body.graph_def, name)->attr["value"] = AttrValue::TensorValue(m);
}

// The same for the masked loop's selects (SelectV2 on the mask, tiled to
// the units, for h, c and the output).
TEST(LstmLoopTest, FindsNoChangedMaskedLoop) {
  ExpectNoneFoundAfter(
      "masked_lstm_seq",
      {
          {"h kept from c",
           [](Loop* l) {
             Node(&l->body.graph_def, "while/SelectV2_1")->input[2] =
                 Node(&l->body.graph_def, "while/SelectV2_2")->input[2];
           }},
          {"c chosen from h",
           [](Loop* l) {
             Node(&l->body.graph_def, "while/SelectV2_2")->input[1] =
                 Node(&l->body.graph_def, "while/SelectV2_1")->input[1];
           }},
          {"the output's mask tiled to 3 of 4 units",
           [](Loop* l) { Retile(l, "while/Tile/multiples", 3); }},
          {"the output's mask tiled unlike h's and c's",
           [](Loop* l) { Retile(l, "while/Tile/multiples", 4); }},
          {"the list written unmasked",
           [](Loop* l) {
             Node(&l->body.graph_def, "TensorArrayV2Write/TensorListSetItem")
                 ->input[2] =
                 Node(&l->body.graph_def, "while/SelectV2")->input[1];
           }},
          {"a select the other way round",
           [](Loop* l) {
             NodeDef* select = Node(&l->body.graph_def, "while/SelectV2_2");
             std::swap(select->input[1], select->input[2]);
           }},
      });
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// The fixture run on `x` by a session of `threads` threads.
Tensor RunModel(const std::string& name, const Tensor& x, int threads) {
  auto def = LoadGraphDef(RnnPath(name));
  EXPECT_TRUE(def.ok()) << def.status();
  auto graph = ImportGraphDef(*def, ImportOptions());
  EXPECT_TRUE(graph.ok()) << graph.status();
  ShapeInferenceOptions shape_options;
  shape_options.input_shapes["x"] = PartialTensorShape(x.shape());
  EXPECT_TRUE(InferShapes(graph->get(), shape_options).ok());
  SessionOptions options;
  options.threads = threads;
  auto session =
      Session::Create(std::shared_ptr<const Graph>(*std::move(graph)), options);
  EXPECT_TRUE(session.ok()) << session.status();
  if (!session.ok()) return Tensor();
  auto out = (*session)->Run({{"x", x}}, {"Identity"});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

void ExpectSame(const char* name, int threads, const Tensor& fused,
                const Tensor& nodes) {
  ASSERT_TRUE(fused.IsInitialized()) << name;
  ASSERT_EQ(fused.shape(), nodes.shape()) << name;
  for (int64_t i = 0; i < nodes.NumElements(); ++i) {
    EXPECT_NEAR(fused.data<float>()[i], nodes.data<float>()[i], 1e-6)
        << name << " threads " << threads << " [" << i << "]";
  }
}

// The recurrence gives the loop's own results (on the vector paths their
// bits; within 1e-6 on the baseline path, whose products block by shape),
// at a batch other than the fixture's, on the calling thread and on two.
TEST(LstmLoopTest, SessionsGiveTheLoopsResults) {
  std::mt19937 rng(61);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  Tensor x(DT_FLOAT, TensorShape({3, 5, 3}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = u(rng);
  for (const char* name : {"lstm", "lstm_seq", "bilstm", "bilstm_seq",
                           "lstm_nobias", "lstm_relu", "tfk_lstm_seq"}) {
    Tensor nodes;
    {
      const ScopedEnv off("WEFT_LSTM_LOOP", "0");
      nodes = RunModel(name, x, 0);
    }
    ASSERT_TRUE(nodes.IsInitialized()) << name;
    for (int threads : {0, 2}) {
      const Tensor fused = RunModel(name, x, threads);
      ExpectSame(name, threads, fused, nodes);
    }
  }
  // The masked ones on token ids, 0 padding: rows padded at the end, at
  // the start and in the middle.
  Tensor ids(DT_INT32, TensorShape({3, 5}));
  const int32_t values[] = {3, 1, 4, 0, 0, 0, 0, 2, 6, 5, 1, 0, 2, 0, 6};
  std::copy(values, values + 15, ids.data<int32_t>());
  for (const char* name :
       {"masked_lstm", "masked_lstm_seq", "masked_bilstm", "masked_bilstm_seq",
        "tfk_masked_lstm", "tfk_masked_bilstm_seq"}) {
    Tensor nodes;
    {
      const ScopedEnv off("WEFT_LSTM_LOOP", "0");
      nodes = RunModel(name, ids, 0);
    }
    ASSERT_TRUE(nodes.IsInitialized()) << name;
    for (int threads : {0, 2}) {
      ExpectSame(name, threads, RunModel(name, ids, threads), nodes);
    }
  }
}

// Direct runs of lstm_seq's loop, whose variables are (counter, max, time,
// output list, h, c, input list, W, U, b), 4 units over 3 features.
class LstmLoopRunTest : public ::testing::Test {
 protected:
  static constexpr int64_t kBatch = 2, kSteps = 5, kUnits = 4, kFeatures = 3;

  void SetUp() override {
    const Loop* l = Load("lstm_seq", 10);
    ASSERT_NE(l, nullptr);
    vars_ = {Int(0),
             Int(kSteps),
             Int(0),
             List(kSteps, PartialTensorShape({kBatch, kUnits})),
             Floats({kBatch, kUnits}, 0.25f),
             Floats({kBatch, kUnits}, -0.5f),
             Items(kSteps, TensorShape({kBatch, kFeatures})),
             l->constants[7],
             l->constants[8],
             l->constants[9]};
  }

  // Fixture `name`'s one loop, which must have `vars` loop variables, found
  // (loops_, loop_); null, with a failure, when it is not.
  const Loop* Load(const char* name, size_t vars) {
    loops_ = Loops(name);
    if (loops_.size() != 1 || loops_[0].body.feeds.size() != vars) {
      ADD_FAILURE() << name << ": not one loop of " << vars << " variables";
      return nullptr;
    }
    const Loop& l = loops_[0];
    loop_ = LstmLoop::Find(l.cond, l.body, l.through, l.constants);
    if (loop_ == nullptr) ADD_FAILURE() << name << ": no LSTM found";
    return loop_ != nullptr ? &l : nullptr;
  }

  static Tensor Int(int32_t v) {
    Tensor t(DT_INT32, TensorShape());
    *t.data<int32_t>() = v;
    return t;
  }
  static Tensor Floats(const TensorShape& shape, float v) {
    Tensor t(DT_FLOAT, shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = v;
    return t;
  }
  static Tensor ListTensor(std::shared_ptr<TensorList> list) {
    Tensor t(DT_VARIANT, TensorShape());
    VariantElements(t)[0] = Variant(std::move(list));
    return t;
  }
  // A list of `n` items not set.
  static Tensor List(int64_t n, PartialTensorShape element) {
    auto list = std::make_shared<TensorList>(DT_FLOAT, std::move(element));
    list->tensors.resize(n);
    return ListTensor(std::move(list));
  }
  // A list of `n` items of `shape`, item t filled with 0.1 * (t + 1).
  static Tensor Items(int64_t n, const TensorShape& shape) {
    auto list = std::make_shared<TensorList>(DT_FLOAT, PartialTensorShape());
    for (int64_t t = 0; t < n; ++t) {
      list->tensors.push_back(Floats(shape, 0.1f * (t + 1)));
    }
    return ListTensor(std::move(list));
  }
  static const TensorList& ListOf(const Tensor& t) {
    return *VariantElements(t)[0].get<TensorList>();
  }

  // Runs the loop on vars_: whether it took the run.
  bool Run(int64_t max_iterations = 0, const RunOptions& options = {}) {
    std::vector<const Tensor*> inputs;
    for (const Tensor& t : vars_) inputs.push_back(&t);
    results_.clear();
    status_ = Status();
    return loop_->Run(inputs, SerialFor(), options, max_iterations, "loop 'l'",
                      &results_, &status_);
  }

  std::vector<Loop> loops_;
  std::unique_ptr<LstmLoop> loop_;
  std::vector<Tensor> vars_;
  std::vector<Tensor> results_;
  Status status_;
};

TEST_F(LstmLoopRunTest, RunsTheSteps) {
  ASSERT_TRUE(Run());
  ASSERT_TRUE(status_.ok()) << status_;
  ASSERT_EQ(results_.size(), vars_.size());
  EXPECT_EQ(*results_[0].data<int32_t>(), kSteps);  // counter
  EXPECT_EQ(*results_[1].data<int32_t>(), kSteps);  // max
  EXPECT_EQ(*results_[2].data<int32_t>(), kSteps);  // time
  const TensorList& out = ListOf(results_[3]);
  ASSERT_EQ(out.tensors.size(), static_cast<size_t>(kSteps));
  for (const Tensor& item : out.tensors) {
    ASSERT_TRUE(item.IsInitialized());
    EXPECT_EQ(item.shape(), TensorShape({kBatch, kUnits}));
  }
  // h is the last item; the input list was not changed.
  for (int64_t i = 0; i < kBatch * kUnits; ++i) {
    EXPECT_EQ(results_[4].data<float>()[i],
              out.tensors[kSteps - 1].data<float>()[i]);
  }
  EXPECT_FALSE(ListOf(vars_[3]).tensors[0].IsInitialized());
  EXPECT_EQ(vars_[5].data<float>()[0], -0.5f);
  for (int v : {6, 7, 8, 9}) {
    EXPECT_TRUE(results_[v].SharesBufferWith(vars_[v])) << v;
  }
}

// Starting at step 2: three steps, written at 2..4; items 0 and 1 of the
// output list are left as they were.
TEST_F(LstmLoopRunTest, StartsWhereTimeIs) {
  vars_[2] = Int(2);
  ASSERT_TRUE(Run());
  ASSERT_TRUE(status_.ok()) << status_;
  EXPECT_EQ(*results_[0].data<int32_t>(), 3);
  EXPECT_EQ(*results_[2].data<int32_t>(), kSteps);
  const TensorList& out = ListOf(results_[3]);
  EXPECT_FALSE(out.tensors[0].IsInitialized());
  EXPECT_FALSE(out.tensors[1].IsInitialized());
  for (int64_t t = 2; t < kSteps; ++t) {
    EXPECT_TRUE(out.tensors[t].IsInitialized()) << t;
  }
}

TEST_F(LstmLoopRunTest, LeavesRunsItDoesNotTakeToTheGraph) {
  const std::vector<Tensor> good = vars_;
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"no iteration", [&] { vars_[2] = Int(kSteps); }},
      {"an input item not set",
       [&] {
         auto list = std::make_shared<TensorList>(ListOf(vars_[6]));
         list->tensors[3] = Tensor();
         vars_[6] = ListTensor(list);
       }},
      {"input items of another width",
       [&] {
         vars_[6] = Items(kSteps, TensorShape({kBatch, 2}));
       }},
      {"too few input items",
       [&] {
         vars_[6] = Items(3, TensorShape({kBatch, kFeatures}));
       }},
      {"output list too short",
       [&] {
         vars_[3] = List(3, PartialTensorShape({-1, kUnits}));
       }},
      {"output list of another element shape",
       [&] {
         vars_[3] = List(kSteps, PartialTensorShape({-1, 7}));
       }},
      {"h of other units",
       [&] {
         vars_[4] = Floats({kBatch, 3}, 0.0f);
       }},
      {"c of another batch",
       [&] {
         vars_[5] = Floats({1, kUnits}, 0.0f);
       }},
      {"counter not int32", [&] { vars_[0] = Floats(TensorShape(), 0.0f); }},
      {"negative time", [&] { vars_[2] = Int(-1); }},
  };
  for (const auto& [what, change] : cases) {
    vars_ = good;
    change();
    EXPECT_FALSE(Run()) << what;
    EXPECT_TRUE(results_.empty()) << what;
  }
  vars_ = good;
  EXPECT_FALSE(Run(/*max_iterations=*/kSteps - 1)) << "the iteration cap";
  EXPECT_TRUE(Run(/*max_iterations=*/kSteps)) << "the cap not reached";
}

TEST_F(LstmLoopRunTest, StopsWhenCancelled) {
  CancellationToken token;
  token.Cancel();
  RunOptions options;
  options.cancellation = &token;
  ASSERT_TRUE(Run(0, options));
  EXPECT_EQ(status_.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(status_.message(), HasSubstr("loop 'l' at iteration 0"));
  RunOptions late;
  late.deadline = std::chrono::steady_clock::now();
  ASSERT_TRUE(Run(0, late));
  EXPECT_EQ(status_.code(), absl::StatusCode::kDeadlineExceeded);
}

// Direct runs of masked_lstm_seq's loop: (counter, max, time, output list,
// last output y, h, c, input list, mask list, W, U, b), 4 units over 3
// features, masks [batch, 1] bools.
class LstmLoopMaskedRunTest : public LstmLoopRunTest {
 protected:
  void SetUp() override {
    const Loop* l = Load("masked_lstm_seq", 12);
    ASSERT_NE(l, nullptr);
    vars_ = {Int(0),
             Int(kSteps),
             Int(0),
             List(kSteps, PartialTensorShape({kBatch, kUnits})),
             Floats({kBatch, kUnits}, 0.75f),
             Floats({kBatch, kUnits}, 0.25f),
             Floats({kBatch, kUnits}, -0.5f),
             Items(kSteps, TensorShape({kBatch, kFeatures})),
             Masks(kSteps),
             l->constants[9],
             l->constants[10],
             l->constants[11]};
  }

  // Row 0 masked at step 0 only, row 1 at every step.
  static Tensor Masks(int64_t n) {
    auto list = std::make_shared<TensorList>(DT_BOOL, PartialTensorShape());
    for (int64_t t = 0; t < n; ++t) {
      Tensor m(DT_BOOL, TensorShape({kBatch, 1}));
      m.data<bool>()[0] = t > 0;
      m.data<bool>()[1] = false;
      list->tensors.push_back(m);
    }
    return ListTensor(std::move(list));
  }
};

TEST_F(LstmLoopMaskedRunTest, MaskedRowsKeepTheirState) {
  ASSERT_TRUE(Run());
  ASSERT_TRUE(status_.ok()) << status_;
  const TensorList& out = ListOf(results_[3]);
  ASSERT_EQ(out.tensors.size(), static_cast<size_t>(kSteps));
  // Row 1, masked throughout, keeps y, h and c; row 0 writes y = h from
  // step 1 on, and its first item is the y it started with.
  for (int64_t j = 0; j < kUnits; ++j) {
    EXPECT_EQ(out.tensors[0].data<float>()[j], 0.75f);
    for (int64_t t = 0; t < kSteps; ++t) {
      EXPECT_EQ(out.tensors[t].data<float>()[kUnits + j], 0.75f) << t;
    }
    EXPECT_EQ(results_[4].data<float>()[kUnits + j], 0.75f);
    EXPECT_EQ(results_[5].data<float>()[kUnits + j], 0.25f);
    EXPECT_EQ(results_[6].data<float>()[kUnits + j], -0.5f);
    EXPECT_EQ(results_[4].data<float>()[j], results_[5].data<float>()[j]);
    EXPECT_EQ(out.tensors[kSteps - 1].data<float>()[j],
              results_[5].data<float>()[j]);
    EXPECT_NE(results_[5].data<float>()[j], 0.25f);
  }
}

TEST_F(LstmLoopMaskedRunTest, LeavesMasksItDoesNotTakeToTheGraph) {
  const std::vector<Tensor> good = vars_;
  auto list = std::make_shared<TensorList>(ListOf(vars_[8]));
  list->tensors[2] = Tensor();
  vars_[8] = ListTensor(list);
  EXPECT_FALSE(Run()) << "a mask not set";
  vars_ = good;
  list = std::make_shared<TensorList>(ListOf(vars_[8]));
  list->tensors[2] = Floats({kBatch, 1}, 1.0f);
  vars_[8] = ListTensor(list);
  EXPECT_FALSE(Run()) << "a mask of floats";
  vars_ = good;
  vars_[4] = Floats({kBatch, 2}, 0.0f);
  EXPECT_FALSE(Run()) << "y of other units";
  vars_ = good;
  EXPECT_TRUE(Run());
}

}  // namespace
}  // namespace lstm_loop_test
}  // namespace weft
