"""Work the encoder need not do twice: what it computed for a text it has seen before.

Real folders repeat themselves. A licence or a set of standard terms is copied into many
files; every chunk of a section carries the same section path, embedded alone as a field
(:mod:`lateseg.encode.fields`); a boilerplate clause recurs word for word. The model's
output for a text depends only on the text (and the model), so the encoder keeps, for the
texts it met last, what it computed from them (a document's token embeddings, a short
text's naive vector) and hands the same arrays out again. The arrays are made read-only,
since two documents may now hold one.

A :class:`Reuse` is bounded by bytes and forgets the least recently used first; it is
thread-safe, and keyed by a digest of the text (so no text is kept, only its digest).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import numpy as np

V = TypeVar("V")

#: Bytes of token embeddings kept per encoder for documents seen before (all-MiniLM:
#: about 44k tokens).
DOCUMENT_BYTES = 64 << 20
#: Bytes of naive vectors kept per encoder for short texts seen before (all-MiniLM:
#: about 9k texts).
TEXT_BYTES = 16 << 20


#: What an entry costs beside its arrays (its key, its array headers, the map's slot):
#: so that even empty entries are bounded in number.
ENTRY_BYTES = 256


def nbytes(value: object) -> int:
    """Bytes of an array, or of the arrays an object holds (token embeddings), and
    :data:`ENTRY_BYTES`."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes) + ENTRY_BYTES
    arrays = [v for v in vars(value).values() if isinstance(v, np.ndarray)]
    return sum(int(v.nbytes) for v in arrays) + ENTRY_BYTES


def digest(*parts: str) -> bytes:
    """A key for ``parts`` (a text and what else decides its embedding: the prompt, the
    window kind), in no way confusable with another split of the same characters."""
    h = hashlib.blake2b(digest_size=20)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


class Reuse(Generic[V]):
    """At most ``budget`` bytes of values (``size(value)`` each) by key, least recently
    used forgotten first. A value larger than the whole budget is not kept."""

    def __init__(self, budget: int, size: Callable[[V], int]) -> None:
        self.budget = budget
        self._size = size
        self._items: OrderedDict[bytes, V] = OrderedDict()
        self._used = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: bytes) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: bytes, value: V) -> None:
        size = self._size(value)
        if size > self.budget:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._used -= self._size(old)
            self._items[key] = value
            self._used += size
            while self._used > self.budget:
                _, gone = self._items.popitem(last=False)
                self._used -= self._size(gone)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._used = 0

    def __len__(self) -> int:
        return len(self._items)


def each_once(
    texts: Sequence[str],
    embed: Callable[[list[str]], np.ndarray],
    dim: int,
    keep: Reuse[np.ndarray] | None = None,
    prompt: str = "",
) -> np.ndarray:
    """Vectors ``[len(texts), dim]`` of ``texts`` by ``embed`` (a list of texts to their
    rows), each distinct text embedded once; with ``keep``, a text it holds (under
    ``prompt``) not embedded at all, and each new one kept."""
    first: dict[str, int] = {}
    rows = [first.setdefault(t, len(first)) for t in texts]
    unique = list(first)
    keys = [digest(prompt, t) for t in unique] if keep is not None else []
    found = [keep.get(k) for k in keys] if keep is not None else [None] * len(unique)
    vecs = np.zeros((len(unique), dim), dtype=np.float32)
    for i, v in enumerate(found):
        if v is not None:
            vecs[i] = v
    todo = [i for i, v in enumerate(found) if v is None]
    if todo:
        vecs[todo] = embed([unique[i] for i in todo])
    for i in todo if keep is not None else []:
        row = vecs[i].copy()
        row.setflags(write=False)
        keep.put(keys[i], row)  # type: ignore[union-attr]
    return vecs[rows]
