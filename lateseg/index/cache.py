"""``vectors.faiss``: the FAISS index as a cache derived from the docstore.

The file is a 4 KiB header followed by the FAISS index as ``faiss.write_index`` writes
it. The header records which index it belongs to (the docstore's random ``index_id``),
the last change it includes (the change log's ``seq``), how many vectors it holds, and
the SHA-256 of the FAISS bytes. A process loads it, checks all four, and applies the
changes logged since; a missing, foreign, damaged or too old file is rebuilt from the
docstore instead (with a notice), never "repaired" by deleting documents.

The file is replaced atomically (a temporary file renamed over it, fsynced), so a crash
at any point leaves either the old or the new cache, each valid for the log.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

from lateseg.errors import IndexStoreError
from lateseg.index.vectors import KINDS, VectorIndex

MAGIC = b"LSVEC2\n\0"
HEADER_SIZE = 4096


class CacheError(IndexStoreError):
    """The cache file cannot be used; ``reason`` is one of ``missing``, ``foreign``,
    ``damaged``, ``old`` (behind what the change log still holds) and ``ahead``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class CacheHeader:
    index_id: str
    seq: int
    count: int
    kind: str
    dim: int
    payload_bytes: int
    sha256: str


def save_cache(path: Path, vectors: VectorIndex, index_id: str, seq: int) -> CacheHeader:
    """Write ``vectors`` as the cache of the docstore ``index_id`` at change ``seq``."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        header = _write_cache(tmp, vectors, index_id, seq)
        os.replace(tmp, path)
    except BaseException:  # a full disk, an interrupt: no half-written file is left
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
    return header


def _write_cache(tmp: Path, vectors: VectorIndex, index_id: str, seq: int) -> CacheHeader:
    import faiss

    digest = hashlib.sha256()
    size = 0
    with open(tmp, "wb") as f:
        f.write(b"\0" * HEADER_SIZE)

        def write(data: bytes) -> int:
            nonlocal size
            digest.update(data)
            size += len(data)
            f.write(data)
            return len(data)

        faiss.write_index(vectors.index, faiss.PyCallbackIOWriter(write))  # type: ignore[attr-defined]
        header = CacheHeader(
            index_id, seq, len(vectors), vectors.kind, vectors.dim, size, digest.hexdigest()
        )
        body = MAGIC + json.dumps(asdict(header)).encode()
        f.seek(0)
        f.write(body)
        f.flush()
        os.fsync(f.fileno())
    return header


def load_cache(path: Path, dim: int, index_id: str) -> tuple[VectorIndex, CacheHeader]:
    """The cache at ``path`` if it belongs to the docstore ``index_id`` and is intact;
    raises :class:`CacheError` with the reason otherwise."""
    import faiss

    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        raise CacheError("missing", f"{path} is missing") from None
    except OSError as e:
        raise CacheError("damaged", f"{path} cannot be read: {e.strerror or e}") from None
    with f:
        header = read_header(f, path)
        if header.index_id != index_id:
            raise CacheError("foreign", f"{path} belongs to another index")
        if header.dim != dim:
            raise CacheError("foreign", f"{path} holds {header.dim}-d vectors, not {dim}-d")
        actual = os.fstat(f.fileno()).st_size - HEADER_SIZE
        if actual != header.payload_bytes:
            raise CacheError(
                "damaged",
                f"{path} holds {actual} bytes of vectors; its header says {header.payload_bytes}",
            )
        reader = _HashingReader(f, header.payload_bytes)
        try:
            index = faiss.read_index(faiss.PyCallbackIOReader(reader.read))  # type: ignore[attr-defined]
        except Exception as e:  # faiss raises RuntimeError with its C++ message
            raise CacheError("damaged", f"{path} is not a readable FAISS index: {e}") from None
        if reader.read_all().hexdigest() != header.sha256:
            raise CacheError("damaged", f"{path} does not match its checksum")
    try:
        vectors = VectorIndex.wrap(dim, index, path)
    except IndexStoreError as e:
        raise CacheError("foreign", str(e)) from None
    if vectors.kind != header.kind or len(vectors) != header.count:
        raise CacheError("damaged", f"{path} does not hold what its header says")
    return vectors, header


def read_header(f: BinaryIO, path: Path) -> CacheHeader:
    """The header of an open cache file; :class:`CacheError` if it has none."""
    head = f.read(HEADER_SIZE)
    if not head.startswith(MAGIC):
        raise CacheError(
            "foreign",
            f"{path} is not a lateseg vector cache (a FAISS file of an older lateseg, or "
            "another program's)",
        )
    try:
        data = json.loads(head[len(MAGIC) :].rstrip(b"\0").decode("utf-8"))
        header = CacheHeader(**data)
    except (ValueError, TypeError) as e:
        raise CacheError("damaged", f"{path} has a damaged header: {e}") from None
    ints = (header.seq, header.count, header.dim, header.payload_bytes)
    if (
        not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in ints)
        or header.kind not in KINDS
        or not isinstance(header.index_id, str)
        or not isinstance(header.sha256, str)
    ):
        raise CacheError("damaged", f"{path} has a damaged header")
    return header


def is_cache_file(path: Path) -> bool:
    """Whether ``path`` starts like a cache file of this format."""
    try:
        with open(path, "rb") as f:
            return f.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


class _HashingReader:
    """Feeds FAISS the payload's bytes (never past its end), hashing them on the way."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self.f, self.left, self.digest = f, size, hashlib.sha256()

    def read(self, n: int) -> bytes:
        data = self.f.read(min(n, self.left))
        self.left -= len(data)
        self.digest.update(data)
        return data

    def read_all(self) -> Any:
        """The digest of the whole payload (reading what FAISS left, if anything)."""
        while self.left > 0:
            if not self.read(1 << 20):
                break
        return self.digest


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
