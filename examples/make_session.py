"""Write the bundled example session, in OpenAI chat and in Anthropic Messages format.

    python examples/make_session.py

A coding agent fixes a VAT rounding bug in a small fictional package (`session_repo`
holds its files). The session is written by hand; the file views, test runs, the
traceback and the diff are what those commands print on that package. The output is
deterministic, and the JSON files it writes are committed next to this script.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import session_repo as repo
from session_text import (
    ANSWER,
    FOLLOW_UP,
    GREP,
    MATCH,
    MISMATCH,
    PYTEST_GREEN,
    PYTEST_RED,
    REPRODUCE,
    SYSTEM,
    TASK,
    TOOLS,
    TREE,
    pytest_verbose,
)

HERE = Path(__file__).resolve().parent
CHAT_FILE = HERE / "coding-session.openai-chat.json"
ANTHROPIC_FILE = HERE / "coding-session.anthropic.json"
STEPS_FILE = HERE / "coding-session.steps.jsonl"


def numbered(text: str, first: int = 1, last: int | None = None) -> str:
    """Lines `first`..`last` of `text` as `cat -n` prints them."""
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    shown = lines[first - 1 : last]
    return "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(shown, first))


def view(path: str, text: str) -> str:
    """What view_file prints."""
    return f"Here's the result of running `cat -n` on {path}:\n{numbered(text)}\n"


def edited(path: str, text: str, first: int, last: int) -> str:
    """What edit_file prints after an edit."""
    return (
        f"The file {path} has been edited. Here's the result of running `cat -n` on a "
        f"snippet of {path}:\n{numbered(text, first, last)}\n"
        "Review the changes and make sure they are as expected."
    )


# --- the files as they change during the session ---------------------------------------------

SUM_BUG = "    return sum(vat_by_rate(lines, rounding).values())\n"
SUM_FIX = (
    "    zero = Money.zero(lines[0][0].currency)\n"
    "    return sum(vat_by_rate(lines, rounding).values(), zero)\n"
)
TAX_BUGGY = repo.TAX_AFTER.replace(SUM_FIX, SUM_BUG)
TOTALS_OLD = '''\
    def totals(self) -> Totals:
        """Net, discount, VAT and gross of the invoice, each rounded to the cent."""
'''
TOTALS_NEW = '''\
    def totals(self, rounding: str = "rate") -> Totals:
        """Net, discount, VAT and gross of the invoice, each rounded to the cent.

        VAT is computed per rate on the summed net (rounding="rate", what accounting
        does); rounding="line" keeps the legacy per-line rounding for the German export.
        """
'''
CALL_OLD = "        vat = vat_total(discounted)\n"
CALL_NEW = "        vat = vat_total(discounted, rounding)\n"
INVOICE_NEW = repo.INVOICE.replace(TOTALS_OLD, TOTALS_NEW).replace(CALL_OLD, CALL_NEW)
TEST_OLD = '    assert vat_total(lines) == eur("0.03")\n'
TEST_NEW = """\
    assert vat_total(lines, rounding="line") == eur("0.03")


def test_vat_is_rounded_per_rate_by_default():
    rate = vat_for("DE", "reduced")
    lines = [(eur("0.10"), rate), (eur("0.10"), rate), (eur("0.10"), rate)]
    # accounting: 0.30 net at 7% is 0.021, rounded once to 0.02
    assert vat_total(lines) == eur("0.02")
    assert vat_by_rate(lines) == {Decimal("0.07"): eur("0.02")}


def test_unknown_rounding_mode_is_an_error():
    with pytest.raises(ValueError, match="rounding must be"):
        vat_total([(eur("1.00"), vat_for("DE", "standard"))], rounding="banker")
"""
IMPORT_OLD = "from invoicer.tax import line_vat, vat_for, vat_total\n"
IMPORT_NEW = "from invoicer.tax import line_vat, vat_by_rate, vat_for, vat_total\n"
TEST_TAX_NEW = repo.TEST_TAX.replace(TEST_OLD, TEST_NEW).replace(IMPORT_OLD, IMPORT_NEW)
ACCOUNTING_TEST = """

