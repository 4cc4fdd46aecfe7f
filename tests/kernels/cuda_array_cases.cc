// Rows of the CUDA-vs-CPU table for the data-movement kernels of
// kernels/cuda/alias_ops.cc, cast_op.cc and array_ops.cc. Every comparison
// is exact (tolerance 0): these kernels move or convert values, they do no
// arithmetic the CPU could round differently.
//
// The table compares values only: that the alias ops' outputs share their
// input's device buffer is not something a row can express, and is left
// unchecked here.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace {

const std::vector<DataType> kAliasTypes = {DT_FLOAT, DT_HALF, DT_INT64,
                                           DT_BOOL};
const std::vector<DataType> kLayoutTypes = {DT_FLOAT, DT_HALF, DT_INT32,
                                            DT_INT64, DT_BOOL};

Case Exact(Case c) {
  c.atol_ulps = 0;
  c.rtol_ulps = 0;
  return c;
}

Tensor IntTensor(DataType dtype, const std::vector<double>& values) {
  return AsTensorOfType(dtype, values,
                        TensorShape({static_cast<int64_t>(values.size())}));
}

Tensor IntScalar(DataType dtype, double value) {
  return AsTensorOfType(dtype, {value}, TensorShape());
}

std::string Joined(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    absl::StrAppend(&s, s.empty() ? "" : "_", x < 0 ? "m" : "",
                    static_cast<int64_t>(std::fabs(x)));
  }
  return s;
}

void AliasRows(std::vector<Case>* rows) {
  const std::vector<TensorShape> shapes = {TensorShape(), TensorShape({0}),
                                           TensorShape({3, 5}),
                                           TensorShape({(1 << 20) + 3})};
  for (const char* op : {"Identity", "Snapshot", "StopGradient"}) {
    for (const TensorShape& s : shapes) {
      Case c;
      c.op = op;
      c.shapes = {s};
      c.values = {Values::kWide};
      c.dtypes = kAliasTypes;
      rows->push_back(Exact(c));
    }
  }
  struct Reshape {
    TensorShape in;
    std::vector<double> shape;
  };
  const Reshape reshapes[] = {
      {TensorShape({2, 3, 4}), {4, -1}},
      {TensorShape({2, 3, 4}), {24}},
      {TensorShape({0, 3}), {0, -1}},
      {TensorShape(), {1, 1}},
      {TensorShape({1}), {}},
  };
  for (const Reshape& r : reshapes) {
    for (DataType it : {DT_INT32, DT_INT64}) {
      Case c;
      c.op = "Reshape";
      c.shapes = {r.in, TensorShape({static_cast<int64_t>(r.shape.size())})};
      c.values = {Values::kWide, Values::kWide};
      c.fixed[1] = IntTensor(it, r.shape);
      c.dtypes = kAliasTypes;
      c.label = absl::StrCat("to_", Joined(r.shape), "_", DataTypeName(it));
      rows->push_back(Exact(c));
    }
  }
  struct Expand {
    TensorShape in;
    double dim;
  };
  const Expand expands[] = {{TensorShape(), 0},
                            {TensorShape({3, 4}), 0},
                            {TensorShape({3, 4}), -1},
                            {TensorShape({3, 4}), 1},
                            {TensorShape({3, 0}), -3}};
  for (const Expand& e : expands) {
    Case c;
    c.op = "ExpandDims";
    c.shapes = {e.in, TensorShape()};
    c.values = {Values::kWide, Values::kWide};
    c.fixed[1] = IntScalar(DT_INT32, e.dim);
    c.dtypes = kAliasTypes;
    c.label = absl::StrCat("dim_", Joined({e.dim}));
    rows->push_back(Exact(c));
  }
  struct Squeeze {
    TensorShape in;
    std::vector<int64_t> dims;
  };
  const Squeeze squeezes[] = {{TensorShape({1, 3, 1}), {}},
                              {TensorShape({1, 3, 1}), {-1}},
                              {TensorShape({1, 3, 1}), {0, 2}},
                              {TensorShape({1}), {}},
                              {TensorShape({1, 0, 1}), {0}}};
  for (const Squeeze& s : squeezes) {
    Case c;
    c.op = "Squeeze";
    c.shapes = {s.in};
    c.values = {Values::kWide};
    c.attrs["squeeze_dims"] = AttrValue::IntList(s.dims);
    c.dtypes = kAliasTypes;
    c.label = absl::StrCat(
        "dims_", Joined(std::vector<double>(s.dims.begin(), s.dims.end())));
    rows->push_back(Exact(c));
  }
  // Shape, Size and Rank: any input dtype; the output is in host memory.
  for (const TensorShape& s :
       {TensorShape(), TensorShape({0}), TensorShape({2, 3, 4})}) {
    for (const char* op : {"Shape", "Size"}) {
      for (DataType out : {DT_INT32, DT_INT64}) {
        Case c;
        c.op = op;
        c.shapes = {s};
        c.values = {Values::kWide};
        c.attrs["out_type"] = AttrValue::Type(out);
        c.dtypes = kLayoutTypes;
        c.label = DataTypeName(out);
        rows->push_back(Exact(c));
      }
    }
    Case c;
    c.op = "Rank";
    c.shapes = {s};
    c.values = {Values::kWide};
    c.dtypes = kLayoutTypes;
    rows->push_back(Exact(c));
  }
}

