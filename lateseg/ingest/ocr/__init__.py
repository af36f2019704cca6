"""OCR for pages without a usable text layer: :mod:`~lateseg.ingest.ocr.engine` renders a
page and reads it with Tesseract (words with boxes, :mod:`~lateseg.ingest.ocr.words`),
cached by the page image (:mod:`~lateseg.ingest.ocr.cache`); what the page reading lost is
read again from the ink it left (:mod:`~lateseg.ingest.ocr.missed`), ruled tables from
their rules (:mod:`~lateseg.ingest.ocr.tables`) and contents pages without their dot
leaders (:mod:`~lateseg.ingest.ocr.leaders`, :mod:`~lateseg.ingest.ocr.contents`).

May import :mod:`lateseg.ingest.layout` (the lines and boxes it shares with the PDF
reader) and the table text of :mod:`lateseg.ingest.tables`.
"""

from __future__ import annotations

from lateseg._moved import forwarding

# The names this module had before it became a package (issue 61): from engine.py.
__getattr__ = forwarding(__name__, "lateseg.ingest.ocr.engine")
