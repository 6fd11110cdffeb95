"""What the example session says: prompts, tool definitions and command outputs.

The outputs are what those commands print on the fictional `invoicer` package
(`session_repo`); `make_session` assembles them into a conversation.
"""

from __future__ import annotations

SYSTEM = """\
You are a careful software engineer working in a sandboxed checkout at /workspace/invoicer.
You solve the user's task by running tools; you see only what the tools print.

Tools:
- bash: run a shell command in /workspace/invoicer (no network; 120 s timeout).
- view_file: print a file with line numbers.
- edit_file: replace one exact, unique occurrence of `old` with `new` in a file, or create
  the file when `old` is empty.

Working rules:
1. Read the relevant code before you change it; reproduce a bug before you fix it.
2. Keep changes minimal and in the style of the surrounding code.
3. Run the test suite after every change; never leave it red.
4. Never commit, push or rewrite git history; the user reviews the diff.
5. When the task is done, summarize what you changed and why, in a few lines.
"""

TASK = """\
Our accounting team reports that invoice totals from `invoicer` are sometimes off by a \
cent or two compared with what they book, always on invoices that mix tax rates (e.g. \
2024-0117 for Nordwind Logistik: we print 373.78 EUR VAT, accounting booked 373.80).

Accounting computes VAT per rate on the summed net amounts of that rate and rounds once, \
half-up to the cent. We round the VAT of every line and add the rounded values. Please \
make `Invoice.totals()` compute VAT the way accounting does.

Constraints:
- Do not change the public API of `Invoice` or `Money` (the billing service pins us).
- Keep Python 3.9 compatibility. No new dependencies.
- All existing tests must keep passing. If a test encodes the old per-line behaviour, \
tell me before you change it.
"""

ANSWER = """\
Good catch, and thanks for asking first. Keep per-line rounding available: the German \
export still needs it. Add a `rounding` option (`"rate"` by default, `"line"` for the \
legacy behaviour) and update that test to ask for `rounding="line"` explicitly. Adding an \
optional keyword with a default is fine for the API.
"""

FOLLOW_UP = """\
Thanks, that looks right. One more thing: the CSV export in src/invoicer/export.py still \
prints VAT per line. Can you add a per-rate summary row per invoice, using the same \
rounding option? Same constraints as before.
"""

REPRODUCE = """\
\"\"\"Invoice 2024-0117 as accounting booked it: VAT per rate on the summed net.\"\"\"
from datetime import date
from decimal import Decimal

from invoicer.invoice import Invoice
from invoicer.money import round_cents

inv = Invoice("2024-0117", "Nordwind Logistik GmbH", "DE", date(2024, 4, 2))
for n in range(1, 8):
    inv.add(f"Pallet handling, bay {n}", "3", "33.35")
inv.add("Cargo insurance Q2", "1", "1249.95")
inv.add("Customs handbook 2024", "3", "14.95", category="reduced")
for n in range(1, 5):
    inv.add(f"Label roll #{n}", "1", "0.35", category="reduced")

totals = inv.totals()
by_rate = {}
for line in inv.lines:
    rate = inv.rate_for(line).rate
    by_rate[rate] = by_rate.get(rate, Decimal(0)) + inv.discounted(line).amount
expected = sum(round_cents(net * rate) for rate, net in by_rate.items())
print(f"net      {totals.net}")
print(f"VAT      {totals.vat}   (invoicer)")
print(f"VAT      {expected:.2f} EUR   (accounting, per rate)")
print(f"gross    {totals.gross}")
print("MATCH" if totals.vat.amount == expected else "MISMATCH: off by "
      f"{abs(totals.vat.amount - expected):.2f}")
"""

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a shell command in /workspace/invoicer and return its output.",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The command."}},
                "required": ["command"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "view_file",
            "description": "Print a file with line numbers.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative path."}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "Replace one unique occurrence of old with new (create if old is '').",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                },
                "required": ["path", "old", "new"],
            },
        },
    },
]


TREE = """\
On branch main
Your branch is up to date with 'origin/main'.

nothing to commit, working tree clean
./src/invoicer/__init__.py
./src/invoicer/export.py
./src/invoicer/invoice.py
./src/invoicer/money.py
./src/invoicer/tax.py
./tests/test_invoice.py
./tests/test_tax.py
"""

