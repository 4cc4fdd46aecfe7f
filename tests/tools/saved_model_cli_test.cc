// `weft run` on SavedModel directories written by TensorFlow
// (tests/models/testdata/saved_models, from tests/models/gen_saved_models.py):
// outputs printed and saved by signature key and matching TensorFlow's, a
// second signature, and the one-line errors of a directory that is no
// SavedModel and of damaged variables (copies in a scratch directory).
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tools/cli_testutil.h"
#include "tools/npy.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string Models() {
  return std::string(WEFT_SOURCE_DIR) + "/tests/models/testdata/saved_models";
}

std::string Fixture(const std::string& name) { return Models() + "/" + name; }

// Within the bound of tests/models/models_test.cc: 1e-4 relative plus 5e-5
// of the tensor's largest magnitude.
void ExpectCloseFloats(const std::string& what, const Tensor& got,
                       const Tensor& want) {
  ASSERT_EQ(got.dtype(), DT_FLOAT) << what;
  ASSERT_EQ(want.dtype(), DT_FLOAT) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  double scale = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    scale = std::max(scale, std::fabs(double{want.data<float>()[i]}));
  }
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    const double a = got.data<float>()[i], b = want.data<float>()[i];
    EXPECT_LE(std::fabs(a - b), 1e-4 * std::fabs(b) + 5e-5 * scale)
        << what << " element " << i << ": weft " << a << ", TensorFlow " << b;
  }
}

class SavedModelCliTest : public CliTestBase {
 protected:
  // Runs `weft run ARGS`.
  CliResult Run(const std::string& args) { return RunCli("run " + args); }

  // A copy of fixture `name` in the scratch directory.
  std::string Copy(const std::string& name) {
    const fs::path to = dir_ / name;
    fs::copy(Fixture(name), to, fs::copy_options::recursive);
    return to.string();
  }

  // Compares DIR_SAVE/KEY.npy with the fixture's expected output file.
  void ExpectSavedMatches(const std::string& save_dir, const std::string& key,
                          const std::string& expected_npy) {
    auto got = ReadNpy(save_dir + "/" + key + ".npy");
    ASSERT_TRUE(got.ok()) << got.status();
    auto want = ReadNpy(Fixture(expected_npy));
    ASSERT_TRUE(want.ok()) << want.status();
    if (want->dtype() == DT_INT32) {
      ASSERT_EQ(got->dtype(), DT_INT32) << key;
      ASSERT_EQ(got->shape(), want->shape()) << key;
      for (int64_t i = 0; i < want->NumElements(); ++i) {
        EXPECT_EQ(got->data<int32_t>()[i], want->data<int32_t>()[i]) << key;
      }
      return;
    }
    ExpectCloseFloats(key, *got, *want);
  }

};

// Dict inputs and outputs by key; the outputs printed by key, saved by key
// and equal to TensorFlow's.
TEST_F(SavedModelCliTest, RunPrintsOutputsBySignatureKey) {
  const std::string save = (dir_ / "out").string();
  CliResult r =
      Run(Fixture("module") +
          " --input x=" + Fixture("module__serving_default__input_x.npy") +
          " --input y=" + Fixture("module__serving_default__input_y.npy") +
          " --threads 2 --save " + save);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_THAT(r.out, HasSubstr("chosen: float [3,4]"));
  EXPECT_THAT(r.out, HasSubstr("looped: float [3,4]"));
  EXPECT_THAT(r.out, HasSubstr("steps: int32 []  min 3 max 3"));
  EXPECT_EQ(CountLines(r.out), 3) << r.out;
  for (const char* key : {"chosen", "looped", "steps"}) {
    ExpectSavedMatches(
        save, key,
        std::string("module__serving_default__output_") + key + ".npy");
  }
}

// --signature picks another signature; --output fetches one key.
TEST_F(SavedModelCliTest, RunAnotherSignature) {
  const std::string save = (dir_ / "out").string();
  CliResult r = Run(Fixture("module") + " --signature scale --input v=" +
                    Fixture("module__scale__input_v.npy") + " --save " + save);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scaled: float [3,4]"));
  EXPECT_EQ(CountLines(r.out), 1) << r.out;
  ExpectSavedMatches(save, "scaled", "module__scale__output_scaled.npy");

  r = Run(Fixture("module") + " --signature nope --input v=zeros:1,4");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("no signature 'nope'; the model has bump, scale, "
                        "serving_default"));
}

