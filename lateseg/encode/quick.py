"""Query vectors without torch: what makes a cold ``lateseg search`` fast.

Loading the embedder through sentence-transformers imports torch, transformers and
sentence-transformers to embed one short query: about 5 of a cold search's 6 seconds on
2 cores (``bench/cold_start.py``). When the full embedder has run once with an exported
backend (OpenVINO or ONNX Runtime, the CPU default), it leaves a *query kit* beside its
ONNX export: the tokenizer's JSON and, in ``kit.json``, how the model pools (mean or CLS),
whether it normalises, its prompts, its length and its special tokens. A later process
embeds queries from the kit with ``tokenizers``, numpy and the same graph, compiled by
OpenVINO with its ``CACHE_DIR`` (a compiled blob reused across processes): the same vectors
as the full path (tested to 1e-5) with none of torch's import.

A kit is keyed by a fingerprint of the model folder (each file's name, size and
modification time), so a changed or replaced model is another key and gets a kit of its
own from the full path. Kits are only made for pipelines the kit reproduces exactly
(a transformer, then mean or CLS pooling over the whole input, then at most a
normalisation); any other model, a hub name, or a GPU run uses the full path. A kit is
read as untrusted input: its size bounded, its fields type-checked, its graph inside the
cache; anything odd and the full path runs instead.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from lateseg.home import lateseg_home

log = logging.getLogger(__name__)

KIT_VERSION = 1
_MAX_FILES = 500  # a model folder with more is not fingerprinted (no kit, full path)
_MAX_KIT_BYTES = 64 << 20  # tokenizer JSON included
_POOLINGS = ("mean", "cls")
_MAX_KITS = 1000  # kit folders looked at by one prune: its cost is bounded

Forward = Callable[[np.ndarray, np.ndarray], np.ndarray]


def kits_home() -> Path:
    return lateseg_home() / "onnx" / "kits"


def fingerprint(folder: str | os.PathLike[str]) -> str | None:
    """A digest of a model folder's files (relative name, size, modification time), or
    None when it is not a folder or holds too many files to be a model."""
    root = Path(folder)
    if not root.is_dir():
        return None
    h = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogatepass"))
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            count += 1
            if count > _MAX_FILES:
                return None
            path = Path(dirpath) / name
            try:
                st = path.stat()
            except OSError:
                continue
            rel = str(path.relative_to(root))
            h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:32]


def _onnx_root() -> Path:
    """Where exports live: a kit's graphs must lie inside it."""
    return (lateseg_home() / "onnx").resolve()


def _kit_folder(source: str) -> Path | None:
    key = fingerprint(source)
    return None if key is None else kits_home() / key


def pooling_of(st: Any) -> tuple[str, bool] | None:
    """``(pooling, normalise)`` of a sentence-transformers pipeline a kit reproduces
    exactly, else None."""
    modules = list(st.children())[1:]
    names = [type(m).__name__ for m in modules]
    if names not in (["Pooling"], ["Pooling", "Normalize"]):
        return None
    config = modules[0].get_config_dict()
    mode = config.get("pooling_mode")
    if isinstance(mode, list | tuple) and len(mode) == 1:
        mode = mode[0]
    if mode not in _POOLINGS or config.get("include_prompt", True) is not True:
        return None
    return str(mode), names[-1] == "Normalize"


def save_kit(source: str, st: Any, tokenizer: Any, graphs: dict[str, Path]) -> Path | None:
    """Write the query kit of the model at ``source`` (its loaded pipeline ``st`` and
    fast ``tokenizer``, its ONNX ``graphs`` by name); None when it cannot be made."""
    pooled = pooling_of(st)
    folder = _kit_folder(source)
    if pooled is None or folder is None:
        return None
    onnx_root = _onnx_root()
    try:
        rel = {name: str(path.resolve().relative_to(onnx_root)) for name, path in graphs.items()}
    except ValueError:
        return None
    prompts = getattr(st, "prompts", None) or {}
    kit = {
        "version": KIT_VERSION,
        "source": str(source),
        "graphs": rel,
        "pooling": pooled[0],
        "normalize": pooled[1],
        "max_length": int(st.max_seq_length),
        "dim": int(st[0].auto_model.config.hidden_size),
        "special_ids": sorted(int(i) for i in tokenizer.all_special_ids),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "prompts": {k: v for k, v in prompts.items() if isinstance(v, str)},
    }
    old = _read_kit(folder, source)
    if old is not None and old.data == kit:
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".kit-", dir=folder.parent))
    try:
        (tmp / "tokenizer.json").write_text(tokenizer.backend_tokenizer.to_str(), "utf-8")
        (tmp / "kit.json").write_text(json.dumps(kit, indent=1), "utf-8")
        if folder.exists():
            for part in ("tokenizer.json", "kit.json"):
                os.replace(tmp / part, folder / part)
        else:
            os.replace(tmp, folder)
    except OSError as e:
        log.info("no query kit for %s: %s", source, e)
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # gone already when renamed whole
    prune_kits(keep=folder)
    return folder


