#include "tests/ops/shape_inference_testutil.h"

#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ops/op_def_util.h"
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace shape_inference {

namespace {

absl::string_view Trim(absl::string_view s) {
  return absl::StripAsciiWhitespace(s);
}

std::vector<absl::string_view> SplitList(absl::string_view text, char sep) {
  std::vector<absl::string_view> parts;
  if (Trim(text).empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t pos = text.find(sep, start);
    parts.push_back(Trim(text.substr(start, pos - start)));
    if (pos == absl::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

// Everything needed to run one op's shape function on parsed inputs.
struct Harness {
  NodeDef node;
  const OpRegistrationData* reg = nullptr;
  std::vector<PartialTensorShape> shapes;
  std::unique_ptr<InferenceContext> context;
};

// Builds and runs; the returned status is the first failure of lookup,
// parsing, validation or inference.
Status Prepare(const ShapeInferenceTestOp& op, absl::string_view input_shapes,
               Harness* h) {
  WEFT_ASSIGN_OR_RETURN(h->reg, OpRegistry::Global()->LookUp(op.name));
  for (absl::string_view part : SplitList(input_shapes, ';')) {
    StatusOr<PartialTensorShape> shape = ParseTestShape(part);
    if (!shape.ok()) {
      return AddContext(shape.status(),
                        absl::StrCat("test input shapes '", input_shapes, "'"));
    }
    h->shapes.push_back(*std::move(shape));
  }
  h->node = op.node_def;
  h->node.op = op.name;
  if (h->node.name.empty()) h->node.name = "test_node";
  if (h->node.input.empty()) {
    for (size_t i = 0; i < h->shapes.size(); ++i) {
      h->node.input.push_back(absl::StrCat("in", i));
    }
  }
  WEFT_RETURN_IF_ERROR(ValidateNode(h->reg->op_def, &h->node).status());
  h->context = std::make_unique<InferenceContext>(h->node, h->reg->op_def,
                                                  h->shapes, op.input_tensors,
                                                  op.input_tensors_as_shapes);
  return h->context->Run(h->reg->shape_fn);
}

// The output in the notation of the expectations, preferring identity:
// "in1", "?", "[d0_0,3,?]".
std::string Render(InferenceContext* c, ShapeHandle out) {
  for (int i = 0; i < c->num_inputs(); ++i) {
    if (c->input(i).SameHandle(out)) return absl::StrCat("in", i);
  }
  if (!c->RankKnown(out)) return "?";
  std::vector<std::string> dims;
  for (int32_t k = 0; k < c->Rank(out); ++k) {
    const DimensionHandle d = c->Dim(out, k);
    std::string rendered = c->DebugString(d);
    for (int i = 0; i < c->num_inputs(); ++i) {
      const ShapeHandle in = c->input(i);
      for (int32_t j = 0; j < c->Rank(in); ++j) {
        if (c->Dim(in, j).SameHandle(d))
          rendered = absl::StrCat("d", i, "_", j);
      }
    }
    dims.push_back(std::move(rendered));
  }
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

bool Matches(InferenceContext* c, ShapeHandle out, absl::string_view expected,
             absl::string_view rendered) {
  if (expected == "?" && !c->RankKnown(out)) return true;
  if (expected.empty() || expected.front() != '[' || expected.back() != ']' ||
      rendered.empty() || rendered.front() != '[') {
    return expected == rendered;
  }
  const std::vector<absl::string_view> want =
      SplitList(expected.substr(1, expected.size() - 2), ',');
  const std::vector<absl::string_view> got =
      SplitList(rendered.substr(1, rendered.size() - 2), ',');
  if (want.size() != got.size()) return false;
  for (size_t k = 0; k < want.size(); ++k) {
    bool any = false;
    for (absl::string_view alt : SplitList(want[k], '|')) {
      if (alt == got[k]) any = true;
    }
    if (!any) return false;
  }
  return true;
}

std::string RenderAll(InferenceContext* c) {
  std::vector<std::string> outs;
  for (int i = 0; i < c->num_outputs(); ++i) {
    outs.push_back(Render(c, c->output(i)));
  }
  return absl::StrJoin(outs, ";");
}

}  // namespace

StatusOr<PartialTensorShape> ParseTestShape(absl::string_view text) {
  text = Trim(text);
  if (text == "?") {
    // Copied, not moved: moving a fresh temporary trips a GCC
    // -Wmaybe-uninitialized false positive inside absl::InlinedVector.
    static const PartialTensorShape* const kUnknown = new PartialTensorShape();
    return *kUnknown;
  }
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    return errors::InvalidArgument("bad test shape '", text,
                                   "'; expected ?, [] or [2,?]");
  }
  std::vector<int64_t> dims;
  for (absl::string_view d : SplitList(text.substr(1, text.size() - 2), ',')) {
    int64_t v = 0;
    if (d == "?") {
      v = -1;
    } else if (!absl::SimpleAtoi(d, &v) || v < 0) {
      return errors::InvalidArgument("bad dimension '", d, "' in test shape '",
                                     text, "'");
    }
    dims.push_back(v);
  }
  return PartialTensorShape::Build(dims);
}

::testing::AssertionResult InferOk(const ShapeInferenceTestOp& op,
                                   absl::string_view input_shapes,
                                   absl::string_view expected_outputs) {
  Harness h;
  const Status s = Prepare(op, input_shapes, &h);
  const std::string where = absl::StrCat(op.name, " on '", input_shapes, "'");
  if (!s.ok()) {
    return ::testing::AssertionFailure()
           << where << ": expected outputs '" << expected_outputs
           << "' but inference failed: " << s.message();
  }
  InferenceContext* c = h.context.get();
  const std::vector<absl::string_view> expected =
      SplitList(expected_outputs, ';');
  const std::string actual = RenderAll(c);
  if (static_cast<int>(expected.size()) != c->num_outputs()) {
    return ::testing::AssertionFailure()
           << where << ": expected " << expected.size() << " outputs '"
           << expected_outputs << "' but the op has " << c->num_outputs()
           << ": '" << actual << "'";
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    const std::string rendered = Render(c, c->output(i));
    if (!Matches(c, c->output(i), expected[i], rendered)) {
      return ::testing::AssertionFailure()
             << where << ": output " << i << " expected '" << expected[i]
             << "' but got '" << rendered << "' (all outputs: '" << actual
             << "')";
    }
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult InferError(absl::string_view error_substring,
                                      const ShapeInferenceTestOp& op,
                                      absl::string_view input_shapes) {
  Harness h;
  const Status s = Prepare(op, input_shapes, &h);
  const std::string where = absl::StrCat(op.name, " on '", input_shapes, "'");
  if (s.ok()) {
    return ::testing::AssertionFailure()
           << where << ": expected an error containing '" << error_substring
           << "' but inference gave '" << RenderAll(h.context.get()) << "'";
  }
  if (!absl::StrContains(s.message(), error_substring)) {
    return ::testing::AssertionFailure()
           << where << ": expected an error containing '" << error_substring
           << "' but got: " << s.message();
  }
  return ::testing::AssertionSuccess();
}

namespace {

const OpDef* FindOp(absl::string_view op_name) {
  StatusOr<const OpRegistrationData*> reg =
      OpRegistry::Global()->LookUp(op_name);
  return reg.ok() ? &(*reg)->op_def : nullptr;
}

std::string ArgsString(const std::vector<OpDef::ArgDef>& args) {
  return absl::StrJoin(args, ", ",
                       [](std::string* out, const OpDef::ArgDef& a) {
                         absl::StrAppend(out, a.name, ": ");
                         if (!a.number_attr.empty())
                           absl::StrAppend(out, a.number_attr, " * ");
                         if (!a.type_attr.empty()) {
                           absl::StrAppend(out, a.type_attr);
                         } else if (!a.type_list_attr.empty()) {
                           absl::StrAppend(out, a.type_list_attr);
                         } else {
                           absl::StrAppend(out, DataTypeName(a.type));
                         }
                       });
}

}  // namespace

std::string RegisteredSignature(absl::string_view op_name) {
  const OpDef* op = FindOp(op_name);
  if (op == nullptr) return "<unknown op>";
  return absl::StrCat("(", ArgsString(op->input_arg), ") -> (",
                      ArgsString(op->output_arg), ")");
}

std::string RegisteredAttr(absl::string_view op_name,
                           absl::string_view attr_name) {
  const OpDef* op = FindOp(op_name);
  if (op == nullptr) return "<unknown op>";
  const OpDef::AttrDef* attr = op->FindAttr(attr_name);
  if (attr == nullptr) return "<no attr>";
  std::string out = attr->type;
  if (attr->allowed_values) {
    absl::StrAppend(&out, " in ", SummarizeAttrValue(*attr->allowed_values));
  }
  if (attr->has_minimum) absl::StrAppend(&out, " >= ", attr->minimum);
  if (attr->default_value) {
    absl::StrAppend(&out, " = ", SummarizeAttrValue(*attr->default_value));
  }
  return out;
}

namespace {

template <typename T>
Tensor MakeTensor(const std::vector<T>& values, const TensorShape& shape) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  for (size_t i = 0; i < values.size(); ++i) t.data<T>()[i] = values[i];
  return t;
}

}  // namespace

Tensor Int32Tensor(const std::vector<int32_t>& values) {
  return MakeTensor(values, TensorShape({static_cast<int64_t>(values.size())}));
}

Tensor Int64Tensor(const std::vector<int64_t>& values) {
  return MakeTensor(values, TensorShape({static_cast<int64_t>(values.size())}));
}

Tensor Int32Scalar(int32_t value) {
  return MakeTensor(std::vector<int32_t>{value}, TensorShape());
}

Tensor Int64Scalar(int64_t value) {
  return MakeTensor(std::vector<int64_t>{value}, TensorShape());
}

}  // namespace shape_inference
}  // namespace weft
