"""SavedModel directories load through the package and match TensorFlow.

The SavedModels of tests/models/testdata/saved_models (written by
TensorFlow 2.21 and Keras 3, made by tests/models/gen_saved_models.py), each
signature described by a NAME__SIGNATURE.sm sidecar next to its inputs and
TensorFlow's outputs; the bound is the model tests' (test_models.py).
"""

import pathlib

import numpy as np
import pytest

import weft

from conftest import MODELS
from test_models import assert_close

SAVED = MODELS / "saved_models"


def read_sm(path):
    spec = {"inputs": [], "outputs": [], "tags": ["serve"]}
    for line in path.read_text().splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "model":
            spec["dir"] = SAVED / words[1]
        elif words[0] == "tags":
            spec["tags"] = words[1].split(",")
        elif words[0] == "signature":
            spec["signature"] = words[1]
        elif words[0] in ("input", "output"):
            spec[words[0] + "s"].append((words[1], SAVED / words[2]))
    return spec


SIDECARS = sorted(SAVED.glob("*.sm"))


@pytest.mark.parametrize("sidecar", SIDECARS, ids=lambda p: p.stem)
def test_signature_matches_tensorflow(sidecar):
    spec = read_sm(sidecar)
    graph = weft.Graph.load_saved_model(
        spec["dir"], signature=spec["signature"], tags=spec["tags"]
    )
    # The graph speaks the signature's keys, in key order.
    assert [t.name for t in graph.inputs] == sorted(k for k, _ in spec["inputs"])
    assert [t.name for t in graph.outputs] == sorted(
        k for k, _ in spec["outputs"]
    )
    session = weft.Session(graph, threads=2)
    feeds = {key: np.load(path) for key, path in spec["inputs"]}
    names = [key for key, _ in spec["outputs"]]
    for (key, path), got in zip(spec["outputs"], session.run(feeds, names)):
        want = np.load(path)
        if want.dtype == np.float32:
            assert_close(f"{sidecar.stem} {key}", got, want)
        else:
            np.testing.assert_array_equal(got, want, err_msg=key)


def test_load_reads_a_directory_with_its_default_signature():
    graph = weft.Graph.load(SAVED / "module")
    assert sorted(t.name for t in graph.inputs) == ["x", "y"]


def test_unknown_signature_lists_the_signatures():
    with pytest.raises(KeyError, match="serving_default"):
        weft.Graph.load_saved_model(SAVED / "module", signature="nope")


def test_unknown_tags_list_the_tag_sets():
    with pytest.raises(KeyError, match=r"\{serve\}"):
        weft.Graph.load_saved_model(SAVED / "module", tags=["gpu"])


def test_missing_directory_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        weft.Graph.load_saved_model(tmp_path / "nothing_here")
