// CUDA-vs-CPU rows of Slice, StridedSlice, Pad, PadV2, MirrorPad, GatherV2,
// Fill, ZerosLike and OnesLike (see cuda_kernel_cases.h). The kernels move
// elements without looking at them, so every row runs for each registered
// dtype and must match exactly.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/cuda_kernel_cases.h"
#include "tests/kernels/index_tensor_testutil.h"
#include "tests/kernels/kernel_testutil.h"

namespace weft::test {
namespace {

const std::vector<DataType> kTypes = {DT_FLOAT, DT_HALF, DT_INT32, DT_INT64,
                                      DT_BOOL};

Case Row(std::string op, std::vector<TensorShape> shapes, std::string label) {
  Case c;
  c.op = std::move(op);
  c.values.assign(shapes.size(), Values::kWide);
  c.shapes = std::move(shapes);
  c.dtypes = kTypes;
  c.label = std::move(label);
  c.atol_ulps = 0;
  c.rtol_ulps = 0;
  return c;
}

void AddSliceCases(std::vector<Case>* cases) {
  struct S {
    TensorShape shape;
    std::vector<int64_t> begin, size;
    DataType index;
    const char* label;
  };
  const S slices[] = {
      {TensorShape({4, 5, 6}), {1, 0, 2}, {2, -1, 3}, DT_INT32, "mid"},
      {TensorShape({4, 5, 6}), {1, 0, 2}, {2, -1, 3}, DT_INT64, "mid_i64"},
      {TensorShape(), {}, {}, DT_INT32, "scalar"},
      {TensorShape({0, 3}), {0, 1}, {0, 2}, DT_INT32, "empty_in"},
      {TensorShape({3, 4}), {1, 4}, {2, 0}, DT_INT32, "empty_out"},
      {TensorShape({1, 5, 1}), {0, 1, 0}, {1, 3, 1}, DT_INT32, "ones"},
      {TensorShape({3, 4}), {0, 0}, {-1, -1}, DT_INT32, "whole"},
      {TensorShape({64, 300, 17}),
       {3, 10, 1},
       {50, 256, 15},
       DT_INT32,
       "large"},
  };
  for (const S& s : slices) {
    const int64_t rank = s.shape.dims();
    Case c = Row("Slice", {s.shape, TensorShape({rank}), TensorShape({rank})},
                 s.label);
    c.fixed[1] = Vec(s.begin, s.index);
    c.fixed[2] = Vec(s.size, s.index);
    cases->push_back(c);
  }
}

void AddStridedSliceCases(std::vector<Case>* cases) {
  struct S {
    TensorShape shape;
    std::vector<int64_t> begin, end, strides;
    int64_t begin_mask, end_mask, ellipsis, new_axis, shrink;
    const char* label;
  };
  const S slices[] = {
      {TensorShape({5, 6}), {1, -1}, {4, 0}, {1, -1}, 0, 0, 0, 0, 0, "neg"},
      {TensorShape({5, 6, 7}),
       {0, 1},
       {0, 3},
       {1, 1},
       0,
       0,
       1,
       0,
       0,
       "ellipsis"},
      {TensorShape({4, 5}),
       {0, 0, 1},
       {0, 0, 3},
       {1, 1, 1},
       2,
       2,
       0,
       1,
       0,
       "newaxis"},
      {TensorShape({4, 5, 6}),
       {2, 0, 0},
       {3, 0, 0},
       {1, 1, 1},
       6,
       6,
       0,
       0,
       1,
       "shrink"},
      {TensorShape({4, 5, 6}),
       {2, -1, 3},
       {3, 0, 4},
       {1, 1, 1},
       0,
       0,
       0,
       0,
       7,
       "shrink_all"},
      {TensorShape({10}), {0}, {0}, {-2}, 1, 1, 0, 0, 0, "rev2"},
      {TensorShape({10}), {-100}, {100}, {3}, 0, 0, 0, 0, 0, "clamp"},
      {TensorShape({5}), {3}, {1}, {1}, 0, 0, 0, 0, 0, "empty"},
      {TensorShape({0, 4}), {0}, {0}, {1}, 1, 1, 0, 0, 0, "empty_in"},
      {TensorShape({3, 4}), {0, 0}, {3, 4}, {1, 1}, 0, 0, 0, 0, 0, "whole"},
      {TensorShape({256, 512}),
       {1, 511},
       {255, 0},
       {2, -1},
       0,
       2,
       0,
       0,
       0,
       "large"},
  };
  for (const S& s : slices) {
    const int64_t n = static_cast<int64_t>(s.begin.size());
    Case c =
        Row("StridedSlice",
            {s.shape, TensorShape({n}), TensorShape({n}), TensorShape({n})},
            s.label);
    c.fixed[1] = Vec(s.begin);
    c.fixed[2] = Vec(s.end);
    c.fixed[3] = Vec(s.strides);
    c.attrs["begin_mask"] = AttrValue::Int(s.begin_mask);
    c.attrs["end_mask"] = AttrValue::Int(s.end_mask);
    c.attrs["ellipsis_mask"] = AttrValue::Int(s.ellipsis);
    c.attrs["new_axis_mask"] = AttrValue::Int(s.new_axis);
    c.attrs["shrink_axis_mask"] = AttrValue::Int(s.shrink);
    cases->push_back(c);
  }
}

void AddPadCases(std::vector<Case>* cases) {
  struct P {
    TensorShape shape;
    std::vector<int64_t> paddings;
    const char* label;
  };
  // Valid for every mode: REFLECT pads at most size - 1.
  const P pads[] = {
      {TensorShape({3, 4}), {1, 2, 0, 3}, "rows_cols"},
      {TensorShape({2, 3, 4, 5}), {0, 0, 1, 1, 2, 2, 0, 0}, "nhwc"},
      {TensorShape(), {}, "scalar"},
      {TensorShape({3, 4}), {0, 0, 0, 0}, "none"},
      {TensorShape({1, 4, 2}), {0, 0, 1, 1, 1, 0}, "ones"},
      {TensorShape({5}), {4, 4}, "max"},
      {TensorShape({128, 64, 32}), {1, 1, 2, 3, 0, 0}, "large"},
  };
  for (const P& p : pads) {
    const int64_t rank = p.shape.dims();
    for (const char* op :
         {"Pad", "PadV2", "MirrorPad_REFLECT", "MirrorPad_SYMMETRIC"}) {
      const std::string name(op);
      const bool mirror = name.rfind("MirrorPad", 0) == 0;
      std::vector<TensorShape> shapes = {p.shape, TensorShape({rank, 2})};
      if (name == "PadV2") shapes.push_back(TensorShape());
      Case c = Row(mirror ? "MirrorPad" : name, shapes,
                   mirror ? name.substr(10) + "_" + p.label : p.label);
      c.fixed[1] = Ints(DT_INT32, p.paddings, TensorShape({rank, 2}));
      if (mirror) {
        c.attrs["mode"] = AttrValue::String(name.substr(10));
      }
      cases->push_back(c);
    }
  }
  // Constant-only shapes: an empty input padded into a constant output, an
  // empty output, int64 paddings.
  Case empty_in =
      Row("PadV2", {TensorShape({0, 3}), TensorShape({2, 2}), TensorShape()},
          "empty_in");
  empty_in.fixed[1] = Ints(DT_INT32, {1, 1, 0, 0}, TensorShape({2, 2}));
  cases->push_back(empty_in);
  Case empty_out =
      Row("Pad", {TensorShape({0, 3}), TensorShape({2, 2})}, "empty_out");
  empty_out.fixed[1] = Ints(DT_INT32, {0, 0, 1, 1}, TensorShape({2, 2}));
  cases->push_back(empty_out);
  Case i64 = Row("Pad", {TensorShape({3, 4}), TensorShape({2, 2})}, "i64");
  i64.fixed[1] = Ints(DT_INT64, {2, 0, 1, 1}, TensorShape({2, 2}));
  cases->push_back(i64);
}

void AddGatherCases(std::vector<Case>* cases) {
  struct G {
    TensorShape params;
    TensorShape indices;
    std::vector<int64_t> values;
    int64_t axis;
    int64_t batch_dims;
    DataType index;
    const char* label;
  };
  std::vector<int64_t> large(5000);
  for (size_t i = 0; i < large.size(); ++i) large[i] = (i * 7919) % 1000;
  const G gathers[] = {
      {TensorShape({5, 3}),
       TensorShape({4}),
       {0, 4, 2, 2},
       0,
       0,
       DT_INT32,
       "axis0"},
      {TensorShape({5, 3}),
       TensorShape({4}),
       {0, 4, 2, 2},
       0,
       0,
       DT_INT64,
       "axis0_i64"},
      {TensorShape({2, 5, 3}),
       TensorShape({2, 2}),
       {1, 0, 2, 2},
       1,
       0,
       DT_INT32,
       "axis1"},
      {TensorShape({2, 5, 3}),
       TensorShape({3}),
       {2, 0, 1},
       -1,
       0,
       DT_INT64,
       "axis_neg"},
      {TensorShape({5, 3}), TensorShape(), {3}, 0, 0, DT_INT32, "scalar_idx"},
      {TensorShape({5, 3}), TensorShape({0}), {}, 0, 0, DT_INT32, "empty_idx"},
      {TensorShape({0, 5}),
       TensorShape({2}),
       {1, 4},
       1,
       0,
       DT_INT32,
       "empty_params"},
      {TensorShape({2, 5, 3}),
       TensorShape({2, 4}),
       {0, 4, 1, 1, 3, 3, 2, 0},
       1,
       1,
       DT_INT32,
       "batch1"},
      {TensorShape({2, 5, 3}),
       TensorShape({2, 4}),
       {0, 4, 1, 1, 3, 3, 2, 0},
       1,
       -1,
       DT_INT64,
       "batch_neg"},
      {TensorShape({2, 3, 5, 4}),
       TensorShape({2, 6}),
       {0, 1, 2, 3, 4, 0, 4, 3, 2, 1, 0, 4},
       2,
       1,
       DT_INT32,
       "batch1_axis2"},
      {TensorShape({1000, 64}), TensorShape({5000}), large, 0, 0, DT_INT32,
       "large"},
  };
  for (const G& g : gathers) {
    Case c = Row("GatherV2", {g.params, g.indices, TensorShape()}, g.label);
    c.fixed[1] = Ints(g.index, g.values, g.indices);
    c.fixed[2] = Ints(DT_INT32, {g.axis}, TensorShape());
    c.attrs["batch_dims"] = AttrValue::Int(g.batch_dims);
    cases->push_back(c);
  }
}

void AddFillCases(std::vector<Case>* cases) {
  struct F {
    std::vector<int64_t> dims;
    TensorShape value;
    DataType index;
    const char* label;
  };
  const F fills[] = {
      {{2, 3}, TensorShape(), DT_INT32, "2x3"},
      {{}, TensorShape(), DT_INT32, "scalar"},
      {{0, 4}, TensorShape(), DT_INT64, "empty"},
      {{4}, TensorShape({1}), DT_INT32, "value_vec1"},
      {{(1 << 20) + 3}, TensorShape(), DT_INT64, "large"},
  };
  for (const F& f : fills) {
    const int64_t rank = static_cast<int64_t>(f.dims.size());
    Case c = Row("Fill", {TensorShape({rank}), f.value}, f.label);
    c.fixed[0] = Vec(f.dims, f.index);
    cases->push_back(c);
  }
  for (const char* op : {"ZerosLike", "OnesLike"}) {
    for (const TensorShape& s :
         {TensorShape(), TensorShape({0, 3}), TensorShape({3, 5}),
          TensorShape({(1 << 20) + 3})}) {
      cases->push_back(Row(op, {s}, ""));
    }
  }
}

}  // namespace

std::vector<Case> SliceCases() {
  std::vector<Case> cases;
  AddSliceCases(&cases);
  AddStridedSliceCases(&cases);
  AddPadCases(&cases);
  AddGatherCases(&cases);
  AddFillCases(&cases);
  return cases;
}

}  // namespace weft::test
