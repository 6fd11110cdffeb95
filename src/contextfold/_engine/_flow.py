"""The compaction flow: measure, plan, apply; summaries are requested, never fetched.

Rules:
1. `compact_flow` is a generator: it yields a SummaryRequest whenever it needs a summary
   and receives the SummaryResult; sync and async drivers only pump it (STYLE rule 3).
2. Order: take the preamble and bridges off, repair, group into units, measure, plan
   (pure; these in `_prepare`), apply the plan, fold summaries, rebuild the card, put the
   preamble back, bridge turns where the format needs alternation, count the result.
3. Every payload that leaves or shrinks is archived first; its reference is reported.
4. When the plan changes nothing and nothing was repaired, the input comes back as is.
5. So does an input the plan could not shrink (bridges can cost more than what left).
6. Except: when an update the user made after the card (still in view) supersedes a
   statement the card shows, the card is re-rendered without it even if nothing else
   changes, so the card never shows a replaced value as current.
7. What was folded stays reachable from the output: when neither card nor summary went
   in, a bare card header naming the span does, if the output still fits with it or is
   over its budget anyway (the floor alone is), or when nothing but the system prompt
   would be left (no user turn to keep: a request needs a message); otherwise the budget
   wins.
8. The input is counted only as far as decisions need (`_measure`): what was folded
   before anything needed its count is counted only if the report's `tokens_before` is
   read, and rule 5 compares by counting (what is not counted yet, newest first) until
   the input is the bigger.
9. When nothing asks for a repair, a bridge or a new card and the whole input is within
   the target (the planner's first test), it comes back as is without a plan: no unit
   costs, no card bounds (an agent loop under its budget pays for counting only).
10. A result over its budget because what must stay is over it says so with that floor
   (`protected_tokens`), not with the plan's figure, which counts the tail that yields at
   its full size.
11. An earlier card and summary kept as they are give way when the output would be over
   its budget with them and what must stay fits: they are rebuilt for the room left, as
   when the plan removes something (the old ones archived, named in the references).
12. The plan held room for them as they were: when they gave way and the plan had cut a
   unit (pruned, masked, trimmed: most often the output the agent just asked for), it is
   made again with the rebuilt ones as its kept preamble, so the room they freed goes to
   what was cut (the newest output is cut only as much as the room requires). The new
   plan is taken when it removes nothing (no new artifacts needed) and fits the budget.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Sequence
from dataclasses import dataclass

from .._messages import Card, Message, Summary
from .._planning._plan import Action, Plan
from .._report import Report, agreed_reason
from .._strategies._steps import Mask
from .._summarizers._protocol import SummaryRequest, SummaryResult
from ._apply import Applied, Archiver, Tools, apply_plan
from ._artifacts import same_messages, vouch
from ._cards import card_after, card_retires, retire_in_place
from ._measure import Counts
from ._preamble import BEFORE_ALL, insert, placements
from ._prepare import (
    Prepared,
    bridge_cost,
    fits_whole,
    opening_of,
    plan,
    prepare,
    protected_tokens,
    protection_of,
    prune_size,
)
from ._room import fill, kept_tokens, room_left
from ._settings import Marks, Settings
from ._shape import SHAPES, add_bridges

FITS = "fits without compaction"
"""The verdict when everything is kept as it is."""

GAVE_WAY = (
    "compacted within the budget but above the target: the earlier card and summary gave "
    "way to what must stay ({protected} tokens)"
)
"""The verdict when they had to (rule 11)."""

__all__ = ["FITS", "Marks", "Outcome", "Settings", "compact_flow"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """The compacted messages and the report."""

    messages: tuple[Message, ...]
    report: Report
    origins: tuple[int | None, ...]
    """Input index of each output message; None for card, summary, bridges, repairs."""


def compact_flow(
    messages: Sequence[Message],
    settings: Settings,
    marks: Marks,
    archive: Archiver,
    counts: Sequence[int] | Counts | None = None,
) -> Generator[SummaryRequest, SummaryResult, Outcome]:
    """Compact `messages` toward `settings.target` (rules 1-5); `counts` if already known."""
    counter = counts if isinstance(counts, Counts) else Counts(settings.counter, messages, counts)
    settings = dataclasses.replace(settings, counter=counter)
    before = _Before(settings.overhead, counter)
    prep = prepare(messages, settings, archive)
    card = prep.parts.card
    kept = [] if card is None else _unpinned(prep, marks)  # only a card needs them (rule 6)
    stale_card = card is not None and card_retires(card, kept)
    as_is = not prep.notes and not prep.parts.bridges and not stale_card
    if as_is and fits_whole(prep, settings, counter):  # rule 9: no plan to make
        protected = protected_tokens(prep, settings, protection_of(prep, settings, marks), counter)
        return _unchanged(messages, settings, before, FITS, protected)
    prune = prune_size(settings, prep)
    the_plan, protected = plan(prep, settings, marks, prune, counter)
    if not the_plan.changes and as_is:
        return _unchanged(messages, settings, before, the_plan.reason, protected)
    mask = settings.policy.steps.get("mask")
    prose_over = mask.prose_over if isinstance(mask, Mask) else 0
    tools = Tools(prune, prose_over, counter, archive)
    applied = apply_plan(prep.body, prep.origins, prep.units, the_plan, tools)
    items, rules, pointer = prep.parts.artifacts, 0, None
    verdict = the_plan.reason
    if applied.removed:
        items, rules, pointer = yield from _new_artifacts(
            applied, prep, settings, archive, the_plan, marks=marks, counts=counter
        )
    elif stale_card:  # rule 6: an update in view retires what the card still shows
        items = retire_in_place(items, kept, archive, applied.refs)
    out, origins = _assemble(applied, len(prep.parts.system), items, settings, archive)
    if same_messages(out, messages):  # only regenerated bridges: nothing changed
        return _unchanged(messages, settings, before, the_plan.reason, protected)
    after = settings.overhead + counter.tally(out, origins)
    if not applied.removed and items and after > settings.budget >= protected:  # rule 11
        planned = len(applied.refs)  # what the plan archived; the rebuild's come after
        items, rules, pointer = yield from _new_artifacts(
            applied, prep, settings, archive, the_plan, marks=marks, counts=counter
        )
        out, origins = _assemble(applied, len(prep.parts.system), items, settings, archive)
        after = settings.overhead + counter.tally(out, origins)
        verdict = GAVE_WAY.format(protected=protected) if after <= settings.budget else verdict
        applied, out, origins, after = _room_back(
            (applied, out, origins, after),
            prep,
            items,
            settings,
            marks=marks,
            tools=tools,
            first=the_plan,
            planned=planned,
        )
    if pointer is not None:  # rule 7: the way back to what was folded
        header, refs = pointer
        items = placements(header, None, BEFORE_ALL, SHAPES[settings.format].joined_preamble)
        out2, origins2 = _assemble(applied, len(prep.parts.system), items, settings, archive)
        after2 = settings.overhead + counter.tally(out2, origins2)
        emptied = len(out) == len(prep.parts.system)  # no message left to send
        if after2 <= settings.budget or after > settings.budget or emptied:
            vouch(archive, Card(header))
            applied.refs.extend(refs)
            out, origins, after = out2, origins2, after2
    if not before.over(after) and not prep.notes and not stale_card:  # rule 5: never worse
        return _unchanged(messages, settings, before, the_plan.reason, protected)
    done = _Done(applied, prep.notes, protected, rules, True, bool(the_plan.changes))
    report = _report(settings, before, after, verdict, done)
    return Outcome(tuple(out), report, tuple(origins))


_Output = tuple[Applied, list[Message], list[int | None], int]
"""What a plan applied gives: the applied plan, the output, its origins and tokens."""


def _room_back(
    given: _Output,
    prep: Prepared,
    items: Sequence[tuple[int, Message]],
    settings: Settings,
    *,
    marks: Marks,
    tools: Tools,
    first: Plan,
    planned: int,
) -> _Output:
    """Rule 12: `given`, or the plan made again with the artifacts that gave way (`items`)
    as the preamble it keeps, when the first plan cut a unit, the new one removes none
    (that would need new artifacts again) and both outputs fit the budget. `planned`: how
    many of the given references the first plan made (the rebuild's follow them)."""
    applied, _, _, after = given
    if not items or after > settings.budget or not any(a in _CUTS for a in first.actions):
        return given  # no items: a pointer may go in (rule 7), and the room is its
    card = summary = None
    for _, message in items:
        for part in message.parts:
            if isinstance(part, Card):
                card = part.text
            elif isinstance(part, Summary):
                summary = part.text
    parts = dataclasses.replace(prep.parts, artifacts=list(items), card=card, summary=summary)
    counts = settings.counter
    assert isinstance(counts, Counts)
    again, _ = plan(dataclasses.replace(prep, parts=parts), settings, marks, tools.prune, counts)
    if any(a in _GONE for a in again.actions) or again.actions == first.actions:
        return given
    redone = apply_plan(prep.body, prep.origins, prep.units, again, tools)
    out, origins = _assemble(redone, len(prep.parts.system), items, settings, tools.archive)
    tokens = settings.overhead + counts.tally(out, origins)
    if tokens > settings.budget:
        return given
    redone.refs.extend(applied.refs[planned:])  # the rebuilt artifacts' references
    return redone, out, origins, tokens


_CUTS = frozenset((Action.PRUNE, Action.MASK, Action.TRIM))
_GONE = frozenset((Action.FOLD, Action.DROP))


class _Before:
    """The input's tokens, counted only as far as a comparison needs (rule 8)."""

    __slots__ = ("counts", "overhead")

    def __init__(self, overhead: int, counts: Counts) -> None:
        self.overhead = overhead
        self.counts = counts

    def over(self, tokens: int) -> bool:
        """Whether the input costs more than `tokens`."""
        return self.counts.over(tokens - self.overhead)

    def total(self) -> int:
        return self.overhead + self.counts.total()


def _unchanged(
    messages: Sequence[Message], settings: Settings, before: _Before, reason: str, protected: int
) -> Outcome:
    """The input as it was, with the plan's verdict (`reason`)."""
    done = _Done(Applied(), (), protected, 0, False)
    report = _report(settings, before, before.total(), reason, done)
    return Outcome(tuple(messages), report, tuple(range(len(messages))))


def _assemble(
    applied: Applied,
    n_system: int,
    items: Sequence[tuple[int, Message]],
    settings: Settings,
    archive: Archiver,
) -> tuple[list[Message], list[int | None]]:
    """The output messages and their origins: the artifacts placed, bridges added."""
    body, origins = insert(applied.messages[n_system:], applied.origins[n_system:], items)
    out = applied.messages[:n_system] + body
    origins = applied.origins[:n_system] + origins
    if SHAPES[settings.format].alternate:
        out, origins = add_bridges(out, origins, archive.put)
    return out, origins


_Placed = list[tuple[int, Message]]


def _new_artifacts(
    applied: Applied,
    prep: Prepared,
    settings: Settings,
    archive: Archiver,
    the_plan: Plan,
    *,
    marks: Marks,
    counts: Counts,
) -> Generator[SummaryRequest, SummaryResult, tuple[_Placed, int, tuple[str, list[str]] | None]]:
    """Rebuild the card and fold the summary into the room the plan left; returns their
    placements, how many statements the card shows, and the pointer (`Filled.pointer`);
    `counts` are the input's."""
    parts = prep.parts
    anchor = BEFORE_ALL if parts.summary_anchor is None else parts.summary_anchor
    if applied.folded:
        anchor = applied.first_folded if applied.first_folded is not None else BEFORE_ALL
    first = next((o for o in prep.origins[len(parts.system) :] if o is not None), None)
    if first is None or anchor <= first:
        anchor = BEFORE_ALL
    opening = opening_of(prep, settings)  # a summary never splits that turn (`_shape` rule 5)
    at = None if opening is None else prep.origins[opening]
    if at is not None and anchor > at:
        anchor = at if at > (first or 0) else BEFORE_ALL
    archived = len(applied.refs)
    state, block, stale = card_after(
        parts.card, applied.timeline, marks.pinned, archive, applied.refs
    )
    superseded = tuple(applied.refs[archived:])
    alternate = SHAPES[settings.format].alternate
    bridge = bridge_cost(settings.counter) if alternate else 0
    apart = bridge if anchor != BEFORE_ALL else 0  # the card's own bridge, summary elsewhere
    kept = kept_tokens(applied, counts)
    room, most = (
        room_left(kept, the_plan, goal=goal, overhead=settings.overhead + apart, bridge=bridge)
        for goal in (
            settings.target if the_plan.on_target else settings.budget,
            max(settings.target, int(settings.card_ceiling * settings.budget)),
        )
    )
    earlier = None if parts.card is None else archive.put(Card(parts.card), label=_REPLACED)
    filled = yield from fill(
        applied,
        state,
        previous=parts.summary,
        previous_block=block,
        previous_card=earlier,
        room=room,
        most=most,
        policy=settings.policy,
        budget=settings.budget,
        counter=settings.counter,
        archive=archive,
        stale=tuple(stale),
        superseded=superseded,
        whole_spans=settings.whole_spans,
    )
    _keep_artifacts(
        archive, applied.refs, (parts.card, filled.card), (parts.summary, filled.summary)
    )
    joined = SHAPES[settings.format].joined_preamble
    return placements(filled.card, filled.summary, anchor, joined), filled.shown, filled.pointer


_Pair = tuple[str | None, str | None]


def _keep_artifacts(archive: Archiver, refs: list[str], card: _Pair, summary: _Pair) -> None:
    """Archive the new card and summary (the proof we made them) and any old one replaced."""
    for (old, new), kind in ((card, Card), (summary, Summary)):
        if new is not None:
            vouch(archive, kind(new))
        if old is not None and old != new:
            refs.append(archive.put(kind(old), label=f"replaced {kind.__name__.lower()}"))


_REPLACED = "replaced card"
"""The label of an earlier card's entry (the span names it: `_room` rule 7)."""


def _unpinned(prep: Prepared, marks: Marks) -> list[Message]:
    """The body messages the caller did not pin."""
    return [m for m, o in zip(prep.body, prep.origins, strict=True) if o not in marks.pinned]


@dataclass(frozen=True, slots=True)
class _Done:
    applied: Applied
    notes: tuple[str, ...]
    protected: int
    rules: int
    compacted: bool
    planned: bool = False
    """The plan changed something (else only repairs, bridges or the card did)."""


def _report(settings: Settings, before: _Before, after: int, verdict: str, done: _Done) -> Report:
    """The report; `verdict` is the plan's reason."""
    fits = after <= settings.budget
    if not done.compacted:
        reason = FITS if fits else verdict
    elif not done.planned:
        reason = "repaired; fits without compaction" if fits else verdict
    else:
        reason = verdict
    reason = agreed_reason(
        reason,
        after=after,
        budget=settings.budget,
        target=settings.target,
        protected=done.protected,
    )
    applied = done.applied
    last = applied.summaries[-1].summarizer if applied.summaries else None
    return Report(
        _tokens_before=before.counts.later(before.overhead),
        tokens_after=after,
        budget=settings.budget,
        target=settings.target,
        fits=fits,
        reason=reason,
        format=settings.format,
        counter=settings.counter_name,
        compacted=done.compacted,
        pruned=applied.pruned,
        masked=applied.masked,
        summarized=len(applied.folded),
        dropped=len(applied.dropped),
        repaired=done.notes,
        refs=tuple(dict.fromkeys(applied.refs)),
        summarizer=last,
        summaries=tuple(applied.summaries),
        card_rules=done.rules,
        protected_tokens=done.protected,
    )