void CastRows(std::vector<Case>* rows) {
  const std::vector<DataType> types = {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64,
                                       DT_BOOL};
  for (DataType dst : types) {
    for (const TensorShape& s :
         {TensorShape(), TensorShape({0}), TensorShape({7, 33}),
          TensorShape({(1 << 20) + 3})}) {
      Case c;
      c.op = "Cast";
      c.shapes = {s};
      c.values = {Values::kWide};
      c.attrs["DstT"] = AttrValue::Type(dst);
      c.dtypes = types;  // the source dtypes
      c.label = absl::StrCat("to_", DataTypeName(dst));
      rows->push_back(Exact(c));
    }
  }
  // Special float and half values: NaN, infinities, -0, ties, values out of
  // the integer and half ranges, half subnormals. Fixed inputs of their own
  // dtype (the row's dtype only names them).
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<double> specials = {
      std::nan(""), -inf,          inf,
      -0.0,         0.5,           -0.5,
      1.5,          -2.5,          2147483520.0,
      2147483648.0, -2147483648.0, -2147483904.0,
      9.3e18,       -9.3e18,       65504,
      65519,        65520,         1e-5,
      3e-8,         -6e-8,         2.9802322387695312e-08,
      1234.567,     -7.99};
  const TensorShape shape({static_cast<int64_t>(specials.size())});
  for (DataType src : {DT_FLOAT, DT_HALF}) {
    for (DataType dst : types) {
      if (dst == src) continue;
      for (bool truncate : {false, true}) {
        if (truncate && !(src == DT_FLOAT && dst == DT_HALF)) continue;
        Case c;
        c.op = "Cast";
        c.shapes = {shape};
        c.values = {Values::kWide};
        c.fixed[0] = AsTensorOfType(src, specials, shape);
        c.attrs["DstT"] = AttrValue::Type(dst);
        if (truncate) c.attrs["Truncate"] = AttrValue::Bool(true);
        c.dtypes = {src};
        c.label = absl::StrCat("specials_to_", DataTypeName(dst),
                               truncate ? "_truncate" : "");
        rows->push_back(Exact(c));
      }
    }
  }
  // Integer edges: wrap-around to int32, rounding to float and half.
  const std::vector<double> ints = {0,
                                    1,
                                    -1,
                                    2147483647,
                                    -2147483648,
                                    4294967297.0,
                                    -4294967297.0,
                                    16777217,
                                    65520,
                                    4503599627370497.0};
  const TensorShape int_shape({static_cast<int64_t>(ints.size())});
  for (DataType dst : {DT_FLOAT, DT_HALF, DT_INT32, DT_BOOL}) {
    Case c;
    c.op = "Cast";
    c.shapes = {int_shape};
    c.values = {Values::kWide};
    c.fixed[0] = AsTensorOfType(DT_INT64, ints, int_shape);
    c.attrs["DstT"] = AttrValue::Type(dst);
    c.dtypes = {DT_INT64};
    c.label = absl::StrCat("int_edges_to_", DataTypeName(dst));
    rows->push_back(Exact(c));
  }
}

void TransposeRows(std::vector<Case>* rows) {
  struct T {
    TensorShape shape;
    std::vector<double> perm;
  };
  const T cases[] = {
      {TensorShape(), {}},
      {TensorShape({5}), {0}},
      {TensorShape({3, 4}), {1, 0}},
      {TensorShape({3, 4}), {-1, 0}},
      {TensorShape({1, 4}), {1, 0}},
      {TensorShape({0, 3}), {1, 0}},
      {TensorShape({2, 3, 4, 5}), {0, 2, 3, 1}},
      {TensorShape({2, 3, 4, 5}), {0, 3, 1, 2}},
      {TensorShape({2, 3, 4, 5}), {3, 2, 1, 0}},
      {TensorShape({2, 3, 4, 5}), {1, 0, 2, 3}},
      {TensorShape({2, 1, 4, 1, 5}), {4, 3, 2, 1, 0}},
      {TensorShape({2, 2, 2, 2, 2, 2, 2, 2}), {7, 6, 5, 4, 3, 2, 1, 0}},
      {TensorShape({8, 64, 64, 32}), {0, 3, 1, 2}},
      {TensorShape({1025, 1027}), {1, 0}},
  };
  for (const T& t : cases) {
    for (DataType pt : {DT_INT32, DT_INT64}) {
      Case c;
      c.op = "Transpose";
      c.shapes = {t.shape, TensorShape({static_cast<int64_t>(t.perm.size())})};
      c.values = {Values::kWide, Values::kWide};
      c.fixed[1] = IntTensor(pt, t.perm);
      c.dtypes = kLayoutTypes;
      c.label = absl::StrCat("perm_", Joined(t.perm), "_", DataTypeName(pt));
      rows->push_back(Exact(c));
    }
  }
}

