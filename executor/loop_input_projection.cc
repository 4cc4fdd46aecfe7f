#include "executor/loop_input_projection.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "executor/function_graph_index.h"
#include "graph/import.h"

namespace weft {
namespace {

// Whether `fn` reads or returns its feed `i` (`index` indexes fn's graph).
bool ReadsFeed(const FunctionGraph& fn, const FunctionGraphIndex& index,
               size_t i) {
  if (!index.Reads(fn.feeds[i]).empty()) return true;
  for (const std::string& f : fn.fetches) {
    auto p = ParseNodeInput(f);
    if (p.ok() && p->node == fn.feeds[i]) return true;
  }
  return false;
}

// The int32 vector `shape` as a Const node.
NodeDef ShapeConst(const std::string& name, const std::vector<int64_t>& dims,
                   const std::string& device) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(dims.size())}));
  for (size_t i = 0; i < dims.size(); ++i) {
    t.data<int32_t>()[i] = static_cast<int32_t>(dims[i]);
  }
  NodeDef n;
  n.name = name;
  n.op = "Const";
  n.device = device;
  n.attr["dtype"] = AttrValue::Type(DT_INT32);
  n.attr["value"] = AttrValue::TensorValue(std::move(t));
  return n;
}

// The dims of a rank-1 int Const, or empty.
std::vector<int64_t> ConstDims(const NodeDef* n) {
  const Tensor* t = ConstValue(n);
  std::vector<int64_t> dims;
  if (t == nullptr || t->dims() != 1) return dims;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    if (t->dtype() == DT_INT32) {
      dims.push_back(t->data<int32_t>()[i]);
    } else if (t->dtype() == DT_INT64) {
      dims.push_back(t->data<int64_t>()[i]);
    } else {
      return {};
    }
  }
  return dims;
}

}  // namespace

