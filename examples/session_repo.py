"""The files of the fictional `invoicer` repository the example agent session works on."""

from __future__ import annotations

README = """\
# invoicer

Small, dependency-free invoicing helpers used by the billing service and the
nightly accounting export.

* `Money`: an exact amount in one currency (Decimal, never float).
* `TaxRate` / `vat_for`: VAT rates by product category and country.
* `Invoice`: lines, discounts and totals; `Invoice.totals()` is what the PDF
  renderer and the CSV export print.

## Development

    python -m venv .venv && .venv/bin/pip install -e '.[test]'
    .venv/bin/python -m pytest -q

We support Python 3.9 (the accounting host still runs it). Keep the public API
of `Money` and `Invoice` stable: the billing service pins this package by
minor version.

## Rounding

All amounts are rounded half-up to the cent (`ROUND_HALF_UP`), which is what
the accounting system does. Intermediate values are never rounded.
"""

MONEY = '''\
"""Exact money amounts: Decimal in, Decimal out, one currency per value."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Union

CENT = Decimal("0.01")
Number = Union[int, str, Decimal]


class CurrencyMismatch(ValueError):
    """Two amounts in different currencies were combined."""


def _decimal(value: Number) -> Decimal:
    if isinstance(value, float):
        raise TypeError("use str or Decimal for money, never float")
    try:
        return Decimal(value)
    except InvalidOperation:
        raise ValueError(f"not an amount: {value!r}") from None


def round_cents(value: Decimal) -> Decimal:
    """Round half-up to the cent, as accounting does."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class Money:
    """An amount of money in one currency."""

    amount: Decimal
    currency: str = "EUR"

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", _decimal(self.amount))
        if len(self.currency) != 3 or not self.currency.isupper():
            raise ValueError(f"currency must be an ISO code like EUR, got {self.currency!r}")

    @classmethod
    def zero(cls, currency: str = "EUR") -> Money:
        return cls(Decimal("0"), currency)

    @classmethod
    def parse(cls, text: str) -> Money:
        """Parse '12.50 EUR' or 'EUR 12.50'."""
        left, _, right = text.strip().partition(" ")
        if left.isalpha():
            return cls(_decimal(right), left)
        return cls(_decimal(left), right or "EUR")

    def _check(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} vs {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: Number) -> Money:
        return Money(self.amount * _decimal(factor), self.currency)

    __rmul__ = __mul__

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __lt__(self, other: Money) -> bool:
        self._check(other)
        return self.amount < other.amount

    def rounded(self) -> Money:
        """This amount rounded half-up to the cent."""
        return Money(round_cents(self.amount), self.currency)

    def allocate(self, weights: list[int]) -> list[Money]:
        """Split into parts proportional to `weights`; the cents left over go first."""
        if not weights or any(w < 0 for w in weights) or sum(weights) == 0:
            raise ValueError("weights must be non-negative and not all zero")
        total = sum(weights)
        cents = int(round_cents(self.amount) * 100)
        parts = [cents * w // total for w in weights]
        for i in range(cents - sum(parts)):
            parts[i % len(parts)] += 1
        return [Money(Decimal(p) / 100, self.currency) for p in parts]

    def __str__(self) -> str:
        return f"{round_cents(self.amount):,.2f} {self.currency}"
'''

TAX = '''\
"""VAT rates by country and product category, and VAT on invoice lines."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Dict, Iterable, Tuple

from .money import Money

STANDARD = "standard"
REDUCED = "reduced"
ZERO = "zero"


@dataclass(frozen=True)
class TaxRate:
    """A VAT rate, e.g. TaxRate("DE", "standard", Decimal("0.19"))."""

    country: str
    category: str
    rate: Decimal

    def tax_on(self, net: Money) -> Money:
        """VAT on a net amount, not rounded."""
        return net * self.rate


RATES: Dict[Tuple[str, str], Decimal] = {
    ("DE", STANDARD): Decimal("0.19"),
    ("DE", REDUCED): Decimal("0.07"),
    ("FR", STANDARD): Decimal("0.20"),
    ("FR", REDUCED): Decimal("0.055"),
    ("NL", STANDARD): Decimal("0.21"),
    ("NL", REDUCED): Decimal("0.09"),
    ("AT", STANDARD): Decimal("0.20"),
    ("AT", REDUCED): Decimal("0.10"),
}


def vat_for(country: str, category: str) -> TaxRate:
    """The rate for a product category in a country; zero-rated goods are 0 everywhere."""
    if category == ZERO:
        return TaxRate(country, ZERO, Decimal("0"))
    try:
        return TaxRate(country, category, RATES[(country, category)])
    except KeyError:
        raise KeyError(f"no VAT rate for {category!r} goods in {country!r}") from None


def line_vat(net: Money, rate: TaxRate) -> Money:
    """VAT for one invoice line, rounded to the cent."""
    return rate.tax_on(net).rounded()


def vat_total(lines: Iterable[Tuple[Money, TaxRate]]) -> Money:
    """Total VAT of an invoice: the sum of the rounded VAT of every line."""
    total = None
    for net, rate in lines:
        vat = line_vat(net, rate)
        total = vat if total is None else total + vat
    if total is None:
        raise ValueError("an invoice needs at least one line")
    return total
'''

