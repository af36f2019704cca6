"""What every exported-graph path needs, and nothing else of the model layer: the forward
pass of an ONNX graph compiled for OpenVINO or ONNX Runtime (:func:`compile_graph`; for
batches side by side, :func:`compile_streams`), whether the CPU computes in bf16, and the
message that names a missing runtime.

A leaf: :mod:`lateseg.encode.backends` (which loads whole models) and
:mod:`lateseg.encode.quick` (which embeds queries from a saved kit without torch) both
use it, and it imports neither.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.encode.streams import cores, cpu_identity
from lateseg.errors import ModelError
from lateseg.home import lateseg_home

log = logging.getLogger(__name__)

INSTALL = {
    "onnx": "pip install onnx (a lateseg dependency)",
    "onnxruntime": "pip install onnxruntime (a lateseg dependency)",
    "onnxruntime.quantization": "pip install onnxruntime (a lateseg dependency)",
    "openvino": "pip install openvino (a lateseg dependency)",
}
# ids [b, s] int64, mask [b, s] int64 -> token states [b, s, d] float32 (host memory)
Forward = Callable[[np.ndarray, np.ndarray], np.ndarray]


@functools.cache
def cpu_has_bf16() -> bool:
    """Whether OpenVINO's CPU plugin computes in bf16 natively here (AVX-512 bf16 or AMX;
    False on AVX2-only CPUs, where bf16 would be emulated and slower)."""
    try:
        import openvino as ov

        caps = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    except Exception as e:  # no usable OpenVINO CPU plugin: not bf16
        log.debug("OpenVINO CPU capabilities unavailable: %s", e)
        return False
    return "BF16" in caps


def need(module: str, backend: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ModelError(
            f"backend={backend!r} needs the package {module.split('.')[0]!r}: {INSTALL[module]}"
        ) from e


def compile_graph(onnx_path: Path, backend: str) -> Forward:
    """The forward pass of an exported graph on ``backend`` (OpenVINO keeps its compiled
    blob under ``lateseg_home()/openvino-cache``: the next process skips the compile)."""
    if backend.startswith("openvino"):
        return _openvino(onnx_path, backend)[0]
    ort = need("onnxruntime", backend)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])

    def run_ort(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        out = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
        return np.asarray(out, dtype=np.float32)

    return run_ort


def compile_streams(onnx_path: Path, backend: str, streams: int | None) -> tuple[Forward, int]:
    """The graph compiled by OpenVINO for throughput (``streams`` streams, None: as many
    as OpenVINO finds best here), callable from that many threads at once, and its
    streams (:mod:`lateseg.encode.streams`)."""
    extra = {"PERFORMANCE_HINT": "THROUGHPUT"}
    if streams is not None:
        extra["NUM_STREAMS"] = str(streams)
    forward, compiled, _ = _openvino(onnx_path, backend, extra)
    return forward, int(compiled.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS"))


def streams_key(onnx_path: Path, backend: str) -> str:
    """What decides whether batches side by side are faster: this CPU and the cores this
    process may use, the runtime's version, the precision and the graph."""
    ov = need("openvino", backend)
    cpu = cpu_identity() or ov.Core().get_property("CPU", "FULL_DEVICE_NAME")
    precision = "bf16" if backend == "openvino-bf16" and cpu_has_bf16() else "f32"
    if backend == "openvino-int8":
        precision = "int8"  # its own graph, beside the fp32 one in the same folder
    return f"{cpu}|{cores()} cpus|openvino {ov.__version__}|{precision}|{onnx_path.parent.name}"


def _openvino(onnx_path: Path, backend: str, extra: dict[str, str] | None = None) -> Any:
    """The forward pass of ``onnx_path`` compiled by OpenVINO (with ``extra`` settings),
    the compiled model, and the ``openvino`` module."""
    ov = need("openvino", backend)
    core = ov.Core()
    # OpenVINO runs fp32 models in bf16 by default where the CPU has bf16: ask for
    # the precision the backend's name promises.
    bf16 = backend == "openvino-bf16" and cpu_has_bf16()
    config = {"INFERENCE_PRECISION_HINT": "bf16" if bf16 else "f32", **(extra or {})}
    cache = lateseg_home() / "openvino-cache"
    try:
        cache.mkdir(parents=True, exist_ok=True)
        config["CACHE_DIR"] = str(cache)
    except OSError:
        pass  # a read-only home: compile each time
    compiled = core.compile_model(str(onnx_path), "CPU", config)
    local = threading.local()  # an infer request serves one call at a time: one a thread

    def run_ov(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        request = getattr(local, "request", None)
        if request is None:
            request = local.request = compiled.create_infer_request()
        out = request.infer({"input_ids": ids, "attention_mask": mask})
        return np.array(out[compiled.output(0)], dtype=np.float32)  # a copy: reused

    return run_ov, compiled, ov
