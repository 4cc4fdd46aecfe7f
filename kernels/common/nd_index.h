// Shared by the CPU kernels that address slices of a tensor through an
// index tensor whose last dimension holds coordinates (GatherNd, ScatterNd,
// TensorScatter*, SparseToDense): every coordinate tuple is checked and
// turned into a row number once, before any data moves, so the copy loops
// never see an out-of-range index and index math cannot overflow (each row
// number is below the element count of a tensor that exists, or is about
// to, which TensorShape bounds by kMaxElements).
#ifndef WEFT_KERNELS_COMMON_ND_INDEX_H_
#define WEFT_KERNELS_COMMON_ND_INDEX_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/status.h"
#include "core/tensor.h"
#include "core/tensor_shape.h"

namespace weft {

// Views `indices` as [num_rows, k] (k = its last dimension) and writes, for
// each
// row, sum_j i_j * prod(target[j+1:k]) into *rows, the number of the slice
// target[k:] it addresses in a tensor of shape `target`.
// Errors (InvalidArgument): k > target.dims(), an index dtype other than
// int16, uint16, int32 or int64, or a coordinate outside [0, target[j]):
// "<indices_name>[2,0] = [5, 1] does not index into <target_name> [3,4]",
// unless `skip_bad` (bad_indices_policy IGNORE), which writes -1 for such a
// row instead.
Status FlattenNdIndices(const Tensor& indices, const TensorShape& target,
                        absl::string_view indices_name,
                        absl::string_view target_name, bool skip_bad,
                        std::vector<int64_t>* rows);

// Reads the bad_indices_policy attr: true for "IGNORE", false for "",
// "DEFAULT" and "ERROR"; anything else is an InvalidArgument.
Status IgnoreBadIndices(const std::string& policy, bool* ignore);

// The number of coordinates per row of `indices`: its last dimension (0 for
// a scalar).
int64_t IndexDepth(const Tensor& indices);

// "[1,2]": the position of row `row` in a tensor of dims `dims`.
std::string RowPosition(absl::Span<const int64_t> dims, int64_t row);

}  // namespace weft

#endif  // WEFT_KERNELS_COMMON_ND_INDEX_H_
