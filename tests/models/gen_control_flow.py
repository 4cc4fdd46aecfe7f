#!/usr/bin/env python3
"""Writes the control-flow fixtures of tests/models/testdata/control_flow with
TensorFlow: small graphs with function calls, tf.cond, tf.switch_case and
tf.while_loop, and what TensorFlow computes for sample inputs.
tests/models/control_flow_test.cc reads them and never needs Python; run this
only to regenerate them:

    python3 -m venv /tmp/tfvenv && /tmp/tfvenv/bin/pip install tensorflow-cpu numpy
    /tmp/tfvenv/bin/python tests/models/gen_control_flow.py [NAME ...]

With names, only those graphs are written (the others keep their files).

Each graph is a tf.function of a fixed signature, written in two forms:

    NAME.pbtxt          functional: the function library is kept, calls stay
                        PartitionedCall / StatefulPartitionedCall, conds and
                        loops stay If / Case / While (StatelessIf, ...).
                        For graphs without variables this is the traced graph
                        itself; convert_variables_to_constants_v2 would
                        inline the calls.
    NAME_lowered.pbtxt  what convert_variables_to_constants_v2 leaves by
                        default (lower_control_flow=True): calls inlined,
                        conds and loops lowered to Switch / Merge / Enter /
                        Exit / NextIteration / LoopCond.

    NAME_tf1.pbtxt      (loops and conds without lists only) the same function built in a
                        TF1 graph with control flow v1 (what TF1 graphs and
                        tf.compat.v1 code hold): Switch / Merge / Enter with
                        constant Enters for captured tensors, outputs named
                        as in the functional form.

and one sidecar per sample input, NAME_CASE.cf, one item a line:

    graph NAME.pbtxt
    input <placeholder> <file.npy>          (one line per input)
    output <tensor> <file.npy>              (one line per output)

References are TensorFlow's own kernels running the functional GraphDef in a
tf.compat.v1.Session with Grappler off (no inlining, no lowering, no
folding), so the values are those of exactly the nodes in the file; the
script checks that the lowered and TF1 forms give the same values.
"""

import os
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402
from tensorflow.python.ops import control_flow_util  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "testdata", "control_flow")

F32 = tf.float32
I32 = tf.int32
W = np.linspace(-0.5, 0.5, 16, dtype=np.float32).reshape(4, 4)


# --- a nested call: outer -> middle -> inner, each its own tf.function -----

@tf.function
def inner(v):
    return tf.tanh(tf.matmul(v, tf.constant(W))) + 0.25


@tf.function
def middle(v):
    return inner(v) * 2.0 - inner(v * 0.5)


def nested_call(x):
    return middle(x) + x


# --- tf.cond, tf.switch_case ----------------------------------------------

def cond(x):
    return tf.cond(tf.reduce_sum(x) > 0.0,
                   lambda: tf.sin(x) * 2.0,
                   lambda: tf.matmul(x, tf.constant(W)) - 1.0)


def switch_case(x, k):
    return tf.switch_case(k, [lambda: x + 1.0,
                              lambda: tf.exp(-tf.abs(x)),
                              lambda: tf.reduce_sum(x, 1, keepdims=True) * x])


# --- loops ----------------------------------------------------------------

def trip_count(x):
    # Data-dependent: 1 + floor(sum|x|) mod 7.
    return 1 + tf.math.floormod(
        tf.cast(tf.floor(tf.reduce_sum(tf.abs(x))), I32), 7)


def while_loop(x):
    n = trip_count(x)
    i, acc = tf.while_loop(
        lambda i, acc: i < n,
        lambda i, acc: (i + 1, acc * 0.9 + tf.sin(acc)),
        (tf.constant(0), x))
    return acc, i


def nested_while(x):
    n = trip_count(x)

    def outer_body(i, acc):
        _, inner_acc = tf.while_loop(
            lambda j, a: j < i,
            lambda j, a: (j + 1, a + tf.cos(a) * 0.1),
            (tf.constant(0), acc))
        return i + 1, inner_acc * 0.95

    i, acc = tf.while_loop(lambda i, acc: i < n, outer_body,
                           (tf.constant(0), x))
    return acc, i


