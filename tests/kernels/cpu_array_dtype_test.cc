// Every dtype each layout kernel is registered for, complex, string and
// quantized included (the TensorFlow goldens cannot hold those).
//
// The layout ops only move elements, so their result for any dtype is fixed
// by where each element goes. Each case runs once on int32 "labels" (element
// k of every value input holds a distinct integer) and once on the dtype
// under test, whose element k encodes the same integer (complex (k, 2k),
// string "s<k>", quantized and integer k, ...); every output element must
// be the encoding of the label the int32 run put there. Pad's zero is label
// 0, encoded as the dtype's zero (0, (0,0), "").
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kernels/kernel_registry.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft {
namespace {

using test::AsScalar;
using test::AsTensor;
using test::OpRunner;

// Element k of the result encodes labels[k] in `dtype`.
Tensor Encode(DataType dtype, const std::vector<int64_t>& labels,
              const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (size_t k = 0; k < labels.size(); ++k) {
    const int64_t v = labels[k];
    switch (dtype) {
      case DT_STRING:
        t.data<std::string>()[k] = v == 0 ? "" : "s" + std::to_string(v);
        break;
      case DT_COMPLEX64:
        t.data<complex64>()[k] = complex64(v, 2 * v);
        break;
      case DT_COMPLEX128:
        t.data<complex128>()[k] = complex128(v, 2 * v);
        break;
      case DT_QINT8:
      case DT_QUINT8: {
        const uint8_t b = static_cast<uint8_t>(v);
        std::memcpy(static_cast<char*>(t.raw_data()) + k, &b, 1);
        break;
      }
      case DT_QINT16:
      case DT_QUINT16: {
        const int16_t b = static_cast<int16_t>(v);
        std::memcpy(static_cast<char*>(t.raw_data()) + 2 * k, &b, 2);
        break;
      }
      case DT_QINT32: {
        const int32_t b = static_cast<int32_t>(v);
        std::memcpy(static_cast<char*>(t.raw_data()) + 4 * k, &b, 4);
        break;
      }
      default:
        VisitNumericType(dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, bool>) {
            t.data<T>()[k] = v != 0;
          } else if constexpr (std::is_same_v<T, complex64> ||
                               std::is_same_v<T, complex128>) {
          } else {
            t.data<T>()[k] = static_cast<T>(v);
          }
        });
    }
  }
  return t;
}

// Labels start, start+1, ... of `shape`, in `dtype`.
Tensor Labels(DataType dtype, const TensorShape& shape, int64_t start) {
  std::vector<int64_t> v(shape.num_elements());
  for (size_t k = 0; k < v.size(); ++k) v[k] = start + static_cast<int64_t>(k);
  return Encode(dtype, v, shape);
}

// Same dtype, shape and bytes (strings by value).
void ExpectSameElements(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  if (got.dtype() == DT_STRING) {
    for (int64_t k = 0; k < got.NumElements(); ++k) {
      EXPECT_EQ(got.data<std::string>()[k], want.data<std::string>()[k])
          << "element " << k;
    }
    return;
  }
  const size_t bytes = got.TotalBytes();
  ASSERT_EQ(bytes, want.TotalBytes());
  EXPECT_EQ(std::memcmp(got.raw_data(), want.raw_data(), bytes), 0)
      << got.DebugString() << " differs from " << want.DebugString();
}

std::vector<int64_t> AsLabels(const Tensor& t) {
  std::vector<int64_t> v(t.NumElements());
  for (size_t k = 0; k < v.size(); ++k) v[k] = t.data<int32_t>()[k];
  return v;
}

Tensor I32(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return AsTensor<int32_t>(v, {n});
}

struct Recipe {
  AttrMap attrs;
  // The op's inputs with value inputs of `dtype`.
  std::function<std::vector<Tensor>(DataType)> inputs;
};

AttrMap Attrs(std::initializer_list<std::pair<const char*, AttrValue>> kv) {
  AttrMap m;
  for (const auto& [k, v] : kv) m[k] = v;
  return m;
}

