"""One-shot compaction of a wire payload: `compact()` and `acompact()`.

Rules:
1. The output has the input's format and shape (a list stays a list, a request body
   stays a request body with every other field untouched).
2. A payload that fits and needs no repair comes back as the very same object, once
   `validate` accepts it: what the provider would reject is repaired (dangling calls,
   stray results, reused Anthropic ids, result order) or raises InvalidConversation
   naming the first problem; it is never returned silently. The same check guards a
   compacted payload.
3. Otherwise it is compacted down to the low-water mark (`low` x budget); the report's
   `tokens_after` is counted on the rendered payload, exactly what `count_tokens` says.
4. `pins` and `droppable` are indices into the payload's message (or item) list. To
   compact an output again, pin the same messages (their indices in that output): an
   unpinned user message in view counts as newer than the card, so a pinned older
   statement left unpinned would retire the newer value the card carries.
5. Types: `compact(payload: P) -> CompactResult[P]`, so a typed caller's message list
   (e.g. the SDK's TypedDicts) goes back to the SDK without casts. SDK objects given as
   input come back as their plain JSON form (what the SDK call also accepts).
6. Reading the payload and writing the result run with the garbage collector paused, as
   the flow's steps do (`_engine/_collector`).
7. The input is walked once by `to_plain`; the rendered output is not: rendering builds
   plain JSON from what that walk gave (and from the engine's own strings), so the
   checks and the count read it as it is. The count reads it parsed again, where the
   input messages that pass through unchanged are taken as parsed (`parse_rendered`),
   and so counted already (`Counts.tally`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from ._adapters import (
    Format,
    answers_outside,
    emptied,
    item_count,
    parse_plain,
    parse_rendered,
    render,
    stored_context,
    validate_plain,
)
from ._adapters._references import by_reference
from ._adapters._sdk import to_plain
from ._archive import Archive
from ._arguments import checked
from ._engine._collector import pausing
from ._engine._counting import (
    counter_name,
    default_summarizer,
    fixed_overhead,
    reads_whole_spans,
    resolve_counter,
)
from ._engine._drive import arun, run
from ._engine._flow import Marks, Outcome, Settings, compact_flow
from ._engine._measure import Counts
from ._errors import BudgetUnreachable, ConfigurationError, InvalidConversation, UnknownReference
from ._messages import Conversation, Message, Part
from ._policy import Policy
from ._report import Report, recounted
from ._summarizers._protocol import Summarizer
from ._tokens._protocol import TokenCounter
from ._validation import Problem

P = TypeVar("P")

_DEFAULT_POLICY = Policy()
"""The policy when none is given (frozen: one value serves every call)."""


@dataclass(frozen=True, slots=True)
class CompactResult(Generic[P]):
    """The compacted payload, what was done, and the archive behind its markers."""

    payload: P
    """Same format and shape as the input."""
    report: Report
    archive: Archive
    format: Format
    conversation: Conversation
    """The compacted conversation in neutral form."""

    def recall(self, ref: str) -> Message | Part | str:
        """The original payload behind a marker's reference."""
        if ref not in self.archive:
            raise UnknownReference(ref)
        return self.archive.get(ref)


@dataclass(frozen=True, slots=True)
class _Job:
    fmt: Format
    plain: object
    """The payload as plain JSON (`to_plain`): what its checks read."""
    conversation: Conversation
    settings: Settings
    marks: Marks
    archive: Archive
    summarizer: Summarizer
    counts: Counts
    """Tokens of each input message, counted once when first needed."""


