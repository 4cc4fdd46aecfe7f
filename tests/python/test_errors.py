"""weft's errors arrive as Python exceptions carrying weft's own message."""

import os
import subprocess

import numpy as np
import pytest

import weft

from conftest import REPO, cc, placeholder, read_sidecar, unary


@pytest.fixture
def mlp():
    model = read_sidecar("mlp")
    graph = weft.Graph.load(model["graph"])
    return model, graph, weft.Session(graph, threads=1)


def test_missing_file(tmp_path):
    path = tmp_path / "nothing.pb"
    with pytest.raises(FileNotFoundError) as e:
        weft.Graph.load(path)
    assert str(path) in str(e.value)


def test_file_that_is_no_graph(tmp_path):
    path = tmp_path / "junk.pb"
    path.write_bytes(b"\xff\x00 this is not a GraphDef")
    with pytest.raises(ValueError) as e:
        weft.Graph.load(path)
    assert str(path) in str(e.value)


def test_unknown_op_names_file_and_node(write_graph):
    path = write_graph(placeholder("x") + unary("y", "NoSuchOp", "x"))
    with pytest.raises(Exception) as e:
        weft.Graph.load(path)
    message = e.value.args[0]
    assert path in message and "'y'" in message and "NoSuchOp" in message


def test_bad_input_shape(mlp):
    model, _, _ = mlp
    with pytest.raises(ValueError) as e:
        weft.Graph.load(model["graph"], input_shapes={"x": (4, 31)})
    assert "'x'" in str(e.value)
    with pytest.raises(ValueError) as e:
        weft.Graph.load(model["graph"], input_shapes={"nope": (1, 32)})
    assert "'nope'" in str(e.value)
    with pytest.raises(TypeError):
        weft.Graph.load(model["graph"], input_shapes={"x": (1, "a")})


def test_feed_of_wrong_dtype_names_feed_and_both_dtypes(mlp):
    _, _, session = mlp
    x = np.zeros((4, 32), np.float64)
    with pytest.raises(ValueError) as e:
        session.run({"x": x}, ["Identity"])
    message = str(e.value)
    assert "'x'" in message and "float" in message and "double" in message


def test_feed_of_wrong_shape(mlp):
    _, _, session = mlp
    with pytest.raises(ValueError) as e:
        session.run({"x": np.zeros((4, 31), np.float32)}, ["Identity"])
    assert "'x'" in str(e.value)


def test_unknown_fetch_and_feed_names(mlp):
    _, _, session = mlp
    x = np.zeros((4, 32), np.float32)
    with pytest.raises(KeyError) as e:
        session.run({"x": x}, ["probz"])
    assert "probz" in e.value.args[0]
    with pytest.raises(KeyError) as e:
        session.run({"x": x, "nope": x}, ["Identity"])
    assert "nope" in e.value.args[0]


def test_unfed_placeholder(mlp):
    _, _, session = mlp
    with pytest.raises(ValueError) as e:
        session.run({}, ["Identity"])
    assert "'x'" in str(e.value) and "fed" in str(e.value)


def test_bad_session_options(mlp):
    _, graph, _ = mlp
    with pytest.raises(ValueError) as e:
        weft.Session(graph, device="tpu")
    assert "tpu" in str(e.value)
    with pytest.raises(ValueError) as e:
        weft.Session(graph, allow_tf32=True)
    assert "allow_tf32" in str(e.value)
    with pytest.raises(TypeError):
        weft.Session(graph, 4)  # options are keyword-only
    with pytest.raises(TypeError):
        weft.Session(graph, thread=4)


def test_cuda_without_gpu_says_why(mlp):
    _, graph, _ = mlp
    reason = weft.cuda_unavailable_reason()
    if not reason:
        pytest.skip("a usable GPU is present")
    with pytest.raises(Exception) as e:
        weft.Session(graph, device="cuda")
    assert reason in str(e.value)


def test_host_memory_limit_is_memory_error(mlp):
    model, graph, _ = mlp
    session = weft.Session(graph, threads=1, host_memory_limit_bytes=64)
    with pytest.raises(MemoryError):
        session.run({"x": np.load(model["input"])}, ["Identity"])


def test_wrong_arguments(mlp):
    _, _, session = mlp
    x = np.zeros((4, 32), np.float32)
    with pytest.raises(TypeError):
        session.run([x], ["Identity"])
    with pytest.raises(TypeError):
        session.run({"x": np.array(["a", "b"])}, ["Identity"])
    predict = session.callable(feeds=["x"], fetches=["Identity"])
    with pytest.raises(TypeError) as e:
        predict(x, x)
    assert "1 feeds" in str(e.value) and "2 given" in str(e.value)
    with pytest.raises(KeyError):
        session.callable(feeds=["x"], fetches=["nothing"])


def test_timeout(write_graph):
    from conftest import matmul_chain_graph

    text, last = matmul_chain_graph(400)
    session = weft.Session(weft.Graph.load(write_graph(text)), threads=1)
    x = np.ones((512, 512), np.float32) / 512
    with pytest.raises(TimeoutError):
        session.run({"x": x, "w": x}, [last], timeout=0.01)


@pytest.fixture(scope="module")
def plugins(tmp_path_factory):
    compiler = cc()
    if compiler is None:
        pytest.skip("no C compiler to build the test op libraries")
    out = tmp_path_factory.mktemp("plugins")
    built = {}
    for name in ("negate_plugin", "not_a_plugin"):
        so = out / f"lib{name}.so"
        subprocess.run(
            [compiler, "-shared", "-fPIC", "-O1", "-I", str(REPO / "include"),
             str(REPO / "tests" / "plugin" / "testdata" / f"{name}.c"),
             "-o", str(so)],
            check=True,
        )
        built[name] = str(so)
    return built


def test_load_op_library(plugins, write_graph):
    weft.load_op_library(plugins["negate_plugin"])
    weft.load_op_library(plugins["negate_plugin"])  # again: a no-op
    path = write_graph(
        placeholder("x")
        + "node { name: 'y' op: 'PluginNegate' input: 'x' "
        "attr { key: 'scale' value { f: 0.5 } } }\n"
    )
    session = weft.Session(weft.Graph.load(path), threads=1)
    x = np.arange(-8, 8, dtype=np.float32)
    # Halving and negating are exact in binary floating point.
    np.testing.assert_array_equal(session.run({"x": x}, "y"), -x * 0.5)


def test_load_op_library_errors(plugins, tmp_path):
    missing = str(tmp_path / "libnothing.so")
    with pytest.raises(FileNotFoundError) as e:
        weft.load_op_library(missing)
    assert str(e.value) == f"op library '{missing}': no such file"
    with pytest.raises(Exception) as e:
        weft.load_op_library(plugins["not_a_plugin"])
    assert plugins["not_a_plugin"] in str(e.value)
    assert "weft_plugin_init" in str(e.value)
