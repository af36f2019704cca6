"""Static int8: the embedder's export with its activations' int8 scales fixed once.

ONNX Runtime's dynamic int8 (``onnx-int8``) scales each batch's activations as a whole, so
a window's token states depend on the other windows of its batch: lateseg batches each
document's windows apart there (:data:`lateseg.encode.windows.BATCH_SCALED`), and a corpus of
small files runs batches of one to a few windows, the slowest shapes
(``bench/results/ingest_accounting_intel_fp32.md``). Here each quantised activation's
scale is computed once, from the model's own activations on a fixed text shipped with
lateseg (``calibration.txt``: contract prose, Markdown, a table and code, written for
this; it is no benchmark's corpus), and written into the graph (ONNX QDQ), which OpenVINO
runs with int8 kernels (``openvino-int8``). A window's states no longer depend on its
batch-mates, so documents share batches.

Which matrix products are int8 (the rest stay fp32):

* those with a constant weight that does not narrow: the attention's query, key, value
  and output projections and the first feed-forward layer;
* not the narrowing ones (the second feed-forward layer, which reads the GELU's
  heavy-tailed outputs): with them at int8 the token states of all-MiniLM-L6-v2 on
  licence texts fell to a mean cosine of 0.86 with the fp32 graph's; without them 0.985,
  as close as ``onnx-int8``'s 0.989 (per-window spans pooled: 0.992 and 0.993);
* not attention's products of two activations.

The graph checks itself when it is made: its token states on the calibration windows
must keep a mean cosine of :data:`MIN_COSINE` with the fp32 graph's, else
:class:`~lateseg.errors.ModelError` (a model this recipe does not suit gets no int8
graph, rather than a bad one).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.encode.runtime import need
from lateseg.errors import ModelError

log = logging.getLogger(__name__)

BACKEND = "openvino-int8"
#: The recipe's version, in the graph's name: raise it when the calibration text, the
#: products chosen or the quantiser's settings change, so an old graph is not reused.
RECIPE = 1
GRAPH = f"model-int8-static-v{RECIPE}.onnx"
CALIBRATION = Path(__file__).with_name("calibration.txt")
CALIBRATION_WINDOW = 128  # tokens per calibration window, special tokens included
MAX_WINDOWS = 64
#: The least mean token cosine with the fp32 graph on the calibration windows.
MIN_COSINE = 0.97


def calibration_windows(tokenizer: Any, window: int = CALIBRATION_WINDOW) -> list[list[int]]:
    """Token IDs of the calibration text in windows of ``window`` tokens (the
    tokenizer's own special tokens around each), half-overlapping, at most
    :data:`MAX_WINDOWS`: the same on every machine for one tokenizer."""
    text = CALIBRATION.read_text(encoding="utf-8")
    ids = tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"]
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id
    inner = window - (cls_id is not None) - (sep_id is not None)
    out = []
    for start in range(0, max(len(ids) - inner, 0) + 1, max(inner // 2, 1)):
        body = ids[start : start + inner]
        head = [cls_id] if cls_id is not None else []
        out.append(head + body + ([sep_id] if sep_id is not None else []))
    return out[:MAX_WINDOWS]


def int8_matmuls(model: Any) -> list[str]:
    """Names of the matrix products to run at int8: a constant 2-D weight that does not
    narrow (inputs <= outputs)."""
    weights = {t.name: tuple(t.dims) for t in model.graph.initializer}
    chosen = []
    for node in model.graph.node:
        if node.op_type != "MatMul" or len(node.input) != 2:
            continue
        shape = weights.get(node.input[1])
        if shape is not None and len(shape) == 2 and shape[0] <= shape[1]:
            if not node.name:
                raise ModelError("the export has an unnamed matrix product: no int8 graph")
            chosen.append(node.name)
    return chosen


def quantize_static_graph(fp32: Path, out: Path, tokenizer: Any) -> float:
    """Write the static int8 graph of the fp32 export ``fp32`` to ``out`` (calibrated on
    :func:`calibration_windows`); returns its mean token cosine with the fp32 graph on
    those windows. Raises :class:`ModelError` below :data:`MIN_COSINE`."""
    onnx = need("onnx", BACKEND)
    q = need("onnxruntime.quantization", BACKEND)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    windows = calibration_windows(tokenizer)
    if not windows:
        raise ModelError("the calibration text gave no windows: no int8 graph")
    pre = out.with_name(out.name + ".pre.onnx")
    logging.disable(logging.WARNING)  # its advice, on the root logger
    try:
        quant_pre_process(str(fp32), str(pre), skip_symbolic_shape=True)
        model = onnx.load(str(pre))
        chosen = set(int8_matmuls(model))
        if not chosen:
            raise ModelError("the export has no matrix product with a weight: no int8 graph")
        others = [
            n.name for n in model.graph.node if n.op_type == "MatMul" and n.name not in chosen
        ]
        q.quantize_static(
            str(pre),
            str(out),
            _Reader(windows),
            quant_format=q.QuantFormat.QDQ,
            per_channel=True,
            op_types_to_quantize=["MatMul"],
            nodes_to_exclude=others,
            activation_type=q.QuantType.QUInt8,
            weight_type=q.QuantType.QInt8,
            calibrate_method=q.CalibrationMethod.MinMax,
            extra_options={"ActivationSymmetric": False, "WeightSymmetric": True},
        )
    finally:
        logging.disable(logging.NOTSET)
        pre.unlink(missing_ok=True)
    cosine = _agreement(fp32, out, windows)
    if cosine < MIN_COSINE:
        out.unlink(missing_ok=True)
        raise ModelError(
            f"the static int8 graph keeps a mean token cosine of {cosine:.3f} with the fp32 "
            f"one (at least {MIN_COSINE} needed): use backend 'openvino' or 'onnx-int8'"
        )
    log.info("static int8 graph: mean token cosine %.4f with fp32", cosine)
    return cosine


class _Reader:
    """The calibration windows, one a batch (onnxruntime's CalibrationDataReader)."""

    def __init__(self, windows: list[list[int]]) -> None:
        self._it: Iterator[list[int]] = iter(windows)

    def get_next(self) -> dict[str, np.ndarray] | None:
        window = next(self._it, None)
        if window is None:
            return None
        ids = np.asarray([window], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": np.ones_like(ids)}


def _agreement(fp32: Path, int8: Path, windows: list[list[int]]) -> float:
    """Mean cosine of the two graphs' token states on ``windows`` (OpenVINO, fp32)."""
    from lateseg.encode.runtime import compile_graph

    a, b = compile_graph(fp32, "openvino"), compile_graph(int8, BACKEND)
    sims = []
    for window in windows:
        ids = np.asarray([window], dtype=np.int64)
        mask = np.ones_like(ids)
        x, y = a(ids, mask)[0], b(ids, mask)[0]
        den = np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1) + 1e-12
        sims.append((x * y).sum(-1) / den)
    return float(np.concatenate(sims).mean())
