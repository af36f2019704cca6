"""Sales tax and VAT calculation.

Rates are looked up by region code and product category. Regions are either
US state codes prefixed with "US-" (for example "US-NY") or ISO country codes
for VAT countries (for example "DE").
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from billing.currency import round_half_even

EU_VAT_COUNTRIES = frozenset(
    {"AT", "BE", "DE", "DK", "ES", "FI", "FR", "IE", "IT", "NL", "PL", "PT", "SE"}
)

# Standard rate per region, as a fraction (0.2 means 20 percent).
STANDARD_RATES: dict[str, Decimal] = {
    "US-NY": Decimal("0.08875"),
    "US-CA": Decimal("0.0725"),
    "US-TX": Decimal("0.0625"),
    "US-OR": Decimal("0"),
    "DE": Decimal("0.19"),
    "FR": Decimal("0.20"),
    "IE": Decimal("0.23"),
    "NL": Decimal("0.21"),
    "GB": Decimal("0.20"),
}

# Categories that use a different rate than the standard one in some regions.
CATEGORY_OVERRIDES: dict[tuple[str, str], Decimal] = {
    ("DE", "books"): Decimal("0.07"),
    ("FR", "books"): Decimal("0.055"),
    ("GB", "books"): Decimal("0"),
    ("US-NY", "saas"): Decimal("0.08875"),
    ("US-CA", "saas"): Decimal("0"),
    ("US-TX", "saas"): Decimal("0.05"),
}


@dataclass(frozen=True)
class TaxResult:
    """The outcome of a tax calculation for one taxable amount."""

    rate: Decimal
    tax: Decimal
    reverse_charge: bool = False


def lookup_tax_rate(region: str, category: str = "general") -> Decimal:
    """Return the tax rate for ``category`` goods or services in ``region``.

    A category override wins over the region's standard rate. Unknown regions
    raise ``KeyError`` rather than silently charging no tax.
    """
    region = region.upper()
    override = CATEGORY_OVERRIDES.get((region, category.lower()))
    if override is not None:
        return override
    return STANDARD_RATES[region]


def is_reverse_charge(seller_country: str, buyer_country: str, buyer_vat_id: str | None) -> bool:
    """Decide whether the EU reverse-charge mechanism applies.

    It applies only to sales between two different EU member states.
    The buyer must also have supplied a VAT number, which marks the sale as business-to-business.
    In that case the seller charges no VAT and the buyer accounts for it.
    """
    seller, buyer = seller_country.upper(), buyer_country.upper()
    if seller == buyer:
        return False
    if seller not in EU_VAT_COUNTRIES or buyer not in EU_VAT_COUNTRIES:
        return False
    return bool(buyer_vat_id and buyer_vat_id.strip())


def compute_tax(
    amount: Decimal,
    region: str,
    category: str = "general",
    *,
    exempt: bool = False,
    reverse_charge: bool = False,
) -> TaxResult:
    """Compute the tax due on a net ``amount``.

    Tax-exempt customers and reverse-charge sales are taxed at a rate of zero,
    but a reverse-charge result is flagged so the invoice can print the
    required legal notice.
    """
    if exempt or reverse_charge:
        return TaxResult(Decimal(0), Decimal("0.00"), reverse_charge=reverse_charge)
    rate = lookup_tax_rate(region, category)
    return TaxResult(rate, round_half_even(amount * rate))


def split_tax_inclusive(gross: Decimal, rate: Decimal) -> tuple[Decimal, Decimal]:
    """Split a tax-inclusive price into its net amount and tax portion.

    Used for consumer prices that are quoted with VAT included: the tax is
    the gross amount minus gross divided by one plus the rate.
    """
    net = round_half_even(gross / (Decimal(1) + rate))
    return net, gross - net