std::map<std::string, Recipe> Recipes() {
  std::map<std::string, Recipe> r;
  r["Transpose"] = {
      {}, [](DataType dt) {
        return std::vector<Tensor>{Labels(dt, {2, 3, 4}, 1), I32({2, 0, 1})};
      }};
  r["ConcatV2"] = {{}, [](DataType dt) {
                     return std::vector<Tensor>{
                         Labels(dt, {2, 1}, 1), Labels(dt, {2, 3}, 10),
                         Labels(dt, {2, 2}, 40), AsScalar<int32_t>(1)};
                   }};
  r["Pack"] = {Attrs({{"axis", AttrValue::Int(1)}}), [](DataType dt) {
                 return std::vector<Tensor>{Labels(dt, {2, 3}, 1),
                                            Labels(dt, {2, 3}, 20)};
               }};
  r["Unpack"] = {
      Attrs({{"num", AttrValue::Int(3)}, {"axis", AttrValue::Int(-1)}}),
      [](DataType dt) {
        return std::vector<Tensor>{Labels(dt, {2, 3}, 1)};
      }};
  r["Split"] = {
      Attrs({{"num_split", AttrValue::Int(3)}}), [](DataType dt) {
        return std::vector<Tensor>{AsScalar<int32_t>(1), Labels(dt, {2, 6}, 1)};
      }};
  r["SplitV"] = {Attrs({{"num_split", AttrValue::Int(3)}}), [](DataType dt) {
                   return std::vector<Tensor>{Labels(dt, {5, 2}, 1),
                                              I32({2, -1, 1}),
                                              AsScalar<int32_t>(0)};
                 }};
  r["Slice"] = {{}, [](DataType dt) {
                  return std::vector<Tensor>{Labels(dt, {3, 4, 2}, 1),
                                             I32({1, 1, 0}), I32({2, -1, 1})};
                }};
  r["StridedSlice"] = {{}, [](DataType dt) {
                         return std::vector<Tensor>{
                             Labels(dt, {3, 4, 2}, 1), I32({2, 0, 1}),
                             I32({0, 4, 2}), I32({-1, 2, 1})};
                       }};
  r["Pad"] = {{}, [](DataType dt) {
                return std::vector<Tensor>{
                    Labels(dt, {2, 3}, 1),
                    AsTensor<int32_t>({1, 0, 2, 1}, {2, 2})};
              }};
  r["PadV2"] = {{}, [](DataType dt) {
                  return std::vector<Tensor>{
                      Labels(dt, {2, 3}, 1),
                      AsTensor<int32_t>({0, 1, 1, 2}, {2, 2}),
                      Labels(dt, {}, 99)};
                }};
  r["MirrorPad"] = {
      Attrs({{"mode", AttrValue::String("REFLECT")}}), [](DataType dt) {
        return std::vector<Tensor>{Labels(dt, {2, 3}, 1),
                                   AsTensor<int32_t>({1, 1, 2, 2}, {2, 2})};
      }};
  r["Tile"] = {{}, [](DataType dt) {
                 return std::vector<Tensor>{Labels(dt, {2, 3}, 1), I32({2, 2})};
               }};
  r["BroadcastTo"] = {
      {}, [](DataType dt) {
        return std::vector<Tensor>{Labels(dt, {3, 1}, 1), I32({2, 3, 4})};
      }};
  r["Fill"] = {{}, [](DataType dt) {
                 return std::vector<Tensor>{I32({2, 3}), Labels(dt, {}, 7)};
               }};
  r["ZerosLike"] = {{}, [](DataType dt) {
                      return std::vector<Tensor>{Labels(dt, {2, 3}, 1)};
                    }};
  r["GatherV2"] = {{}, [](DataType dt) {
                     return std::vector<Tensor>{
                         Labels(dt, {4, 3}, 1),
                         AsTensor<int32_t>({3, 0, 1, 1}, {2, 2}),
                         AsScalar<int32_t>(0)};
                   }};
  r["OneHot"] = {{}, [](DataType dt) {
                   return std::vector<Tensor>{
                       AsTensor<int32_t>({0, 2, 3, 1}, {2, 2}),
                       AsScalar<int32_t>(3), Labels(dt, {}, 5),
                       Labels(dt, {}, 6)};
                 }};
  return r;
}

// The value dtypes each op's CPU kernels are registered for.
std::vector<DataType> RegisteredTypes(const std::string& op,
                                      const std::string& attr) {
  std::vector<DataType> types;
  for (const KernelDef* def : KernelRegistry::Global()->KernelsForOp(op)) {
    if (def->device_type != DEVICE_CPU) continue;
    const KernelDef::AttrConstraint* c = def->FindConstraint(attr);
    if (c == nullptr) continue;
    types.insert(types.end(), c->allowed_types.begin(), c->allowed_types.end());
  }
  return types;
}

TEST(CpuArrayDtypeTest, EveryRegisteredDtypeMovesLikeInt32) {
  int checked = 0;
  for (const auto& [op, recipe] : Recipes()) {
    const std::string attr = op == "GatherV2" ? "Tparams" : "T";
    const std::vector<DataType> types = RegisteredTypes(op, attr);
    ASSERT_FALSE(types.empty()) << op;
    StatusOr<std::vector<Tensor>> reference =
        OpRunner(op, recipe.attrs).Run(recipe.inputs(DT_INT32));
    ASSERT_TRUE(reference.ok()) << op << ": " << reference.status();
    for (DataType dt : types) {
      SCOPED_TRACE(op + " " + DataTypeName(dt));
      for (int threads : {0, 2}) {
        StatusOr<std::vector<Tensor>> out =
            OpRunner(op, recipe.attrs, threads).Run(recipe.inputs(dt));
        ASSERT_TRUE(out.ok()) << out.status();
        ASSERT_EQ(out->size(), reference->size());
        for (size_t i = 0; i < out->size(); ++i) {
          const Tensor& ref = (*reference)[i];
          std::vector<int64_t> labels = AsLabels(ref);
          // ZerosLike writes zeros: label 0 everywhere.
          if (op == "ZerosLike") labels.assign(labels.size(), 0);
          ExpectSameElements((*out)[i], Encode(dt, labels, ref.shape()));
          ++checked;
        }
      }
    }
  }
  // 17 ops, 15 to 21 dtypes each, two thread counts, Unpack and Split with
  // several outputs.
  EXPECT_GT(checked, 17 * 15 * 2);
}