def test_mixed_rates_match_accounting():
    # invoice 2024-0117: per-line rounding gave 373.78, accounting booked 373.80
    inv = make()
    for n in range(1, 8):
        inv.add(f"Pallet handling, bay {n}", "3", "33.35")
    inv.add("Cargo insurance Q2", "1", "1249.95")
    inv.add("Customs handbook 2024", "3", "14.95", category="reduced")
    for n in range(1, 5):
        inv.add(f"Label roll #{n}", "1", "0.35", category="reduced")
    assert inv.totals().vat == Money(Decimal("373.80"))
    assert inv.totals(rounding="line").vat == Money(Decimal("373.78"))
"""
TEST_INVOICE_NEW = repo.TEST_INVOICE + ACCOUNTING_TEST


def line_of(text: str, needle: str) -> int:
    """The 1-based number of the first line of `text` that contains `needle`."""
    return next(n for n, line in enumerate(text.split("\n"), 1) if needle in line)


# --- command outputs -------------------------------------------------------------------------


def traceback_text() -> str:
    """What the reproduction prints with the `sum()` bug in place."""
    call = line_of(INVOICE_NEW, CALL_NEW.strip())
    bug = line_of(TAX_BUGGY, SUM_BUG.strip())
    return (
        "Traceback (most recent call last):\n"
        '  File "/workspace/invoicer/reproduce_cent.py", line 16, in <module>\n'
        "    totals = inv.totals()\n"
        f'  File "/workspace/invoicer/src/invoicer/invoice.py", line {call}, in totals\n'
        f"    {CALL_NEW.strip()}\n"
        f'  File "/workspace/invoicer/src/invoicer/tax.py", line {bug}, in vat_total\n'
        f"    {SUM_BUG.strip()}\n"
        "TypeError: unsupported operand type(s) for +: 'int' and 'Money'\n"
    )


# --- the session -----------------------------------------------------------------------------


class Session:
    """Builds the conversation as neutral steps: (role, text, call) tuples."""

    def __init__(self) -> None:
        self.steps: list[dict[str, object]] = []

    def user(self, text: str) -> None:
        self.steps.append({"role": "user", "text": text})

    def say(self, text: str) -> None:
        self.steps.append({"role": "assistant", "text": text})

    def call(self, text: str | None, tool: str, arguments: dict[str, str], output: str) -> None:
        number = sum(1 for s in self.steps if "tool" in s) + 1
        self.steps.append(
            {
                "role": "assistant",
                "text": text,
                "tool": tool,
                "arguments": arguments,
                "output": output,
                "number": number,
            }
        )

    def edit(self, text: str | None, path: str, old: str, new: str, after: str) -> None:
        first = line_of(after, new.strip("\n").split("\n")[0])
        last = first + new.strip("\n").count("\n")
        snippet = edited(path, after, max(1, first - 3), last + 3)
        self.call(text, "edit_file", {"path": path, "old": old, "new": new}, snippet)


def session() -> Session:
    """The whole session, in order."""
    s = Session()
    s.user(TASK)
    s.call(
        "I'll start by looking at the repository layout and the README.",
        "bash",
        {
            "command": "git status && find . -name '*.py' -not -path './.git/*' | sort "
            "&& cat README.md"
        },
        TREE + repo.README,
    )
    s.call(
        None,
        "view_file",
        {"path": "src/invoicer/invoice.py"},
        view("src/invoicer/invoice.py", repo.INVOICE),
    )
    s.call(
        "`Invoice.totals()` delegates VAT to `vat_total` in tax.py. Let me read that next.",
        "view_file",
        {"path": "src/invoicer/tax.py"},
        view("src/invoicer/tax.py", repo.TAX),
    )
    s.call(
        None,
        "view_file",
        {"path": "src/invoicer/money.py"},
        view("src/invoicer/money.py", repo.MONEY),
    )
    s.call(
        "Before changing anything, let me check the test suite is green.",
        "bash",
        {"command": "python -m pytest -q"},
        PYTEST_GREEN,
    )
    s.call(
        "Now a reproduction of invoice 2024-0117 that computes VAT both ways.",
        "edit_file",
        {"path": "reproduce_cent.py", "old": "", "new": REPRODUCE},
        "File created successfully at: reproduce_cent.py",
    )
    s.call(None, "bash", {"command": "python reproduce_cent.py"}, MISMATCH)
    s.call(
        "Reproduced: we print 373.78, accounting expects 373.80. Let me find every place "
        "that rounds VAT.",
        "bash",
        {"command": 'grep -rn "round_cents\\|rounded()\\|vat_total\\|line_vat" src tests'},
        GREP,
    )
    s.call(
        None, "view_file", {"path": "tests/test_tax.py"}, view("tests/test_tax.py", repo.TEST_TAX)
    )
    s.call(
        None,
        "view_file",
        {"path": "tests/test_invoice.py"},
        view("tests/test_invoice.py", repo.TEST_INVOICE),
    )
    s.say(
        "Before I change anything, as you asked: `tests/test_tax.py::"
        "test_vat_is_rounded_per_line` (lines 26-30) encodes the old behaviour. It asserts "
        "that three 0.10 EUR lines at 7% give 0.03 EUR VAT (0.01 per line); per-rate "
        "rounding gives 0.02.\n\nThe export in `src/invoicer/export.py` also prints "
        "`line_vat` per line. How should I proceed: replace the per-line behaviour "
        "everywhere and update the test, or keep per-line rounding available as an option?"
    )
    s.user(ANSWER)
    _fix(s)
    return s


def _fix(s: Session) -> None:
    """From the user's answer to the end of the session."""
    old_total = repo.TAX[repo.TAX.index("def vat_total(") :]
    new_total = TAX_BUGGY[TAX_BUGGY.index("def vat_by_rate(") :]
    s.edit(
        "I'll add `vat_by_rate` with both rounding modes and make `vat_total` use it.",
        "src/invoicer/tax.py",
        old_total,
        new_total,
        TAX_BUGGY,
    )
    s.edit(
        None,
        "src/invoicer/invoice.py",
        TOTALS_OLD,
        TOTALS_NEW,
        repo.INVOICE.replace(TOTALS_OLD, TOTALS_NEW),
    )
    s.edit(None, "src/invoicer/invoice.py", CALL_OLD, CALL_NEW, INVOICE_NEW)
    s.call(None, "bash", {"command": "python reproduce_cent.py"}, traceback_text())
    s.edit(
        "`sum()` starts from the int 0, and `Money` only adds to `Money`. I'll start the "
        "sum from a zero amount in the invoice's currency.",
        "src/invoicer/tax.py",
        SUM_BUG,
        SUM_FIX,
        repo.TAX_AFTER,
    )
    s.call(None, "bash", {"command": "python reproduce_cent.py"}, MATCH)
    s.call(
        "The totals match accounting now. Running the suite:",
        "bash",
        {"command": "python -m pytest -q"},
        PYTEST_RED,
    )
    s.edit(
        "As agreed, that test now asks for the legacy mode explicitly; I'm also adding "
        "tests for the new default and for a bad rounding value.",
        "tests/test_tax.py",
        TEST_OLD,
        TEST_NEW,
        repo.TEST_TAX.replace(TEST_OLD, TEST_NEW),
    )
    s.edit(None, "tests/test_tax.py", IMPORT_OLD, IMPORT_NEW, TEST_TAX_NEW)
    last_test = repo.TEST_INVOICE[repo.TEST_INVOICE.index("@pytest.mark.parametrize") :]
    s.edit(
        "And a regression test with invoice 2024-0117 itself.",
        "tests/test_invoice.py",
        last_test,
        last_test + ACCOUNTING_TEST,
        TEST_INVOICE_NEW,
    )
    s.call(None, "bash", {"command": "python -m pytest -v"}, pytest_verbose())
    s.call(
        "All 19 tests pass on Python 3.9. Removing the reproduction script and showing the "
        "final diff.",
        "bash",
        {"command": "rm reproduce_cent.py && git status --short && git diff"},
        " M src/invoicer/invoice.py\n M src/invoicer/tax.py\n M tests/test_invoice.py\n"
        " M tests/test_tax.py\n" + repo.DIFF,
    )
    s.say(
        "Done. VAT now matches accounting:\n\n"
        '- `tax.vat_by_rate(lines, rounding="rate")` computes VAT per rate on the summed '
        'net and rounds once, half-up; `rounding="line"` keeps the legacy per-line '
        "rounding.\n"
        "- `vat_total` and `Invoice.totals()` take the same optional `rounding` keyword "
        '(default `"rate"`), so existing callers keep working and the API is unchanged '
        "apart from the new optional keyword.\n"
        "- Invoice 2024-0117 now totals 373.80 EUR VAT (was 373.78).\n"
        '- `test_vat_is_rounded_per_line` asks for `rounding="line"`; three new tests '
        "cover the default, a bad mode, and invoice 2024-0117. 19 tests pass.\n\n"
        "Not changed: `export.py` still prints per-line VAT for each line, which is what "
        "the German export expects."
    )
    s.user(FOLLOW_UP)


