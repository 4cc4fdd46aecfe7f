"""NumPy in and out: what is shared, what is copied, who owns what.

Addresses are read with __array_interface__; an Identity node's output is
its input tensor (weft forwards it without a copy), so a fetched Identity
shows where the feed's tensor lives.
"""

import gc
import weakref

import numpy as np
import pytest

import weft

from conftest import placeholder, unary


def address(a):
    return a.__array_interface__["data"][0]


def identity_session(write_graph, dtype="DT_FLOAT", **options):
    path = write_graph(placeholder("x", dtype) + unary("y", "Identity", "x", dtype))
    return weft.Session(weft.Graph.load(path), threads=1, **options)


def test_empty_is_aligned_and_weft_owned():
    a = weft.empty((3, 5), np.float32)
    assert a.shape == (3, 5) and a.dtype == np.float32
    assert a.flags.c_contiguous and a.flags.writeable
    assert address(a) % 64 == 0
    assert weft.empty([7], "int64").dtype == np.int64


def test_aligned_feed_is_used_without_copy(write_graph):
    session = identity_session(write_graph)
    x = weft.empty((4, 16), np.float32)
    x[...] = np.arange(64, dtype=np.float32).reshape(4, 16)
    y = session.run({"x": x}, "y")
    assert address(y) == address(x)
    np.testing.assert_array_equal(y, x)
    # Shared with the caller's array: handed back read-only.
    assert not y.flags.writeable


def test_aligned_plain_numpy_array_is_used_without_copy(write_graph):
    session = identity_session(write_graph)
    raw = np.zeros(1024 + 16, dtype=np.float32)
    offset = (-address(raw) % 64) // 4
    x = raw[offset : offset + 1024]
    assert address(x) % 64 == 0
    x[:] = np.linspace(-1, 1, 1024, dtype=np.float32)
    y = session.run({"x": x}, "y")
    assert address(y) == address(x)
    np.testing.assert_array_equal(y, x)


def test_unaligned_feed_is_copied(write_graph):
    session = identity_session(write_graph)
    raw = np.arange(1025, dtype=np.float32)
    x = raw[1:] if address(raw) % 64 == 0 else raw[:1024]
    assert address(x) % 64 != 0
    y = session.run({"x": x}, "y")
    assert address(y) != address(x)
    assert address(y) % 64 == 0
    np.testing.assert_array_equal(y, x)
    # A copy weft alone owns comes back writable.
    assert y.flags.writeable


def test_non_contiguous_feed_is_copied_in_c_order(write_graph):
    session = identity_session(write_graph)
    base = weft.empty((6, 8), np.float32)
    base[...] = np.arange(48, dtype=np.float32).reshape(6, 8)
    for view in (base.T, base[::2, 1::3], np.asfortranarray(base)):
        y = session.run({"x": view}, "y")
        assert y.flags.c_contiguous
        np.testing.assert_array_equal(y, view)


def test_output_of_a_run_feeds_the_next_without_copy(write_graph):
    path = write_graph(
        placeholder("x") + unary("r", "Relu", "x") + unary("y", "Identity", "x")
    )
    session = weft.Session(weft.Graph.load(path), threads=1)
    r = session.run({"x": np.array([-1.0, 2.0], np.float32)}, "r")
    assert r.flags.writeable and address(r) % 64 == 0
    y = session.run({"x": r}, "y")
    assert address(y) == address(r)


def test_lists_and_scalars_take_the_graphs_dtype(write_graph):
    path = write_graph(
        placeholder("x") + unary("y", "Identity", "x")
        + placeholder("n", "DT_INT64") + unary("m", "Identity", "n", "DT_INT64")
    )
    session = weft.Session(weft.Graph.load(path), threads=1)
    y, m = session.run({"x": [[1, 2], [3, 4]], "n": 7}, ["y", "m"])
    assert y.dtype == np.float32 and y.tolist() == [[1, 2], [3, 4]]
    assert m.dtype == np.int64 and m.shape == () and int(m) == 7
    predict = session.callable(feeds=["x"], fetches=["y"])
    (y,) = predict([0.5, 1.5])
    assert y.dtype == np.float32 and y.tolist() == [0.5, 1.5]


@pytest.mark.parametrize(
    "tf, np_dtype",
    [
        ("DT_FLOAT", np.float32), ("DT_DOUBLE", np.float64),
        ("DT_HALF", np.float16), ("DT_INT8", np.int8), ("DT_INT16", np.int16),
        ("DT_INT32", np.int32), ("DT_INT64", np.int64), ("DT_UINT8", np.uint8),
        ("DT_UINT16", np.uint16), ("DT_BOOL", np.bool_),
        ("DT_COMPLEX64", np.complex64), ("DT_COMPLEX128", np.complex128),
    ],
)
def test_dtypes_round_trip(write_graph, tf, np_dtype):
    session = identity_session(write_graph, tf)
    x = (np.arange(12) % 5).astype(np_dtype).reshape(3, 4)
    y = session.run({"x": x}, "y")
    assert y.dtype == np_dtype
    np.testing.assert_array_equal(y, x)
    assert session.graph.inputs[0].dtype == np.dtype(np_dtype)


def test_empty_tensors(write_graph):
    session = identity_session(write_graph)
    y = session.run({"x": np.zeros((0, 3), np.float32)}, "y")
    assert y.shape == (0, 3) and y.dtype == np.float32


def test_output_outlives_its_session(write_graph):
    path = write_graph(placeholder("x") + unary("y", "Relu", "x"))
    session = weft.Session(weft.Graph.load(path), threads=2)
    x = np.linspace(-1, 1, 1 << 16, dtype=np.float32)
    y = session.run({"x": x}, "y")
    view = y[10:20]
    alive = weakref.ref(session)
    del session
    gc.collect()
    assert alive() is None
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    del y
    gc.collect()
    # The view keeps the buffer: the memory is still readable and intact.
    np.testing.assert_array_equal(view, np.maximum(x[10:20], 0))


def test_feed_array_stays_alive_while_weft_holds_it(write_graph):
    session = identity_session(write_graph)
    x = weft.empty((1000,), np.float32)
    x[:] = 3.0
    y = session.run({"x": x}, "y")
    assert address(y) == address(x)
    del x
    gc.collect()
    assert float(y.sum()) == 3000.0


def test_constant_fetch_is_read_only(write_graph):
    path = write_graph(
        """
        node { name: 'c' op: 'Const'
          attr { key: 'dtype' value { type: DT_FLOAT } }
          attr { key: 'value' value { tensor { dtype: DT_FLOAT
            tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
        """
    )
    session = weft.Session(weft.Graph.load(path), threads=1)
    c = session.run({}, "c")
    assert c.tolist() == [1.0, 2.0]
    assert not c.flags.writeable
    with pytest.raises(ValueError):
        c[0] = 5
    assert session.run({}, "c").tolist() == [1.0, 2.0]
