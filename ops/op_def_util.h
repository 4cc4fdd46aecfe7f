// Node validation against an OpDef: fill attr defaults, check every attr
// (type, allowed values, minimums), and resolve the node's input and output
// dtypes, the way graph import and kernel creation need them.
#ifndef WEFT_OPS_OP_DEF_UTIL_H_
#define WEFT_OPS_OP_DEF_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/types.h"
#include "ops/node_def.h"
#include "ops/op_def.h"

namespace weft {

// A validated node's flattened signature. `input_ranges[k]` is the half-open
// range of flat input indices that OpDef input arg k covers (an "N * T" arg
// covers N of them); likewise for outputs.
struct NodeTypes {
  std::vector<DataType> input_types;
  std::vector<DataType> output_types;
  std::vector<std::pair<int, int>> input_ranges;
  std::vector<std::pair<int, int>> output_ranges;
};

// Fills missing attrs from their defaults in `node->attr`, then checks every
// attr against `op_def`: unknown attrs, missing attrs without default, value
// kind vs declared type, allowed values, minimums, and that the number of data
// inputs in `node->input` (those not starting with '^') matches the signature.
// Errors read "node 'name' (Op): attr 'T' ...: allowed [float, double], got
// int32".
StatusOr<NodeTypes> ValidateNode(const OpDef& op_def, NodeDef* node);

// A readable listing of an op's interface, one line per input, output and
// attr, in the spec grammar: "MatMul(a: T, b: T) -> (product: T)\n  attr
// transpose_a: bool = false\n ...".
std::string OpDefToString(const OpDef& op_def);

}  // namespace weft

#endif  // WEFT_OPS_OP_DEF_UTIL_H_
