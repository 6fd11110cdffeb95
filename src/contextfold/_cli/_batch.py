"""`contextfold batch`: one conversation per JSONL line, compacted on every core.

Rules:
1. A line is a record when it is an object with `id` and `messages` (the corpus format):
   the output keeps the envelope, with the compacted `messages` and a `report` added.
   Any other line is a payload: the output is `{"line", "payload", "report"}`.
2. A bad line never stops the batch: it is reported on stderr with its line number, and
   written out as `{"line", "error"}` (plus `id` when known) so output lines match input
   lines. Blank lines are skipped.
3. Output order is input order, whatever the number of processes.
4. A progress bar shows on stderr only when stderr is a terminal; the closing summary
   (conversations, tokens before and after, failures) always does.
5. Exit code 2 when any line failed, else 1 when `--strict` and any result does not fit.
6. OUT is written to a temporary file beside it that replaces it only when the whole batch
   was written. Ctrl-C or SIGTERM stop the batch at once (see `_stopping`): OUT is left as
   it was, and no temporary file is left behind.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Annotated, Final, TextIO

import contextfold as cf

from ._echo import counted, echo
from ._io import (
    EXIT_BAD_INPUT,
    EXIT_NOT_FIT,
    STDIO,
    display_name,
    explain,
    fail,
    load_json,
    reader_gone,
    reject_high,
    removed_if_failed,
    reporting,
    to_json,
    unexpected,
)
from ._options import (
    BaseUrlOption,
    Budget,
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
    parse_budget,
    policy,
)
from ._params import argument, option
from ._stopping import interruptible, removed_on_sigterm, worker_signals

EXAMPLE: Final = (
    "\b\nExample:\n  contextfold batch runs.jsonl compacted.jsonl --budget 40% --model gpt-4o"
)

InArgument = Annotated[str, argument(metavar="IN.jsonl", help="One conversation per line.")]
OutArgument = Annotated[str, argument(metavar="OUT.jsonl", help="Where results go (- for stdout).")]
BatchBudgetOption = Annotated[
    Budget,
    option(
        "--budget",
        "-b",
        parser=parse_budget,
        metavar="TOKENS|P%",
        help="Token budget, or a share of each conversation's own tokens (40%).",
    ),
]
ArchiveOption = Annotated[
    str | None,
    option("--archive", metavar="DB", help="Keep every original in this SQLite file."),
]
JobsOption = Annotated[
    int, option("--jobs", "-j", min=0, help="Processes to use; 0 means one per core.")
]


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a worker needs to compact one line."""

    budget: Budget
    model: str | None
    format: str | None
    policy: cf.Policy
    summarizer: SummarizerChoice
    archive: str | None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One line done: the output line, and the numbers for the summary."""

    line: int
    text: str
    error: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    fits: bool = True
    compacted: bool = False


def batch(
    *,
    source: InArgument,
    target: OutArgument,
    budget: BatchBudgetOption,
    model: ModelOption = None,
    format: FormatOption = FormatName.auto,
    high: HighOption = None,
    low: LowOption = None,
    deadline: DeadlineOption = None,
    strict: StrictOption = False,
    archive: ArchiveOption = None,
    jobs: JobsOption = 0,
    summarizer: SpecOption = None,
    base_url: BaseUrlOption = None,
    fallback: FallbackOption = None,
    cache: CacheOption = None,
) -> None:
    """Compact every conversation of a JSONL file, one per line, on all cores."""
    choice = SummarizerChoice(summarizer, base_url, tuple(fallback or ()), cache)
    choice.check()
    name = display_name(source)
    reject_high(high, "batch")
    rules = policy(high, low, deadline)
    if STDIO not in (source, target) and Path(source).resolve() == Path(target).resolve():
        fail(f"{name}: the output would overwrite the input; choose another OUT.jsonl")
    if target != STDIO and Path(target).is_dir():
        fail(f"{target}: is a directory; give a file name for OUT.jsonl")
    left = "the results so far are on stdout" if target == STDIO else f"{target} is unchanged"
    with removed_if_failed(archive), interruptible(name, left), reporting(name):
        settings = Settings(budget, model, format.option(), rules, choice, archive)
        choice.build()  # a bad spec or a missing SDK fails once, here, not on every line
        if archive is not None:  # so does an archive that cannot be opened (closed before
            cf.Archive(cf.SqliteStore(archive)).close()  # the workers fork: they open their own)
        total = _count_lines(source)
        with _reader(source) as lines, _writer(target) as sink:
            processes = jobs or os.cpu_count() or 1
            totals = _run(lines, sink, settings, name=name, total=total, processes=processes)
    echo(totals.summary(), err=True)
    if totals.failed:
        raise SystemExit(EXIT_BAD_INPUT)
    if strict and totals.unfit:
        raise SystemExit(EXIT_NOT_FIT)


# --- the worker ------------------------------------------------------------------------------


def process(task: tuple[int, bytes, Settings]) -> Outcome:
    """Compact one line; an expected failure becomes an error line (rule 2)."""
    number, raw, settings = task
    record: dict[str, object] | None = None
    try:
        value = load_json(raw)
        record = _as_record(value)
        return _compact_line(number, value, record, settings)
    except Exception as exc:
        message = explain(exc) or unexpected(exc)
        error: dict[str, object] = {"line": number, "error": message}
        if record is not None:
            error["id"] = record["id"]
            message = f"id {record['id']!r}: {message}"
        return Outcome(number, to_json(error), message, fits=False)


def _as_record(value: object) -> dict[str, object] | None:
    """`value` when it is a record (rule 1), else None."""
    if isinstance(value, dict) and "messages" in value and value.get("id") is not None:
        return value
    return None


def _compact_line(
    number: int, value: object, record: dict[str, object] | None, settings: Settings
) -> Outcome:
    payload = value if record is None else record["messages"]
    fmt = settings.format or (None if record is None else _record_format(record))
    with hinting_format(payload, settings.format):
        report = (result := _compact(payload, settings, fmt)).report
    data: dict[str, object] = {"line": number, "payload": result.payload}
    if record is not None:
        data = {**record, "messages": result.payload}
    data["report"] = report.to_dict()
    return Outcome(
        number,
        to_json(data),
        None,
        report.tokens_before,
        report.tokens_after,
        report.fits,
        report.compacted,
    )


def _compact(payload: object, settings: Settings, fmt: str | None) -> cf.CompactResult[object]:
    model = settings.model
    budget = settings.budget.resolve(lambda: cf.count_tokens(payload, model, format=fmt))
    result = cf.compact(
        payload,
        budget,
        model,
        format=fmt,
        summarizer=_summarizer(settings.summarizer),
        archive=_archive(settings.archive),
        policy=settings.policy,
    )
    problems = cf.validate(result.payload, result.format)
    if problems:
        raise cf.InvalidConversation(str(problems[0]), format=result.format)
    return result


def _record_format(record: dict[str, object]) -> str | None:
    """The record's own `format` field (`openai_chat`) when it names a known format."""
    named = record.get("format")
    if isinstance(named, str) and named.replace("_", "-") in cf.FORMATS:
        return named.replace("_", "-")
    return None


