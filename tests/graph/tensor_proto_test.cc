// TensorProto decoding and encoding: every value encoding, the compressed
// form, and the errors for payloads that disagree with dtype or shape.
#include "graph/tensor_proto.h"

#include <string>

#include "core/dtype_traits.h"
#include "gmock/gmock.h"
#include "graph/graph_def_io.h"
#include "gtest/gtest.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

Tensor Decode(const std::string& text) {
  auto t = ParseTensorProtoText(text);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

std::string DecodeError(const std::string& text,
                        const TensorDecodeOptions& options = {}) {
  auto t = ParseTensorProtoText(text, options);
  EXPECT_FALSE(t.ok()) << "decoded " << text;
  return t.ok() ? "" : std::string(t.status().message());
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  const T* p = static_cast<const T*>(t.raw_data());
  return std::vector<T>(p, p + t.NumElements());
}

TEST(TensorProtoTest, TensorContentIsLittleEndianBytes) {
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000.
  Tensor t = Decode(R"(dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                       tensor_content: "\000\000\200?\000\000\000\300")");
  EXPECT_EQ(t.shape(), TensorShape({2}));
  EXPECT_EQ(Values<float>(t), (std::vector<float>{1.0f, -2.0f}));
  t = Decode(R"(dtype: DT_INT16 tensor_shape { dim { size: 2 } }
                tensor_content: "\001\000\377\377")");
  EXPECT_EQ(Values<int16_t>(t), (std::vector<int16_t>{1, -1}));
}

TEST(TensorProtoTest, BoolTensorContentNormalizesNonzeroBytes) {
  Tensor t = Decode(R"(dtype: DT_BOOL tensor_shape { dim { size: 3 } }
                       tensor_content: "\000\001\007")");
  EXPECT_EQ(Values<bool>(t), (std::vector<bool>{false, true, true}));
}

TEST(TensorProtoTest, TypedFieldsForEveryDtype) {
  EXPECT_EQ(
      Values<double>(Decode("dtype: DT_DOUBLE tensor_shape { dim { size: 2 } } "
                            "double_val: [0.5, -3]")),
      (std::vector<double>{0.5, -3}));
  EXPECT_EQ(
      Values<int8_t>(Decode("dtype: DT_INT8 tensor_shape { dim { size: 2 } } "
                            "int_val: [-128, 127]")),
      (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Values<uint16_t>(
                Decode("dtype: DT_UINT16 tensor_shape { dim { size: 1 } } "
                       "int_val: 65535")),
            (std::vector<uint16_t>{65535}));
  EXPECT_EQ(
      Values<int64_t>(Decode("dtype: DT_INT64 tensor_shape { dim { size: 1 } } "
                             "int64_val: -9223372036854775808")),
      (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(Values<uint32_t>(
                Decode("dtype: DT_UINT32 tensor_shape { dim { size: 1 } } "
                       "uint32_val: 4294967295")),
            (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(Values<uint64_t>(
                Decode("dtype: DT_UINT64 tensor_shape { dim { size: 1 } } "
                       "uint64_val: 18446744073709551615")),
            (std::vector<uint64_t>{UINT64_MAX}));
  EXPECT_EQ(
      Values<bool>(Decode("dtype: DT_BOOL tensor_shape { dim { size: 2 } } "
                          "bool_val: [true, false]")),
      (std::vector<bool>{true, false}));
  EXPECT_EQ(Values<std::string>(
                Decode("dtype: DT_STRING tensor_shape { dim { size: 2 } } "
                       "string_val: ['a', '\\000b']")),
            (std::vector<std::string>{"a", std::string("\0b", 2)}));
  EXPECT_EQ(Values<complex64>(
                Decode("dtype: DT_COMPLEX64 tensor_shape { dim { size: 1 } } "
                       "scomplex_val: [1, -2]")),
            (std::vector<complex64>{{1.0f, -2.0f}}));
  EXPECT_EQ(Values<complex128>(
                Decode("dtype: DT_COMPLEX128 tensor_shape { dim { size: 1 } } "
                       "dcomplex_val: [0.5, 4]")),
            (std::vector<complex128>{{0.5, 4.0}}));
  // Quantized types take int_val like their plain counterparts.
  Tensor q = Decode(
      "dtype: DT_QUINT8 tensor_shape { dim { size: 2 } } int_val: [0, 255]");
  EXPECT_EQ(q.dtype(), DT_QUINT8);
  EXPECT_EQ(Values<uint8_t>(q), (std::vector<uint8_t>{0, 255}));
}

TEST(TensorProtoTest, HalfValHoldsBitPatterns) {
  // 0x3c00 = 1.0, 0xc000 = -2.0 in IEEE half; -16384 is 0xc000 read signed.
  Tensor h = Decode(
      "dtype: DT_HALF tensor_shape { dim { size: 3 } } "
      "half_val: [15360, 49152, -16384]");
  ASSERT_EQ(h.dtype(), DT_HALF);
  EXPECT_EQ(static_cast<float>(h.data<half>()[0]), 1.0f);
  EXPECT_EQ(static_cast<float>(h.data<half>()[1]), -2.0f);
  EXPECT_EQ(static_cast<float>(h.data<half>()[2]), -2.0f);
  // bfloat16 0x3fc0 = 1.5.
  Tensor b = Decode(
      "dtype: DT_BFLOAT16 tensor_shape { dim { size: 1 } } half_val: 16320");
  EXPECT_EQ(static_cast<float>(b.data<bfloat16>()[0]), 1.5f);
}

TEST(TensorProtoTest, CompressedFormRepeatsTheLastValue) {
  EXPECT_EQ(
      Values<float>(Decode(
          "dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } "
          "} float_val: 7")),
      (std::vector<float>{7, 7, 7, 7}));
  EXPECT_EQ(
      Values<int32_t>(Decode("dtype: DT_INT32 tensor_shape { dim { size: 4 } } "
                             "int_val: [1, 2]")),
      (std::vector<int32_t>{1, 2, 2, 2}));
  EXPECT_EQ(Values<std::string>(
                Decode("dtype: DT_STRING tensor_shape { dim { size: 3 } } "
                       "string_val: 'x'")),
            (std::vector<std::string>{"x", "x", "x"}));
  EXPECT_EQ(Values<complex64>(
                Decode("dtype: DT_COMPLEX64 tensor_shape { dim { size: 2 } } "
                       "scomplex_val: [1, 2]")),
            (std::vector<complex64>{{1, 2}, {1, 2}}));
}

TEST(TensorProtoTest, NoValuesMeansZeros) {
  EXPECT_EQ(
      Values<float>(Decode("dtype: DT_FLOAT tensor_shape { dim { size: 3 } }")),
      (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(Values<std::string>(
                Decode("dtype: DT_STRING tensor_shape { dim { size: 2 } }")),
            (std::vector<std::string>{"", ""}));
  Tensor scalar = Decode("dtype: DT_INT64");
  EXPECT_EQ(scalar.shape(), TensorShape({}));
  EXPECT_EQ(Values<int64_t>(scalar), (std::vector<int64_t>{0}));
  Tensor empty = Decode("dtype: DT_FLOAT tensor_shape { dim { size: 0 } }");
  EXPECT_EQ(empty.NumElements(), 0);
}

TEST(TensorProtoTest, StringTensorContent) {
  // Lengths 2, 0, 1 as varints, then "ab" "" "c".
  Tensor t = Decode(
      "dtype: DT_STRING tensor_shape { dim { size: 3 } } "
      "tensor_content: '\\002\\000\\001abc'");
  EXPECT_EQ(Values<std::string>(t), (std::vector<std::string>{"ab", "", "c"}));
  EXPECT_EQ(DecodeError("dtype: DT_STRING tensor_shape { dim { size: 2 } } "
                        "tensor_content: '\\002\\001abcd'"),
            "tensor_content: the string lengths add up to 3 bytes but 4 "
            "bytes follow them");
  EXPECT_EQ(DecodeError("dtype: DT_STRING tensor_shape { dim { size: 1 } } "
                        "tensor_content: '\\200'"),
            "tensor_content: the length of string 0 is truncated or "
            "malformed");
  EXPECT_EQ(DecodeError("dtype: DT_STRING tensor_shape { dim { size: 5 } } "
                        "tensor_content: '\\001a'"),
            "tensor_content has 2 bytes, too few for the 5 string lengths "
            "the shape needs");
}

TEST(TensorProtoTest, TensorContentSizeMustMatchShape) {
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim "
                        "{ size: 2 } } tensor_content: '0123456789ab'"),
            "tensor_content has 12 bytes but shape [2,2] of float needs 16");
  EXPECT_EQ(DecodeError("dtype: DT_INT64 tensor_content: '01234567X'"),
            "tensor_content has 9 bytes but shape [] of int64 needs 8");
}

TEST(TensorProtoTest, MoreValuesThanElementsIsAnError) {
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT tensor_shape { dim { size: 2 } } "
                        "float_val: [1, 2, 3]"),
            "float_val has 3 values but shape [2] has 2 elements");
  EXPECT_EQ(DecodeError("dtype: DT_INT32 tensor_shape { dim { size: 0 } } "
                        "int_val: 1"),
            "int_val has 1 value but shape [0] has 0 elements");
}

TEST(TensorProtoTest, ValuesInTheWrongFieldAreAnError) {
  EXPECT_EQ(DecodeError("dtype: DT_INT32 float_val: 1.5"),
            "a int32 tensor takes its values from int_val, but float_val has "
            "1 value");
  EXPECT_EQ(DecodeError("dtype: DT_HALF int_val: [1, 2]"),
            "a half tensor takes its values from half_val, but int_val has 2 "
            "values");
}

TEST(TensorProtoTest, OutOfRangeValuesAreErrors) {
  EXPECT_EQ(DecodeError("dtype: DT_UINT8 tensor_shape { dim { size: 2 } } "
                        "int_val: [1, 256]"),
            "int_val[1] = 256 is out of range for uint8");
  EXPECT_EQ(DecodeError("dtype: DT_INT8 int_val: -129"),
            "int_val[0] = -129 is out of range for int8");
  EXPECT_EQ(DecodeError("dtype: DT_HALF half_val: 65536"),
            "half_val[0] = 65536 is not a 16-bit pattern for half");
  EXPECT_EQ(DecodeError("dtype: DT_COMPLEX64 scomplex_val: [1, 2, 3]"),
            "scomplex_val has 3 numbers; complex64 values are (real, "
            "imaginary) pairs, so the count must be even");
}

TEST(TensorProtoTest, ShapeErrors) {
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim "
                        "{ size: -3 } }"),
            "tensor_shape dimension 1 is -3; a tensor value needs every "
            "dimension >= 0");
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT tensor_shape { unknown_rank: true }"),
            "tensor_shape has unknown rank; a tensor value needs a fully "
            "known shape");
  EXPECT_THAT(
      DecodeError("dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } "
                  "dim { size: 4294967296 } dim { size: 4294967296 } } "
                  "float_val: 1"),
      HasSubstr("has more than 2^62 elements"));
}

TEST(TensorProtoTest, AbsurdFillsAreRefusedBeforeAllocating) {
  const std::string message = DecodeError(
      "dtype: DT_FLOAT tensor_shape { dim { size: 1000000 } dim { size: "
      "1000000 } } float_val: 1");
  EXPECT_EQ(message,
            "float_val gives 1 value for shape [1000000,1000000] of float "
            "(1000000000000 elements, 4000000000000 bytes once the last value "
            "is repeated); tensors filled from fewer values than elements are "
            "limited to 1073741824 bytes "
            "(TensorDecodeOptions::max_filled_bytes)");
  // No values at all is the same fill.
  EXPECT_THAT(DecodeError("dtype: DT_DOUBLE tensor_shape { dim { size: "
                          "1000000000000 } }"),
              HasSubstr("double_val gives 0 values for shape [1000000000000] "
                        "of double (1000000000000 elements, 8000000000000 "
                        "bytes"));
  // Strings count their object and their characters.
  EXPECT_THAT(DecodeError("dtype: DT_STRING tensor_shape { dim { size: "
                          "100000000 } } string_val: 'abc'"),
              HasSubstr("limited to 1073741824 bytes"));
  // The limit is an option.
  TensorDecodeOptions small;
  small.max_filled_bytes = 16;
  EXPECT_THAT(
      DecodeError("dtype: DT_FLOAT tensor_shape { dim { size: 5 } }", small),
      HasSubstr("20 bytes once the last value is repeated"));
  auto fits = ParseTensorProtoText(
      "dtype: DT_FLOAT tensor_shape { dim { size: 4 } }", small);
  EXPECT_TRUE(fits.ok()) << fits.status();
  // Payloads that list every element are not limited by it.
  auto full = ParseTensorProtoText(
      "dtype: DT_FLOAT tensor_shape { dim { size: 8 } } "
      "float_val: [1, 2, 3, 4, 5, 6, 7, 8]",
      small);
  EXPECT_TRUE(full.ok()) << full.status();
}

TEST(TensorProtoTest, UnsupportedDtypesAreNamed) {
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT8_E5M2"),
            "dtype DT_FLOAT8_E5M2 is not supported by weft");
  EXPECT_EQ(DecodeError("dtype: DT_FLOAT_REF"),
            "dtype DT_FLOAT_REF is a reference type, which weft does not "
            "support");
  EXPECT_EQ(DecodeError("dtype: 77"),
            "dtype 77 is not a known TensorFlow DataType");
  EXPECT_EQ(DecodeError("tensor_shape { dim { size: 1 } }"),
            "dtype is DT_INVALID (unset)");
  EXPECT_EQ(DecodeError("dtype: DT_RESOURCE"),
            "resource tensors cannot be loaded from a graph file");
  EXPECT_EQ(DecodeError("dtype: DT_VARIANT"),
            "variant tensors cannot be loaded from a graph file");
}