INVOICE = '''\
"""Invoices: lines, discounts, totals."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import List, Optional

from .money import Money, round_cents
from .tax import TaxRate, vat_for, vat_total


@dataclass(frozen=True)
class Line:
    """One invoice line: quantity x unit price, with its VAT category."""

    description: str
    quantity: Decimal
    unit_price: Money
    category: str = "standard"

    @property
    def net(self) -> Money:
        return self.unit_price * self.quantity


@dataclass(frozen=True)
class Totals:
    """What the PDF and the CSV export print at the bottom of an invoice."""

    net: Money
    discount: Money
    vat: Money
    gross: Money


@dataclass
class Invoice:
    """An invoice to one customer in one country and currency."""

    number: str
    customer: str
    country: str
    issued: date
    currency: str = "EUR"
    lines: List[Line] = field(default_factory=list)
    discount_percent: Decimal = Decimal("0")
    note: Optional[str] = None

    def add(self, description: str, quantity: str, unit_price: str, category: str = "standard"):
        """Add a line; amounts are strings so that no float ever gets in."""
        price = Money(Decimal(unit_price), self.currency)
        line = Line(description, Decimal(quantity), price, category)
        self.lines.append(line)
        return line

    def rate_for(self, line: Line) -> TaxRate:
        return vat_for(self.country, line.category)

    def discounted(self, line: Line) -> Money:
        """The line's net after the invoice discount (not rounded)."""
        factor = 1 - self.discount_percent / 100
        return line.net * factor

    def totals(self) -> Totals:
        """Net, discount, VAT and gross of the invoice, each rounded to the cent."""
        if not self.lines:
            raise ValueError(f"invoice {self.number} has no lines")
        net = sum((line.net for line in self.lines), Money.zero(self.currency))
        discounted = [(self.discounted(line), self.rate_for(line)) for line in self.lines]
        after = sum((amount for amount, _ in discounted), Money.zero(self.currency))
        vat = vat_total(discounted)
        discount = (net - after).rounded()
        return Totals(
            net=net.rounded(),
            discount=discount,
            vat=vat,
            gross=(after.rounded() + vat),
        )

    def summary(self) -> str:
        t = self.totals()
        rows = [f"Invoice {self.number} for {self.customer} ({self.issued.isoformat()})"]
        for line in self.lines:
            rows.append(f"  {line.quantity} x {line.description:<30} {line.net}")
        rows.append(f"  net {t.net}  discount {t.discount}  VAT {t.vat}  gross {t.gross}")
        return "\\n".join(rows)


def gross_of(net: Money, rate: TaxRate) -> Money:
    """Gross amount for a single net amount at one rate (used by the quote builder)."""
    return Money(round_cents(net.amount * (1 + rate.rate)), net.currency)
'''