@cache
def _summarizer(choice: SummarizerChoice) -> cf.Summarizer | None:
    """One summarizer per process, so its circuit breakers and cache are shared."""
    return choice.build()


def _archive(path: str | None) -> cf.Archive:
    return cf.Archive() if path is None else _shared_archive(path)


@cache
def _shared_archive(path: str) -> cf.Archive:
    """One connection per process to the shared SQLite archive."""
    return cf.Archive(cf.SqliteStore(path))


# --- the parent ------------------------------------------------------------------------------


@dataclass(slots=True)
class Totals:
    """What the closing summary reports."""

    processes: int
    started: float
    conversations: int = 0
    compacted: int = 0
    failed: int = 0
    unfit: int = 0
    tokens_before: int = 0
    tokens_after: int = 0

    def add(self, outcome: Outcome) -> None:
        """Count one finished line."""
        self.conversations += 1
        self.failed += outcome.error is not None
        self.compacted += outcome.compacted
        self.unfit += outcome.error is None and not outcome.fits
        self.tokens_before += outcome.tokens_before
        self.tokens_after += outcome.tokens_after

    def summary(self) -> str:
        """The closing lines."""
        seconds = time.perf_counter() - self.started
        done = self.conversations - self.failed
        saved = 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0
        return (
            f"batch: {counted(self.conversations, 'conversation')} in {seconds:.1f} s "
            f"({counted(self.processes, 'process', 'processes')}): "
            f"{self.compacted:,} compacted, "
            f"{done - self.compacted:,} unchanged, {self.unfit:,} do not fit, "
            f"{self.failed:,} failed\n"
            f"tokens: {self.tokens_before:,} -> {self.tokens_after:,} ({saved:.1%} saved)"
        )


