"""The embedding model layer: sentence-transformers loads the model and owns its pooling,
prompts and normalisation; a backend runs the transformer's forward pass.

* ``torch``: the model's own PyTorch module, on CPU or CUDA (bf16 on CUDA); the default
  on a GPU.
* ``openvino``: the ONNX export compiled by OpenVINO at fp32 precision (CPU): the same
  vectors as torch (to about 1e-6) at 2.2x its forward speed on 2 cores; the CPU default
  where the CPU has no bf16 (AVX2-only machines).
* ``openvino-bf16``: the same in bf16 where the CPU has it (AVX-512 bf16 or AMX): vectors
  within 0.5%, the ingest 1.6x faster; the CPU default there (recall within 0.01 of fp32
  on every set of ``bench/retrieval.py``, ``bench/results/speed_levers.md``). Elsewhere it
  runs at fp32.
* ``onnx``: the fp32 export run by ONNX Runtime (CPU).
* ``onnx-int8``: the export with dynamic int8 weights, run by ONNX Runtime.
* ``openvino-int8``: the export with static int8 scales (calibrated once on a text shipped
  with lateseg, :mod:`lateseg.encode.quantize`), run by OpenVINO: a window's states do not
  depend on its batch, so documents share batches.

Exports are cached under ``lateseg_home()/onnx``, keyed by a digest of the model's
weights and configuration, written to a temporary folder and renamed (an interrupted
export leaves nothing half-done). ``onnx``, ``openvino`` and ONNX Runtime are dependencies
of lateseg (ONNX Runtime for the ``fast`` profile's int8 windows).

Late chunking pools the transformer's token states over chunk spans, so a model whose
sentence-transformers pipeline goes past pooling and normalisation (a ``Dense`` head) is
refused: its sentence vectors and its token states would not share a space.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.encode.models import (
    cuda_possible,
    lateseg_home,
    quiet_transformers,
    resolve_embedder,
)
from lateseg.encode.runtime import (
    Forward,
    compile_graph,
    compile_streams,
    cpu_has_bf16,
    streams_key,
)
from lateseg.encode.runtime import need as _need
from lateseg.encode.streams import Streams, forked, streams_for, timed_ratio
from lateseg.errors import ConfigError, ModelError

log = logging.getLogger(__name__)

BACKENDS = ("torch", "openvino", "openvino-bf16", "onnx", "onnx-int8", "openvino-int8")
#: The int8 backends and the precision (:data:`PRECISIONS`) of each one's vectors.
INT8_PRECISIONS = {"onnx-int8": "int8", "openvino-int8": "int8-static"}
_POOLING_MODULES = {"Pooling", "Normalize"}
_OPSET = 17


def default_backend(device: str) -> str:
    """``torch`` on a GPU; on a CPU OpenVINO when it imports: ``openvino-bf16`` where the
    CPU computes in bf16 natively, else ``openvino`` (exact fp32)."""
    if not device.startswith("cpu"):
        return "torch"
    import importlib.util

    if importlib.util.find_spec("openvino") is None:
        log.warning("openvino is not installed: the embedder runs on torch (slower)")
        return "torch"
    return "openvino-bf16" if cpu_has_bf16() else "openvino"


#: What an index's vectors are made in, as its manifest records it: ``fp32``, ``bf16``
#: (OpenVINO bf16 on a CPU that has it; torch on a GPU), ``int8`` (``onnx-int8``) or
#: ``int8-static`` (``openvino-int8``). ``float`` is an index from before fp32 and bf16
#: were told apart. The int8 formats never mix with the float ones nor with each other:
#: each moves vectors by a few percent, each its own way (token cosine with fp32 0.989
#: and 0.985 for all-MiniLM-L6-v2). fp32 and bf16 differ by rounding (about 0.5%), so a
#: run follows its index's format where it can (:func:`lateseg.open_index.open_folder`)
#: and may read the other where it cannot.
PRECISIONS = ("fp32", "bf16", "int8", "int8-static", "float")


def precision_class(precision: str) -> str:
    """``int8``, ``int8-static`` or ``float``: the classes of :data:`PRECISIONS` that never
    mix."""
    return precision if precision in INT8_PRECISIONS.values() else "float"


def _on_gpu(device: str | None) -> bool:
    """Whether a run on ``device`` (None: CUDA where it may be available) uses a GPU,
    told without importing torch."""
    return cuda_possible() if device is None else not device.startswith("cpu")


def run_backend(backend: str | None, device: str | None = None) -> str:
    """The backend a run with ``backend`` (None: the default) on ``device`` uses, told
    without loading a model or importing torch."""
    if backend is not None:
        return backend
    return "torch" if _on_gpu(device) else default_backend("cpu")


def vector_precision(backend: str | None, device: str | None = None) -> str:
    """The :data:`PRECISIONS` entry of vectors made by ``backend`` (None: the default) on
    ``device`` (None: CUDA where it may be available, else the CPU), told without loading
    a model or importing torch."""
    backend = run_backend(backend, device)
    if backend in INT8_PRECISIONS:
        return INT8_PRECISIONS[backend]
    if backend == "torch":
        return "bf16" if _on_gpu(device) else "fp32"  # the torch forward runs bf16 on CUDA
    return "bf16" if backend == "openvino-bf16" and cpu_has_bf16() else "fp32"


def check_backend(backend: str | None, device: str | None = None, name: str = "backend") -> None:
    """Raise :class:`ConfigError` for an unknown backend, or a CPU-only one on a GPU
    (``name``: the setting the message names)."""
    if backend is None:
        return
    if backend not in BACKENDS:
        raise ConfigError(f"{name}={backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend != "torch" and device and not device.startswith("cpu"):
        raise ConfigError(f"{name}={backend!r} runs on the CPU; use {name}='torch' on {device}")


@dataclass
class Embedder:
    """One loaded embedding model: its sentence-transformers pipeline (tokenizer, pooling,
    prompts, normalisation) and the forward pass of the chosen backend."""

    st: Any
    backend: str
    device: str
    forward: Forward
    tokenizer: Any  # a copy of the model's, for whole documents: no length limit
    graph: Path | None = None  # the exported graph the forward runs, where one does
    _streams: Streams | None = field(default=None, init=False, repr=False)
    _streams_looked: bool = field(default=False, init=False, repr=False)
    _streams_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def forward_many(self, pairs: Iterable[tuple[np.ndarray, np.ndarray]]) -> Iterator[np.ndarray]:
        """:attr:`forward` of each ``(ids, mask)``, in order: several batches side by side
        where this CPU reads them faster so (:mod:`lateseg.encode.streams`)."""
        it = iter(pairs)
        first = list(itertools.islice(it, 2))  # one batch: the one-stream graph, faster
        streams = self.streams() if len(first) > 1 else None
        if streams is None:
            return (self.forward(ids, mask) for ids, mask in itertools.chain(first, it))
        return streams.run(itertools.chain(first, it))

    def streams(self) -> Streams | None:
        """The graph compiled for several streams, where measured faster here (once per
        machine, :func:`lateseg.encode.streams.streams_for`); else None. Always None in a
        process forked after lateseg's encoder was imported
        (:func:`lateseg.encode.streams.forked`): OpenVINO's threads stay in the parent,
        and a child that ran batches side by side waited forever, so a child reads one
        batch at a time with the one-stream graph, which runs there."""
        if forked():
            return None
        with self._streams_lock:
            if self._streams_looked:
                return self._streams
            self._streams_looked = True
            if self.graph is None or not self.backend.startswith("openvino"):
                return None
            graph, backend = self.graph, self.backend
            made: list[Streams] = []

            def measure() -> tuple[int, float]:
                made.append(Streams(*compile_streams(graph, backend, None)))
                return made[0].n, timed_ratio(self.forward, made[0]) if made[0].n > 1 else 1.0

            try:
                n = streams_for(streams_key(graph, backend), measure)
                if made and made[0].n != n:
                    made.pop().close()
                if n > 1 and not made:
                    made.append(Streams(*compile_streams(graph, backend, n)))
            except Exception as e:  # a speed-up only: never a reason to fail
                log.warning("batches run one at a time: %s", e)
                n = 1
            ready = made[0] if made else None
            if ready is not None and (n <= 1 or ready.n <= 1):
                ready.close()  # one stream is as fast here, or this CPU offers no more
                ready = None
            self._streams = ready
            return ready

    @property
    def mean_pooled(self) -> bool:
        """Whether the model's pooling is a plain mean of token embeddings."""
        modules = list(self.st.children())[1:]
        pooling = [m.get_config_dict() for m in modules if type(m).__name__ == "Pooling"]
        return bool(pooling) and pooling[0].get("pooling_mode") in ("mean", ["mean"], ("mean",))

    @property
    def dim(self) -> int:
        return int(self.st[0].auto_model.config.hidden_size)

    @property
    def trained_length(self) -> int | None:
        """Tokens the model was trained on, special tokens included (``max_seq_length``)."""
        value = self.st.max_seq_length
        return int(value) if isinstance(value, int) and value > 16 else None

    def prompt(self, name: str) -> str:
        """The model's own prompt ``name`` (``"query"``, ``"document"``), or ``""``."""
        prompts = getattr(self.st, "prompts", None) or {}
        value = prompts.get(name, "")
        return value if isinstance(value, str) else ""

    def embed(self, texts: Sequence[str], prompt: str) -> np.ndarray:
        """Sentence vectors ``[len(texts), d]`` as the model defines them: its tokenizer
        (truncated to ``max_seq_length``, ``prompt`` prepended), this backend's forward pass,
        then its own pooling (mean, CLS, last token) and normalisation modules. One
        deviation: a mean is taken over the text's tokens without the special ones, the
        tokens a late vector pools, so queries and chunk vectors agree (measured)."""
        features, pair = self._prepared(texts, prompt)
        return self._pooled(features, pair, self.forward(*pair))

    def embed_many(self, groups: Sequence[Sequence[str]], prompt: str) -> Iterator[np.ndarray]:
        """:meth:`embed` of each group of texts (a batch), in order, the forward passes side
        by side where this CPU reads them faster so (:meth:`forward_many`)."""
        prepared = [self._prepared(texts, prompt) for texts in groups]
        states = self.forward_many(pair for _, pair in prepared)
        for (features, pair), out in zip(prepared, states, strict=True):
            yield self._pooled(features, pair, out)

    def _prepared(
        self, texts: Sequence[str], prompt: str
    ) -> tuple[Any, tuple[np.ndarray, np.ndarray]]:
        features = self.st.preprocess(list(texts), prompt=prompt or None)
        ids = features["input_ids"].numpy().astype(np.int64)
        mask = features["attention_mask"].numpy().astype(np.int64)
        return features, (ids, mask)

    def _pooled(
        self, features: Any, pair: tuple[np.ndarray, np.ndarray], out: np.ndarray
    ) -> np.ndarray:
        import torch

        ids, mask = pair
        features["token_embeddings"] = torch.from_numpy(out)
        if self.mean_pooled:
            # Mean over the tokens late vectors pool (the text's, not [CLS]/[SEP]): with
            # them, recall fell by 0.04-0.06 at 1-2k characters (bench/retrieval.py).
            mask = mask * ~np.isin(ids, self.tokenizer.all_special_ids)
        features["attention_mask"] = torch.from_numpy(mask)
        with torch.inference_mode():
            for module in list(self.st.children())[1:]:
                features = module(features)
        return features["sentence_embedding"].float().numpy()


