#include "core/tensor_list.h"

#include "absl/strings/str_cat.h"

namespace weft {

std::string TensorList::DebugString() const {
  return absl::StrCat("TensorList<", DataTypeName(element_dtype), " ",
                      element_shape.DebugString(), ", ", tensors.size(),
                      tensors.size() == 1 ? " item>" : " items>");
}

Status MergeShapes(const PartialTensorShape& a, const PartialTensorShape& b,
                   PartialTensorShape* out) {
  if (a.unknown_rank()) {
    *out = b;
    return Status();
  }
  if (b.unknown_rank()) {
    *out = a;
    return Status();
  }
  auto incompatible = [&] {
    return errors::InvalidArgument("shapes ", a.DebugString(), " and ",
                                   b.DebugString(), " are incompatible");
  };
  if (a.dims() != b.dims()) return incompatible();
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) {
    const int64_t x = a.dim_size(i), y = b.dim_size(i);
    if (x >= 0 && y >= 0 && x != y) return incompatible();
    dims[i] = x >= 0 ? x : y;
  }
  auto merged = PartialTensorShape::Build(dims);
  if (!merged.ok()) return merged.status();
  *out = *std::move(merged);
  return Status();
}

bool ShapesCompatible(const PartialTensorShape& a,
                      const PartialTensorShape& b) {
  PartialTensorShape unused;
  return MergeShapes(a, b, &unused).ok();
}

}  // namespace weft
