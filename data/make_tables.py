"""Write the table samples in ``data/tables``: a data-processing agreement (PDF) whose
sub-processors and service credits are ruled tables, a fee schedule (DOCX) and a rate
card (HTML). ``data/eval/tables_qa.jsonl`` asks about their cells.

Run from the repository root::

    python data/make_tables.py

Deterministic: the same bytes each run (fixed metadata and zip times, no random IDs).
Needs PyMuPDF and python-docx (both lateseg dependencies).
"""

from __future__ import annotations

import datetime
import html
from pathlib import Path

OUT = Path(__file__).resolve().parent / "tables"

SUBPROCESSORS = [
    ("Sub-processor", "Location", "Processing"),
    ("Pelican Relay Mail Ltd.", "Cork, Ireland", "Delivery of marketing e-mails"),
    ("Sundial Support Services", "Lisbon, Portugal", "Customer support tickets"),
    ("Brightvault Hosting GmbH", "Frankfurt, Germany", "Primary data hosting and backups"),
    ("Quillstone Payments B.V.", "Amsterdam, Netherlands", "Payment card processing"),
    ("Northwind Analytics Inc.", "Austin, United States", "Usage analytics"),
    ("Tessellate Translation Oy", "Helsinki, Finland", "Translation of support content"),
]
CREDITS = [
    ("Monthly uptime", "Service credit"),
    ("99.9% or above", "None"),
    ("99.0% to below 99.9%", "10% of the monthly fee"),
    ("95.0% to below 99.0%", "25% of the monthly fee"),
    ("below 95.0%", "50% of the monthly fee"),
]
TIERS = [
    ("Tier", "Monthly fee", "Included users", "Overage per user"),
    ("Tier 1 (Starter)", "$1,200", "25", "$40"),
    ("Tier 2 (Growth)", "$4,500", "150", "$28"),
    ("Tier 3 (Enterprise)", "$11,000", "500", "$19"),
]
SERVICES = [
    ("Service", "Fee"),
    ("Onboarding workshop", "$2,500"),
    ("Data migration", "$7,800"),
    ("Custom integration", "$165 per hour"),
]
RATES = [
    ("Role", "Hourly rate", "Minimum engagement"),
    ("Solution architect", "$240", "10 hours"),
    ("Senior engineer", "$195", "20 hours"),
    ("QA analyst", "$120", "20 hours"),
    ("Project manager", "$175", "8 hours"),
]

CELL = "border: 1px solid black; padding: 3px"


def _table(rows: list[tuple[str, ...]]) -> str:
    head = "".join(f'<th style="{CELL}">{html.escape(c)}</th>' for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f'<td style="{CELL}">{html.escape(c)}</td>' for c in r) + "</tr>"
        for r in rows[1:]
    )
    return f'<table style="border-collapse: collapse"><tr>{head}</tr>{body}</table>'


DPA_PAGES = [
    """
<h1>DATA PROCESSING AGREEMENT</h1>
<p>This Data Processing Agreement is made between Corvane Retail Inc. (the "Controller")
and Harbourline Analytics Ltd. (the "Processor") and forms part of the Services Agreement
between them.</p>
<h2>1. Processing</h2>
<p>1.1 The Processor shall process Personal Data only on the documented instructions of
the Controller, including with regard to transfers of Personal Data to a third country.</p>
<p>1.2 The Processor shall ensure that persons authorised to process the Personal Data
have committed themselves to confidentiality.</p>
<h2>2. Sub-processors</h2>
<p>2.1 The Controller authorises the Processor to engage the Sub-processors listed in
Annex 3. The Processor shall inform the Controller of any intended addition or replacement
of a Sub-processor at least thirty (30) days in advance.</p>
<p>2.2 The Processor remains fully liable to the Controller for the performance of each
Sub-processor's obligations.</p>
<h2>3. Availability</h2>
<p>3.1 If the monthly uptime of the Services falls below the levels in Annex 4, the
Processor shall credit the Controller the service credit stated there.</p>
""",
    f"""
<h2>Annex 3 Sub-processors</h2>
<p>The Processor engages the following Sub-processors.</p>
{_table(SUBPROCESSORS)}
<h2>Annex 4 Service credits</h2>
<p>Service credits are calculated on the fees for the affected month.</p>
{_table(CREDITS)}
""",
]


def write_pdf(path: Path) -> None:
    import pymupdf

    doc = pymupdf.open()
    for body in DPA_PAGES:
        page = doc.new_page(width=612, height=792)
        page.insert_htmlbox(pymupdf.Rect(72, 72, 540, 720), body)
    doc.set_metadata(
        {"title": "Data Processing Agreement", "creationDate": "", "modDate": "", "producer": ""}
    )
    doc.save(path, garbage=4, deflate=True, no_new_id=True)


def write_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.core_properties.title = "Schedule 2 Fee Schedule"
    d.core_properties.author = "Harbourline Analytics Ltd."
    fixed = datetime.datetime(2026, 1, 5, tzinfo=datetime.timezone.utc)
    d.core_properties.created = d.core_properties.modified = fixed
    d.add_heading("Schedule 2 Fee Schedule", 0)
    d.add_paragraph(
        "This Schedule sets out the subscription fees payable by Corvane Retail Inc. under "
        "the Services Agreement. Fees are invoiced monthly in advance."
    )
    d.add_heading("1. Subscription tiers", 1)
    for rows in (TIERS, None, SERVICES):
        if rows is None:
            d.add_heading("2. Professional services", 1)
            continue
        table = d.add_table(rows=len(rows), cols=len(rows[0]))
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                table.cell(r, c).text = value
                if r == 0:  # the header row, bold as schedules set it
                    for run in table.cell(r, c).paragraphs[0].runs:
                        run.bold = True
    d.save(path)
    _fixed_zip_times(path)


def _fixed_zip_times(path: Path) -> None:
    """Rewrite the zip at ``path`` with every entry dated 2026-01-05 (python-docx stamps
    the time of writing), so the file is the same bytes each run."""
    import io
    import zipfile

    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info)) for info in src.infolist()]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 5, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, data)
    path.write_bytes(buf.getvalue())


def write_html(path: Path) -> None:
    page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Rate card</title></head><body>
<h1>Rate card</h1>
<p>Time and materials work under a Statement of Work is charged at these hourly rates.</p>
{_table(RATES)}
<p>Rates are fixed for the Initial Term.</p>
</body></html>
"""
    path.write_text(page, encoding="utf-8")


def main() -> int:
    OUT.mkdir(exist_ok=True)
    write_pdf(OUT / "dpa.pdf")
    write_docx(OUT / "fees.docx")
    write_html(OUT / "rates.html")
    for p in sorted(OUT.iterdir()):
        print(p.relative_to(OUT.parent.parent), p.stat().st_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