bool FindLoopInputProjection(const FunctionGraph& cond,
                             const FunctionGraph& body,
                             const std::vector<bool>& passed_through,
                             const std::vector<Tensor>& constants,
                             absl::string_view prefix,
                             LoopInputProjection* out) {
  const FunctionGraphIndex index(body.graph_def);
  const FunctionGraphIndex cond_index(cond.graph_def);
  for (size_t k = 0; k < body.feeds.size(); ++k) {
    if (body.input_types[k] != DT_VARIANT || k >= passed_through.size() ||
        !passed_through[k] ||
        (k < constants.size() && constants[k].IsInitialized()) ||
        k >= cond.feeds.size() || ReadsFeed(cond, cond_index, k)) {
      continue;
    }
    // The list's one reader: a TensorListGetItem of float elements.
    const std::vector<NodeRead>& list_reads = index.Reads(body.feeds[k]);
    if (list_reads.size() != 1 || list_reads[0].slot != 0) continue;
    const NodeDef& get = *list_reads[0].node;
    if (get.op != "TensorListGetItem" || DataInputs(get) != 3 ||
        !AttrIs(get, "element_dtype", DT_FLOAT)) {
      continue;
    }
    // Its one reader: input 0 of a float MatMul by a constant matrix.
    const std::vector<NodeRead>& item_reads = index.Reads(get.name);
    if (item_reads.size() != 1 || item_reads[0].slot != 0) continue;
    const NodeDef& matmul = *item_reads[0].node;
    if (matmul.op != "MatMul" || DataInputs(matmul) != 2 ||
        !AttrIs(matmul, "T", DT_FLOAT) || BoolAttr(matmul, "transpose_a")) {
      continue;
    }
    const NodeDef* w_node = index.Source(matmul, 1);
    const Tensor* w = ConstValue(w_node);
    const int w_feed = FeedIndex(body, w_node);
    if (w == nullptr && w_feed >= 0 &&
        w_feed < static_cast<int>(constants.size()) &&
        constants[w_feed].IsInitialized()) {
      w = &constants[w_feed];
    }
    if (w == nullptr || w->dtype() != DT_FLOAT || w->dims() != 2) continue;
    const bool transpose_b = BoolAttr(matmul, "transpose_b");
    const int64_t units = w->dim_size(transpose_b ? 0 : 1);
    // The element's first dimension (the batch) as the list gives it.
    const std::vector<int64_t> element = ConstDims(index.Source(get, 2));
    const int64_t rows = element.size() == 2 ? element[0] : -1;

    LoopInputProjection p;
    p.list_input = static_cast<int>(k);
    p.features = w->dim_size(transpose_b ? 1 : 0);
    p.body = body;
    const std::string shape_name =
        absl::StrCat(matmul.name, "/projected_element_shape");
    std::vector<NodeDef>& nodes = p.body.graph_def.node;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name != matmul.name) continue;
      NodeDef read;
      read.name = matmul.name;
      read.op = "TensorListGetItem";
      read.device = matmul.device;
      read.input = {body.feeds[k], get.input[1], shape_name};
      // Whatever the product and the read ran after, the new read does.
      for (const NodeDef* n : {&matmul, &get}) {
        for (const std::string& in : n->input) {
          if (!in.empty() && in[0] == '^') read.input.push_back(in);
        }
      }
      read.attr["element_dtype"] = AttrValue::Type(DT_FLOAT);
      nodes[i] = std::move(read);
    }
    nodes.push_back(ShapeConst(shape_name, {rows, units}, matmul.device));
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].name == get.name) {
        nodes.erase(nodes.begin() + i);
        break;
      }
    }

    // list -> [steps, batch, features] -> [steps * batch, features] -> the
    // product with W (a MatMul, which packs W once) -> [steps, batch,
    // units] -> list.
    const int64_t features = p.features;
    FunctionGraph& pro = p.prologue;
    auto name = [&](const char* n) { return absl::StrCat(prefix, n); };
    auto node = [&](const char* n, const char* op,
                    std::vector<std::string> inputs) {
      NodeDef d;
      d.name = name(n);
      d.op = op;
      d.input = std::move(inputs);
      return d;
    };
    NodeDef list = node("list", "Placeholder", {});
    list.attr["dtype"] = AttrValue::Type(DT_VARIANT);
    list.attr["shape"] = AttrValue::Shape(PartialTensorShape({}));
    NodeDef stack = node("stacked", "TensorListStack",
                         {name("list"), name("element_shape")});
    stack.attr["element_dtype"] = AttrValue::Type(DT_FLOAT);
    stack.attr["num_elements"] = AttrValue::Int(-1);
    NodeDef shape = node("stacked_shape", "Shape", {name("stacked")});
    shape.attr["T"] = AttrValue::Type(DT_FLOAT);
    shape.attr["out_type"] = AttrValue::Type(DT_INT32);
    NodeDef lead = node("lead", "StridedSlice",
                        {name("stacked_shape"), name("lead_begin"),
                         name("lead_end"), name("lead_stride")});
    lead.attr["T"] = AttrValue::Type(DT_INT32);
    lead.attr["Index"] = AttrValue::Type(DT_INT32);
    for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask",
                             "new_axis_mask", "shrink_axis_mask"}) {
      lead.attr[mask] = AttrValue::Int(0);
    }
    NodeDef out_shape = node("projected_shape", "ConcatV2",
                             {name("lead"), name("units"), name("axis")});
    out_shape.attr["T"] = AttrValue::Type(DT_INT32);
    out_shape.attr["N"] = AttrValue::Int(2);
    out_shape.attr["Tidx"] = AttrValue::Type(DT_INT32);
    NodeDef rows_node =
        node("rows", "Reshape", {name("stacked"), name("rows_shape")});
    rows_node.attr["T"] = AttrValue::Type(DT_FLOAT);
    rows_node.attr["Tshape"] = AttrValue::Type(DT_INT32);
    NodeDef weights = node("weights", "Const", {});
    weights.attr["dtype"] = AttrValue::Type(DT_FLOAT);
    weights.attr["value"] = AttrValue::TensorValue(*w);
    NodeDef product =
        node("product", "MatMul", {name("rows"), name("weights")});
    product.attr["T"] = AttrValue::Type(DT_FLOAT);
    product.attr["transpose_a"] = AttrValue::Bool(false);
    product.attr["transpose_b"] = AttrValue::Bool(transpose_b);
    NodeDef steps =
        node("steps", "Reshape", {name("product"), name("projected_shape")});
    steps.attr["T"] = AttrValue::Type(DT_FLOAT);
    steps.attr["Tshape"] = AttrValue::Type(DT_INT32);
    NodeDef projected = node("projected", "TensorListFromTensor",
                             {name("steps"), name("projected_element_shape")});
    projected.attr["element_dtype"] = AttrValue::Type(DT_FLOAT);
    projected.attr["shape_type"] = AttrValue::Type(DT_INT32);
    // ConcatV2's axis: a scalar 0.
    NodeDef axis = ShapeConst(name("axis"), {0}, "");
    Tensor zero(DT_INT32, TensorShape({}));
    *zero.data<int32_t>() = 0;
    axis.attr["value"] = AttrValue::TensorValue(std::move(zero));
    pro.graph_def.versions = body.graph_def.versions;
    pro.graph_def.node = {
        std::move(list),
        ShapeConst(
            name("element_shape"),
            element.size() == 2 ? element : std::vector<int64_t>{-1, features},
            ""),
        std::move(stack),
        std::move(shape),
        ShapeConst(name("lead_begin"), {0}, ""),
        ShapeConst(name("lead_end"), {2}, ""),
        ShapeConst(name("lead_stride"), {1}, ""),
        std::move(lead),
        ShapeConst(name("units"), {units}, ""),
        std::move(axis),
        std::move(out_shape),
        ShapeConst(name("rows_shape"), {-1, features}, ""),
        std::move(rows_node),
        std::move(weights),
        std::move(product),
        std::move(steps),
        ShapeConst(name("projected_element_shape"), {rows, units}, ""),
        std::move(projected)};
    pro.feeds = {name("list")};
    pro.fetches = {name("projected")};
    pro.input_types = {DT_VARIANT};
    pro.output_types = {DT_VARIANT};
    *out = std::move(p);
    return true;
  }
  return false;
}

}  // namespace weft
