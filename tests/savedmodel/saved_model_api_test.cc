// SavedModel directories through the embedding API: weft.hpp's
// Graph::LoadSavedModel and SavedModelSignatures over the C API
// (weft_graph_load_saved_model, weft_saved_model_info_*), on the committed
// fixtures of tests/models/testdata/saved_models, compared with TensorFlow's
// outputs stored beside them.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/npy.h"
#include "weft/c_api.h"
#include "weft/weft.hpp"

namespace {

// weft.hpp's types (weft::v1), apart from the library's own api::Tensor
// and api::Status that tools/npy.h brings in.
namespace api = weft::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/saved_models/" +
         name;
}

// A float .npy fixture as a weft.hpp tensor.
api::Tensor LoadNpy(const std::string& name) {
  auto t = weft::ReadNpy(Fixture(name));
  EXPECT_TRUE(t.ok()) << t.status();
  std::vector<int64_t> dims(t->shape().dim_sizes().begin(),
                            t->shape().dim_sizes().end());
  const float* p = t->data<float>();
  return api::Tensor::FromVector<float>(
      dims, std::vector<float>(p, p + t->NumElements()));
}

std::vector<float> Expected(const std::string& name) {
  auto t = weft::ReadNpy(Fixture(name));
  EXPECT_TRUE(t.ok()) << t.status();
  const float* p = t->data<float>();
  return std::vector<float>(p, p + t->NumElements());
}

// The model tests' bound: 1e-4 relative plus 5e-5 of the largest value.
void ExpectClose(const std::vector<float>& got, const std::vector<float>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  float scale = 0;
  for (float v : want) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]),
              1e-4f * std::fabs(want[i]) + 5e-5f * scale)
        << what << " element " << i;
  }
}

std::vector<std::string> Names(const std::vector<api::TensorInfo>& infos) {
  std::vector<std::string> names;
  for (const auto& info : infos) names.push_back(info.name);
  return names;
}

TEST(SavedModelApiTest, SignaturesAreListed) {
  api::Status status;
  EXPECT_THAT(api::SavedModelSignatures(Fixture("module"), "", &status),
              ElementsAre("bump", "scale", "serving_default"));
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(
      api::SavedModelSignatures(Fixture("module"), "gpu", &status).empty());
  EXPECT_EQ(status.code(), WEFT_NOT_FOUND);
  EXPECT_THAT(status.message(), HasSubstr("{serve}"));
}

TEST(SavedModelApiTest, KerasCnnRunsByKeyAndMatchesTensorFlow) {
  api::Status status;
  api::Graph graph =
      api::Graph::LoadSavedModel(Fixture("keras_cnn"), "", "", {}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  // The signature's keys are the graph's interface.
  EXPECT_THAT(Names(graph.Inputs()), ElementsAre("image"));
  EXPECT_THAT(Names(graph.Outputs()), ElementsAre("output_0"));
  EXPECT_EQ(graph.Inputs()[0].dtype, WEFT_FLOAT);
  api::Session session(graph, api::Session::Options{}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  api::Tensor image = LoadNpy("keras_cnn__serving_default__input_image.npy");
  std::vector<api::Tensor> out =
      session.Run({{"image", image}}, {"output_0"}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(out.size(), 1u);
  ExpectClose(out[0].ToVector<float>(),
              Expected("keras_cnn__serving_default__output_output_0.npy"),
              "output_0");
  // The graph tensor a key names works as well.
  api::TensorInfo in = graph.Output("image", &status);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(in.name, "image");
}

TEST(SavedModelApiTest, AnotherSignatureAndTags) {
  api::Status status;
  api::Graph graph = api::Graph::LoadSavedModel(Fixture("module"), "scale",
                                                "serve", {}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  api::Session session(graph, api::Session::Options{}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  api::Tensor v = LoadNpy("module__scale__input_v.npy");
  std::vector<api::Tensor> out = session.Run({{"v", v}}, {"scaled"}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  ExpectClose(out[0].ToVector<float>(),
              Expected("module__scale__output_scaled.npy"), "scaled");
}

// Input shapes at load time may name the signature's keys.
TEST(SavedModelApiTest, InputShapesByKey) {
  api::Status status;
  api::Graph graph = api::Graph::LoadSavedModel(
      Fixture("module"), "", "", {{"x", {2, 4}}, {"y", {2, 4}}}, &status);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_THAT(Names(graph.Inputs()), ElementsAre("x", "y"));
  EXPECT_THAT(graph.Inputs()[0].dims, ElementsAre(2, 4));
  graph = api::Graph::LoadSavedModel(Fixture("module"), "", "",
                                     {{"nope", {2, 4}}}, &status);
  EXPECT_FALSE(graph);
  EXPECT_THAT(status.message(),
              HasSubstr("an input shape is given for 'nope'"));
}

TEST(SavedModelApiTest, ErrorsComeBackAsStatuses) {
  api::Status status;
  api::Graph graph =
      api::Graph::LoadSavedModel(Fixture("module"), "nope", "", {}, &status);
  EXPECT_FALSE(graph);
  EXPECT_EQ(status.code(), WEFT_NOT_FOUND);
  EXPECT_THAT(status.message(),
              HasSubstr("no signature 'nope'; the model has bump, scale, "
                        "serving_default"));
  graph =
      api::Graph::LoadSavedModel(Fixture("module"), "bump", "", {}, &status);
  EXPECT_FALSE(graph);
  EXPECT_THAT(status.message(), HasSubstr("writes variable 'counter'"));
  // The C API takes NULLs where the header says so, and refuses a NULL dir.
  weft_status* s = weft_status_new();
  EXPECT_EQ(weft_graph_load_saved_model(nullptr, nullptr, nullptr, nullptr, s),
            nullptr);
  EXPECT_EQ(weft_status_code(s), WEFT_INVALID_ARGUMENT);
  weft_graph* g = weft_graph_load_saved_model(Fixture("tf1").c_str(), nullptr,
                                              nullptr, nullptr, s);
  EXPECT_NE(g, nullptr) << weft_status_message(s);
  weft_graph_delete(g);
  EXPECT_EQ(weft_saved_model_info_read(nullptr, nullptr, s), nullptr);
  EXPECT_EQ(weft_saved_model_info_num_signatures(nullptr), 0);
  EXPECT_EQ(weft_saved_model_info_signature(nullptr, 0), nullptr);
  weft_saved_model_info* info =
      weft_saved_model_info_read(Fixture("tf1").c_str(), "", s);
  ASSERT_NE(info, nullptr) << weft_status_message(s);
  ASSERT_EQ(weft_saved_model_info_num_signatures(info), 1);
  EXPECT_STREQ(weft_saved_model_info_signature(info, 0), "serving_default");
  EXPECT_EQ(weft_saved_model_info_signature(info, 1), nullptr);
  weft_saved_model_info_delete(info);
  weft_status_delete(s);
}

}  // namespace
