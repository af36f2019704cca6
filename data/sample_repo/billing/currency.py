"""Currency helpers: rounding, exchange rates and formatting.

Exchange rates are stored as "units of the quote currency per one unit of the
base currency", the same convention used by most published rate feeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

# Number of minor-unit digits for each supported ISO 4217 currency.
CURRENCY_DECIMALS: dict[str, int] = {
    "USD": 2,
    "EUR": 2,
    "GBP": 2,
    "CAD": 2,
    "CHF": 2,
    "JPY": 0,
    "KRW": 0,
    "BHD": 3,
}

CURRENCY_SYMBOLS: dict[str, str] = {
    "USD": "$",
    "EUR": "EUR ",
    "GBP": "GBP ",
    "CAD": "C$",
    "CHF": "CHF ",
    "JPY": "JPY ",
    "KRW": "KRW ",
    "BHD": "BHD ",
}


class UnknownCurrencyError(ValueError):
    """Raised when a currency code is not listed in CURRENCY_DECIMALS."""


def currency_places(currency: str) -> int:
    """Return how many decimal places amounts in ``currency`` are kept to."""
    try:
        return CURRENCY_DECIMALS[currency.upper()]
    except KeyError:
        raise UnknownCurrencyError(f"unsupported currency: {currency!r}") from None


def round_half_even(amount: Decimal, places: int = 2) -> Decimal:
    """Round ``amount`` to ``places`` decimals using banker's rounding.

    Ties go to the nearest even digit, so 2.345 becomes 2.34 and 2.355 becomes
    2.36. Over many invoices this avoids the upward drift of always rounding
    halves up.
    """
    quantum = Decimal(1).scaleb(-places)
    return amount.quantize(quantum, rounding=ROUND_HALF_EVEN)


def round_for_currency(amount: Decimal, currency: str) -> Decimal:
    """Round ``amount`` to the minor unit of ``currency`` (e.g. 0 for JPY)."""
    return round_half_even(amount, currency_places(currency))


@dataclass
class ExchangeRateTable:
    """A set of exchange rates valid on a single ``as_of`` date."""

    as_of: date
    rates: dict[tuple[str, str], Decimal] = field(default_factory=dict)

    def add_rate(self, base: str, quote: str, rate: Decimal) -> None:
        """Record that one unit of ``base`` buys ``rate`` units of ``quote``."""
        if rate <= 0:
            raise ValueError("exchange rates must be positive")
        self.rates[(base.upper(), quote.upper())] = rate

    def get_rate(self, base: str, quote: str) -> Decimal:
        """Return the rate from ``base`` to ``quote``.

        If only the opposite direction is known, the inverse of that rate is
        used. Converting a currency to itself always uses a rate of exactly 1.
        """
        base, quote = base.upper(), quote.upper()
        if base == quote:
            return Decimal(1)
        if (base, quote) in self.rates:
            return self.rates[(base, quote)]
        if (quote, base) in self.rates:
            return Decimal(1) / self.rates[(quote, base)]
        raise KeyError(f"no exchange rate for {base}/{quote} on {self.as_of}")


def convert_currency(
    amount: Decimal, source: str, target: str, table: ExchangeRateTable
) -> Decimal:
    """Convert ``amount`` from ``source`` to ``target`` currency.

    The rate is applied at full precision and the result is rounded only once.
    That final rounding is half-even to the minor unit of the target currency.
    """
    rate = table.get_rate(source, target)
    return round_for_currency(amount * rate, target)


def format_money(amount: Decimal, currency: str) -> str:
    """Format an amount for display, e.g. ``format_money(Decimal("-5"), "USD")``.

    Negative amounts are shown in parentheses, as accountants prefer:
    "($5.00)" rather than "-$5.00".
    """
    places = currency_places(currency)
    rounded = round_half_even(amount, places)
    symbol = CURRENCY_SYMBOLS.get(currency.upper(), currency.upper() + " ")
    digits = f"{abs(rounded):,.{places}f}"
    if rounded < 0:
        return f"({symbol}{digits})"
    return f"{symbol}{digits}"
