"""``LatesegLoader``: lateseg's ingestors as a LangChain ``BaseLoader``."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from lateseg.errors import ConfigError
from lateseg.segment.spans import SECTION_KINDS
from lateseg.types import Document as LatesegDocument

log = logging.getLogger(__name__)

# -- loader ------------------------------------------------------------------------------
LOADER_MODES = ("document", "page", "section")
# A file's sections as citations know them, less the module: a source file's module span
# covers the whole file, so per-section pieces start at its classes and functions.
LOADER_SECTION_KINDS = frozenset(SECTION_KINDS) - {"module"}


class LatesegLoader(BaseLoader):
    """Files and folders read by lateseg's ingestors, one LangChain document per file
    (``mode="document"``), per PDF page (``"page"``) or per top-level section, clause or
    code unit (``"section"``; text before the first is its own piece).

    Metadata: ``source`` (absolute path), ``kind`` (``pdf``, ``docx``, ``code`` …) and
    what the parser found (``title``, ``language`` …); per document also ``structure``
    (a list of ``{kind, label, start, end}``); per page ``page``; per section
    ``section``, ``section_kind``, ``start``, ``end`` and ``page``. Offsets index the
    file's extracted text. Files that cannot be read are logged, skipped and listed in
    :attr:`failed` (path, reason); the others load. ``workers`` parse in that many
    processes, in file order (None: as ``lateseg ingest`` decides; 0: in this one).
    """

    def __init__(
        self,
        paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
        *,
        mode: str = "document",
        password: str | None = None,
        walk_config: Any = None,
        workers: int | None = None,
    ) -> None:
        if mode not in LOADER_MODES:
            raise ConfigError(f"mode={mode!r}; choose one of {', '.join(LOADER_MODES)}")
        self.paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        self.mode = mode
        self.password = password
        self.walk_config = walk_config
        self.workers = workers
        self.failed: list[tuple[str, str]] = []
        self.skipped: list[tuple[str, str]] = []

    def lazy_load(self) -> Iterator[Document]:
        from lateseg.ingest.folder import walk
        from lateseg.ingest.parallel import ParseJob, parse_all

        found = walk(self.paths, self.walk_config)
        self.skipped = list(found.skipped)
        self.failed = list(found.failed)
        jobs = [
            ParseJob(str(f.path), str(f.root) if f.root else None, None, self.password, f.identity)
            for f in found.files
        ]
        for parsed in parse_all(jobs, self.workers):
            if parsed.doc is None:
                log.warning("skipped %s: %s", parsed.source, parsed.error)
                self.failed.append((parsed.source, parsed.error or "not parsed"))
                continue
            yield from self._split(parsed.doc)

    def _split(self, doc: LatesegDocument) -> Iterator[Document]:
        base = {
            "source": doc.source,
            "kind": doc.kind,
            **{k: v for k, v in doc.meta.items() if isinstance(v, (str, int, float, bool))},
        }
        pages = doc.spans("page")

        def page_at(pos: int) -> int | None:
            for p in pages:
                if p.start <= pos < p.end:
                    return int(p.label) if p.label.isdigit() else None
            return None

        if self.mode == "document":
            structure = [s.to_dict() for s in doc.structure]
            yield Document(page_content=doc.text, metadata={**base, "structure": structure})
        elif self.mode == "page":
            for p in pages or []:
                yield Document(
                    page_content=doc.text[p.start : p.end],
                    metadata={**base, "page": page_at(p.start), "start": p.start, "end": p.end},
                )
            if not pages:
                yield Document(page_content=doc.text, metadata={**base, "page": None})
        else:
            tops: list[Any] = []
            for s in doc.structure:  # outer spans come first at equal starts
                if s.kind in LOADER_SECTION_KINDS and not any(t.end >= s.end for t in tops):
                    tops.append(s)
            cuts = [(0, None)] + [(s.start, s) for s in tops if s.start > 0]
            if tops and tops[0].start == 0:
                cuts[0] = (0, tops[0])
            for (start, span), nxt in zip(cuts, [*cuts[1:], (len(doc.text), None)], strict=True):
                text = doc.text[start : nxt[0]]
                if not text.strip():
                    continue
                yield Document(
                    page_content=text,
                    metadata={
                        **base,
                        "section": span.label if span else None,
                        "section_kind": span.kind if span else None,
                        "start": start,
                        "end": nxt[0],
                        "page": page_at(start),
                    },
                )


# -- embeddings and vector store ---------------------------------------------------------
