"""examples/ray_batch_inference on a local Ray cluster (ray.init(num_cpus=2)).

Optional: skipped, with the reason, when Ray Data is not installed
(pip install "ray[data]").
"""

import importlib
import pathlib
import sys

import numpy as np
import pytest

from conftest import REPO, read_sidecar

ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'ray[data]'")
pytest.importorskip("ray.data", reason="Ray Data is not installed: pip install 'ray[data]'")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed")

EXAMPLE = REPO / "examples" / "ray_batch_inference"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(EXAMPLE))
    try:
        yield importlib.import_module("batch_inference")
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """40 MobileNetV2 inputs; the first is the committed sample, whose
    TensorFlow output is committed too."""
    model = read_sidecar("mobilenet_v2")
    sample = np.load(model["input"])
    rng = np.random.default_rng(3)
    rest = rng.uniform(-1, 1, (39,) + sample.shape[1:]).astype(np.float32)
    x = np.concatenate([sample, rest])
    path = tmp_path_factory.mktemp("ray_inputs") / "inputs.npy"
    np.save(path, x)
    return model, x, path


def read_column(folder, column):
    table = pq.read_table(str(folder))
    return np.stack([np.asarray(v) for v in table.column(column).to_pylist()])


def test_ray_pipeline_matches_one_session(example, inputs, tmp_path):
    import weft

    model, x, path = inputs
    out = tmp_path / "out"
    code = example.main([
        "--graph", str(model["graph"]), "--input", str(path),
        "--input-name", "x", "--fetch", "Identity", "--fetch", "Identity_1",
        "--output", str(out), "--batch-size", "8", "--actors", "2",
        "--threads-per-actor", "1", "--cpus-per-actor", "0.5",
        "--num-cpus", "2", "--no-progress",
    ])
    assert code == 0
    logits = read_column(out, "Identity")
    probs = read_column(out, "Identity_1")
    assert logits.shape == (40, 100) and probs.shape == (40, 100)

    # In order, and what one session in this process computes.
    session = weft.Session(weft.Graph.load(model["graph"]), threads=2)
    want_logits, want_probs = session.run({"x": x}, ["Identity", "Identity_1"])
    np.testing.assert_allclose(logits, want_logits, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(probs, want_probs, rtol=1e-5, atol=1e-7)
    # The committed sample against TensorFlow's output (bound as in
    # test_models.py).
    ref = np.load(model["outputs"][1][1])[0]
    bound = 1e-4 * np.abs(ref) + 5e-5 * np.abs(ref).max()
    assert np.all(np.abs(probs[0] - ref) <= bound)


def test_ray_pipeline_reads_parquet_and_writes_npy(example, inputs, tmp_path):
    import pyarrow as pa

    model, x, _ = inputs
    rows = x[:12]
    folder = tmp_path / "parquet_in"
    folder.mkdir()
    # Flat float lists, as other tools write them; the predictor reshapes to
    # the graph's input shape.
    table = pa.table({"pixels": [r.ravel().tolist() for r in rows]})
    pq.write_table(table, str(folder / "part-0.parquet"))
    out = tmp_path / "npy_out"
    code = example.main([
        "--graph", str(model["graph"]), "--input", str(folder),
        "--input-column", "pixels", "--input-name", "x",
        "--fetch", "Identity_1", "--output", str(out),
        "--output-format", "npy", "--batch-size", "5", "--actors", "1",
        "--cpus-per-actor", "1", "--num-cpus", "2", "--no-progress",
    ])
    assert code == 0
    files = sorted(pathlib.Path(out).glob("*.npy"))
    assert files
    got = np.concatenate([np.load(f) for f in files])
    import weft

    session = weft.Session(weft.Graph.load(model["graph"]), threads=2)
    want = session.run({"x": rows}, "Identity_1")
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
