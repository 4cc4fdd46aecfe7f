"""weft: run TensorFlow graph files from Python, NumPy in and NumPy out.

    import numpy as np
    import weft

    graph = weft.Graph.load("mobilenet_v2.pb", input_shapes={"x": (1, 96, 96, 3)})
    print(graph.inputs, graph.outputs)
    session = weft.Session(graph, threads=2)
    probs = session.run({"x": image}, "Identity_1")

    predict = session.callable(feeds=["x"], fetches=["Identity_1"])  # hot path
    probs, = predict(image)

Inputs that are C-contiguous and 64-byte aligned (``weft.empty``, or any
array weft returned) are used without a copy; outputs are NumPy arrays over
weft's own buffers. Runs release the GIL, so threads run sessions
concurrently, and Ctrl-C cancels a run on the main thread. weft's errors
arrive as ValueError, KeyError, MemoryError, ... with weft's message.
"""

from weft._weft import (
    Callable,
    Graph,
    Session,
    TensorSpec,
    __version__,
    cuda_unavailable_reason,
    devices,
    empty,
    load_op_library,
)

__all__ = [
    "Callable",
    "Graph",
    "Session",
    "TensorSpec",
    "__version__",
    "cuda_unavailable_reason",
    "devices",
    "empty",
    "load_op_library",
]