def load_embedder(
    model: str, device: str, backend: str = "torch", trust_remote_code: bool = False
) -> Embedder:
    """Load ``model`` (a name or folder, resolved by :func:`resolve_embedder`) with
    sentence-transformers, and its forward pass on ``backend``."""
    check_backend(backend, device)
    quiet_transformers()
    import torch
    from sentence_transformers import SentenceTransformer

    where = resolve_embedder(model)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    try:
        st = SentenceTransformer(
            where,
            device=device,
            trust_remote_code=trust_remote_code,
            model_kwargs={"dtype": dtype},
        )
    except Exception as e:
        raise ModelError(
            f"cannot load embedder {model!r} from {where!r}: {e}. Use the default, a local "
            "folder, or a hub name on a machine that can download it (set "
            "trust_remote_code=True only for models you trust)."
        ) from e
    extra = [type(m).__name__ for m in list(st.children())[1:]]
    if any(name not in _POOLING_MODULES for name in extra):
        raise ModelError(
            f"embedder {model!r} has modules {extra} after its transformer; late chunking "
            "pools token states, so only pooling and normalisation may follow it"
        )
    tok = st.tokenizer
    if tok is None or not getattr(tok, "is_fast", False):
        raise ModelError(f"embedder {model!r} has no fast tokenizer (offsets)")
    st.eval()
    net: Any = st[0].auto_model
    positions = getattr(net.config, "max_position_embeddings", None)
    if isinstance(positions, int) and (st.max_seq_length or 0) > positions:
        st.max_seq_length = positions  # a tokenizer that sets no limit
    whole = copy.deepcopy(tok)
    whole.model_max_length = 10**9  # documents are tokenized whole; windows cut them
    if backend == "torch":
        forward = _torch_forward(net, device)
    else:
        if backend.startswith("openvino"):
            _need("openvino", backend)  # before the export, to fail fast
        graph = exported(net, model, int8=backend == "onnx-int8")
        if backend == "openvino-int8":
            graph = static_int8(graph, tok)
        forward = compile_graph(graph, backend)
        _leave_kit(where, st, graph.parent)
    return Embedder(st, backend, device, forward, whole, None if backend == "torch" else graph)


