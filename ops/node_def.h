// NodeDef: one node as a graph file states it, before validation: its name,
// op, inputs ("src", "src:1", "^ctrl"), requested device and attrs. Graph
// import builds these from the file; validation (op_def_util.h) fills attr
// defaults and resolves the node's input and output dtypes.
#ifndef WEFT_OPS_NODE_DEF_H_
#define WEFT_OPS_NODE_DEF_H_

#include <string>
#include <vector>

#include "ops/attr_value.h"

namespace weft {

struct NodeDef {
  std::string name;
  std::string op;
  std::vector<std::string> input;
  std::string device;
  AttrMap attr;
};

}  // namespace weft

#endif  // WEFT_OPS_NODE_DEF_H_
