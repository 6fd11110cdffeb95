"""`contextfold compact`: one payload in, the compacted payload out, a summary on stderr.

Rules:
1. stdout gets the compacted payload in the input's format and shape, and nothing else;
   people read stderr (a few lines); programs read `--report` (the full report as JSON).
2. The output is checked with `validate` before it is written: a payload the provider
   would reject is never printed (an empty message list, say, is bad input: exit 2).
3. `--archive DB` keeps every original in SQLite, so `contextfold recall` finds it later.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated

import contextfold as cf

from ._echo import counted, echo
from ._io import (
    EXIT_NOT_FIT,
    display_name,
    fail,
    input_size,
    load_json,
    read_bytes,
    reject_high,
    removed_if_failed,
    reporting,
    to_json,
)
from ._io import write_text as write
from ._options import (
    BaseUrlOption,
    BudgetOption,
    CacheOption,
    DeadlineOption,
    FallbackOption,
    FormatName,
    FormatOption,
    HighOption,
    LowOption,
    ModelOption,
    SpecOption,
    StrictOption,
    SummarizerChoice,
    hinting_format,
    policy,
    tokens_only,
)
from ._params import argument, option
from ._progress import phases

EXAMPLE = "\b\nExample:\n  contextfold compact session.json --budget 8000 --model gpt-4o > out.json"

FileArgument = Annotated[
    str,
    argument(metavar="FILE", help="JSON payload (a message list or a request body); - for stdin."),
]
ReportOption = Annotated[
    str | None,
    option("--report", metavar="FILE", help="Write the full report as JSON to FILE."),
]
ArchiveOption = Annotated[
    str | None,
    option(
        "--archive",
        metavar="DB",
        help="Keep the originals in this SQLite file for `contextfold recall`.",
    ),
]
PinOption = Annotated[
    list[int] | None,
    option(
        "--pin", metavar="INDEX", help="Keep this message verbatim (repeatable; 0 is the first)."
    ),
]


def compact(
    *,
    budget: BudgetOption,
    file: FileArgument = "-",
    model: ModelOption = None,
    format: FormatOption = FormatName.auto,
    high: HighOption = None,
    low: LowOption = None,
    deadline: DeadlineOption = None,
    pin: PinOption = None,
    strict: StrictOption = False,
    report: ReportOption = None,
    archive: ArchiveOption = None,
    summarizer: SpecOption = None,
    base_url: BaseUrlOption = None,
    fallback: FallbackOption = None,
    cache: CacheOption = None,
) -> None:
    """Fit a conversation into a token budget; the compacted payload goes to stdout."""
    tokens = tokens_only(budget)
    choice = SummarizerChoice(summarizer, base_url, tuple(fallback or ()), cache)
    choice.check()
    name = display_name(file)
    reject_high(high, "compact")
    rules = policy(high, low, deadline)
    with reporting(name), phases(input_size(file)) as step:
        chosen = choice.build()
        payload = load_json(read_bytes(file))
        step("compacting")
        with _archive_at(archive) as store:  # to the last write: a failure removes a new one
            with hinting_format(payload, format.option()):
                result = cf.compact(
                    payload,
                    tokens,
                    model,
                    format=format.option(),
                    summarizer=chosen,
                    archive=store,
                    pins=pin or (),
                    policy=rules,
                )
            step("checking the output")
            problems = cf.validate(result.payload, result.format)
            if problems:
                fail(f"{name}: {problems[0]}")
            step("writing")
            if report is not None:
                write(report, to_json(result.report.to_dict(), indent=2) + "\n")
            write("-", to_json(result.payload) + "\n")
    _tell(name, result, archive, choice.spec)
    if strict and not result.report.fits:
        raise SystemExit(EXIT_NOT_FIT)


@contextmanager
def _archive_at(path: str | None) -> Iterator[cf.Archive]:
    """The archive for `--archive` (in memory without it). A database this run creates is
    removed again when the run fails, up to its last write (the report, the payload): a
    failed command leaves nothing behind."""
    if path is None:
        yield cf.Archive()
        return
    with removed_if_failed(path), cf.Archive(cf.SqliteStore(path)) as store:
        yield store


def _tell(
    name: str, result: cf.CompactResult[object], archive: str | None, spec: str | None
) -> None:
    """The short human summary on stderr."""
    report = result.report
    messages = counted(len(result.conversation.messages), "message")
    lines = [
        f"{name}: {report.format}, {messages} after compaction, counted with {report.counter}",
        report.describe(),
    ]
    if not report.fits:
        lines.append(report.reason)
    lines += [f"repaired {fix}" for fix in report.repaired]
    lines += [f"warning: {warning}" for warning in report.warnings]
    if report.summaries:
        lines.append(_writers(report, spec))
    if report.refs:
        first = report.refs[0]
        if archive:
            lines.append(
                f"{counted(len(report.refs), 'original')} archived in {archive}; "
                f"e.g. contextfold recall {first} --archive {archive}"
            )
        else:
            lines.append(
                f"{counted(len(report.refs), 'original')} behind markers; "
                "pass --archive DB to keep them for `contextfold recall`"
            )
    echo("\n".join(lines), err=True)


def _writers(report: cf.Report, spec: str | None) -> str:
    """Who wrote the summaries, and whether a fallback had to step in."""
    calls = Counter(s.summarizer for s in report.summaries)
    cached = sum(s.cached for s in report.summaries)
    text = "summaries written by " + ", ".join(
        f"{n} ({k} call{'s' if k != 1 else ''})" for n, k in calls.items()
    )
    if cached:
        text += f", {cached} from the cache"
    if spec is not None and not all(spec.startswith(name) for name in calls):
        text += f"; {spec.partition('@')[0]} did not write them all (see the warnings above)"
    return text