def cond_in_loop(x):
    n = trip_count(x)

    def body(i, acc):
        acc = tf.cond(tf.equal(tf.math.floormod(i, 2), 0),
                      lambda: acc * 1.1,
                      lambda: tf.matmul(acc, tf.constant(W)) - 0.3)
        return i + 1, acc

    i, acc = tf.while_loop(lambda i, acc: i < n, body, (tf.constant(0), x))
    return acc, i


def growing_loop(x):
    # A loop variable whose first dimension changes every iteration: the
    # shape invariant [None, 4] leaves it unknown.
    n = trip_count(x)
    i, v = tf.while_loop(
        lambda i, v: i < n,
        lambda i, v: (i + 1, tf.concat([v, v[-1:] * 0.5 + 1.0], 0)),
        (tf.constant(0), x),
        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None, 4])))
    return v, i


# --- TensorLists (the ops of Keras RNNs and tf.TensorArray) ----------------

def tensor_lists(x):
    # Every TensorList op once, on x of shape [3, 4].
    r = tf.raw_ops
    unknown = tf.constant(-1, I32)
    row = tf.constant([4], I32)

    def stack(handle, shape=unknown):
        return r.TensorListStack(input_handle=handle, element_shape=shape,
                                 element_dtype=F32)

    rows = r.TensorListFromTensor(tensor=x, element_shape=row)
    length = r.TensorListLength(input_handle=rows)
    item = r.TensorListGetItem(input_handle=rows, index=1,
                               element_shape=unknown, element_dtype=F32)
    set_first = stack(r.TensorListSetItem(input_handle=rows, index=0,
                                          item=item * 2.0), row)
    reserved = r.TensorListReserve(element_shape=unknown,
                                   num_elements=length + 1, element_dtype=F32)
    reserved = stack(r.TensorListSetItem(input_handle=reserved, index=2,
                                         item=x[2] + 0.5))
    pushed = r.EmptyTensorList(element_shape=row, max_num_elements=-1,
                               element_dtype=F32)
    pushed = r.TensorListPushBack(input_handle=pushed, tensor=x[0] + 1.0)
    pushed = r.TensorListPushBack(input_handle=pushed, tensor=x[1] - 1.0)
    pushed, popped = r.TensorListPopBack(input_handle=pushed,
                                         element_shape=unknown,
                                         element_dtype=F32)
    pushed = stack(pushed)
    resized = stack(r.TensorListResize(input_handle=rows, size=5))
    pieces = r.TensorListSplit(tensor=x, element_shape=tf.constant([-1, 4]),
                               lengths=tf.constant([1, 0, 2], tf.int64))
    concat, lengths = r.TensorListConcatV2(
        input_handle=pieces, element_shape=unknown,
        leading_dims=tf.constant([], tf.int64), element_dtype=F32)
    piece_shape = r.TensorListElementShape(input_handle=pieces,
                                           shape_type=I32)
    gathered = r.TensorListGather(input_handle=rows,
                                  indices=tf.constant([2, 0, 2]),
                                  element_shape=unknown, element_dtype=F32)
    scattered = stack(r.TensorListScatterV2(
        tensor=x, indices=tf.constant([3, 0, 1]), element_shape=row,
        num_elements=5))
    scattered_into = stack(r.TensorListScatterIntoExistingList(
        input_handle=rows, tensor=x[:2] * 3.0, indices=tf.constant([2, 0])))
    return (length, item, set_first, reserved, popped, pushed, resized,
            concat, lengths, piece_shape, gathered, scattered, scattered_into)


def list_loop(x):
    # A loop that reads one TensorArray and writes another, as Keras RNNs do.
    n = trip_count(x)
    inputs = tf.TensorArray(F32, size=tf.shape(x)[0]).unstack(x)
    outputs = tf.TensorArray(F32, size=n, element_shape=[4])

    def body(i, acc, outputs):
        acc = tf.tanh(acc * 0.9 + inputs.read(tf.math.floormod(i, 3)))
        return i + 1, acc, outputs.write(i, acc * 2.0)

    i, acc, outputs = tf.while_loop(lambda i, acc, outputs: i < n, body,
                                    (tf.constant(0), x[0], outputs))
    return outputs.stack(), acc, i


# --- detection-style post-processing --------------------------------------