@pausing
def _job(
    payload: object,
    budget: int,
    *,
    model: str | None,
    format: str | None,
    summarizer: Summarizer | None,
    counter: TokenCounter | None,
    archive: Archive | None,
    pins: Iterable[int],
    droppable: Iterable[int],
    policy: Policy | None,
    options: Mapping[str, object],
) -> _Job:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ConfigurationError(f"budget must be a positive number of tokens, got {budget!r}")
    policy, archive, summarizer = checked(policy, archive, summarizer)
    plain = to_plain(payload)
    fmt, conversation = parse_plain(plain, format)
    base = policy or _DEFAULT_POLICY
    resolved = base.replace(**options) if options else base
    tokens = resolve_counter(model, fmt, counter)
    overhead = fixed_overhead(conversation, tokens)
    counts = Counts(tokens, conversation.messages)
    target = int(resolved.low * budget) if counts.over(budget - overhead) else budget
    offset = len(conversation.messages) - item_count(payload)
    chosen = summarizer or default_summarizer(tokens)
    settings = Settings(
        budget,
        target,
        fmt,
        resolved,
        tokens,
        counter_name(tokens),
        overhead,
        outside_calls=answers_outside(plain, fmt),
        whole_spans=reads_whole_spans(chosen),
    )
    items = len(conversation.messages) - offset
    marks = Marks(
        _shift(pins, offset, "pins", items), _shift(droppable, offset, "droppable", items)
    )
    # `is None`, not `or`: an empty Archive is falsy (it has a length) but is the caller's.
    store = Archive() if archive is None else archive
    return _Job(
        fmt,
        plain,
        conversation,
        settings,
        marks,
        store,
        chosen,
        counts,
    )


def _deadline(job: _Job) -> float:
    return job.settings.policy.deadline


def _shift(indices: Iterable[int], offset: int, name: str, items: int) -> frozenset[int]:
    out = set()
    for index in indices:
        if isinstance(index, bool) or not isinstance(index, int):
            raise ConfigurationError(f"{name} must be message indices, got {index!r}")
        if not 0 <= index < items:
            raise ConfigurationError(
                f"{name}: {index} is not a message index; the payload has {items:,} "
                f"messages, 0 to {items - 1:,}"
            )
        out.add(index + offset)
    return frozenset(out)


def _unseen_warnings(job: _Job, outcome: Outcome) -> Outcome:
    """Rule 8: what the provider adds that the count leaves out is named in the report."""
    notes: list[str] = []
    field = stored_context(job.plain, job.fmt)
    if field is not None:
        notes.append(
            f"the body continues server-side state ({field}): the provider puts the items it "
            "stored before the input, and they are not counted or compacted here; tokens and "
            "the budget cover only the items sent"
        )
    documents = by_reference(job.conversation, job.fmt)
    if documents:
        notes.append(
            f"{documents} document{'s' if documents > 1 else ''} sent by reference (a URL or "
            "file id): their pages are not counted, only the reference; the provider adds "
            "them to the prompt"
        )
    if not notes:
        return outcome
    report = dataclasses.replace(outcome.report, warnings=(*outcome.report.warnings, *notes))
    return dataclasses.replace(outcome, report=report)


@pausing
def _finish(job: _Job, payload: P, original: Outcome) -> CompactResult[P]:
    outcome = _unseen_warnings(job, original)
    if not outcome.report.compacted:
        _check_valid(job, payload, outcome, payload, validate_plain(job.plain, job.fmt))
        return CompactResult(payload, outcome.report, job.archive, job.fmt, job.conversation)
    conversation = Conversation(
        outcome.messages,
        shape=job.conversation.shape,
        tools=job.conversation.tools,
        extras=job.conversation.extras,
    )
    rendered = render(conversation, job.fmt)  # plain JSON already (rule 7): no `to_plain`
    if item_count(rendered) == 0 < item_count(job.plain):
        raise emptied(job.plain, job.fmt)  # repair removed every message (rule 2)
    _check_valid(job, payload, outcome, rendered, validate_plain(rendered, job.fmt))
    reparsed = parse_rendered(rendered, job.fmt, outcome.messages, _unchanged(job, outcome))
    after = fixed_overhead(reparsed, job.settings.counter)
    origins = outcome.origins  # `tally` reads a count only for the very input message
    if len(origins) != len(reparsed.messages):
        origins = (None,) * len(reparsed.messages)
    after += job.counts.tally(reparsed.messages, origins)
    report = outcome.report
    if report.tokens_after != after:  # the flow counted the same messages: mostly equal
        report = recounted(report, after)
    return CompactResult(cast(P, rendered), report, job.archive, job.fmt, conversation)