TEST(TensorProtoTest, TextSyntaxErrorsGivePosition) {
  auto t = ParseTensorProtoText("dtype: DT_FLOAT\nfloat_val: [1,,]");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()),
              ::testing::StartsWith("TensorProto:2:"));
}

TEST(TensorProtoTest, SerializeRoundTrips) {
  Tensor f(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) f.data<float>()[i] = 0.5f * i - 1;
  Tensor s(DT_STRING, TensorShape({2}));
  s.data<std::string>()[0] = "hello";
  s.data<std::string>()[1] = std::string("\0\xff", 2);
  Tensor h(DT_HALF, TensorShape({1}));
  h.data<half>()[0] = half(-1.5f);
  Tensor b(DT_BOOL, TensorShape({}));
  b.data<bool>()[0] = true;
  Tensor empty(DT_INT64, TensorShape({0, 3}));
  for (const Tensor& t : {f, s, h, b, empty}) {
    auto bytes = SerializeTensorProto(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto back = ParseTensorProto(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(AttrValue::TensorValue(t) == AttrValue::TensorValue(*back))
        << t.DebugString();
  }
}

TEST(TensorProtoTest, SerializeRefusesTensorsWithoutBuffer) {
  auto bytes = SerializeTensorProto(Tensor());
  ASSERT_FALSE(bytes.ok());
  EXPECT_THAT(std::string(bytes.status().message()),
              HasSubstr("has no buffer"));
}

TEST(TensorProtoTest, BinaryParseErrorsSayWhere) {
  // Field 4 (tensor_content) claims 100 bytes; 2 follow.
  const std::string truncated("\x08\x01\x22\x64\x00\x00", 6);
  auto t = ParseTensorProto(truncated);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(),
            "TensorProto: not a valid binary TensorProto: field "
            "'tensor_content' (4) at byte 2 needs 100 bytes but only 2 "
            "remain (truncated?)");
}

// Errors inside a graph carry the node and attr, and the file first.
TEST(TensorProtoTest, GraphErrorsNameFileNodeAndAttr) {
  auto g = ParseTextGraphDef(R"(
node {
  name: "c" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor {
    dtype: DT_FLOAT
    tensor_shape { dim { size: 2 } dim { size: 2 } }
    tensor_content: "0123456789ab" } } }
})",
                             "graph.pb");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "graph.pb: node 'c' (Const): attr 'value': tensor_content has 12 "
            "bytes but shape [2,2] of float needs 16");

  g = ParseTextGraphDef(R"(
node { name: "p" op: "Placeholder"
       attr { key: "dtype" value { type: DT_FLOAT8_E4M3FN } } })",
                        "model.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "model.pbtxt: node 'p' (Placeholder): attr 'dtype': dtype "
            "DT_FLOAT8_E4M3FN is not supported by weft");

  g = ParseTextGraphDef(R"(
node { name: "t" op: "IdentityN"
       attr { key: "T" value { list { type: [DT_FLOAT, DT_INT4] } } } })",
                        "model.pbtxt");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "model.pbtxt: node 't' (IdentityN): attr 'T': list.type[1]: dtype "
            "DT_INT4 is not supported by weft");
}

}  // namespace
}  // namespace weft