def prune_kits(keep: Path | None = None) -> int:
    """Remove the kits of models that are gone or have changed (a folder rewritten, moved
    or deleted: its fingerprint is no longer the kit's key), so the cache holds kits of the
    models in use only; ``keep`` is never removed. Returns how many were removed."""
    try:
        with os.scandir(kits_home()) as found:
            entries = list(itertools.islice(found, _MAX_KITS))
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        folder = Path(entry.path)
        if folder == keep or entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        data = _kit_data(folder)  # None: unreadable, not a kit this version can use
        source = data.get("source") if isinstance(data, dict) else None
        if not isinstance(source, str) or fingerprint(source) != entry.name:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    if removed:
        log.info("removed %d query kits of models gone or changed", removed)
    return removed


@dataclass
class Kit:
    folder: Path
    data: dict[str, Any]

    def graph(self, name: str) -> Path | None:
        rel = self.data["graphs"].get(name)
        if rel is None:
            return None
        root = _onnx_root()
        path = (root / rel).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            return None
        return path


def _valid(kit: Any) -> bool:
    try:
        return (
            kit["version"] == KIT_VERSION
            and kit["pooling"] in _POOLINGS
            and isinstance(kit["normalize"], bool)
            and isinstance(kit["max_length"], int)
            and 2 < kit["max_length"] <= 1 << 20
            and isinstance(kit["dim"], int)
            and 0 < kit["dim"] <= 1 << 16
            and isinstance(kit["pad_id"], int)
            and all(isinstance(i, int) for i in kit["special_ids"])
            and all(isinstance(k, str) and isinstance(v, str) for k, v in kit["prompts"].items())
            and all(isinstance(k, str) and isinstance(v, str) for k, v in kit["graphs"].items())
        )
    except (KeyError, TypeError, AttributeError):
        return False


def load_kit(source: str) -> Kit | None:
    """The query kit of the model at ``source``, if one was made for it as it is now."""
    folder = _kit_folder(source)
    return None if folder is None else _read_kit(folder, source)


def _kit_data(folder: Path) -> Any:
    """The parsed ``kit.json`` of a kit folder whose files are all there and within
    :data:`_MAX_KIT_BYTES` together, else None."""
    try:
        sizes = [(folder / p).stat().st_size for p in ("kit.json", "tokenizer.json")]
        if sum(sizes) > _MAX_KIT_BYTES:
            return None
        return json.loads((folder / "kit.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None


def _read_kit(folder: Path, source: str) -> Kit | None:
    data = _kit_data(folder)
    if data is None:
        return None
    if not _valid(data) or data.get("source") != str(source):
        log.info("ignoring the query kit in %s: not one this version wrote", folder)
        return None
    return Kit(folder, data)


class QuickEmbedder:
    """Queries embedded from a kit: the tokenizer, the graph on ``backend``, the pooling."""

    def __init__(self, kit: Kit, forward: Forward) -> None:
        from tokenizers import Tokenizer

        self.kit = kit
        self.forward = forward
        self.tokenizer = Tokenizer.from_file(str(kit.folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=kit.data["max_length"])
        self.special = np.asarray(kit.data["special_ids"], dtype=np.int64)

    @property
    def dim(self) -> int:
        return int(self.kit.data["dim"])

    def prompt(self, name: str) -> str:
        return str(self.kit.data["prompts"].get(name, ""))

    def embed(self, texts: Sequence[str], prompt: str) -> np.ndarray:
        """Sentence vectors ``[len(texts), d]``, as :meth:`Embedder.embed` makes them."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch([prompt + t for t in texts])
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(texts), width), self.kit.data["pad_id"], dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for i, e in enumerate(encodings):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1
        states = self.forward(ids, mask)
        if self.kit.data["pooling"] == "cls":
            out[:] = states[:, 0]
        else:  # the text's tokens, without [CLS]/[SEP]: as Embedder.embed pools them
            keep = (mask * ~np.isin(ids, self.special)).astype(np.float32)[..., None]
            out[:] = (states * keep).sum(1) / np.maximum(keep.sum(1), 1e-9)
        if self.kit.data["normalize"]:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


def quick_embedder(source: str, backend: str) -> QuickEmbedder | None:
    """A :class:`QuickEmbedder` for the model at ``source`` on the exported ``backend``,
    or None (no kit for it as it is now, or its graph is missing): then load it whole."""
    from lateseg.encode.runtime import compile_graph

    kit = load_kit(source)
    if kit is None:
        return None
    from lateseg.encode.quantize import GRAPH

    names = {"onnx-int8": "model-int8.onnx", "openvino-int8": GRAPH}
    graph = kit.graph(names.get(backend, "model.onnx"))
    if graph is None:
        return None
    try:
        return QuickEmbedder(kit, compile_graph(graph, backend))
    except Exception as e:  # a kit that does not load costs the full path, not the search
        log.info("the query kit in %s did not load (%s): loading the whole model", kit.folder, e)
        return None
