// Lowered (TF1-style) control flow raised back into functional ops at
// import, the way converters do, so that weft's executor has no dead tensors
// and graphs without control flow pay nothing for it.
//
//  - A loop frame (the Enter nodes of one `frame_name`, each loop variable an
//    Enter -> Merge -> Switch -> Exit with a NextIteration back into the
//    Merge, all Switches on one LoopCond) becomes a While node. Its cond
//    function is what the LoopCond's predicate is computed from (the Merge
//    outputs), its body what the NextIterations are computed from (the
//    Switches' true outputs). Constant Enters (is_constant) and tensors the
//    frame reads from outside become extra loop variables the body returns
//    unchanged. Each Exit becomes an Identity of the same name reading the
//    While's output, so fetches and consumers keep their names.
//  - A conditional (the Switch nodes outside loops that share one
//    predicate, their true and false regions, and the Merge nodes that join
//    them) becomes an If node whose then / else functions are the two
//    regions; each joining Merge becomes an Identity of the same name
//    reading the If's output. _SwitchN nodes on one branch index (what
//    TensorFlow lowers Case into) become a Case the same way, branch i being
//    what output i of the _SwitchN nodes reaches.
//  - ControlTrigger becomes NoOp.
//
// Constructs are raised innermost first (one whose region holds no other
// Enter, Switch or Merge), so nested loops, conds inside loops and loops
// inside conds all come out functional. The raised functions join the
// graph's library under "weft_raised_*" names; their nodes keep their
// original names, so errors still name them.
#ifndef WEFT_GRAPH_RAISE_CONTROL_FLOW_H_
#define WEFT_GRAPH_RAISE_CONTROL_FLOW_H_

#include "absl/strings/string_view.h"
#include "core/status.h"
#include "graph/graph_def.h"
#include "ops/op_registry.h"

namespace weft {

// Whether `graph_def` has a node of a lowered control-flow op (Enter, Exit,
// Switch, _SwitchN, Merge, NextIteration, LoopCond, ControlTrigger).
bool HasLoweredControlFlow(const GraphDef& graph_def);

// Raises every loop frame and conditional of `graph_def` (see above).
// Errors are prefixed with `source_name` and name the frame or the Switch
// and what does not fit the pattern.
StatusOr<GraphDef> RaiseLoweredControlFlow(const GraphDef& graph_def,
                                           const OpRegistry* registry,
                                           absl::string_view source_name);

}  // namespace weft

#endif  // WEFT_GRAPH_RAISE_CONTROL_FLOW_H_
