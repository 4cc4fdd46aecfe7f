// The values of Const nodes, read once when a signature is prepared: what
// the session's plans, the optimized graphs' plans and the optimizer's
// constant folding take a Const to hold.
//
// A Const whose 'value' attr holds no tensor, or a tensor of another dtype
// than its 'dtype' attr, is an error: Session::Create reports it (naming
// the source and the node) before any signature is optimized, so the
// optimizer only ever sees good ones.
#ifndef WEFT_EXECUTOR_CONST_VALUES_H_
#define WEFT_EXECUTOR_CONST_VALUES_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "core/tensor.h"
#include "graph/graph.h"

namespace weft {

// The tensor Const node `node` holds (owned by the node's attrs).
// InvalidArgument prefixed by `source_name` and naming the node when its
// 'value' holds no tensor or one whose dtype is not the node's 'dtype'.
StatusOr<const Tensor*> ConstNodeValue(const Node& node,
                                       absl::string_view source_name);

// (*values)[id] = the value of node `id` when it is a Const without control
// inputs, null for every other node (a Const with control inputs runs as a
// kernel). Fails on the first bad Const, as ConstNodeValue.
Status CollectConstValues(const Graph& graph, absl::string_view source_name,
                          std::vector<const Tensor*>* values);

}  // namespace weft

#endif  // WEFT_EXECUTOR_CONST_VALUES_H_
