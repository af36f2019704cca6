"""The OCR modes a user chooses (``auto``, ``off``, ``force``), checked: a leaf, so that
an option object can check a mode without importing the OCR reader (Tesseract's
subprocesses, the image code) into ``import lateseg``."""

from __future__ import annotations

from lateseg.errors import ConfigError

#: ``auto``: OCR the pages and images without usable text; ``off``: never; ``force``:
#: every page of PDFs and images.
OCR_MODES = ("auto", "off", "force")


def check_mode(ocr: str) -> str:
    """``ocr`` if it is one of :data:`OCR_MODES`, else ConfigError."""
    if ocr not in OCR_MODES:
        raise ConfigError(f"ocr={ocr!r}; one of {', '.join(OCR_MODES)}")
    return ocr