def _leave_kit(where: str, st: Any, folder: Path) -> None:
    """Leave the query kit of the export in ``folder`` (:mod:`lateseg.encode.quick`):
    the next process embeds queries without loading torch."""
    from lateseg.encode.quick import save_kit

    graphs = {p.name: p for p in folder.glob("model*.onnx")}
    try:
        save_kit(where, st, st.tokenizer, graphs)
    except Exception as e:  # the kit is a speed-up: never a reason to fail a load
        log.info("no query kit for %s: %s", where, e)


def _torch_forward(net: Any, device: str) -> Forward:
    import torch

    cuda = device.startswith("cuda")
    local = threading.local()  # a pinned host buffer per thread, reused across batches

    def forward(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            out = net(
                input_ids=torch.from_numpy(ids).to(device, non_blocking=cuda),
                attention_mask=torch.from_numpy(mask).to(device, non_blocking=cuda),
            ).last_hidden_state.float()
            if not cuda:
                return out.numpy()
            size = out.numel()
            buf = getattr(local, "buf", None)
            if buf is None or buf.numel() < size:
                buf = local.buf = torch.empty(size, dtype=torch.float32, pin_memory=True)
            host = buf[:size].view(out.shape)
            host.copy_(out, non_blocking=True)
            torch.cuda.current_stream(out.device).synchronize()
            return host.numpy().copy()  # the buffer is reused by the next batch

    return forward


def model_digest(net: Any) -> str:
    """A digest of a model's configuration and weights: the key of its exports."""
    h = hashlib.sha256(net.config.to_json_string().encode("utf-8"))
    for name, tensor in sorted(net.state_dict().items()):
        h.update(name.encode("utf-8"))
        h.update(tensor.detach().float().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()[:24]


def exported(net: Any, model: str, *, int8: bool = False) -> Path:
    """The cached ONNX export of ``net`` (``model.onnx``, or ``model-int8.onnx`` with
    dynamic int8 weights), made on first use."""
    import re

    label = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(model).name or "model")[:60]
    folder = lateseg_home() / "onnx" / f"{label}-{model_digest(net)}"
    name = "model-int8.onnx" if int8 else "model.onnx"
    if (folder / name).is_file():
        return folder / name
    backend = "onnx-int8" if int8 else "onnx"
    _need("onnx", backend)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=folder.parent))
    try:
        fp32 = folder / "model.onnx"
        if not fp32.is_file():
            log.info("exporting %s to ONNX at %s (once)", model, folder)
            _export_onnx(net, tmp / "model.onnx")
        else:
            shutil.copyfile(fp32, tmp / "model.onnx")
        if int8:
            quantization = _need("onnxruntime.quantization", backend)
            log.info("quantising %s to int8 (once)", model)
            logging.disable(logging.WARNING)  # its advice to pre-process, on the root logger
            try:
                quantization.quantize_dynamic(
                    str(tmp / "model.onnx"),
                    str(tmp / name),
                    weight_type=quantization.QuantType.QInt8,
                    per_channel=True,
                )
            finally:
                logging.disable(logging.NOTSET)
        folder.mkdir(exist_ok=True)
        for part in ("model.onnx", name):
            if not (folder / part).is_file():
                os.replace(tmp / part, folder / part)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return folder / name


