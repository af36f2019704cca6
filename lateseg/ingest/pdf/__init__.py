"""PDFs with PyMuPDF: :mod:`~lateseg.ingest.pdf.reader` reads each page's lines from its text
layer, or by OCR (:mod:`lateseg.ingest.ocr`) where the layer is not text a reader sees
(:mod:`~lateseg.ingest.pdf.text_layer`); ruled tables become table lines
(:mod:`~lateseg.ingest.pdf.tables`); :mod:`~lateseg.ingest.pdf.text` puts the lines in
reading order and drops page furniture. Page geometry is :mod:`lateseg.ingest.layout`.
"""

from __future__ import annotations

from lateseg._moved import forwarding

# The names this module had before it became a package (issue 61): from reader.py.
__getattr__ = forwarding(__name__, "lateseg.ingest.pdf.reader")
