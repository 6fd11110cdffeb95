"""Fill the room a plan leaves: the user-state card first, then the summary.

Rules:
1. The room is the plan's goal (the target when the plan reached it, else the budget)
   minus the fixed overhead, the messages the plan kept (counted exactly) and a bridge
   per removed run where turns must alternate.
2. The card comes first: in full when it fits beside a summary intro and a minimal body,
   else dense (one block reference, which also names the span) in the whole room, as
   many statements as fit in card order; the summary then gets what is left, if enough.
3. The summary takes what the card leaves (capped at four reserves), never less than its
   reserve when the room has it: a compaction that folds fills its room (use the room).
4. When the room cannot hold a summary with a body, or nothing was folded (only dropped),
   there is no new summary: the span reference (every message taken out of view) goes
   into the card's block entry instead, so those messages stay recallable through it.
5. When only dropping, the old summary stays unless the card then cannot show every
   statement: the user's statements come first; the old summary is archived and named in
   the span, so it stays recallable from the output.
6. The target leaves room for growth, but not at the cost of what the user said: the card
   may take room up to the card ceiling (`most`: the budget in one-shot calls, the
   high-water mark in an agent loop, which then does not compact again at once) when the
   target's room cannot show every statement; the summary only takes what is left under
   the target.
7. The new span names what the earlier artifacts kept reachable: the earlier span and the
   earlier card as archived (`previous_card`; a dense card's block names its span and the
   card before it), whatever card comes now. A dense card that gives way to a full card
   or to none would otherwise take the only way back to what earlier compactions folded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from itertools import groupby

from .._messages import Card, Message, Summary
from .._planning._plan import Action, Plan
from .._policy import Policy
from .._statements._card import CardState
from .._statements._card_text import dense_text, parse_card, render_card
from .._summarizers._protocol import SummaryRequest, SummaryResult
from .._tokens._protocol import TokenCounter
from ._apply import Applied, Archiver
from ._cards import fit_card
from ._measure import Counts
from ._preamble import summary_span, summary_text
from ._summary import chunk_size, fold, has_body, make_span, reserve_for

_REPLACED = "replaced summary"

MIN_BODY = 16
"""Tokens of summary body below which a summary message is not worth its intro."""


@dataclass(frozen=True, slots=True)
class Filled:
    """The card and summary texts (None: no such message) and what the card shows."""

    card: str | None
    summary: str | None
    shown: int
    pointer: tuple[str, list[str]] | None = None
    """With no card and no summary: a bare card header naming the span, and the archive
    references it adds, for an output that is over its budget anyway (nothing else could
    keep what was folded reachable from it)."""


def kept_tokens(applied: Applied, counts: Counts) -> int:
    """Tokens of the messages the plan kept (rule 1), once for every goal's room: an input
    message kept as it is has its count read from `counts` (the input's)."""
    return counts.tally(applied.messages, applied.origins)


def room_left(kept: int, plan: Plan, *, goal: int, overhead: int, bridge: int) -> int:
    """Tokens for the card and the summary (rule 1), `kept` those of the kept messages."""
    return goal - overhead - kept - bridge * (_runs(plan.actions) + 1)


def _runs(actions: Sequence[Action]) -> int:
    """Maximal runs of removed (folded or dropped) units."""
    return sum(gone for gone, _ in groupby(actions, _GONE.__contains__))


_GONE = frozenset((Action.FOLD, Action.DROP))


def fill(
    applied: Applied,
    state: CardState,
    *,
    previous: str | None,
    previous_block: str | None,
    previous_card: str | None = None,
    room: int,
    most: int,
    policy: Policy,
    budget: int,
    counter: TokenCounter,
    archive: Archiver,
    stale: tuple[str, ...] = (),
    superseded: tuple[str, ...] = (),
    whole_spans: bool = False,
) -> Generator[SummaryRequest, SummaryResult, Filled]:
    """The card and the summary for `room` tokens (rules 2-6); the card may take up to
    `most` (the room under the card ceiling); `stale`: statements no longer current,
    which the summary must not show; `superseded`: their archive references, listed in the
    span's entry so that they stay reachable from the output; `whole_spans`: the
    summarizer takes the span in one request (`Settings.whole_spans`)."""
    room = min(room, most)
    if not applied.folded:  # dropped only: the summary stays, the span rides in the card
        kept = _cost(Summary(previous), counter) if previous else 0
        earlier = _earlier(None, previous_card)
        if previous is not None and not _fits_all(state, most - kept, counter):
            # rule 5: the card's statements come before an old summary
            replaced = archive.put(Summary(previous), label=_REPLACED)
            applied.refs.append(replaced)
            earlier = _earlier(summary_span(previous), previous_card, replaced)
            previous, kept = None, 0
        span = make_span(applied, earlier, archive, superseded)
        card = fit_card(
            state,
            most - kept,
            counter,
            archive,
            applied.refs,
            previous_block=previous_block,
            span=span,
            dense=True,
        )
        return _with_pointer(Filled(card, previous, _shown(card)), state, span, counter, archive)
    old = None if previous is None else archive.put(Summary(previous), label=_REPLACED)
    span = make_span(
        applied, _earlier(summary_span(previous), previous_card, old), archive, superseded
    )
    intro = _cost(Summary(summary_text("", span, policy.recall_hints)), counter)
    card = fit_card(
        state,
        room - intro - MIN_BODY,
        counter,
        archive,
        applied.refs,
        previous_block=previous_block,
        full_only=True,
    )
    dense = card is None and bool(state.statements)
    if dense:  # tight: the dense card first, with the span, in up to the budget's room
        card = fit_card(
            state,
            most,
            counter,
            archive,
            applied.refs,
            previous_block=previous_block,
            span=span,
            dense=True,
        )
    left = room - _cost(Card(card), counter) if card else room
    if left < intro + MIN_BODY:
        if card is None:
            card = fit_card(state, most, counter, archive, applied.refs, span=span, dense=True)
        return _with_pointer(Filled(card, None, _shown(card)), state, span, counter, archive)
    reserve = reserve_for(policy, budget)
    summary = yield from fold(
        applied,
        previous,
        span=span,
        max_tokens=min(left, 4 * reserve + intro),
        chunk=chunk_size(policy, budget, whole_spans=whole_spans),
        counter=counter,
        carried=_carried(card, state),
        stale=stale,
        recall=policy.recall_hints,
    )
    if dense and card is not None and not has_body(summary):
        return Filled(card, None, _shown(card))  # an empty summary: the card holds the span
    return Filled(card, summary, _shown(card))


def _earlier(span: str | None, card: str | None, summary: str | None = None) -> str | None:
    """What the new span names as folded before it (rule 7): the earlier span, the earlier
    card as archived (its block names the spans that card kept reachable) and a replaced
    summary."""
    named = [span] if span else []
    if card is not None:
        named.append(f"(card: {card})")
    if summary is not None:
        named.append(f"(summary: {summary})")
    return " ".join(named) or None


def _with_pointer(
    filled: Filled, state: CardState, span: str, counter: TokenCounter, archive: Archiver
) -> Filled:
    """`filled`, with the pointer (`Filled.pointer`) when it shows nothing at all."""
    if filled.card is not None or filled.summary is not None:
        return filled
    refs: list[str] = []
    header = fit_card(state, 0, counter, archive, refs, span=span, dense=True, pointer=True)
    return filled if header is None else dataclasses.replace(filled, pointer=(header, refs))


def _cost(part: Card | Summary, counter: TokenCounter) -> int:
    return counter.count(Message("user", (part,)))


def _carried(card: str | None, state: CardState) -> tuple[str, ...]:
    """The statements `card` shows, in full (the summary need not repeat them, nor the
    values they name as replaced)."""
    if card is None:
        return ()
    shown = {s.text for s in parse_card(card)[0].statements}
    return tuple(s.text for s in state.statements if s.text in shown or dense_text(s.text) in shown)


def _fits_all(state: CardState, room: int, counter: TokenCounter) -> bool:
    """Whether the dense card with every statement fits `room`."""
    return _cost(Card(render_card(state, block=_SOME_REF)), counter) <= room


_SOME_REF = "r0000000000"


def _shown(card: str | None) -> int:
    return 0 if card is None else sum(1 for line in card.splitlines() if line.startswith("- "))