GREP = """\
src/invoicer/tax.py:51:def line_vat(net: Money, rate: TaxRate) -> Money:
src/invoicer/tax.py:53:    return rate.tax_on(net).rounded()
src/invoicer/tax.py:56:def vat_total(lines: Iterable[Tuple[Money, TaxRate]]) -> Money:
src/invoicer/tax.py:60:        vat = line_vat(net, rate)
src/invoicer/export.py:9:from .tax import line_vat
src/invoicer/export.py:19:            writer.writerow([inv.number, n, line.net.amount, rate.rate, \
line_vat(line.net, rate)])
src/invoicer/money.py:26:def round_cents(value: Decimal) -> Decimal:
src/invoicer/money.py:83:        return Money(round_cents(self.amount), self.currency)
src/invoicer/money.py:90:        cents = int(round_cents(self.amount) * 100)
src/invoicer/money.py:97:        return f"{round_cents(self.amount):,.2f} {self.currency}"
src/invoicer/invoice.py:10:from .money import Money, round_cents
src/invoicer/invoice.py:11:from .tax import TaxRate, vat_for, vat_total
src/invoicer/invoice.py:73:        vat = vat_total(discounted)
src/invoicer/invoice.py:74:        discount = (net - after).rounded()
src/invoicer/invoice.py:76:            net=net.rounded(),
src/invoicer/invoice.py:79:            gross=(after.rounded() + vat),
src/invoicer/invoice.py:93:    return Money(round_cents(net.amount * (1 + rate.rate)), net.currency)
tests/test_tax.py:6:from invoicer.tax import line_vat, vat_for, vat_total
tests/test_tax.py:22:def test_line_vat_rounds_half_up():
tests/test_tax.py:23:    assert line_vat(eur("0.50"), vat_for("DE", "reduced")) == eur("0.04")
tests/test_tax.py:30:    assert vat_total(lines) == eur("0.03")
tests/test_tax.py:33:def test_vat_total_needs_lines():
tests/test_tax.py:35:        vat_total([])
"""

MISMATCH = """\
net      1,996.55 EUR
VAT      373.78 EUR   (invoicer)
VAT      373.80 EUR   (accounting, per rate)
gross    2,370.33 EUR
MISMATCH: off by 0.02
"""

MATCH = """\
net      1,996.55 EUR
VAT      373.80 EUR   (invoicer)
VAT      373.80 EUR   (accounting, per rate)
gross    2,370.35 EUR
MATCH
"""


PYTEST_GREEN = (
    "................                                                         [100%]\n"
    "16 passed in 0.21s\n"
)

PYTEST_RED = """\
..............F.                                                         [100%]
=================================== FAILURES ===================================
_________________________ test_vat_is_rounded_per_line _________________________

    def test_vat_is_rounded_per_line():
        rate = vat_for("DE", "reduced")
        lines = [(eur("0.10"), rate), (eur("0.10"), rate), (eur("0.10"), rate)]
        # 0.007 per line rounds to 0.01, so three lines give 0.03 (0.021 would round to 0.02)
>       assert vat_total(lines) == eur("0.03")
E       AssertionError: assert Money(amount=...urrency='EUR') == Money(amount=...urrency='EUR')
E
E         Omitting 1 identical items, use -vv to show
E         Differing attributes:
E         ['amount']
E
E         Drill down into differing attribute amount:
E           amount: Decimal('0.02') != Decimal('0.03')

tests/test_tax.py:30: AssertionError
=========================== short test summary info ============================
FAILED tests/test_tax.py::test_vat_is_rounded_per_line - AssertionError: asse...
1 failed, 15 passed in 0.26s
"""

VERBOSE_TESTS = (
    "test_invoice.py::test_single_line_totals",
    "test_invoice.py::test_reduced_rate_line",
    "test_invoice.py::test_discount_applies_before_vat",
    "test_invoice.py::test_zero_rated_line_has_no_vat",
    "test_invoice.py::test_empty_invoice_is_an_error",
    "test_invoice.py::test_unknown_country_is_an_error",
    "test_invoice.py::test_summary_lists_every_line",
    "test_invoice.py::test_gross_of_rounds_half_up",
    "test_invoice.py::test_lines_keep_the_invoice_currency[EUR]",
    "test_invoice.py::test_lines_keep_the_invoice_currency[CHF]",
    "test_invoice.py::test_lines_keep_the_invoice_currency[USD]",
    "test_invoice.py::test_mixed_rates_match_accounting",
    "test_tax.py::test_rates_by_country",
    "test_tax.py::test_zero_category_is_zero_everywhere",
    "test_tax.py::test_line_vat_rounds_half_up",
    "test_tax.py::test_vat_is_rounded_per_line",
    "test_tax.py::test_vat_is_rounded_per_rate_by_default",
    "test_tax.py::test_unknown_rounding_mode_is_an_error",
    "test_tax.py::test_vat_total_needs_lines",
)


def pytest_verbose() -> str:
    """`python -m pytest -v` after the fix, on the Python 3.9 the project supports."""
    rows = []
    for n, test in enumerate(VERBOSE_TESTS, 1):
        left = f"tests/{test} PASSED"
        percent = f"[{100 * n // len(VERBOSE_TESTS):3d}%]"
        rows.append(f"{left:<73}{percent}")
    head = (
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.9.18, pytest-7.4.4, pluggy-1.3.0 -- "
        "/workspace/.venv/bin/python\n"
        "cachedir: .pytest_cache\n"
        "rootdir: /workspace/invoicer\n"
        "configfile: pyproject.toml\n"
        "collecting ... collected 19 items\n\n"
    )
    tail = "\n\n============================== 19 passed in 0.34s ==============================\n"
    return head + "\n".join(rows) + tail
