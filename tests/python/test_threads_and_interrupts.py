"""Runs release the GIL (threads run sessions at once) and Ctrl-C cancels."""

import os
import signal
import threading
import time

import numpy as np
import pytest

import weft

from conftest import matmul_chain_graph, read_sidecar


def test_concurrent_runs_from_threads_match_serial_runs():
    model = read_sidecar("mobilenet_v2")
    session = weft.Session(weft.Graph.load(model["graph"]), threads=2)
    predict = session.callable(feeds=["x"], fetches=["Identity"])
    rng = np.random.default_rng(7)
    inputs = [
        rng.uniform(-1, 1, model["input_shape"]).astype(np.float32)
        for _ in range(8)
    ]
    expected = [session.run({"x": x}, "Identity") for x in inputs]
    errors = []

    def worker(k):
        try:
            for i in range(6):
                j = (k + i) % len(inputs)
                if i % 2:
                    (got,) = predict(inputs[j])
                else:
                    got = session.run({"x": inputs[j]}, "Identity")
                # Same session, same input: the same sums in the same order.
                np.testing.assert_array_equal(got, expected[j])
        except Exception as e:  # reported below, on the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.fixture(scope="module")
def long_run(tmp_path_factory):
    """A session and feeds whose run takes seconds, node after node."""
    text, last = matmul_chain_graph(600)
    path = tmp_path_factory.mktemp("long") / "chain.pbtxt"
    path.write_text(text)
    session = weft.Session(weft.Graph.load(path), threads=1)
    n = 768
    x = np.eye(n, dtype=np.float32)
    return session, {"x": x, "w": x}, last


def test_gil_is_released_during_a_run(long_run):
    session, feeds, last = long_run
    done = threading.Event()
    ticks = 0

    def run():
        session.run(feeds, [last], timeout=1.5)

    def run_until_timeout():
        try:
            run()
        except TimeoutError:
            pass
        finally:
            done.set()

    t = threading.Thread(target=run_until_timeout)
    t.start()
    start = time.monotonic()
    # Python bytecode on this thread keeps running while the other waits in
    # weft: it could not if the run held the GIL.
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    elapsed = time.monotonic() - start
    assert elapsed > 0.5
    assert ticks > 100, f"{ticks} ticks in {elapsed:.2f} s"


def test_ctrl_c_cancels_a_run_on_the_main_thread(long_run):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("KeyboardInterrupt reaches the main thread only")
    session, feeds, last = long_run
    # Uncancelled, the run goes on for seconds: a timeout shows it.
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        session.run(feeds, [last], timeout=1.0)
    assert time.monotonic() - start >= 1.0

    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            session.run(feeds, [last])
    finally:
        timer.cancel()
    elapsed = time.monotonic() - start
    # One MatMul of 768x768 takes milliseconds; the run stops at the next.
    assert elapsed < 1.0, f"cancelled after {elapsed:.2f} s"
    # The handler that was there before the run is back.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    # The same for a prepared callable.
    predict = session.callable(feeds=["x", "w"], fetches=[last])
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            predict(feeds["x"], feeds["w"])
    finally:
        timer.cancel()
    assert time.monotonic() - start < 1.0


def test_ctrl_c_with_a_custom_handler(long_run):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run on the main thread only")
    session, feeds, last = long_run
    seen = []

    class Stop(Exception):
        pass

    def handler(signo, frame):
        seen.append(signo)
        raise Stop()

    previous = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    try:
        start = time.monotonic()
        timer.start()
        with pytest.raises(Stop):
            session.run(feeds, [last])
        assert time.monotonic() - start < 1.0
        assert seen == [signal.SIGINT]
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