def detection(boxes, scores):
    # Top-k candidates, then hard NMS (V3), padded NMS (V4) and soft NMS (V5)
    # over them, the kept boxes gathered.
    k = tf.minimum(tf.shape(scores)[0], 12)
    top_scores, top = tf.math.top_k(scores, k=k)
    top_boxes = tf.gather(boxes, top)
    keep = tf.image.non_max_suppression(top_boxes, top_scores, 6,
                                        iou_threshold=0.4,
                                        score_threshold=0.2)
    padded, valid = tf.raw_ops.NonMaxSuppressionV4(
        boxes=top_boxes, scores=top_scores, max_output_size=8,
        iou_threshold=0.5, score_threshold=0.1, pad_to_max_output_size=True)
    soft, soft_scores = tf.image.non_max_suppression_with_scores(
        top_boxes, top_scores, 8, iou_threshold=1.0, score_threshold=0.05,
        soft_nms_sigma=0.5)
    kept_boxes = tf.gather(top_boxes, keep)
    return (kept_boxes, tf.gather(top_scores, keep), tf.gather(top, keep),
            padded, valid, tf.gather(top_boxes, soft), soft_scores)


def batched_detection(boxes, scores):
    # Per image of a batch, in a tf.map_fn loop: padded NMS, boxes and scores
    # of the kept ones (zeros where padded).
    def one(args):
        b, s = args
        keep, valid = tf.raw_ops.NonMaxSuppressionV4(
            boxes=b, scores=s, max_output_size=5, iou_threshold=0.5,
            score_threshold=0.3, pad_to_max_output_size=True)
        mask = tf.cast(tf.range(5) < valid, F32)
        return (tf.gather(b, keep) * mask[:, None], tf.gather(s, keep) * mask,
                valid)

    return tf.map_fn(one, (boxes, scores),
                     fn_output_signature=(F32, F32, I32))


X = tf.TensorSpec([None, 4], F32, name="x")
K = tf.TensorSpec([], I32, name="k")

RNG = np.random.default_rng(2026)
BOXES = tf.TensorSpec([None, 4], F32, name="boxes")
SCORES = tf.TensorSpec([None], F32, name="scores")
BATCH_BOXES = tf.TensorSpec([None, None, 4], F32, name="boxes")
BATCH_SCORES = tf.TensorSpec([None, None], F32, name="scores")


def sample(scale):
    return (RNG.uniform(-1.0, 1.0, (3, 4)) * scale).astype(np.float32)


def detections(shape, seed):
    """Boxes [..., 4] in the unit square, crowded so that many overlap, and
    scores in [0, 1); their own generator, so other samples stay as they
    were."""
    rng = np.random.default_rng(seed)
    corner = rng.uniform(0.0, 0.6, shape + (2,))
    size = rng.uniform(0.1, 0.4, shape + (2,))
    boxes = np.concatenate([corner, corner + size], -1).astype(np.float32)
    return {"boxes": boxes,
            "scores": rng.uniform(0.0, 1.0, shape).astype(np.float32)}


# name -> (function, signature, [(case, {input: value})])
GRAPHS = {
    "nested_call": (nested_call, [X], [("a", {"x": sample(1.0)})]),
    "cond": (cond, [X], [("pos", {"x": np.abs(sample(1.0))}),
                         ("neg", {"x": -np.abs(sample(1.0))})]),
    "switch_case": (switch_case, [X, K], [
        ("k0", {"x": sample(1.0), "k": np.int32(0)}),
        ("k1", {"x": sample(1.0), "k": np.int32(1)}),
        ("k2", {"x": sample(1.0), "k": np.int32(2)}),
        ("k9", {"x": sample(1.0), "k": np.int32(9)})]),
    "while_loop": (while_loop, [X], [("short", {"x": sample(0.1)}),
                                     ("long", {"x": sample(1.0)})]),
    "nested_while": (nested_while, [X], [("a", {"x": sample(1.0)}),
                                         ("b", {"x": sample(0.7)})]),
    "cond_in_loop": (cond_in_loop, [X], [("a", {"x": sample(1.0)}),
                                         ("b", {"x": sample(0.6)})]),
    "growing_loop": (growing_loop, [X], [("a", {"x": sample(1.0)})]),
    "tensor_lists": (tensor_lists, [X], [("a", {"x": sample(1.0)})]),
    "list_loop": (list_loop, [X], [("short", {"x": sample(0.1)}),
                                   ("long", {"x": sample(1.0)})]),
    "detection": (detection, [BOXES, SCORES], [
        ("a", detections((30,), 1)), ("few", detections((5,), 2))]),
    "batched_detection": (batched_detection, [BATCH_BOXES, BATCH_SCORES], [
        ("a", detections((3, 10), 3))]),
}

