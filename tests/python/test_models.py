"""The project's real models run through the package and match TensorFlow.

The same models, inputs and bound as tests/models/models_test.cc: for every
element a of weft's output and b of TensorFlow's (B the whole tensor),
|a - b| <= 1e-4 |b| + 5e-5 max|B| (that file says why). The references are
TensorFlow's outputs committed next to the graphs.
"""

import numpy as np
import pytest

import weft

from conftest import read_sidecar

REL_TOL = 1e-4
ABS_TOL_SCALE = 5e-5
NAMES = ["mlp", "cnn", "mobilenet_v2", "transformer_encoder"]


def assert_close(what, got, want):
    assert got.dtype == want.dtype == np.float32, what
    assert got.shape == want.shape, what
    a = got.astype(np.float64)
    b = want.astype(np.float64)
    bound = REL_TOL * np.abs(b) + ABS_TOL_SCALE * np.abs(b).max()
    use = np.abs(a - b) / bound
    worst = int(np.argmax(use))
    assert np.all(use <= 1), (
        f"{what}: {int(np.sum(~(use <= 1)))} of {b.size} out of bounds; worst "
        f"element {worst}: weft {a.flat[worst]} TensorFlow {b.flat[worst]}"
    )


@pytest.fixture(params=NAMES)
def model(request):
    return read_sidecar(request.param)


@pytest.mark.parametrize("optimize", [True, False])
def test_run_matches_tensorflow(model, optimize):
    graph = weft.Graph.load(
        model["graph"], input_shapes={model["input_name"]: model["input_shape"]}
    )
    session = weft.Session(
        graph, threads=2, optimize=optimize, cache_host_memory=optimize,
        host_memory_limit_bytes=(1 << 30) if optimize else 0,
        max_loop_iterations=10,
    )
    x = np.load(model["input"])
    names = [name for name, _ in model["outputs"]]
    outputs = session.run({model["input_name"]: x}, names)
    assert len(outputs) == len(names)
    for (name, path), got in zip(model["outputs"], outputs):
        assert_close(f"{model['graph'].name} {name}", got, np.load(path))


def test_callable_matches_tensorflow(model):
    graph = weft.Graph.load(model["graph"])
    session = weft.Session(graph, threads=2)
    names = [name for name, _ in model["outputs"]]
    run = session.callable(feeds=[model["input_name"]], fetches=names)
    assert run.feeds == [model["input_name"]]
    assert run.fetches == names
    x = np.load(model["input"])
    for _ in range(2):  # the second run reuses the first's memory
        for (name, path), got in zip(model["outputs"], run(x)):
            assert_close(f"{model['graph'].name} {name}", got, np.load(path))


def test_signature_lists_placeholder_and_output_layers(model):
    graph = weft.Graph.load(
        model["graph"], input_shapes={model["input_name"]: model["input_shape"]}
    )
    (x,) = graph.inputs
    assert x.name == model["input_name"]
    assert x.dtype == np.dtype(np.float32)
    assert x.shape == model["input_shape"]
    # Keras freezes its outputs as Identity nodes nothing consumes, in order.
    assert [t.name for t in graph.outputs] == [n for n, _ in model["outputs"]]
    for spec, (_, path) in zip(graph.outputs, model["outputs"]):
        assert spec.shape == np.load(path).shape


def test_open_batch_dimension_is_none():
    model = read_sidecar("mlp")
    graph = weft.Graph.load(
        model["graph"], input_shapes={"x": (None, model["input_shape"][1])}
    )
    assert graph.inputs[0].shape == (None, model["input_shape"][1])
    assert graph.outputs[0].shape[0] is None
    # One graph, two batch sizes.
    session = weft.Session(graph, threads=1)
    x = np.load(model["input"])
    want = np.load(model["outputs"][0][1])
    assert_close("batch 1", session.run({"x": x[:1]}, "Identity"), want[:1])
    assert_close("full batch", session.run({"x": x}, "Identity"), want)