def static_int8(fp32: Path, tokenizer: Any) -> Path:
    """The static int8 graph beside the fp32 export ``fp32`` (:mod:`lateseg.encode.quantize`),
    made on first use in a temporary file and renamed."""
    from lateseg.encode.quantize import GRAPH, quantize_static_graph

    path = fp32.with_name(GRAPH)
    if path.is_file():
        return path
    log.info("calibrating a static int8 graph of %s (once)", fp32.parent.name)
    tmp = Path(tempfile.mkdtemp(prefix=".export-", dir=fp32.parent.parent))
    try:
        quantize_static_graph(fp32, tmp / GRAPH, tokenizer)
        if not path.is_file():  # another process may have made it meanwhile
            os.replace(tmp / GRAPH, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return path


def _export_onnx(net: Any, path: Path) -> None:
    import warnings

    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return self.inner(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    wrapped = LastHidden(net.float().cpu()).eval()
    ids = torch.ones((2, 16), dtype=torch.long)
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(
                wrapped,
                (ids, torch.ones_like(ids)),
                str(path),
                input_names=["input_ids", "attention_mask"],
                output_names=["last_hidden_state"],
                dynamic_axes={"input_ids": axes, "attention_mask": axes, "last_hidden_state": axes},
                opset_version=_OPSET,
                dynamo=False,
            )
        except Exception as e:
            raise ModelError(f"cannot export the embedder to ONNX: {e}") from e
