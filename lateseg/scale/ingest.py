"""Ingest orchestration: walk, parse and encode on an engine, write in file order.

:func:`ingest_paths` is what ``Pipeline.ingest`` runs: the walk (every skip with its
reason), the parse jobs with each file's known hash (read under the writer's lock, so no
other writer can change it before the write), the engine's results written in file order
by this process (the index's only writer), failures reported and skipped, and the
optional prune of what the walk no longer yields. :func:`add_documents` indexes
documents made in memory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from lateseg.errors import IngestError, LatesegError
from lateseg.ingest.report import IngestReport
from lateseg.options import INGEST_DEFAULTS, IngestOptions
from lateseg.scale.engines import EMPTY, Written, encode_document, make_engine
from lateseg.types import Document

if TYPE_CHECKING:
    from lateseg.encode.late import LateEncoder
    from lateseg.index import Index, Writer
    from lateseg.ingest.folder import Walk
    from lateseg.segment import Chunker

log = logging.getLogger(__name__)


def ingest_paths(
    index: Index,
    encoder: LateEncoder,
    chunker: Chunker,
    paths: Iterable[str | os.PathLike[str]] | str,
    options: IngestOptions = INGEST_DEFAULTS,
) -> IngestReport:
    """Add or update every supported file under ``paths`` in ``index`` as ``options``
    say (:class:`~lateseg.options.IngestOptions`, checked when made; see
    ``Pipeline.ingest``)."""
    engine, ocr = options.engine, options.ocr
    # On a store that takes many writers, Ray's actors write their documents themselves.
    shared = index.store.url if index.store.concurrent_writers and engine == "ray" else None
    runner = make_engine(
        engine, encoder, chunker, workers=options.workers, address=options.address,
        store_url=shared,
    )  # fmt: skip
    from tqdm.auto import tqdm

    from lateseg.ingest.folder import walk
    from lateseg.ingest.parallel import ParseJob
    from lateseg.ingest.paths import source_name

    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    found = _images_unread(walk(paths, options.walk_config), ocr)
    report = IngestReport(skipped=found.skipped, failed=list(found.failed))
    # The writer locks before the known hashes are read: no other writer can change them.
    with index.writer() as writer:
        jobs = [
            ParseJob(
                str(f.path),
                str(f.root) if f.root else None,
                index.file_hash(source_name(f.path)),
                options.password,
                f.identity,
                ocr,
            )
            for f in found.files
        ]
        loading = bool(jobs) and engine == "local" and encoder._model is None
        bar = tqdm(
            total=len(jobs),
            desc="ingest: loading the model…" if loading else "ingest",  # the first file waits
            unit="file",
            disable=None if options.progress is None else not options.progress,
        )
        if options.prune:
            report.removed = _prune(index, found, writer)
        with bar:
            for job, (parsed, encoded) in zip(jobs, runner.run(jobs), strict=True):
                if bar.n == 0:
                    bar.set_description("ingest")
                bar.update()
                if parsed.unchanged:
                    report.unchanged.append(parsed.source)
                    continue
                try:
                    if parsed.doc is None or parsed.digest is None:
                        raise IngestError(parsed.error or "not parsed")
                    if encoded is None or isinstance(encoded, str):  # the engine's error
                        raise IngestError(encoded or "not encoded")
                    if isinstance(encoded, Written):  # a worker wrote it into the store
                        report.chunks += encoded.chunks
                    else:
                        chunks, vecs = encoded
                        report.chunks += writer.add(
                            parsed.doc, parsed.digest, chunks, vecs, os.fsencode(job.path)
                        )
                except LatesegError as e:
                    if str(e) == EMPTY:  # nothing to index, nothing lost: skipped, quietly
                        log.info("skipped %s: %s", parsed.source, e)
                        why = EMPTY
                        if job.known_hash is not None:  # emptied: its old text goes too
                            writer.remove([parsed.source])
                            why += " (its earlier text removed from the index)"
                        report.skipped.append((parsed.source, why))
                        continue
                    log.warning("failed %s: %s", parsed.source, e)
                    report.failed.append((parsed.source, str(e)))
                    continue
                (report.added if job.known_hash is None else report.updated).append(parsed.source)
                report.pages += _pages(parsed.doc)
                _count_ocr(report, parsed.source, parsed.doc)
                bar.set_postfix(pages=report.pages, chunks=report.chunks, refresh=False)
        if shared:
            index.refresh()  # the workers' writes, into the cache this writer saves
    log.info("ingest: %s", report.summary())
    return report


def _pages(doc: Document) -> int:
    """The pages of a parsed document (a PDF's page count; 0 for kinds without pages)."""
    value = doc.meta.get("pages")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


#: The skip reason of an image this run cannot read (--prune keeps such images indexed).
IMAGE_UNREAD = "image: "


def _images_unread(found: Walk, ocr: str) -> Walk:
    """The walk without the images found in folders when OCR is off or not installed,
    and without those in a code repository (the walked folder or one of its folders
    above the image) unless OCR is forced
    (:func:`~lateseg.ingest.repo.is_code_repository`: icons and screenshots, not pages):
    those are skipped with the reason, as other files lateseg cannot read are (an image
    named on its own is still read, and fails saying why)."""
    from lateseg.ingest.formats import image_suffixes
    from lateseg.ingest.ocr.engine import available
    from lateseg.ingest.repo import is_code_repository

    suffixes = image_suffixes()
    images = [f for f in found.files if f.root is not None and f.path.suffix.lower() in suffixes]
    if not images:
        return found
    why = "--ocr off" if ocr == "off" else available()
    repos: dict[Path, bool] = {}
    skipped = []

    def in_repository(folder: Path, root: Path) -> bool:
        """Whether ``folder`` or one above it, up to ``root``, is a code repository
        (walked upwards without recursion: a folder tree may be any depth)."""
        path = [folder]
        while path[-1] not in repos and path[-1] != root and path[-1].is_relative_to(root):
            if path[-1].parent == path[-1]:
                break
            path.append(path[-1].parent)
        found = repos.get(path[-1])
        for p in reversed(path):  # the top first: a folder is in one if its parent is
            if found is None or not found:
                found = is_code_repository(p) if p not in repos else repos[p]
            repos[p] = found
        return bool(found)

    for f in images:  # a repository's image is skipped whatever OCR can do: say that
        root = f.root or f.path.parent
        if ocr != "force" and in_repository(f.path.parent, root):
            skipped.append((f, f"{IMAGE_UNREAD}in a code repository (--ocr force reads it)"))
        elif why is not None:
            skipped.append((f, f"{IMAGE_UNREAD}{why}"))
    for f, reason in skipped:
        found.skip(f.path, reason)
    gone = {id(f) for f, _ in skipped}
    found.files = [f for f in found.files if id(f) not in gone]
    return found


def _count_ocr(report: IngestReport, source: str, doc: Document) -> None:
    """Add a document's OCR'd and unread pages to ``report`` (and say the unread ones)."""
    pages = doc.meta.get("ocr_pages")
    report.ocr_pages += len(pages) if isinstance(pages, list) else 0
    for item in doc.meta.get("unread_pages") or ():
        if isinstance(item, dict):
            report.unread.append((source, f"p. {item.get('page')}: {item.get('reason')}"))


def _prune(index: Index, found: Walk, writer: Writer) -> list[tuple[str, str]]:
    """Remove the indexed documents under the walked folders that the walk no longer
    yields, with the reason (see :func:`ingest_paths`)."""
    from lateseg.ingest.folder import why_not_walked

    files = {str(f.path) for f in found.files}
    gone: dict[str, str] = {}
    for source, real in index.source_paths():
        p = Path(real)
        if not any(p.is_relative_to(r) for r in found.roots) or real in files:
            continue
        if any(p.is_relative_to(u) for u in found.unlisted):
            continue  # a folder that could not be listed: nothing known about it
        reason = why_not_walked(p, found)
        if reason is not None and not reason.startswith(IMAGE_UNREAD):
            gone[source] = reason  # an image this run cannot read stays as indexed
    writer.remove(list(gone))
    return sorted(gone.items())


def add_documents(
    index: Index, encoder: LateEncoder, chunker: Chunker, docs: Iterable[Document]
) -> int:
    """Index documents made in memory, each all or nothing, replacing a document of the
    same source; the number of chunks added."""
    added = 0
    with index.writer() as writer:
        for doc in docs:
            digest = hashlib.sha256(
                json.dumps([doc.text, doc.kind, doc.meta], default=str).encode()
            ).hexdigest()
            chunks, vecs = encode_document(encoder, chunker, doc)
            added += writer.add(doc, digest, chunks, vecs)
    return added