# Graphs without a TF1 form: calls, Case, and lists (TF1's TensorArrays are
# other ops).
NO_TF1 = ("nested_call", "switch_case", "tensor_lists", "list_loop",
          "detection", "batched_detection")

NO_GRAPPLER = tf.compat.v1.ConfigProto()
NO_GRAPPLER.graph_options.rewrite_options.disable_meta_optimizer = True
_opts = NO_GRAPPLER.graph_options.optimizer_options
_opts.opt_level = tf.compat.v1.OptimizerOptions.L0
_opts.do_constant_folding = False
_opts.do_function_inlining = False


def run(graph_def, feeds, outputs):
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph, config=NO_GRAPPLER) as session:
        return session.run([o if ":" in o else o + ":0" for o in outputs],
                           {k + ":0": v for k, v in feeds.items()})


def tf1_graph(fn, signature, outputs):
    """`fn` built with control flow v1; outputs renamed to `outputs`."""
    graph = tf.Graph()
    saved = control_flow_util.ENABLE_CONTROL_FLOW_V2
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    try:
        with graph.as_default():
            args = [tf.compat.v1.placeholder(spec.dtype, spec.shape,
                                             name=spec.name)
                    for spec in signature]
            results = fn(*args)
            if not isinstance(results, (tuple, list)):
                results = [results]
            for r, name in zip(results, outputs):
                tf.identity(r, name=name)
    finally:
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = saved
    graph_def = graph.as_graph_def()
    assert not graph_def.library.function, "TF1 form holds functions"
    return graph_def


def tensor_name(t):
    return t.name[:-2] if t.name.endswith(":0") else t.name


def write_pbtxt(graph_def, path):
    with open(path, "w") as f:
        f.write(str(graph_def))


def main():
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[1:]
    for name, (fn, signature, cases) in GRAPHS.items():
        if only and name not in only:
            continue
        concrete = tf.function(fn, input_signature=signature) \
            .get_concrete_function()
        functional = concrete.graph.as_graph_def()
        lowered = convert_to_constants.convert_variables_to_constants_v2(
            concrete).graph.as_graph_def()
        outputs = [tensor_name(t) for t in concrete.outputs]
        write_pbtxt(functional, os.path.join(OUT, name + ".pbtxt"))
        write_pbtxt(lowered, os.path.join(OUT, name + "_lowered.pbtxt"))
        tf1 = None
        if name not in NO_TF1:
            tf1 = tf1_graph(fn, signature, outputs)
            write_pbtxt(tf1, os.path.join(OUT, name + "_tf1.pbtxt"))
        ops = sorted({n.op for n in functional.node} |
                     {n.op for f in functional.library.function
                      for n in f.node_def})
        print("%s: outputs %s, ops %s, %d functions" % (
            name, outputs, " ".join(ops), len(functional.library.function)))
        for case, feeds in cases:
            values = run(functional, feeds, outputs)
            for other in (lowered, tf1):
                if other is None:
                    continue
                again = run(other, feeds, outputs)
                for v, w in zip(values, again):
                    np.testing.assert_allclose(v, w, rtol=1e-6, atol=1e-6)
            lines = ["# written by tests/models/gen_control_flow.py "
                     "(TensorFlow %s)" % tf.__version__,
                     "graph %s.pbtxt" % name]
            for k, v in feeds.items():
                file = "%s_%s_in_%s.npy" % (name, case, k)
                np.save(os.path.join(OUT, file), np.asarray(v))
                lines.append("input %s %s" % (k, file))
            for i, (o, v) in enumerate(zip(outputs, values)):
                file = "%s_%s_out%d.npy" % (name, case, i)
                np.save(os.path.join(OUT, file), np.asarray(v))
                lines.append("output %s %s" % (o, file))
            with open(os.path.join(OUT, "%s_%s.cf" % (name, case)), "w") as f:
                f.write("\n".join(lines) + "\n")
            print("  %s: %s" % (case, [np.asarray(v).shape for v in values]))


if __name__ == "__main__":
    main()