TEST_INVOICE = """\
from datetime import date
from decimal import Decimal

import pytest

from invoicer.invoice import Invoice, gross_of
from invoicer.money import Money
from invoicer.tax import vat_for


def make(country="DE", discount="0"):
    return Invoice("2024-0042", "ACME GmbH", country, date(2024, 3, 1),
                   discount_percent=Decimal(discount))


def test_single_line_totals():
    inv = make()
    inv.add("Consulting", "3", "120.00")
    t = inv.totals()
    assert t.net == Money(Decimal("360.00"))
    assert t.vat == Money(Decimal("68.40"))
    assert t.gross == Money(Decimal("428.40"))


def test_reduced_rate_line():
    inv = make()
    inv.add("Books", "2", "19.99", category="reduced")
    assert inv.totals().vat == Money(Decimal("2.80"))


def test_discount_applies_before_vat():
    inv = make(discount="10")
    inv.add("Licence", "1", "1000.00")
    t = inv.totals()
    assert t.discount == Money(Decimal("100.00"))
    assert t.vat == Money(Decimal("171.00"))
    assert t.gross == Money(Decimal("1071.00"))


def test_zero_rated_line_has_no_vat():
    inv = make()
    inv.add("Export freight", "1", "250.00", category="zero")
    assert inv.totals().vat == Money.zero()


def test_empty_invoice_is_an_error():
    with pytest.raises(ValueError, match="has no lines"):
        make().totals()


def test_unknown_country_is_an_error():
    inv = make(country="XX")
    inv.add("Consulting", "1", "100.00")
    with pytest.raises(KeyError, match="no VAT rate"):
        inv.totals()


def test_summary_lists_every_line():
    inv = make()
    inv.add("Consulting", "3", "120.00")
    inv.add("Books", "2", "19.99", category="reduced")
    text = inv.summary()
    assert "Consulting" in text and "Books" in text
    assert text.splitlines()[-1].strip().startswith("net 399.98 EUR")


def test_gross_of_rounds_half_up():
    assert gross_of(Money(Decimal("10.05")), vat_for("DE", "standard")) == Money(
        Decimal("11.96")
    )


@pytest.mark.parametrize("currency", ["EUR", "CHF", "USD"])
def test_lines_keep_the_invoice_currency(currency):
    inv = Invoice("2024-0043", "ACME", "DE", date(2024, 3, 1), currency=currency)
    inv.add("Consulting", "1", "100.00")
    assert inv.totals().gross.currency == currency
"""

TEST_TAX = """\
from decimal import Decimal

import pytest

from invoicer.money import Money
from invoicer.tax import line_vat, vat_for, vat_total


def eur(text):
    return Money(Decimal(text))


def test_rates_by_country():
    assert vat_for("DE", "standard").rate == Decimal("0.19")
    assert vat_for("FR", "reduced").rate == Decimal("0.055")


def test_zero_category_is_zero_everywhere():
    assert vat_for("XX", "zero").rate == 0


def test_line_vat_rounds_half_up():
    assert line_vat(eur("0.50"), vat_for("DE", "reduced")) == eur("0.04")


def test_vat_is_rounded_per_line():
    rate = vat_for("DE", "reduced")
    lines = [(eur("0.10"), rate), (eur("0.10"), rate), (eur("0.10"), rate)]
    # 0.007 per line rounds to 0.01, so three lines give 0.03 (0.021 would round to 0.02)
    assert vat_total(lines) == eur("0.03")


def test_vat_total_needs_lines():
    with pytest.raises(ValueError):
        vat_total([])
"""

EXPORT = '''\
"""CSV export for the accounting system: one row per invoice line."""

from __future__ import annotations

import csv
import io

from .invoice import Invoice
from .tax import line_vat


def export_csv(invoices: list[Invoice]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=";")
    writer.writerow(["invoice", "line", "net", "vat_rate", "vat"])
    for inv in invoices:
        for n, line in enumerate(inv.lines, 1):
            rate = inv.rate_for(line)
            writer.writerow([inv.number, n, line.net.amount, rate.rate, line_vat(line.net, rate)])
    return out.getvalue()
'''

