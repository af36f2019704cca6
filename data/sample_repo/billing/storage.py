"""Persist invoices as JSON files and hand out invoice numbers."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from billing.invoice import Invoice

INVOICE_NUMBER_RE = re.compile(r"^(?P<prefix>[A-Z]+)-(?P<year>\d{4})-(?P<seq>\d{4,})$")


def next_invoice_number(existing: list[str], year: int, prefix: str = "INV") -> str:
    """Return the next free invoice number for ``year``.

    Invoice numbers look like INV-2025-0042: a prefix, the year and a sequence.
    The sequence restarts at 0001 at the beginning of every calendar year.
    Numbers with a different prefix or year are ignored when finding the highest so far.
    """
    highest = 0
    for number in existing:
        match = INVOICE_NUMBER_RE.match(number)
        if match is None:
            continue
        if match["prefix"] != prefix or int(match["year"]) != year:
            continue
        highest = max(highest, int(match["seq"]))
    return f"{prefix}-{year}-{highest + 1:04d}"


class InvoiceStore:
    """Stores one JSON file per invoice in a directory.

    File names are the invoice number plus ``.json``. The store is meant for a
    single process; it does no locking.
    """

    def __init__(self, root: Path | str) -> None:
        """Create the store, making ``root`` if it does not exist yet."""
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, number: str) -> Path:
        if not INVOICE_NUMBER_RE.match(number):
            raise ValueError(f"not a valid invoice number: {number!r}")
        return self.root / f"{number}.json"

    def save(self, invoice: Invoice) -> Path:
        """Write ``invoice`` to disk and return the file path.

        The JSON is first written to a temporary file in the same directory.
        That file is then moved over the old one with os.replace.
        This way a crash never leaves a half-written invoice behind.
        """
        path = self._path(invoice.number)
        payload = json.dumps(invoice.to_dict(), indent=2, sort_keys=True)
        fd, tmp_name = tempfile.mkstemp(dir=self.root, suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(payload + "\n")
            os.replace(tmp_name, path)
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
        return path

    def load(self, number: str) -> Invoice:
        """Read the invoice with ``number``; raises FileNotFoundError if absent."""
        with self._path(number).open(encoding="utf-8") as handle:
            return Invoice.from_dict(json.load(handle))

    def delete(self, number: str) -> None:
        """Delete a draft invoice. Issued invoices must be kept for audit."""
        invoice = self.load(number)
        if invoice.status != "draft":
            raise PermissionError(f"invoice {number} is {invoice.status}")
        self._path(number).unlink()

    def numbers(self) -> list[str]:
        """All stored invoice numbers, sorted."""
        return sorted(p.stem for p in self.root.glob("*.json"))

    def __iter__(self) -> Iterator[Invoice]:
        """Iterate over all stored invoices in number order."""
        for number in self.numbers():
            yield self.load(number)

    def allocate_number(self, year: int, prefix: str = "INV") -> str:
        """Next invoice number for ``year`` given what is already stored."""
        return next_invoice_number(self.numbers(), year, prefix)

    def outstanding(self) -> list[Invoice]:
        """Issued invoices that have not been paid yet."""
        return [inv for inv in self if inv.status == "issued"]