def _run(
    lines: Iterable[tuple[int, bytes]],
    sink: TextIO,
    settings: Settings,
    *,
    name: str,
    total: int | None,
    processes: int,
) -> Totals:
    totals = Totals(processes, time.perf_counter())
    tasks = ((number, raw, settings) for number, raw in lines)
    with _progress(total) as (advance, notify), _outcomes(tasks, processes) as outcomes:
        for outcome in outcomes:
            sink.write(outcome.text + "\n")
            totals.add(outcome)
            if outcome.error is not None:
                notify(f"{name}:{outcome.line}: {outcome.error}")
            advance()
    return totals


@contextmanager
def _outcomes(
    tasks: Iterable[tuple[int, bytes, Settings]], processes: int
) -> Iterator[Iterator[Outcome]]:
    """Results in input order (rule 3): in this process, or from a pool of workers."""
    if processes <= 1:
        yield map(process, tasks)
        return
    with multiprocessing.get_context().Pool(processes, worker_signals) as pool:
        yield pool.imap(process, tasks, chunksize=2)


@contextmanager
def _progress(
    total: int | None,
) -> Iterator[tuple[Callable[[], None], Callable[[str], None]]]:
    """(advance, notify): a progress bar on a terminal, plain stderr lines otherwise."""
    if not sys.stderr.isatty():
        yield (lambda: None), (lambda text: echo(text, err=True))
        return
    # Imported here: only a batch on a terminal draws a bar, and rich costs every command
    # ~15 ms of start-up otherwise.
    from rich.console import Console  # noqa: PLC0415
    from rich.progress import (  # noqa: PLC0415
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("compacting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("batch", total=total)
        yield (lambda: bar.advance(task)), (lambda text: bar.console.print(text, markup=False))


def _count_lines(path: str) -> int | None:
    """Non-blank lines in the input file (None for stdin: unknown until read)."""
    if path == STDIO:
        return None
    with Path(path).open("rb") as fh:
        return sum(1 for raw in fh if raw.strip())


@contextmanager
def _reader(path: str) -> Iterator[Iterator[tuple[int, bytes]]]:
    """(line number, bytes) of every non-blank line."""
    with ExitStack() as stack:
        fh = sys.stdin.buffer if path == STDIO else stack.enter_context(Path(path).open("rb"))
        yield ((n, raw) for n, raw in enumerate(fh, 1) if raw.strip())


@contextmanager
def _writer(path: str) -> Iterator[TextIO]:
    """Where results go: standard output (every write checked), or OUT (rule 6)."""
    if path == STDIO:
        try:
            yield sys.stdout
            sys.stdout.flush()
        except BrokenPipeError:
            reader_gone()
        except OSError as exc:
            fail(f"standard output: the results could not be written ({exc.strerror or exc})")
        return
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with removed_on_sigterm(tmp), tmp.open("w", encoding="utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:
        fail(f"{path}: the results could not be written ({exc.strerror or exc})")
    finally:
        tmp.unlink(missing_ok=True)
