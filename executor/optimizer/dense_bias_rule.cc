#include "executor/optimizer/dense_bias_rule.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor/graph_optimizer.h"
#include "executor/optimizer/graph_rebuilder.h"
#include "executor/optimizer/rewrite_context.h"
#include "ops/attr_value.h"

namespace weft {
namespace {

// The vocabulary: the products and the bias nodes the rule rewrites.
bool IsMatMul(absl::string_view op) { return op == "MatMul"; }
bool IsBatchMatMul(absl::string_view op) {
  return op == "BatchMatMul" || op == "BatchMatMulV2" || op == "BatchMatMulV3";
}
bool IsBiasNode(absl::string_view op) {
  return op == "BiasAdd" || op == "Add" || op == "AddV2";
}

bool BoolAttr(const Node* n, absl::string_view name) {
  bool v = false;
  return GetNodeAttr(n->attrs(), name, &v).ok() && v;
}

// The n values `b` adds along a product's last dimension when it is added
// to that product reshaped to `shape`: the trailing dimensions of `shape`
// whose product is n, over which b broadcasts (right-aligned, as Add
// does), b being 1 along every leading dimension. False when no such
// dimensions are known or b varies along a leading one.
bool FlatBias(const Tensor& b, const PartialTensorShape& shape, int64_t n,
              Tensor* out) {
  if (shape.unknown_rank() || n <= 0 || b.dims() > shape.dims()) return false;
  const int rank = shape.dims();
  int first = rank;  // the first of the trailing dimensions
  int64_t product = 1;
  while (first > 0 && product < n) {
    --first;
    if (shape.dim_size(first) < 0) return false;
    product *= shape.dim_size(first);
  }
  if (product != n) return false;
  // Dimension d of `shape` is dimension d - offset of b.
  const int offset = rank - b.dims();
  for (int d = offset; d < rank; ++d) {
    const int64_t size = b.dim_size(d - offset);
    if (size != 1 && (d < first || size != shape.dim_size(d))) return false;
  }
  Tensor flat(DT_FLOAT, TensorShape({n}));
  const float* src = b.data<float>();
  float* dst = flat.data<float>();
  // Walk the trailing dimensions' index in row-major order, following the
  // offset into b (0 stride along b's broadcast dimensions).
  std::vector<int64_t> index(rank, 0);
  std::vector<int64_t> b_stride(rank, 0);
  int64_t stride = 1;
  for (int d = rank - 1; d >= offset; --d) {
    const int64_t size = b.dim_size(d - offset);
    b_stride[d] = size == 1 ? 0 : stride;
    stride *= size;
  }
  int64_t at = 0;
  for (int64_t j = 0; j < n; ++j) {
    dst[j] = src[at];
    for (int d = rank - 1; d >= first; --d) {
      at += b_stride[d];
      if (++index[d] < shape.dim_size(d)) break;
      at -= b_stride[d] * index[d];
      index[d] = 0;
    }
  }
  *out = std::move(flat);
  return true;
}

// The matched pattern.
struct DenseBias {
  // The replaced nodes: the product, the Reshape if any, the bias node.
  std::vector<const Node*> nodes;
  bool flatten_x = false;  // a BatchMatMul over more than two dimensions
  int64_t k = 0;
  int64_t n = 0;
  bool transpose_a = false;
  bool transpose_b = false;
  Tensor bias;  // [n]
  // The final Reshape's shape: the Reshape's own shape input, or (none)
  // this constant.
  Tensor out_shape;
};

NodeDef ReshapeDef(const std::string& name, const std::string& device,
                   const std::string& tensor, const std::string& shape,
                   DataType shape_type) {
  NodeDef def;
  def.name = name;
  def.op = "Reshape";
  def.device = device;
  def.input = {tensor, shape};
  def.attr["T"] = AttrValue::Type(DT_FLOAT);
  def.attr["Tshape"] = AttrValue::Type(shape_type);
  return def;
}

Status EmitDenseBias(const DenseBias& d, GraphRebuilder* rebuilder) {
  const Node* product = d.nodes.front();
  const Node* last = d.nodes.back();
  const std::string& device = last->requested_device();
  const std::string fused_name =
      rebuilder->UniqueName(product->name() + "+" + last->op());
  std::string x =
      rebuilder->InputName(product->input(0).node, product->input(0).index);
  int64_t rows = -1;
  const PartialTensorShape& product_shape =
      rebuilder->context().graph().output_shape(product, 0);
  if (!product_shape.unknown_rank()) {
    rows = 1;
    for (int i = 0; i + 1 < product_shape.dims(); ++i) {
      const int64_t size = product_shape.dim_size(i);
      rows = size < 0 || rows < 0 ? -1 : rows * size;
    }
  }
  if (d.flatten_x) {
    Tensor flat_shape(DT_INT64, TensorShape({2}));
    flat_shape.data<int64_t>()[0] = -1;
    flat_shape.data<int64_t>()[1] = d.k;
    const std::string shape = rebuilder->UniqueName(fused_name + "/rows");
    rebuilder->AddConst(shape, flat_shape, device);
    NodeDef flat = ReshapeDef(rebuilder->UniqueName(fused_name + "/flat"),
                              device, x, shape, DT_INT64);
    x = flat.name;
    rebuilder->AddNode(std::move(flat), {PartialTensorShape({rows, d.k})});
  }
  const std::string bias = rebuilder->UniqueName(fused_name + "/bias");
  rebuilder->AddConst(bias, d.bias, device);
  NodeDef fused;
  fused.name = fused_name;
  fused.op = "_FusedMatMul";
  fused.device = device;
  fused.input = {
      x, rebuilder->InputName(product->input(1).node, product->input(1).index),
      bias};
  fused.attr["T"] = AttrValue::Type(DT_FLOAT);
  fused.attr["transpose_a"] = AttrValue::Bool(d.transpose_a);
  fused.attr["transpose_b"] = AttrValue::Bool(d.transpose_b);
  fused.attr["num_args"] = AttrValue::Int(1);
  fused.attr["fused_ops"] = AttrValue::StringList({"BiasAdd"});
  std::vector<std::string> originals;
  for (const Node* n : d.nodes) originals.push_back(n->name());
  fused.attr[kFusedNodesAttr] = AttrValue::StringList(originals);
  rebuilder->AddNode(std::move(fused), {PartialTensorShape({rows, d.n})});
  // The final Reshape, read in the bias node's place.
  std::string shape;
  DataType shape_type = DT_INT64;
  if (d.out_shape.IsInitialized()) {
    shape = rebuilder->UniqueName(fused_name + "/shape");
    rebuilder->AddConst(shape, d.out_shape, device);
  } else {
    const Node* reshape = d.nodes[1];
    shape =
        rebuilder->InputName(reshape->input(1).node, reshape->input(1).index);
    shape_type = reshape->input_type(1);
  }
  rebuilder->AddNode(ReshapeDef(rebuilder->NodeName(last), device, fused_name,
                                shape, shape_type),
                     rebuilder->OriginalShapes(last));
  return Status();
}

}  // namespace

bool IsDenseBiasProduct(absl::string_view op) {
  return IsMatMul(op) || IsBatchMatMul(op);
}

void DenseBiasRule::Visit(const Node* product, RewriteContext* ctx) const {
  const bool matmul = IsMatMul(product->op());
  if ((!matmul && !IsBatchMatMul(product->op())) ||
      !ctx->IsUnrewrittenFloatNode(product) || product->num_inputs() != 2 ||
      product->input_type(0) != DT_FLOAT ||
      product->input_type(1) != DT_FLOAT) {
    return;
  }
  DenseBias d;
  if (matmul) {
    d.transpose_a = BoolAttr(product, "transpose_a");
    d.transpose_b = BoolAttr(product, "transpose_b");
  } else {
    if (BoolAttr(product, "adj_x")) return;
    d.transpose_b = BoolAttr(product, "adj_y");
  }
  const Tensor* w = ctx->ConstInput(product, 1);
  if (w == nullptr || w->dtype() != DT_FLOAT || w->dims() != 2) return;
  d.k = w->dim_size(d.transpose_b ? 1 : 0);
  d.n = w->dim_size(d.transpose_b ? 0 : 1);
  if (!matmul) {
    // x's rows are flattened: its rank and depth must be known, or a
    // mismatched x would be reshaped where the product would have failed.
    const PartialTensorShape& x_shape = ctx->graph().output_shape(
        product->input(0).node, product->input(0).index);
    if (x_shape.unknown_rank() || x_shape.dims() < 2 ||
        x_shape.dim_size(x_shape.dims() - 1) != d.k) {
      return;
    }
    d.flatten_x = x_shape.dims() > 2;
  }

  int slot = -1;
  const Node* next = ctx->SoleConsumer(product, &slot);
  if (next == nullptr) return;
  const Node* reshape = nullptr;
  if (next->op() == "Reshape") {
    if (slot != 0 || !ctx->IsUnrewrittenFloatNode(next)) return;
    reshape = next;
    next = ctx->SoleConsumer(reshape, &slot);
    if (next == nullptr) return;
  } else if (matmul) {
    return;  // the fusion rule's
  }
  const Node* add = next;
  if (!IsBiasNode(add->op()) || !ctx->IsOpenFloatNode(add) ||
      add->num_inputs() != 2 || ctx->HasKeptControlInputs(add)) {
    return;
  }
  if (add->op() == "BiasAdd") {
    std::string format = "NHWC";
    GetNodeAttr(add->attrs(), "data_format", &format).IgnoreError();
    if (slot != 0 || format != "NHWC") return;
  }
  const Tensor* b = ctx->ConstInput(add, 1 - slot);
  if (b == nullptr || b->dtype() != DT_FLOAT) return;
  // The shape b is added over. A BiasAdd's output has its value's shape,
  // which its own inference may know better (the bias gives the last
  // dimension). An Add must not broadcast its value to a larger shape:
  // FlatBias on the value's own shape requires the dimensions b spans to be
  // known there.
  const Node* before = reshape != nullptr ? reshape : product;
  const PartialTensorShape& shape = add->op() == "BiasAdd"
                                        ? ctx->graph().output_shape(add, 0)
                                        : ctx->graph().output_shape(before, 0);
  if (!FlatBias(*b, shape, d.n, &d.bias)) return;
  if (reshape == nullptr) {
    // A BatchMatMul's own shape, one unknown dimension at most.
    d.out_shape = Tensor(DT_INT64, TensorShape({shape.dims()}));
    int unknown = 0;
    for (int i = 0; i < shape.dims(); ++i) {
      d.out_shape.data<int64_t>()[i] = shape.dim_size(i);
      unknown += shape.dim_size(i) < 0 ? 1 : 0;
    }
    if (unknown > 1) return;
  }
  d.nodes = {product};
  if (reshape != nullptr) d.nodes.push_back(reshape);
  d.nodes.push_back(add);
  std::vector<const Node*> absorbed(d.nodes.begin(), d.nodes.end() - 1);
  if (!ctx->PlacedOnOneCpu(add, absorbed)) return;
  ctx->ReplaceByOne(d.nodes, add->name() + "/dense",
                    [d](const Node*, GraphRebuilder* rebuilder) {
                      return EmitDenseBias(d, rebuilder);
                    });
}

}  // namespace weft
