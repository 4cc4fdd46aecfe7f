// Index-tuple checking and flattening for the N-d indexing kernels (see
// nd_index.h).
#include "kernels/common/nd_index.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/types.h"

namespace weft {
namespace {

template <typename Index>
Status Flatten(const Index* data, int64_t num_rows, int64_t k,
               const TensorShape& target, const Tensor& indices,
               absl::string_view indices_name, absl::string_view target_name,
               bool skip_bad, std::vector<int64_t>* rows) {
  // strides[j] = prod(target[j+1:k]): at most target's element count.
  std::vector<int64_t> strides(k, 1);
  for (int64_t j = k - 2; j >= 0; --j) {
    strides[j] = strides[j + 1] * target.dim_size(static_cast<int>(j + 1));
  }
  rows->resize(num_rows);
  for (int64_t r = 0; r < num_rows; ++r) {
    const Index* tuple = data + r * k;
    int64_t row = 0;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t v = static_cast<int64_t>(tuple[j]);
      if (v < 0 || v >= target.dim_size(static_cast<int>(j))) {
        if (skip_bad) {
          row = -1;
          break;
        }
        std::vector<int64_t> outer(indices.shape().dim_sizes().begin(),
                                   indices.shape().dim_sizes().end());
        if (!outer.empty()) outer.pop_back();
        std::vector<int64_t> values(tuple, tuple + k);
        return errors::InvalidArgument(indices_name, RowPosition(outer, r),
                                       " = [", absl::StrJoin(values, ", "),
                                       "] does not index into ", target_name,
                                       " ", target.DebugString());
      }
      row += v * strides[j];
    }
    (*rows)[r] = row;
  }
  return Status();
}

}  // namespace

int64_t IndexDepth(const Tensor& indices) {
  return indices.dims() == 0 ? 0 : indices.dim_size(indices.dims() - 1);
}

std::string RowPosition(absl::Span<const int64_t> dims, int64_t row) {
  std::vector<int64_t> pos(dims.size());
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] == 0) continue;
    pos[d] = row % dims[d];
    row /= dims[d];
  }
  return absl::StrCat("[", absl::StrJoin(pos, ","), "]");
}

Status IgnoreBadIndices(const std::string& policy, bool* ignore) {
  if (policy.empty() || policy == "DEFAULT" || policy == "ERROR") {
    *ignore = false;
    return Status();
  }
  if (policy == "IGNORE") {
    *ignore = true;
    return Status();
  }
  return errors::InvalidArgument("Unknown bad indices handling attribute: ",
                                 policy);
}

Status FlattenNdIndices(const Tensor& indices, const TensorShape& target,
                        absl::string_view indices_name,
                        absl::string_view target_name, bool skip_bad,
                        std::vector<int64_t>* rows) {
  const int64_t k = IndexDepth(indices);
  if (k > target.dims()) {
    return errors::InvalidArgument(
        indices_name, " ", indices.shape().DebugString(), " holds ", k,
        " coordinates per index, more than the ", target.dims(),
        " dimensions of ", target_name, " ", target.DebugString());
  }
  // The product of every dimension but the last (1 for a scalar), counted
  // directly: with k = 0 it is not NumElements() / k.
  int64_t num_rows = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) num_rows *= indices.dim_size(d);
  switch (indices.dtype()) {
    case DT_INT16:
      return Flatten(indices.data<int16_t>(), num_rows, k, target, indices,
                     indices_name, target_name, skip_bad, rows);
    case DT_UINT16:
      return Flatten(indices.data<uint16_t>(), num_rows, k, target, indices,
                     indices_name, target_name, skip_bad, rows);
    case DT_INT32:
      return Flatten(indices.data<int32_t>(), num_rows, k, target, indices,
                     indices_name, target_name, skip_bad, rows);
    case DT_INT64:
      return Flatten(indices.data<int64_t>(), num_rows, k, target, indices,
                     indices_name, target_name, skip_bad, rows);
    default:
      return errors::InvalidArgument(indices_name, " has dtype ",
                                     DataTypeName(indices.dtype()),
                                     ", not an index type");
  }
}

}  // namespace weft
