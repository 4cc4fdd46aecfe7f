// Function calls and functional control flow, registered as TensorFlow 2.21
// defines them: PartitionedCall / StatefulPartitionedCall (import inlines
// them, graph/function_library.h), If / StatelessIf, Case / StatelessCase and
// While / StatelessWhile (run by the executor over prepared sub-plans of
// their function attrs, executor/control_flow.h).
//
// The shape functions here see one node, not the function library, so they
// give what the node itself states: `output_shapes` when it is set, else
// unknown shapes. Whole-graph shape inference refines If, Case and While
// through their bodies (graph/function_shapes.h).
#include "ops/op_registry.h"
#include "ops/shape_inference.h"

namespace weft {
namespace {

using shape_inference::InferenceContext;
using shape_inference::ShapeHandle;

// `output_shapes` when it holds one shape per output, else unknown shapes.
// TensorFlow's While falls back to the input shapes instead; weft does not,
// since a loop variable's shape may change from one iteration to the next
// unless output_shapes (the shape invariants) says otherwise.
Status DeclaredOutputShapes(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  WEFT_RETURN_IF_ERROR(c->GetAttr("output_shapes", &shapes));
  if (!shapes.empty() && static_cast<int>(shapes.size()) != c->num_outputs()) {
    return errors::InvalidArgument("attr 'output_shapes' has ", shapes.size(),
                                   " shapes for ", c->num_outputs(),
                                   " outputs");
  }
  for (int i = 0; i < c->num_outputs(); ++i) {
    if (shapes.empty()) {
      c->set_output(i, c->UnknownShape());
      continue;
    }
    ShapeHandle s;
    WEFT_RETURN_IF_ERROR(c->MakeShapeFromPartialTensorShape(shapes[i], &s));
    c->set_output(i, s);
  }
  return Status();
}

Status UnknownOutputShapes(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, c->UnknownShape());
  }
  return Status();
}

}  // namespace

REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(UnknownOutputShapes);

REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(UnknownOutputShapes);

REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(DeclaredOutputShapes);

REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(DeclaredOutputShapes);

REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(DeclaredOutputShapes);

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(DeclaredOutputShapes);

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(DeclaredOutputShapes);

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(DeclaredOutputShapes);

}  // namespace weft
