"""PDFs with PyMuPDF: :mod:`~lateseg.ingest.pdf.reader` reads each page's lines from its text
layer, or by OCR (:mod:`lateseg.ingest.ocr`) where the layer is not text a reader sees
(:mod:`~lateseg.ingest.pdf.text_layer`); ruled tables become table lines
(:mod:`~lateseg.ingest.pdf.tables`); :mod:`~lateseg.ingest.pdf.text` puts the lines in
reading order and drops page furniture. Page geometry is :mod:`lateseg.ingest.layout`.
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    """The names this module had before it became a package (issue 61), from
    :mod:`lateseg.ingest.pdf.reader`."""
    import importlib

    module = importlib.import_module("lateseg.ingest.pdf.reader")
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