void ConcatRows(std::vector<Case>* rows) {
  struct C {
    std::vector<TensorShape> shapes;
    double axis;
  };
  std::vector<C> cases = {
      {{TensorShape({3}), TensorShape({4})}, 0},
      {{TensorShape({2, 3}), TensorShape({2, 5}), TensorShape({2, 1})}, 1},
      {{TensorShape({2, 3}), TensorShape({4, 3})}, -2},
      {{TensorShape({2, 0}), TensorShape({2, 5}), TensorShape({2, 0}),
        TensorShape({2, 2})},
       -1},
      {{TensorShape({0, 3}), TensorShape({4, 3})}, 0},
      {{TensorShape({0, 3}), TensorShape({0, 3})}, 1},
      {{TensorShape({2, 3, 4}), TensorShape({2, 1, 4}), TensorShape({2, 2, 4})},
       1},
      {{TensorShape({64, 1000, 3}), TensorShape({64, 1000, 5})}, 2},
  };
  // More inputs than one launch takes (gpu::kMaxConcatInputs = 64).
  C many;
  for (int i = 0; i < 150; ++i) {
    many.shapes.push_back(TensorShape({3, i % 7 == 3 ? 0 : 1 + i % 4, 2}));
  }
  many.axis = 1;
  cases.push_back(many);
  for (const C& k : cases) {
    for (DataType at : {DT_INT32, DT_INT64}) {
      Case c;
      c.op = "ConcatV2";
      c.shapes = k.shapes;
      c.shapes.resize(k.shapes.size() + 1);  // the axis, a scalar
      c.values.assign(c.shapes.size(), Values::kWide);
      c.fixed[static_cast<int>(k.shapes.size())] = IntScalar(at, k.axis);
      c.dtypes = kLayoutTypes;
      c.label = absl::StrCat("axis_", Joined({k.axis}), "_", DataTypeName(at));
      rows->push_back(Exact(c));
    }
  }
  struct P {
    TensorShape shape;
    int n;
    int64_t axis;
  };
  const P packs[] = {
      {TensorShape(), 3, 0},           {TensorShape({4}), 2, 1},
      {TensorShape({4}), 2, -2},       {TensorShape({2, 3}), 1, 1},
      {TensorShape({2, 3}), 4, 2},     {TensorShape({0, 3}), 3, 1},
      {TensorShape({256, 513}), 3, 1}, {TensorShape({2, 3}), 100, 0},
  };
  for (const P& p : packs) {
    Case c;
    c.op = "Pack";
    c.shapes.assign(p.n, p.shape);
    c.values.assign(p.n, Values::kWide);
    c.attrs["axis"] = AttrValue::Int(p.axis);
    c.dtypes = kLayoutTypes;
    c.label = absl::StrCat("n", p.n, "_axis_", Joined({double(p.axis)}));
    rows->push_back(Exact(c));
  }
}

void TileRows(std::vector<Case>* rows) {
  struct T {
    TensorShape shape;
    std::vector<double> multiples;
  };
  const T cases[] = {
      {TensorShape(), {}},
      {TensorShape({3}), {1}},
      {TensorShape({3}), {4}},
      {TensorShape({3}), {0}},
      {TensorShape({2, 3}), {2, 1}},
      {TensorShape({2, 3}), {3, 2}},
      {TensorShape({1, 3}), {4, 1}},
      {TensorShape({2, 1, 3}), {1, 5, 1}},
      {TensorShape({2, 3, 4, 5}), {2, 1, 3, 1}},
      {TensorShape({128, 1, 65}), {3, 17, 2}},
  };
  for (const T& t : cases) {
    for (DataType mt : {DT_INT32, DT_INT64}) {
      Case c;
      c.op = "Tile";
      c.shapes = {t.shape,
                  TensorShape({static_cast<int64_t>(t.multiples.size())})};
      c.values = {Values::kWide, Values::kWide};
      c.fixed[1] = IntTensor(mt, t.multiples);
      c.dtypes = kLayoutTypes;
      c.label = absl::StrCat("multiples_", Joined(t.multiples), "_",
                             DataTypeName(mt));
      rows->push_back(Exact(c));
    }
  }
}

}  // namespace

std::vector<Case> ArrayCases() {
  std::vector<Case> rows;
  AliasRows(&rows);
  CastRows(&rows);
  TransposeRows(&rows);
  ConcatRows(&rows);
  TileRows(&rows);
  return rows;
}

}  // namespace weft::test
