"""What OCR read in an index, from the documents' metadata that ingest wrote
(``ocr_pages``, ``ocr_confidence``): the OCR part of ``lateseg index stats``. Here, not in
the index, because the keys are ingest's (:mod:`lateseg.index` stores metadata, it does
not read it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def ocr_summary(metas: Iterable[Any]) -> dict[str, Any]:
    """Pages read by OCR, the documents they are in, and the OCR's mean word confidence
    over those pages (0-1; None without any), from each document's ``meta``."""
    pages = documents = 0
    weighted = 0.0
    for meta in metas:
        read = meta.get("ocr_pages") if isinstance(meta, dict) else None
        conf = meta.get("ocr_confidence") if isinstance(meta, dict) else None
        if isinstance(read, list) and read and isinstance(conf, (int, float)):
            pages += len(read)
            documents += 1
            weighted += float(conf) * len(read)
    mean = round(weighted / pages, 4) if pages else None
    return {"pages": pages, "documents": documents, "mean_confidence": mean}
