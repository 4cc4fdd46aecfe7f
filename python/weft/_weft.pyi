"""Type stubs for weft's extension module (python/src/); `weft` re-exports it."""

import os
from typing import (
    Any,
    Dict,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
    overload,
)

import numpy as np
import numpy.typing as npt

__version__: str

Shape = Optional[Tuple[Optional[int], ...]]
ArrayLike = npt.ArrayLike

class TensorSpec(NamedTuple):
    """A graph tensor: its name ('node' or 'node:i'), dtype (a numpy.dtype,
    or weft's name for dtypes NumPy lacks, e.g. 'bfloat16') and shape (a
    tuple with None for unknown sizes, or None for an unknown rank)."""

    name: str
    dtype: Union[np.dtype, str]
    shape: Shape

class Graph:
    """A TensorFlow graph file loaded into weft: parsed, validated against
    the op registry and shape-inferred once; immutable, shared by the
    sessions made from it."""

    @staticmethod
    def load(
        path: Union[str, os.PathLike],
        input_shapes: Optional[Mapping[str, Optional[Sequence[Optional[int]]]]] = None,
    ) -> "Graph":
        """Loads a GraphDef file (.pb or .pbtxt), or a SavedModel directory
        with its default signature (see load_saved_model). input_shapes gives
        placeholders' shapes ({name: (None, 224, 224, 3)}), None for an open
        size. FileNotFoundError, ValueError (naming file and node) or
        KeyError (an op nobody registered) on failure."""
    @staticmethod
    def load_saved_model(
        path: Union[str, os.PathLike],
        signature: Optional[str] = None,
        tags: Optional[Sequence[str]] = None,
        input_shapes: Optional[Mapping[str, Optional[Sequence[Optional[int]]]]] = None,
    ) -> "Graph":
        """Loads one signature (default "serving_default", or the only one)
        of the meta graph tagged `tags` (default ["serve"]) of a SavedModel
        directory, its variables frozen into constants. inputs and outputs
        are then the signature's keys, which runs feed and fetch by.
        KeyError for an unknown signature or tag set (listing those there
        are), ValueError or FileNotFoundError for a missing or corrupt
        file, naming it and the variable."""
    @staticmethod
    def from_bytes(
        data: bytes,
        source_name: str = "<memory>",
        input_shapes: Optional[Mapping[str, Optional[Sequence[Optional[int]]]]] = None,
    ) -> "Graph":
        """Loads a graph from a GraphDef file's bytes (binary or text);
        source_name names it in errors."""
    @property
    def inputs(self) -> List[TensorSpec]:
        """The placeholders a run may feed, in node order."""
    @property
    def outputs(self) -> List[TensorSpec]:
        """The outputs of nodes nothing consumes (a frozen Keras model's
        output layers); any other tensor may be fetched by name too."""
    @property
    def path(self) -> str: ...
    @property
    def num_nodes(self) -> int: ...

class Callable:
    """A prepared signature (fixed feeds and fetches): the hot path."""

    def __call__(self, *feeds: ArrayLike, timeout: Optional[float] = None) -> List[np.ndarray]:
        """Runs with the feeds in feed order; returns the fetches in order."""
    @property
    def feeds(self) -> List[str]: ...
    @property
    def fetches(self) -> List[str]: ...
    @property
    def num_nodes(self) -> int:
        """Kernel nodes a run executes, after optimization."""
    @property
    def optimizer_summary(self) -> str: ...
    @property
    def placement(self) -> List[Tuple[str, str]]:
        """(node name, device name) for each kernel node."""

class Session:
    """Runs a Graph; every SessionOptions field is a keyword argument.
    Thread-safe; runs release the GIL; Ctrl-C cancels a run on the main
    thread. Returned arrays stay valid after the session is gone."""

    def __init__(
        self,
        graph: Graph,
        *,
        threads: int = -1,
        device: str = "cpu",
        optimize: bool = True,
        cache_host_memory: bool = True,
        host_memory_limit_bytes: int = 0,
        allow_tf32: bool = False,
        device_memory_limit_bytes: int = 0,
        capture_device_graphs: bool = False,
        cuda_stream: int = 0,
        max_loop_iterations: int = 0,
        feeds: Optional[Sequence[str]] = None,
        fetches: Optional[Sequence[str]] = None,
        targets: Optional[Sequence[str]] = None,
        source_name: Optional[str] = None,
    ) -> None: ...
    @overload
    def run(
        self,
        feeds: Dict[str, ArrayLike],
        fetches: str,
        targets: Optional[Sequence[str]] = None,
        timeout: Optional[float] = None,
        trace: Optional[str] = None,
    ) -> np.ndarray: ...
    @overload
    def run(
        self,
        feeds: Dict[str, ArrayLike],
        fetches: Sequence[str],
        targets: Optional[Sequence[str]] = None,
        timeout: Optional[float] = None,
        trace: Optional[str] = None,
    ) -> List[np.ndarray]:
        """Runs once: feeds by tensor name, fetches by name (one name gives
        one array). Aligned, contiguous arrays are fed without a copy;
        outputs are arrays over weft's buffers. ValueError (bad feed),
        KeyError (unknown name, missing kernel), MemoryError, TimeoutError,
        KeyboardInterrupt (Ctrl-C)."""
    def callable(
        self,
        feeds: Optional[Sequence[str]] = None,
        fetches: Optional[Sequence[str]] = None,
        targets: Optional[Sequence[str]] = None,
    ) -> Callable:
        """Prepares a signature once for positional calls."""
    @property
    def graph(self) -> Graph: ...
    @property
    def num_threads(self) -> int: ...
    @property
    def devices(self) -> List[str]: ...

def load_op_library(path: str) -> None:
    """Loads an op library built against weft/plugin.h (its ops and kernels
    are then usable by later loads and sessions); loading twice is a no-op."""

def devices() -> List[Dict[str, Any]]:
    """The CPU and every CUDA GPU found, as dicts with 'usable' and 'reason'."""

def cuda_unavailable_reason() -> str:
    """Why weft has no usable GPU here, or '' when it has one."""

def empty(shape: Sequence[int], dtype: npt.DTypeLike = "float32") -> np.ndarray:
    """An uninitialized array in 64-byte-aligned memory: fed without a copy."""