// TensorFlow's registrations, as listed by its kernel registry
// (tensorflow.python.framework.kernels.get_registered_kernels_for_op), for
// the dtypes weft has: all plain numeric types, bool, complex, string, and
// quantized types for some ops; Tile lacks uint16, OnesLike strings.
TEST(CpuArrayDtypeTest, RegistrationsFollowTensorFlow) {
  const std::vector<DataType> numeric = {
      DT_HALF,   DT_BFLOAT16, DT_FLOAT, DT_DOUBLE,    DT_INT8,
      DT_INT16,  DT_INT32,    DT_INT64, DT_UINT8,     DT_UINT16,
      DT_UINT32, DT_UINT64,   DT_BOOL,  DT_COMPLEX64, DT_COMPLEX128};
  auto with = [&](std::vector<DataType> extra) {
    std::vector<DataType> v = numeric;
    v.insert(v.end(), extra.begin(), extra.end());
    std::sort(v.begin(), v.end());
    return v;
  };
  const std::vector<DataType> q5 = {DT_STRING, DT_QINT8,   DT_QUINT8,
                                    DT_QINT16, DT_QUINT16, DT_QINT32};
  const std::vector<DataType> q3 = {DT_STRING, DT_QINT8, DT_QUINT8, DT_QINT32};
  std::vector<DataType> tile = with({DT_STRING});
  tile.erase(std::find(tile.begin(), tile.end(), DT_UINT16));
  const std::map<std::string, std::vector<DataType>> expected = {
      {"Transpose", with({DT_STRING})},
      {"ConcatV2", with(q5)},
      {"Pack", with(q5)},
      {"Unpack", with({DT_STRING})},
      {"Split", with({DT_STRING, DT_QUINT8})},
      {"SplitV", with({DT_STRING, DT_QUINT8})},
      {"Slice", with(q3)},
      {"StridedSlice", with(q3)},
      {"Pad", with(q3)},
      {"PadV2", with(q3)},
      {"MirrorPad", with(q3)},
      {"Tile", tile},
      {"BroadcastTo", with({DT_STRING})},
      {"Fill", with(q5)},
      {"ZerosLike", with({DT_STRING})},
      {"OnesLike", with({})},
      {"GatherV2", with(q5)},
      {"OneHot", with({DT_STRING})},
  };
  for (const auto& [op, types] : expected) {
    std::vector<DataType> got =
        RegisteredTypes(op, op == "GatherV2" ? "Tparams" : "T");
    std::sort(got.begin(), got.end());
    EXPECT_EQ(DataTypeListString(got), DataTypeListString(types)) << op;
  }
  std::vector<DataType> range = RegisteredTypes("Range", "Tidx");
  std::sort(range.begin(), range.end());
  EXPECT_EQ(DataTypeListString(range),
            DataTypeListString({DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64,
                                DT_BFLOAT16, DT_HALF}));
}

TEST(CpuArrayDtypeTest, OnesLikeComplexIsOneReal) {
  for (DataType dt : {DT_COMPLEX64, DT_COMPLEX128}) {
    StatusOr<std::vector<Tensor>> out =
        OpRunner("OnesLike").Run({Labels(dt, {2, 2}, 3)});
    ASSERT_TRUE(out.ok()) << out.status();
    test::ExpectTensorEqual((*out)[0],
                            test::AsTensorOfType(dt, {1, 1, 1, 1}, {2, 2}));
  }
}

// The metadata ops carry any dtype, strings included, without reading it.
TEST(CpuArrayDtypeTest, MetadataOpsTakeStrings) {
  const Tensor s = Labels(DT_STRING, {2, 3}, 1);
  StatusOr<std::vector<Tensor>> out = OpRunner("Reshape").Run({s, I32({3, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].SharesBufferWith(s));
  EXPECT_EQ((*out)[0].shape(), TensorShape({3, 2}));
  out = OpRunner("Shape").Run({s});
  ASSERT_TRUE(out.ok()) << out.status();
  test::ExpectTensorEqual((*out)[0], I32({2, 3}));
  out = OpRunner("ExpandDims").Run({s, AsScalar<int32_t>(0)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({1, 2, 3}));
  out = OpRunner("Squeeze").Run({Labels(DT_STRING, {1, 3}, 1)});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectSameElements((*out)[0], Labels(DT_STRING, {3}, 1));
}

}  // namespace
}  // namespace weft
