"""`contextfold inspect`: where the tokens go, and what compaction would do to them.

Rules:
1. Read-only: nothing is written but the answer (tables on stdout, or JSON with --json).
2. With `--budget`, a dry run: the same `compact()` call the compact command makes, with
   its report shown instead of its payload.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final

import contextfold as cf

from ._breakdown import TOP, Breakdown, breakdown
from ._echo import counted
from ._io import display_name, load_json, read_bytes, reader_gone, reporting, to_json
from ._io import write_text as write
from ._options import (
    Budget,
    FormatName,
    FormatOption,
    ModelOption,
    hinting_format,
    parse_budget,
    tokens_only,
)
from ._params import argument, option

if TYPE_CHECKING:  # rich is imported when tables are drawn: other commands start faster
    from rich.console import Console
    from rich.table import Table

EXAMPLE: Final = "\b\nExample:\n  contextfold inspect session.json --model gpt-4o --budget 8000"

FileArgument = Annotated[
    str,
    argument(metavar="FILE", help="JSON payload (a message list or a request body); - for stdin."),
]
DryRunOption = Annotated[
    Budget | None,
    option(
        "--budget",
        "-b",
        parser=parse_budget,
        metavar="TOKENS",
        help="Also show what compacting to this budget would do (a dry run).",
    ),
]
JsonOption = Annotated[bool, option("--json", help="Print the numbers as JSON.")]
TopOption = Annotated[int, option("--top", min=1, help="How many largest messages to list.")]


def inspect(
    *,
    file: FileArgument = "-",
    model: ModelOption = None,
    format: FormatOption = FormatName.auto,
    budget: DryRunOption = None,
    json: JsonOption = False,
    top: TopOption = TOP,
) -> None:
    """Show where a conversation's tokens go: per role, per tool, largest messages."""
    tokens = None if budget is None else tokens_only(budget)
    name = display_name(file)
    with reporting(name):
        payload = load_json(read_bytes(file))
        with hinting_format(payload, format.option()):
            found = breakdown(payload, model, format.option(), top=top)
            report = None
            if tokens is not None:
                report = cf.compact(payload, tokens, model, format=format.option()).report
    if json:
        data = {"file": name, **found.to_dict(), "dry_run": report and report.to_dict()}
        write("-", to_json(data, indent=2) + "\n")
    else:
        _show(_console(), name, found, report)


def _console() -> Console:
    """A rich console whose closed pipe ends the command as every write does (`_io` rule
    1); rich's own exits with 1, the code of a result that does not fit."""
    from rich.console import Console  # noqa: PLC0415 - see TYPE_CHECKING above

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            reader_gone()

    return _Console(highlight=False)


def _show(console: Console, name: str, found: Breakdown, report: cf.Report | None) -> None:
    console.print(
        f"[bold]{name}[/]: {found.format}, {counted(found.messages, 'message')}, "
        f"[bold]{found.tokens:,}[/] tokens (counted with {found.counter})"
    )
    console.print(_roles(found))
    if found.by_tool:
        console.print(_tools(found))
    console.print(_largest(found, console.width))
    definitions = counted(found.tool_definitions, "tool definition")
    console.print(
        f"Overheads: {found.fixed:,} tokens per request (reply priming, {definitions}); "
        f"{found.framing:,} tokens of message framing (included above)."
    )
    if report is not None:
        console.print(f"\n[bold]Dry run at budget {report.budget:,}[/]: {report.describe()}")
        console.print(f"{report.reason}; summary by {report.summarizer or 'nobody'}")


def _share(tokens: int, total: int) -> str:
    return f"{100 * tokens / total:.1f}%" if total else "-"


def _roles(found: Breakdown) -> Table:
    table = _table("Tokens by role")
    for column in ("role", "messages", "tokens", "share"):
        table.add_column(column, justify="left" if column == "role" else "right")
    for row in found.by_role:
        share = _share(row.tokens, found.tokens)
        table.add_row(row.role, str(row.messages), f"{row.tokens:,}", share)
    return table


def _tools(found: Breakdown) -> Table:
    table = _table("Tokens by tool")
    table.add_column("tool")
    for column in ("calls", "call tokens", "results", "result tokens", "share"):
        table.add_column(column, justify="right")
    for row in found.by_tool:
        share = _share(row.call_tokens + row.result_tokens, found.tokens)
        table.add_row(
            row.name,
            str(row.calls),
            f"{row.call_tokens:,}",
            str(row.results),
            f"{row.result_tokens:,}",
            share,
        )
    return table


def _largest(found: Breakdown, screen: int) -> Table:
    table = _table("Largest messages")
    rows = [
        ("-" if r.index is None else str(r.index), r.role, r.tools, f"{r.tokens:,}")
        for r in found.largest
    ]
    widths = []
    for position, column in enumerate(("index", "role", "tool", "tokens")):
        widths.append(max([len(column), *(len(row[position]) for row in rows)]))
        right = column in ("index", "tokens")
        table.add_column(column, justify="right" if right else "left", no_wrap=True)
    # Fixed columns keep their width; the preview takes what is left of the screen.
    room = max(12, screen - sum(widths) - 3 * (len(widths) + 1) - 1)
    table.add_column("starts with", no_wrap=True, max_width=room)
    for row, message in zip(rows, found.largest, strict=True):
        preview = message.preview
        table.add_row(*row, preview if len(preview) <= room else preview[: room - 3] + "...")
    return table


def _table(title: str) -> Table:
    from rich.table import Table  # noqa: PLC0415 - see TYPE_CHECKING above

    return Table(title=title, title_justify="left")