# --- wire formats ----------------------------------------------------------------------------


def call_id(prefix: str, number: int, size: int) -> str:
    """A stable id in the provider's style."""
    digest = hashlib.sha256(f"invoicer-session-{number}".encode()).hexdigest()
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return prefix + "".join(
        alphabet[int(digest[i : i + 2], 16) % 62] for i in range(0, 2 * size, 2)
    )


def openai_chat(s: Session) -> dict[str, object]:
    """A Chat Completions request body."""
    messages: list[dict[str, object]] = [{"role": "system", "content": SYSTEM}]
    for step in s.steps:
        if "tool" not in step:
            messages.append({"role": step["role"], "content": step["text"]})
            continue
        ident = call_id("call_", int(str(step["number"])), 24)
        call = {
            "id": ident,
            "type": "function",
            "function": {"name": step["tool"], "arguments": json.dumps(step["arguments"])},
        }
        messages.append({"role": "assistant", "content": step["text"], "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": ident, "content": step["output"]})
    return {"model": "gpt-4o", "messages": messages, "tools": TOOLS, "temperature": 0}


def anthropic(s: Session) -> dict[str, object]:
    """A Messages API request body: tool results travel in the next user message."""
    messages: list[dict[str, object]] = []
    for step in s.steps:
        if "tool" not in step:
            messages.append({"role": step["role"], "content": step["text"]})
            continue
        ident = call_id("toolu_01", int(str(step["number"])), 22)
        blocks: list[dict[str, object]] = []
        if step["text"]:
            blocks.append({"type": "text", "text": step["text"]})
        blocks.append(
            {"type": "tool_use", "id": ident, "name": step["tool"], "input": step["arguments"]}
        )
        messages.append({"role": "assistant", "content": blocks})
        result = {"type": "tool_result", "tool_use_id": ident, "content": step["output"]}
        messages.append({"role": "user", "content": [result]})
    tools = [
        {
            "name": t["function"]["name"],  # type: ignore[index]
            "description": t["function"]["description"],  # type: ignore[index]
            "input_schema": t["function"]["parameters"],  # type: ignore[index]
        }
        for t in TOOLS
    ]
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "system": SYSTEM,
        "tools": tools,
        "messages": messages,
    }


def steps(body: dict[str, object]) -> str:
    """The history as it grew: a JSONL record about every ten messages."""
    messages = body["messages"]
    assert isinstance(messages, list)
    records = []
    for end in range(10, len(messages) + 1, 10):
        cut = end + 1 if messages[end - 1].get("tool_calls") else end  # keep calls with results
        record = {"id": f"invoicer-{cut:02d}", "format": "openai_chat", "messages": messages[:cut]}
        records.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(records)


def main() -> None:
    """Write the three files."""
    s = session()
    chat = openai_chat(s)
    for path, body in ((CHAT_FILE, chat), (ANTHROPIC_FILE, anthropic(s))):
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path.name}")
    STEPS_FILE.write_text(steps(chat), encoding="utf-8")
    print(f"wrote {STEPS_FILE.name}")


if __name__ == "__main__":
    main()