TAX_AFTER = '''\
"""VAT rates by country and product category, and VAT on invoice lines."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Dict, Iterable, Tuple

from .money import Money

STANDARD = "standard"
REDUCED = "reduced"
ZERO = "zero"


@dataclass(frozen=True)
class TaxRate:
    """A VAT rate, e.g. TaxRate("DE", "standard", Decimal("0.19"))."""

    country: str
    category: str
    rate: Decimal

    def tax_on(self, net: Money) -> Money:
        """VAT on a net amount, not rounded."""
        return net * self.rate


RATES: Dict[Tuple[str, str], Decimal] = {
    ("DE", STANDARD): Decimal("0.19"),
    ("DE", REDUCED): Decimal("0.07"),
    ("FR", STANDARD): Decimal("0.20"),
    ("FR", REDUCED): Decimal("0.055"),
    ("NL", STANDARD): Decimal("0.21"),
    ("NL", REDUCED): Decimal("0.09"),
    ("AT", STANDARD): Decimal("0.20"),
    ("AT", REDUCED): Decimal("0.10"),
}


def vat_for(country: str, category: str) -> TaxRate:
    """The rate for a product category in a country; zero-rated goods are 0 everywhere."""
    if category == ZERO:
        return TaxRate(country, ZERO, Decimal("0"))
    try:
        return TaxRate(country, category, RATES[(country, category)])
    except KeyError:
        raise KeyError(f"no VAT rate for {category!r} goods in {country!r}") from None


def line_vat(net: Money, rate: TaxRate) -> Money:
    """VAT for one invoice line, rounded to the cent."""
    return rate.tax_on(net).rounded()


def vat_by_rate(
    lines: Iterable[Tuple[Money, TaxRate]], rounding: str = "rate"
) -> Dict[Decimal, Money]:
    """VAT per rate, rounded to the cent.

    rounding="rate" (accounting): VAT on the summed net of each rate, rounded once.
    rounding="line" (legacy, German export): the sum of each line's rounded VAT.
    """
    if rounding not in ("rate", "line"):
        raise ValueError(f"rounding must be 'rate' or 'line', got {rounding!r}")
    nets: Dict[Decimal, Money] = {}
    vats: Dict[Decimal, Money] = {}
    for net, rate in lines:
        if rounding == "line":
            vat = line_vat(net, rate)
            vats[rate.rate] = vats[rate.rate] + vat if rate.rate in vats else vat
        else:
            nets[rate.rate] = nets[rate.rate] + net if rate.rate in nets else net
    for rate_value, net in nets.items():
        vats[rate_value] = (net * rate_value).rounded()
    return vats


def vat_total(lines: Iterable[Tuple[Money, TaxRate]], rounding: str = "rate") -> Money:
    """Total VAT of an invoice (see vat_by_rate for the rounding modes)."""
    lines = list(lines)
    if not lines:
        raise ValueError("an invoice needs at least one line")
    zero = Money.zero(lines[0][0].currency)
    return sum(vat_by_rate(lines, rounding).values(), zero)
'''


def _context(diff: str) -> str:
    """Give blank context lines of a unified diff their leading space back."""
    return "\n".join(line or " " for line in diff.split("\n")[:-1]) + "\n"