def _unchanged(job: _Job, outcome: Outcome) -> list[bool]:
    """Whether each output message is an input message, the very object parsed (rule 7)."""
    inputs = job.conversation.messages
    pairs = zip(outcome.messages, outcome.origins, strict=False)  # unequal: parsed whole
    return [o is not None and inputs[o] is m for m, o in pairs]


def _check_valid(
    job: _Job, payload: object, outcome: Outcome, out: object, problems: list[Problem]
) -> None:
    """Rule 2: InvalidConversation for the first of `problems` (those of `out`)."""
    if not problems:
        return
    first = problems[0]
    index, reason = first.index, first.reason
    if index is not None and out is not payload:
        neutral = index + len(outcome.messages) - item_count(out)
        origin = outcome.origins[neutral] if 0 <= neutral < len(outcome.origins) else None
        offset = len(job.conversation.messages) - item_count(payload)
        if origin is None:
            index, reason = None, f"compacted message {first.index}: {reason}"
        else:
            index = origin - offset
    raise InvalidConversation(
        f"{reason} (the provider would reject this; fix the input)",
        index=index,
        field=first.field,
        format=job.fmt,
    )


def _checked(result: CompactResult[P], strict: bool) -> CompactResult[P]:
    report = result.report
    if strict and not report.fits:
        raise BudgetUnreachable(max(report.protected_tokens, report.tokens_after), report.budget)
    return result


def compact(
    payload: P,
    budget: int,
    model: str | None = None,
    *,
    format: str | None = None,
    summarizer: Summarizer | None = None,
    counter: TokenCounter | None = None,
    archive: Archive | None = None,
    pins: Iterable[int] = (),
    droppable: Iterable[int] = (),
    policy: Policy | None = None,
    strict: bool = False,
    **options: object,
) -> CompactResult[P]:
    """Fit `payload` into `budget` tokens; policy fields may be passed as keywords.

    Raises:
        BudgetUnreachable: with `strict=True`, when the result does not fit.
    """
    job = _job(
        payload,
        budget,
        model=model,
        format=format,
        summarizer=summarizer,
        counter=counter,
        archive=archive,
        pins=pins,
        droppable=droppable,
        policy=policy,
        options=options,
    )
    flow = compact_flow(job.conversation.messages, job.settings, job.marks, job.archive, job.counts)
    outcome = run(flow, job.summarizer, _deadline(job), archive=job.archive)
    return _checked(_finish(job, payload, outcome), strict)


async def acompact(
    payload: P,
    budget: int,
    model: str | None = None,
    *,
    format: str | None = None,
    summarizer: Summarizer | None = None,
    counter: TokenCounter | None = None,
    archive: Archive | None = None,
    pins: Iterable[int] = (),
    droppable: Iterable[int] = (),
    policy: Policy | None = None,
    strict: bool = False,
    **options: object,
) -> CompactResult[P]:
    """Awaitable `compact`: summaries come from `asummarize` when the summarizer has it."""
    job = _job(
        payload,
        budget,
        model=model,
        format=format,
        summarizer=summarizer,
        counter=counter,
        archive=archive,
        pins=pins,
        droppable=droppable,
        policy=policy,
        options=options,
    )
    flow = compact_flow(job.conversation.messages, job.settings, job.marks, job.archive, job.counts)
    outcome = await arun(flow, job.summarizer, _deadline(job), archive=job.archive)
    return _checked(_finish(job, payload, outcome), strict)
