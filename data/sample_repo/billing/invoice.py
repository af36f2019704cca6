"""Invoices, line items, due dates and late fees."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from billing.currency import round_for_currency
from billing.tax import compute_tax, is_reverse_charge

DEFAULT_PAYMENT_TERMS_DAYS = 30
LATE_FEE_MONTHLY_RATE = Decimal("0.015")
LATE_FEE_GRACE_DAYS = 10
LATE_FEE_MINIMUM = Decimal("25.00")


class InvoiceStateError(RuntimeError):
    """Raised when an operation is not allowed in the invoice's state."""


@dataclass
class LineItem:
    """One billable line on an invoice."""

    description: str
    quantity: Decimal
    unit_price: Decimal
    tax_category: str = "general"
    discount_percent: Decimal = Decimal(0)

    def net_amount(self) -> Decimal:
        """Quantity times unit price, less the line discount, before tax."""
        gross = self.quantity * self.unit_price
        discount = gross * self.discount_percent / Decimal(100)
        return gross - discount


@dataclass
class Invoice:
    """A customer invoice.

    An invoice starts as a draft, becomes immutable once issued, and is closed
    by :meth:`mark_paid`. Lines can only be added or removed while it is a
    draft.
    """

    number: str
    customer_id: str
    currency: str
    region: str
    seller_country: str = "US"
    buyer_vat_id: str | None = None
    tax_exempt: bool = False
    payment_terms_days: int = DEFAULT_PAYMENT_TERMS_DAYS
    issue_date: date | None = None
    paid_date: date | None = None
    lines: list[LineItem] = field(default_factory=list)
    notes: str = ""

    @property
    def status(self) -> str:
        """One of "draft", "issued" or "paid"."""
        if self.paid_date is not None:
            return "paid"
        if self.issue_date is not None:
            return "issued"
        return "draft"

    def add_line(self, item: LineItem) -> None:
        """Append a line item; only allowed while the invoice is a draft."""
        if self.status != "draft":
            raise InvoiceStateError(f"invoice {self.number} is {self.status}")
        if item.quantity <= 0:
            raise ValueError("line quantity must be positive")
        self.lines.append(item)

    def remove_line(self, index: int) -> LineItem:
        """Remove and return the line at ``index`` from a draft invoice."""
        if self.status != "draft":
            raise InvoiceStateError(f"invoice {self.number} is {self.status}")
        return self.lines.pop(index)

    def subtotal(self) -> Decimal:
        """Sum of all line net amounts, rounded to the invoice currency."""
        total = sum((line.net_amount() for line in self.lines), Decimal(0))
        return round_for_currency(total, self.currency)

    def reverse_charge(self) -> bool:
        """Whether this sale falls under the EU reverse-charge rules."""
        buyer_country = self.region.split("-")[0]
        return is_reverse_charge(self.seller_country, buyer_country, self.buyer_vat_id)

    def tax_total(self) -> Decimal:
        """Tax for all lines, computed per line so category rates can differ."""
        reverse = self.reverse_charge()
        tax = Decimal(0)
        for line in self.lines:
            result = compute_tax(
                line.net_amount(),
                self.region,
                line.tax_category,
                exempt=self.tax_exempt,
                reverse_charge=reverse,
            )
            tax += result.tax
        return round_for_currency(tax, self.currency)

    def total(self) -> Decimal:
        """Amount the customer owes: subtotal plus tax."""
        return self.subtotal() + self.tax_total()

    def issue(self, on: date) -> None:
        """Freeze the invoice and start the payment clock on date ``on``."""
        if not self.lines:
            raise InvoiceStateError("cannot issue an invoice without lines")
        if self.status != "draft":
            raise InvoiceStateError(f"invoice {self.number} is {self.status}")
        self.issue_date = on
        if self.reverse_charge():
            self.notes = "Reverse charge: VAT to be accounted for by the recipient."

    def due_date(self) -> date:
        """The payment due date: issue date plus the payment terms in days."""
        if self.issue_date is None:
            raise InvoiceStateError("a draft invoice has no due date")
        return self.issue_date + timedelta(days=self.payment_terms_days)

    def days_overdue(self, today: date) -> int:
        """Whole days past the due date, or 0 if not yet due or already paid."""
        if self.status != "issued":
            return 0
        return max((today - self.due_date()).days, 0)

    def mark_paid(self, on: date) -> None:
        """Record full payment; payments dated before issue are rejected."""
        if self.issue_date is None:
            raise InvoiceStateError("cannot pay a draft invoice")
        if on < self.issue_date:
            raise ValueError("payment date is before the issue date")
        self.paid_date = on

    def to_dict(self) -> dict[str, Any]:
        """Serialize to JSON-compatible types (Decimals become strings)."""
        return {
            "number": self.number,
            "customer_id": self.customer_id,
            "currency": self.currency,
            "region": self.region,
            "seller_country": self.seller_country,
            "buyer_vat_id": self.buyer_vat_id,
            "tax_exempt": self.tax_exempt,
            "payment_terms_days": self.payment_terms_days,
            "issue_date": self.issue_date.isoformat() if self.issue_date else None,
            "paid_date": self.paid_date.isoformat() if self.paid_date else None,
            "notes": self.notes,
            "lines": [
                {
                    "description": line.description,
                    "quantity": str(line.quantity),
                    "unit_price": str(line.unit_price),
                    "tax_category": line.tax_category,
                    "discount_percent": str(line.discount_percent),
                }
                for line in self.lines
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Invoice:
        """Inverse of :meth:`to_dict`."""
        lines = [
            LineItem(
                description=raw["description"],
                quantity=Decimal(raw["quantity"]),
                unit_price=Decimal(raw["unit_price"]),
                tax_category=raw.get("tax_category", "general"),
                discount_percent=Decimal(raw.get("discount_percent", "0")),
            )
            for raw in data.get("lines", [])
        ]
        issue = data.get("issue_date")
        paid = data.get("paid_date")
        return cls(
            number=data["number"],
            customer_id=data["customer_id"],
            currency=data["currency"],
            region=data["region"],
            seller_country=data.get("seller_country", "US"),
            buyer_vat_id=data.get("buyer_vat_id"),
            tax_exempt=data.get("tax_exempt", False),
            payment_terms_days=data.get("payment_terms_days", DEFAULT_PAYMENT_TERMS_DAYS),
            issue_date=date.fromisoformat(issue) if issue else None,
            paid_date=date.fromisoformat(paid) if paid else None,
            lines=lines,
            notes=data.get("notes", ""),
        )


def compute_late_fee(
    invoice: Invoice,
    today: date,
    *,
    monthly_rate: Decimal = LATE_FEE_MONTHLY_RATE,
    grace_days: int = LATE_FEE_GRACE_DAYS,
    minimum_fee: Decimal = LATE_FEE_MINIMUM,
) -> Decimal:
    """Return the late fee owed on an unpaid invoice as of ``today``.

    No fee is charged while the invoice is within the grace period after its due date.
    Once past it, interest accrues from the due date at the monthly rate, prorated per day.
    A month is counted as 30 days, and the fee is never less than the minimum fee.
    """
    overdue = invoice.days_overdue(today)
    if overdue <= grace_days:
        return Decimal("0.00")
    daily_rate = monthly_rate / Decimal(30)
    fee = invoice.total() * daily_rate * Decimal(overdue)
    return round_for_currency(max(fee, minimum_fee), invoice.currency)