// Keras 3 model.export() (its default "serve" endpoint), the LSTM and the
// TF1 text SavedModel with --tag.
TEST_F(SavedModelCliTest, RunKerasAndTf1Models) {
  struct Model {
    const char* dir;
    const char* flags;
    const char* input;
    const char* key;
    const char* expected;
  };
  for (const Model& m : {
           Model{"keras_cnn", "", "image=keras_cnn__serve__input_image.npy",
                 "output_0", "keras_cnn__serving_default__output_output_0.npy"},
           Model{"keras_lstm", "--signature serve",
                 "tokens=keras_lstm__serve__input_tokens.npy", "output_0",
                 "keras_lstm__serve__output_output_0.npy"},
           Model{"tf1_text", "--tag serve",
                 "x=tf1_text__serving_default__input_x.npy", "y",
                 "tf1_text__serving_default__output_y.npy"},
       }) {
    SCOPED_TRACE(m.dir);
    const std::string save = (dir_ / m.dir).string();
    const std::string input = m.input;
    const size_t eq = input.find('=');
    CliResult r = Run(Fixture(m.dir) + " " + m.flags + " --input " +
                      input.substr(0, eq + 1) + Fixture(input.substr(eq + 1)) +
                      " --save " + save);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr(std::string(m.key) + ": float"));
    ExpectSavedMatches(save, m.key, m.expected);
  }
}

TEST_F(SavedModelCliTest, BadDirectoryExitsOneWithOneLine) {
  // No such path.
  CliResult r = Run((dir_ / "missing").string() + " --input x=zeros:1,4");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr((dir_ / "missing").string()));
  // A directory without saved_model.pb.
  const fs::path empty = dir_ / "empty";
  fs::create_directories(empty / "variables");
  r = Run(empty.string() + " --input x=zeros:1,4");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "weft run: " + empty.string() +
                       ": not a SavedModel directory (no saved_model.pb or "
                       "saved_model.pbtxt)\n");
  EXPECT_EQ(r.out, "");
  // An unknown tag set.
  r = Run(Fixture("tf1") + " --tag train --input x=zeros:1,6");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no meta graph with tags {train}; the model "
                               "has {serve}"));
}

// Damaged variables: each run exits 1 with one line that names the file.
TEST_F(SavedModelCliTest, CorruptVariablesNameTheFile) {
  const std::string inputs = " --input x=zeros:1,4 --input y=zeros:1,4";
  struct Damage {
    const char* name;
    const char* file;  // under variables/
    const char* says;
  };
  for (const Damage& d : {
           Damage{"truncated", "variables.data-00000-of-00001", "truncated"},
           Damage{"flipped", "variables.data-00000-of-00001",
                  "checksum mismatch"},
           Damage{"missing", "variables.data-00000-of-00001", "no such file"},
           Damage{"index", "variables.index", "too short"},
       }) {
    SCOPED_TRACE(d.name);
    const fs::path copy = dir_ / d.name;
    fs::copy(Fixture("module"), copy, fs::copy_options::recursive);
    const fs::path file = copy / "variables" / d.file;
    const std::string kind = d.name;
    if (kind == "truncated") {
      fs::resize_file(file, 40);  // the variables lie in the first 92 bytes
    } else if (kind == "flipped") {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(10);
      char byte = 0;
      f.read(&byte, 1);
      byte = static_cast<char>(byte ^ 0x01);
      f.seekp(10);
      f.write(&byte, 1);
    } else if (kind == "missing") {
      fs::remove(file);
    } else {
      fs::resize_file(file, 20);
    }
    CliResult r = Run(copy.string() + inputs);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_EQ(CountLines(r.err), 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr(file.string()));
    EXPECT_THAT(r.err, HasSubstr(d.says));
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
// weft inspect DIR: what saved_model_cli show --all shows, then the graph
// of the chosen signature with its variables frozen; JSON carries both.
TEST_F(SavedModelCliTest, InspectShowsSignaturesAndVariables) {
  CliResult r = RunCli("inspect " + Fixture("module"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("SavedModel, 1 meta graph"));
  EXPECT_THAT(r.out, HasSubstr("meta graph with tags {serve}"));
  EXPECT_THAT(r.out, HasSubstr("signature 'scale'"));
  EXPECT_THAT(r.out, HasSubstr("x: float [?,4] (serving_default_x:0)"));
  EXPECT_THAT(r.out, HasSubstr("signature 'serving_default', its"));
  EXPECT_THAT(r.out, HasSubstr("ops without a kernel on CPU: none"));

  r = RunCli("inspect " + Fixture("keras_lstm") + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"saved_model\": {\"directory\""));
  // Keras export() stores each of the 6 variables under two keys.
  EXPECT_THAT(r.out, HasSubstr("\"checkpoint_tensors\": 13"));
  EXPECT_THAT(r.out, HasSubstr("\"signature_variables\": 6"));
  EXPECT_THAT(r.out, HasSubstr("\"inputs\": [{\"name\": \"tokens\""));

  r = RunCli("inspect " + Fixture("module") + " --signature nope");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(CountLines(r.err), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no signature 'nope'"));
}

}  // namespace weft