DIFF = _context(
    '''\
diff --git a/src/invoicer/invoice.py b/src/invoicer/invoice.py
index c3e8c2a..a6e0ce4 100644
--- a/src/invoicer/invoice.py
+++ b/src/invoicer/invoice.py
@@ -63,14 +63,18 @@ class Invoice:
         factor = 1 - self.discount_percent / 100
         return line.net * factor

-    def totals(self) -> Totals:
-        """Net, discount, VAT and gross of the invoice, each rounded to the cent."""
+    def totals(self, rounding: str = "rate") -> Totals:
+        """Net, discount, VAT and gross of the invoice, each rounded to the cent.
+
+        VAT is computed per rate on the summed net (rounding="rate", what accounting
+        does); rounding="line" keeps the legacy per-line rounding for the German export.
+        """
         if not self.lines:
             raise ValueError(f"invoice {self.number} has no lines")
         net = sum((line.net for line in self.lines), Money.zero(self.currency))
         discounted = [(self.discounted(line), self.rate_for(line)) for line in self.lines]
         after = sum((amount for amount, _ in discounted), Money.zero(self.currency))
-        vat = vat_total(discounted)
+        vat = vat_total(discounted, rounding)
         discount = (net - after).rounded()
         return Totals(
             net=net.rounded(),
diff --git a/src/invoicer/tax.py b/src/invoicer/tax.py
index 7d8599a..96c318f 100644
--- a/src/invoicer/tax.py
+++ b/src/invoicer/tax.py
@@ -53,12 +53,33 @@ def line_vat(net: Money, rate: TaxRate) -> Money:
     return rate.tax_on(net).rounded()


-def vat_total(lines: Iterable[Tuple[Money, TaxRate]]) -> Money:
-    """Total VAT of an invoice: the sum of the rounded VAT of every line."""
-    total = None
+def vat_by_rate(
+    lines: Iterable[Tuple[Money, TaxRate]], rounding: str = "rate"
+) -> Dict[Decimal, Money]:
+    """VAT per rate, rounded to the cent.
+
+    rounding="rate" (accounting): VAT on the summed net of each rate, rounded once.
+    rounding="line" (legacy, German export): the sum of each line's rounded VAT.
+    """
+    if rounding not in ("rate", "line"):
+        raise ValueError(f"rounding must be 'rate' or 'line', got {rounding!r}")
+    nets: Dict[Decimal, Money] = {}
+    vats: Dict[Decimal, Money] = {}
     for net, rate in lines:
-        vat = line_vat(net, rate)
-        total = vat if total is None else total + vat
-    if total is None:
+        if rounding == "line":
+            vat = line_vat(net, rate)
+            vats[rate.rate] = vats[rate.rate] + vat if rate.rate in vats else vat
+        else:
+            nets[rate.rate] = nets[rate.rate] + net if rate.rate in nets else net
+    for rate_value, net in nets.items():
+        vats[rate_value] = (net * rate_value).rounded()
+    return vats
+
+
+def vat_total(lines: Iterable[Tuple[Money, TaxRate]], rounding: str = "rate") -> Money:
+    """Total VAT of an invoice (see vat_by_rate for the rounding modes)."""
+    lines = list(lines)
+    if not lines:
         raise ValueError("an invoice needs at least one line")
-    return total
+    zero = Money.zero(lines[0][0].currency)
+    return sum(vat_by_rate(lines, rounding).values(), zero)
diff --git a/tests/test_invoice.py b/tests/test_invoice.py
index 771d8ab..d14c461 100644
--- a/tests/test_invoice.py
+++ b/tests/test_invoice.py
@@ -75,3 +75,16 @@ def test_lines_keep_the_invoice_currency(currency):
     inv = Invoice("2024-0043", "ACME", "DE", date(2024, 3, 1), currency=currency)
     inv.add("Consulting", "1", "100.00")
     assert inv.totals().gross.currency == currency
+
+
+def test_mixed_rates_match_accounting():
+    # invoice 2024-0117: per-line rounding gave 373.78, accounting booked 373.80
+    inv = make()
+    for n in range(1, 8):
+        inv.add(f"Pallet handling, bay {n}", "3", "33.35")
+    inv.add("Cargo insurance Q2", "1", "1249.95")
+    inv.add("Customs handbook 2024", "3", "14.95", category="reduced")
+    for n in range(1, 5):
+        inv.add(f"Label roll #{n}", "1", "0.35", category="reduced")
+    assert inv.totals().vat == Money(Decimal("373.80"))
+    assert inv.totals(rounding="line").vat == Money(Decimal("373.78"))
diff --git a/tests/test_tax.py b/tests/test_tax.py
index d8a8432..45722ac 100644
--- a/tests/test_tax.py
+++ b/tests/test_tax.py
@@ -3,7 +3,7 @@ from decimal import Decimal
 import pytest

 from invoicer.money import Money
-from invoicer.tax import line_vat, vat_for, vat_total
+from invoicer.tax import line_vat, vat_by_rate, vat_for, vat_total


 def eur(text):
@@ -27,7 +27,20 @@ def test_vat_is_rounded_per_line():
     rate = vat_for("DE", "reduced")
     lines = [(eur("0.10"), rate), (eur("0.10"), rate), (eur("0.10"), rate)]
     # 0.007 per line rounds to 0.01, so three lines give 0.03 (0.021 would round to 0.02)
-    assert vat_total(lines) == eur("0.03")
+    assert vat_total(lines, rounding="line") == eur("0.03")
+
+
+def test_vat_is_rounded_per_rate_by_default():
+    rate = vat_for("DE", "reduced")
+    lines = [(eur("0.10"), rate), (eur("0.10"), rate), (eur("0.10"), rate)]
+    # accounting: 0.30 net at 7% is 0.021, rounded once to 0.02
+    assert vat_total(lines) == eur("0.02")
+    assert vat_by_rate(lines) == {Decimal("0.07"): eur("0.02")}
+
+
+def test_unknown_rounding_mode_is_an_error():
+    with pytest.raises(ValueError, match="rounding must be"):
+        vat_total([(eur("1.00"), vat_for("DE", "standard"))], rounding="banker")


 def test_vat_total_needs_lines():
'''
)
