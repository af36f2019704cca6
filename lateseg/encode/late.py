"""Late encoder: read the whole document, then pool token embeddings per span.

The document is tokenized once with character offsets. Past the model's window it is
read in overlapping windows whose starts are placed at content boundaries (paragraph or
sentence starts) rather than a fixed stride, and each token keeps its embedding from the
window where it has the most context on both sides (ARCHITECTURE.md, Invariants).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from lateseg.encode.backends import Embedder
from lateseg.encode.config import EncoderConfig
from lateseg.encode.quick import QuickEmbedder
from lateseg.encode.reuse import DOCUMENT_BYTES, TEXT_BYTES, Reuse, digest, each_once
from lateseg.encode.reuse import nbytes as _nbytes
from lateseg.encode.shared import embedder_version, shared_embedder, shared_quick
from lateseg.encode.windows import Plan, batch_groups
from lateseg.errors import ConfigError, ModelError, OffsetError
from lateseg.types import clean_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TokenEmbeddings:
    """Contextual token embeddings of one text.

    ``offsets``: ``[n, 2]`` int64 character ranges of the tokens in the text;
    ``vectors``: ``[n, d]`` float32, not normalised.
    """

    offsets: np.ndarray
    vectors: np.ndarray

    def __len__(self) -> int:
        return int(self.offsets.shape[0])

    def token_range(self, start: int, end: int) -> tuple[int, int]:
        """Indices ``[i, j)`` of the tokens inside the character span ``[start, end)``.

        Raises :class:`OffsetError` when a token straddles either edge of the span: the
        span does not fall on token boundaries and pooling it would be wrong.
        """
        starts, ends = self.offsets[:, 0], self.offsets[:, 1]
        i = int(np.searchsorted(ends, start, side="right"))
        j = int(np.searchsorted(starts, end, side="left"))
        if i < len(self) and starts[i] < start < ends[i]:
            raise OffsetError(f"span start {start} cuts token {i} {tuple(self.offsets[i])}")
        if j > 0 and starts[j - 1] < end < ends[j - 1]:
            raise OffsetError(f"span end {end} cuts token {j - 1} {tuple(self.offsets[j - 1])}")
        return i, j

    def pool(self, spans: Sequence[tuple[int, int]]) -> np.ndarray:
        """Mean-pooled, L2-normalised vectors ``[len(spans), d]`` of character spans."""
        out = np.zeros((len(spans), self.vectors.shape[1]), dtype=np.float32)
        for row, (start, end) in enumerate(spans):
            i, j = self.token_range(start, end)
            if j <= i:
                raise OffsetError(f"span [{start}, {end}) contains no token to pool")
            out[row] = self.vectors[i:j].mean(axis=0)
        return _normalise(out)


def _normalise(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return (x / np.maximum(norms, 1e-12)).astype(np.float32)


# Tokens per forward batch: on 2 CPU cores MiniLM's throughput is flat from about 16
# windows of 128 tokens (6.6k tokens/s alone, 7.5k at 16), so a small budget keeps memory
# low; a GPU needs large batches to be busy.
CPU_BATCH_TOKENS = 4096
GPU_BATCH_TOKENS = 65536

QUICK_BATCH = 64
# A rewritten embedder folder may go on serving only when its vectors are the old ones:
# the cosine of the two models' vectors for PROBE, at least SAME_MODEL (bf16 against
# fp32 of one model stays above 0.9995; another model, or the same one trained further,
# falls far below).
PROBE = "The Supplier shall deliver the goods within thirty (30) days of the order."
SAME_MODEL = 0.999


class LateEncoder:
    """Encodes whole documents into contextual token embeddings, lazily loading the model."""

    def __init__(self, config: EncoderConfig | None = None) -> None:
        self.config = config or EncoderConfig()
        self._model: Embedder | None = None
        self._windows: Embedder | None = None  # window_backend's model, where it differs
        self._tokenizer: Any = None
        self._device = "cpu"
        self._quick: QuickEmbedder | None = None
        self._quick_looked = False
        self._version: str | None = None  # the loaded files', when a folder
        self._refused = ""  # why this encoder no longer embeds, once its model changed
        self._swap = threading.Lock()
        # what was computed for texts seen before (lateseg.encode.reuse)
        self._documents: Reuse[TokenEmbeddings] = Reuse(DOCUMENT_BYTES, _nbytes)
        self._texts: Reuse[np.ndarray] = Reuse(TEXT_BYTES, _nbytes)

    # -- loading -----------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The loaded model (loaded on first use): its backend name, device and bare
        ``forward(ids, mask)`` pass, for measuring the runtime apart from the library's
        windows and pooling (``bench/throughput.py``, ``bench/encoder_throughput.py``)."""
        return self._load()

    @property
    def window_embedder(self) -> Embedder:
        """The model whose forward passes read the late windows: :attr:`embedder`, or
        the one ``window_backend`` names where that is another backend (on the CPU). A
        window model that cannot load (a model that does not export, a runtime missing)
        leaves the windows to :attr:`embedder`, with a warning."""
        model = self._load()
        chosen = self.config.window_backend
        if chosen is None or chosen == model.backend:
            return model
        if self._windows is None:
            device = self.config.device if chosen == "torch" else "cpu"
            config = replace(self.config, backend=chosen, window_backend=None, device=device)
            try:
                self._windows = shared_embedder(config)[0]
            except ModelError as e:
                log.warning("late windows read by the %s model instead: %s", model.backend, e)
                self._windows = model
        return self._windows

    def _load(self) -> Embedder:
        if self._model is not None:
            return self._model
        self._model, self._device, self._version = shared_embedder(self.config)
        self._tokenizer = self._model.tokenizer
        return self._model

    def quick(self) -> QuickEmbedder | None:
        """The torch-free query path (:mod:`lateseg.encode.quick`) where the full one would
        run the same exported graph on the CPU and a kit for the model exists; else None."""
        if not self._quick_looked:
            self._quick_looked = True
            self._quick, version = shared_quick(self.config)
            if self._quick is not None:
                self._version = version
        return self._quick

    def _fresh(self) -> None:
        """Notice an embedder folder rewritten since it was loaded (a server's model
        replaced under it): the new files are loaded, and go on serving only when they
        give the old vectors (:data:`SAME_MODEL`); else every later use raises
        :class:`ModelError`, as the index's vectors would no longer match."""
        if self._refused:
            raise ModelError(self._refused)
        if self._version is None or embedder_version(self.config) == self._version:
            return  # nothing loaded yet, a hub name, or the files as they were
        with self._swap:  # one thread reloads; the others find it done
            if self._refused:
                raise ModelError(self._refused)
            version = embedder_version(self.config)
            loaded = self._model if self._model is not None else self._quick
            if loaded is None or version == self._version:
                return
            before = _normalise(loaded.embed([PROBE], ""))[0]
            full = self._model is not None
            self._model, self._quick, self._quick_looked = None, None, False
            self._windows = None  # reloaded from the new files on next use
            self._documents.clear()
            self._texts.clear()
            now = self._load() if full else (self.quick() or self._load())
            after = _normalise(now.embed([PROBE], ""))[0]
            if float(before @ after) < SAME_MODEL:
                self._refused = (
                    f"the embedder folder {self.config.model or 'default'} was rewritten "
                    "with a different model while this process ran; the index's vectors "
                    "were made by the old one. Put the old files back and restart, or build "
                    "a new index with the new model"
                )
                raise ModelError(self._refused)
            log.info("embedder folder rewritten with the same vectors: the new files serve")

    @property
    def tokenizer(self) -> Any:
        self._load()
        return self._tokenizer

    @property
    def dim(self) -> int:
        quick = self.quick() if self._model is None else None
        return quick.dim if quick is not None else self._load().dim

    @property
    def max_length(self) -> int:
        """Most document tokens the model reads in one pass: the length it was trained
        on (sentence-transformers' ``max_seq_length``, 256 for MiniLM: its vectors
        degrade past it although 512 positions exist), never past its positions, less
        special and prefix tokens. Texts embedded alone are truncated to it."""
        model = self._load()
        specials = 2 + len(self._prefix_ids(self.document_prefix))
        config = model.st[0].auto_model.config
        positions = int(getattr(config, "max_position_embeddings", 512))
        trained = model.trained_length or positions
        return min(trained, positions) - specials

    @property
    def window(self) -> int:
        """Document tokens per late-encoding window of prose: the configured size, at
        most :attr:`max_length` (None: :attr:`max_length`)."""
        return self.window_for(code=False)

    def window_for(self, *, code: bool) -> int:
        size = self.config.code_window if code else self.config.window
        return min(size or self.max_length, self.max_length)

    def _plan(self, text: str, code: bool) -> Plan:
        """``text`` tokenised and windowed for :meth:`encode_documents`."""
        ids, offsets = self._tokenize(text)
        window = self.window_for(code=code)
        return Plan.of(text, ids, offsets, window, self.config.overlap, self.dim)

    @property
    def query_prefix(self) -> str:
        """``query_prefix``, else the model's own ``query`` prompt."""
        return self._prompt("query")

    @property
    def document_prefix(self) -> str:
        """``document_prefix``, else the model's own ``document`` prompt."""
        return self._prompt("document")

    def _prompt(self, role: str) -> str:
        """The configured prefix for ``role`` (``"query"``, ``"document"``), else the
        model's own prompt: from the query kit while the model is not loaded."""
        configured = self.config.query_prefix if role == "query" else self.config.document_prefix
        if configured:
            return configured
        quick = self.quick() if self._model is None else None
        return quick.prompt(role) if quick is not None else self._load().prompt(role)

    def _prefix_ids(self, prefix: str) -> list[int]:
        return self._tokenizer(prefix, add_special_tokens=False)["input_ids"] if prefix else []

    # -- encoding ----------------------------------------------------------------
    def tokenize(self, text: str) -> np.ndarray:
        """Token character offsets ``[n, 2]`` of ``text`` (no special tokens)."""
        return self._tokenize(text)[1]

    def _tokenize(self, text: str) -> tuple[list[int], np.ndarray]:
        enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = np.asarray(enc["offset_mapping"], dtype=np.int64).reshape(-1, 2)
        return list(enc["input_ids"]), offsets

    def encode_document(self, text: str, *, code: bool = False) -> TokenEmbeddings:
        """Contextual embeddings of every token of ``text`` (whole document, windowed;
        ``code``: source code, read in ``code_window`` windows)."""
        return self.encode_documents([(text, code)])[0]

    def encode_documents(self, items: Sequence[tuple[str, bool]]) -> list[TokenEmbeddings]:
        """:meth:`encode_document` of each ``(text, code)``, with the windows of all of
        them packed into shared batches (length-sorted, at most :attr:`batch_tokens`
        tokens each): what batching across documents buys, a GPU kept busy, while each
        document gets the token embeddings it gets alone to its precision's rounding: at
        fp32 to 1e-4; at bf16 to bf16's (the kernels round differently with the batch's
        shape: up to ~4 steps of 2**-8 of a token's largest component measured, on AMD
        AVX-512 bf16 and Intel AMX alike; tests/test_segment_properties.py).

        An int8 graph (:data:`~lateseg.encode.windows.BATCH_SCALED`) scales each batch's
        activations as a whole, so a window's embeddings would depend on the other windows
        of its batch: there each document's windows are batched apart, and a document
        gets exactly what it gets alone whatever is ingested with it. A static int8 graph
        (:data:`~lateseg.encode.windows.SAME_WIDTH`) batches windows of one width together,
        from any documents: what a window gets alone to int8's rounding (bit-identical on
        the one CPU measured), with full batches.

        A text met before (here, or in an earlier call: :mod:`lateseg.encode.reuse`) is
        read once and gets the same, read-only, embeddings."""
        self._fresh()
        windows = self.window_embedder
        prefix = self._prefix_ids(self.document_prefix)
        keys = [digest("code" if code else "prose", text) for text, code in items]
        done = {key: self._documents.get(key) for key in dict.fromkeys(keys)}
        todo = sorted({k: i for i, k in reversed(list(enumerate(keys))) if not done[k]}.values())
        plans = [self._plan(*items[i]) for i in todo]
        seqs: list[list[int]] = []
        where: list[tuple[Plan, int]] = []
        for plan in plans:
            for w, (s, e) in enumerate(plan.windows):
                seqs.append(prefix + plan.ids[s:e])
                where.append((plan, w))
        groups, widths = batch_groups(
            [len(seq) for seq in seqs],
            [id(plan) for plan, _ in where],
            windows.backend,
            self.max_length + len(prefix),
        )
        batches = [
            [group[i] for i in batch]
            for group in groups
            for batch in self._batches([widths[i] for i in group])
        ]
        ran = self._forward(
            [[seqs[i] for i in batch] for batch in batches],
            windows,
            [max(widths[i] for i in batch) for batch in batches],
        )
        for batch, outs in zip(batches, ran, strict=True):
            for out, i in zip(outs, batch, strict=True):
                plan, w = where[i]
                s, e = plan.windows[w]
                mine = np.flatnonzero(plan.owner[s:e] == w)
                plan.vectors[s + mine] = out[len(prefix) + mine]
        for i, plan in zip(todo, plans, strict=True):
            for shared in (plan.vectors, plan.offsets):
                shared.setflags(write=False)
            done[keys[i]] = made = TokenEmbeddings(plan.offsets, plan.vectors)
            self._documents.put(keys[i], made)
        return [done[key] for key in keys]  # type: ignore[misc]

    @property
    def batch_tokens(self) -> int:
        """Tokens per forward batch, padding included."""
        self._load()
        if self.config.batch_tokens is not None:
            return self.config.batch_tokens
        return GPU_BATCH_TOKENS if self._device.startswith("cuda") else CPU_BATCH_TOKENS

    def _batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indices packed into batches by length (little padding): each holds at most
        :attr:`batch_tokens` tokens (its longest sequence, with special tokens, times its
        size) and ``batch_size`` sequences; a longer sequence goes alone."""
        order = sorted(range(len(lengths)), key=lambda i: lengths[i])
        budget, most = self.batch_tokens, self.config.batch_size
        out: list[list[int]] = []
        for i in order:
            width = lengths[i] + 2
            if out and len(out[-1]) < most and (len(out[-1]) + 1) * width <= budget:
                out[-1].append(i)
            else:
                out.append([i])
        return out

    def _forward(
        self,
        batches: Sequence[list[list[int]]],
        model: Embedder,
        widths: Sequence[int] | None = None,
    ) -> Iterator[list[np.ndarray]]:
        """Token embeddings ``[len(seq), d]`` per sequence of each batch by ``model``,
        special tokens stripped; batches side by side where faster (``forward_many``).
        ``widths``: each batch padded to at least that many tokens of sequence (special
        tokens apart)."""
        tok = self._tokenizer
        cls_id, sep_id = tok.cls_token_id, tok.sep_token_id
        pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        lead = 1 if cls_id is not None else 0

        def padded(seqs: list[list[int]], least: int) -> tuple[np.ndarray, np.ndarray]:
            width = max(max(len(s) for s in seqs), least) + lead + (sep_id is not None)
            ids = np.full((len(seqs), width), pad_id, dtype=np.int64)
            mask = np.zeros((len(seqs), width), dtype=np.int64)
            for i, s in enumerate(seqs):
                row = ([cls_id] if cls_id is not None else []) + s
                row += [sep_id] if sep_id is not None else []
                ids[i, : len(row)] = row
                mask[i, : len(row)] = 1
            return ids, mask

        least = widths if widths is not None else [0] * len(batches)
        outs = model.forward_many(padded(seqs, n) for seqs, n in zip(batches, least, strict=True))
        for seqs, out in zip(batches, outs, strict=True):
            yield [out[i, lead : lead + len(s)] for i, s in enumerate(seqs)]

    def chunk_vectors(
        self,
        text: str,
        tokens: TokenEmbeddings,
        spans: Sequence[tuple[int, int]],
        *,
        code: bool = False,
        fields: Sequence[str | None] | None = None,
    ) -> np.ndarray:
        """Normalised vectors ``[len(spans), d]`` of chunks of ``text``: the late-pooled
        vector mixed with the chunk embedded alone by ``late_weight`` (see
        :class:`EncoderConfig`); each chunk's ``fields`` entry (code: its unit's name and
        signature; prose: its document's title and section path;
        :func:`lateseg.encode.fields.chunk_fields`; None: none) embedded alone and mixed
        in by ``code_field_weight`` or ``prose_field_weight``."""
        return self.chunk_vectors_many([(text, tokens, spans, code)], [fields])[0]

    def chunk_vectors_many(
        self,
        items: Sequence[tuple[str, TokenEmbeddings, Sequence[tuple[int, int]], bool]],
        fields: Sequence[Sequence[str | None] | None] | None = None,
    ) -> list[np.ndarray]:
        """:meth:`chunk_vectors` of each ``(text, tokens, spans, code)`` with its
        ``fields`` (one entry per item, or None), the texts that need their own embedding
        (the naive part, the fields) batched across all of them."""
        fields = list(fields) if fields is not None else [None] * len(items)
        if len(fields) != len(items):
            raise ConfigError(f"{len(fields)} field lists for {len(items)} items")
        weights = [
            self.config.code_late_weight if code else self.config.late_weight for *_, code in items
        ]
        field_weights = [
            self.config.code_field_weight if code else self.config.prose_field_weight
            for *_, code in items
        ]
        mixed = [
            f if f is not None and fw > 0 else None
            for f, fw in zip(fields, field_weights, strict=True)
        ]
        texts = [
            text[s:e]
            for (text, _, spans, _), w in zip(items, weights, strict=True)
            if w < 1.0
            for s, e in spans
        ]
        for (_, _, spans, _), f in zip(items, mixed, strict=True):
            if f is not None and len(f) != len(spans):
                raise ConfigError(f"{len(f)} fields for {len(spans)} chunks")
        named = [t for f in mixed if f is not None for t in f if t]
        embedded = self.embed_texts(texts + named) if texts or named else None
        naive, own_fields = (
            (None, None) if embedded is None else (embedded[: len(texts)], embedded[len(texts) :])
        )
        out: list[np.ndarray] = []
        at = at_field = 0
        for (_, tokens, spans, _), w, f, fw in zip(
            items, weights, mixed, field_weights, strict=True
        ):
            late = tokens.pool(spans) if w > 0.0 else None
            if late is not None and w >= 1.0:
                vecs = late
            else:
                assert naive is not None
                own = naive[at : at + len(spans)]
                at += len(spans)
                vecs = own if late is None else _normalise(w * late + (1.0 - w) * own)
            if f is not None and any(f):
                assert own_fields is not None
                vecs = vecs.copy()
                for row, t in enumerate(f):
                    if t:
                        vecs[row] += fw * own_fields[at_field]
                        at_field += 1
                vecs = _normalise(vecs)
            out.append(vecs)
        return out

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Normalised query vectors ``[len(queries), d]``, as the model's own
        sentence-transformers pipeline makes them (its pooling; :attr:`query_prefix`)."""
        return self._embed_short(queries, "query")

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Naive (per-text, no document context) vectors ``[len(texts), d]``, pooled as the
        model defines it: the baseline that late chunking is measured against."""
        return self._embed_short(texts, "document")

    def _embed_short(self, texts: Sequence[str], role: str) -> np.ndarray:
        texts = [clean_text(t) for t in texts]  # a lone surrogate would stop the tokenizer
        self._fresh()
        prompt = self._prompt(role)
        quick = self.quick() if self._model is None else None
        if quick is not None:  # a cold process: short texts need no torch
            out = np.zeros((len(texts), quick.dim), dtype=np.float32)
            for at in range(0, len(texts), QUICK_BATCH):
                out[at : at + QUICK_BATCH] = quick.embed(texts[at : at + QUICK_BATCH], prompt)
            return _normalise(out)
        model = self._load()
        keep = self._texts if role == "document" else None  # a chunk's, a field's

        def embed(todo: list[str]) -> np.ndarray:
            ids = self._tokenizer(todo, add_special_tokens=False)["input_ids"]
            limit = model.trained_length or self.max_length
            out = np.zeros((len(todo), self.dim), dtype=np.float32)
            batches = self._batches([min(len(row), limit) for row in ids])
            texts = [[todo[i] for i in batch] for batch in batches]
            for batch, vecs in zip(batches, model.embed_many(texts, prompt), strict=True):
                out[batch] = vecs
            return _normalise(out)

        return each_once(texts, embed, self.dim, keep, prompt)
