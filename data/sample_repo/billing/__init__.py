"""Tiny invoicing toolkit used by the Harborlight bookkeeping service.

The package is split into small modules:

* :mod:`billing.currency` - rounding, exchange rates and money formatting.
* :mod:`billing.tax` - regional tax rates and reverse-charge rules.
* :mod:`billing.invoice` - line items, invoices, due dates and late fees.
* :mod:`billing.storage` - a JSON file store and invoice numbering.

All monetary amounts are :class:`decimal.Decimal` values; floats are never
used for money.
"""

from __future__ import annotations

from billing.currency import (
    ExchangeRateTable,
    convert_currency,
    format_money,
    round_half_even,
)
from billing.invoice import Invoice, LineItem, compute_late_fee
from billing.storage import InvoiceStore, next_invoice_number
from billing.tax import compute_tax, is_reverse_charge, lookup_tax_rate

__all__ = [
    "ExchangeRateTable",
    "Invoice",
    "InvoiceStore",
    "LineItem",
    "compute_late_fee",
    "compute_tax",
    "convert_currency",
    "format_money",
    "is_reverse_charge",
    "lookup_tax_rate",
    "next_invoice_number",
    "round_half_even",
]

__version__ = "0.4.2"
