"""Shared pieces of the weft package's tests.

The tests run against the installed package (`pip install .`), never a
build folder, so they check what users get. They need only numpy and
pytest; TensorFlow's reference outputs are the committed .npy files of
tests/models/testdata (made by tests/models/gen_models.py).
"""

import os
import pathlib
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
MODELS = REPO / "tests" / "models" / "testdata"


def read_sidecar(name):
    """Parses tests/models/testdata/NAME.model (format: models_test.cc)."""
    path = MODELS / f"{name}.model"
    model = {"outputs": []}
    for line in path.read_text().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "graph":
            model["graph"] = MODELS / words[1]
        elif words[0] == "input":
            model["input_name"] = words[1]
            model["input_shape"] = tuple(int(d) for d in words[2].split(","))
            model["input"] = MODELS / words[3]
        elif words[0] == "output":
            model["outputs"].append((words[1], MODELS / words[2]))
        else:
            raise ValueError(f"{path}: unexpected line {line!r}")
    return model


def placeholder(name, dtype="DT_FLOAT", dims=None):
    """A Placeholder NodeDef in text format; dims None leaves the shape open."""
    shape = ""
    if dims is not None:
        shape = "attr { key: 'shape' value { shape { %s } } }" % " ".join(
            "dim { size: %d }" % d for d in dims
        )
    return (
        f"node {{ name: '{name}' op: 'Placeholder' "
        f"attr {{ key: 'dtype' value {{ type: {dtype} }} }} {shape} }}\n"
    )


def unary(name, op, src, dtype="DT_FLOAT"):
    return (
        f"node {{ name: '{name}' op: '{op}' input: '{src}' "
        f"attr {{ key: 'T' value {{ type: {dtype} }} }} }}\n"
    )


@pytest.fixture
def write_graph(tmp_path):
    """Writes GraphDef text to a .pbtxt file and returns its path."""

    def write(text, name="graph.pbtxt"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        return str(path)

    return write


def matmul_chain_graph(length):
    """y = x @ w @ w ... (`length` MatMuls): a graph that runs as long as
    asked, node after node (cancellation is checked between nodes)."""
    text = placeholder("x", dims=[-1, -1]) + placeholder("w", dims=[-1, -1])
    prev = "x"
    for i in range(length):
        text += (
            f"node {{ name: 'm{i}' op: 'MatMul' input: '{prev}' input: 'w' "
            f"attr {{ key: 'T' value {{ type: DT_FLOAT }} }} }}\n"
        )
        prev = f"m{i}"
    return text, prev


def cc():
    """A C compiler, for building the test op library, or None."""
    for name in ("cc", "gcc", "clang"):
        for d in os.environ.get("PATH", "").split(os.pathsep):
            if os.access(os.path.join(d, name), os.X_OK):
                return os.path.join(d, name)
    return None
