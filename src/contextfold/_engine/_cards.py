"""The user-state card during a compaction: what it holds, its size bounds, its fitted text.

Rules:
1. The card holds the statements of user messages that leave the verbatim view (folded
   or dropped), merged into the card already there; newer statements on a subject win
   and the older ones are archived.
2. Before planning, two bounds: `full`, the card every unprotected user message could
   produce with a reference per statement, and `rules`, its rules alone in dense form.
3. After the plan, the card is fitted to the room the plan left: full when it fits;
   otherwise dense (the full card, sources included, archived under one block
   reference): every rule whole when they all fit, then, in card order, the split
   between statements shown whole and values on the "(also: ...)" line worth the most
   (a statement on the card counts one, a rule shown whole two). When not even the rules
   fit whole, the same split decides from the first statement on: the card becomes an
   index of values whose words are one recall away, rather than a few whole rules with
   the rest gone from view.
4. A dense card read back recovers nothing but its text; its block entry names the
   previous block, so every source stays reachable by recall.
5. A statement that a user message still in view supersedes is retired from the card
   (archived): an update (a retraction too), a permission that relaxes it, or a plain
   restatement with a new value, since every unpinned user message in view is newer than
   what the card holds (the planner folds a stating user turn once a newer one is
   folded). The texts of every superseded statement go to the summarizer as stale, and
   those the card shows as carried, so the summary neither repeats nor revives them.
6. Whether a card text fits a room is decided by the counter's cheap floor (no encoding)
   when the floor is over the room already: the count could only be higher. When that
   floor grows with every line added (`_measure.packaged`, its rule 7) and the bare dense
   header is over the room, no dense card fits: the card is the header (a pointer) or
   none, and no longer card is rendered.
7. A block entry is reported (among the compaction's references) only with the card that
   names it: a dense card tried and found too big leaves nothing the output could reach.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from .._content_cache import Memo
from .._errors import ContextFoldError
from .._messages import Card, Message, Part, Text, artifact_kind
from .._planning._plan import Protection
from .._planning._units import Unit, UnitKind
from .._statements._card import CardState
from .._statements._card_text import dense_text, ordered, parse_card, render_card, render_ordered
from .._statements._kinds import RULE_RANK
from .._statements._statement import Statement, text_says_anything, text_states_anything
from .._tokens._protocol import TokenCounter, is_bounded
from ._apply import Archiver
from ._artifacts import vouch
from ._measure import Counts, packaged
from ._transform import REF_TOKENS_MAX


@dataclass(frozen=True, slots=True)
class CardBounds:
    """Sizes of the card message for planning (rule 2)."""

    full: int
    rules: int
    dense: int = 0
    """Every statement in dense form (what a tight card needs to lose nothing)."""


def new_card(
    existing: str | None,
    sources: Sequence[tuple[Message, str]],
    archive: Archiver | None,
    refs: list[str] | None = None,
    superseded: list[str] | None = None,
) -> tuple[CardState, str | None]:
    """The state after adding the statements of `sources` (message, ref), and the block
    reference the existing card showed. Superseded statements are archived into `refs`
    and their texts added to `superseded`."""
    state, block = parse_card(existing) if existing else (CardState(), None)
    for message, ref in sources:
        if message.role != "user":
            continue
        state, gone = state.update(message, ref)
        if superseded is not None:
            superseded += [old.text for old in gone]
        if archive is not None:
            for old in gone:
                stored = archive.put(old.text, label="superseded statement")
                if refs is not None:
                    refs.append(stored)
    return state, block


def card_after(
    existing: str | None,
    timeline: Sequence[tuple[int, Message, str | None]],
    pinned: frozenset[int],
    archive: Archiver,
    refs: list[str],
) -> tuple[CardState, str | None, list[str]]:
    """The card state after this compaction (rules 1 and 5), read in input order: a removed
    message (with its ref) adds its statements, a kept user message (ref None, not pinned)
    retires what it supersedes. Returns the state, the existing card's block reference and
    the texts of every superseded statement (archived into `refs`)."""
    state, block = card_state(existing, archive) if existing else (CardState(), None)
    stale: list[str] = []
    for origin, message, ref in timeline:
        if message.role != "user" or (ref is None and origin in pinned):
            continue
        if ref is not None:
            state, gone = state.update(message, ref)
        else:  # in input order, so a plain restatement is newer too
            state, gone = state.retire([message], explicit=False)
        for old in gone:
            stale.append(old.text)
            refs.append(archive.put(old.text, label="superseded statement"))
    return state, block, stale


_ENTRY_NOTES = ("(previous card: ", "(messages folded out of view: ")


def card_state(card: str, archive: Archiver) -> tuple[CardState, str | None]:
    """What `card` holds and its block reference (rule 4): a dense card shows a prefix of
    its statements; the full state comes back from its block entry when the archive has
    it, so statements left off for room return when there is room again."""
    shown, block = parse_card(card)
    if block is None:
        return shown, None
    try:
        entry = archive.get(block)
    except ContextFoldError:
        return shown, block
    if not isinstance(entry, str):
        return shown, block
    lines = [ln for ln in entry.splitlines() if not ln.startswith(_ENTRY_NOTES)]
    full, _ = parse_card("\n".join(lines))
    texts = {s.text for s in full.statements} | {dense_text(s.text) for s in full.statements}
    if all(s.text in texts for s in shown.statements):
        return full, block
    return shown, block


def states_anything(message: Message) -> bool:
    """Whether `message` is a user message that states anything the card would carry."""
    return message.role == "user" and _states_anything(_user_text(message))


def _says_anything(message: Message) -> bool:
    """Whether `message` is a user message that says anything that can retire a statement
    (a permission or a retraction too, which state nothing on their own)."""
    return message.role == "user" and text_says_anything(_user_text(message))


def card_retires(card: str, kept: Sequence[Message]) -> bool:
    """Whether user messages in view supersede a statement `card` shows (rule 5)."""
    state, _ = parse_card(card)
    if not state.statements:
        return False
    return bool(state.retire(list(filter(_says_anything, kept)), explicit=False)[1])


def retire_in_place(
    items: Sequence[tuple[int, Message]],
    kept: Sequence[Message],
    archive: Archiver,
    refs: list[str],
) -> list[tuple[int, Message]]:
    """The artifacts as they were, with the card re-rendered (same form, same block) without
    what updates in view supersede (rule 5); the old card and the retired statements are
    archived, the new card vouched for."""
    said = list(filter(_says_anything, kept))
    out: list[tuple[int, Message]] = []
    for anchor, message in items:
        parts: list[Part] = []
        for part in message.parts:
            if not isinstance(part, Text | Card) or artifact_kind(part.text) != "card":
                parts.append(part)
                continue
            state, block = card_state(part.text, archive)
            smaller, gone = state.retire(said, explicit=False)
            if not gone:
                parts.append(part)
                continue
            refs.append(archive.put(Card(part.text), label="replaced card"))
            refs += [archive.put(old.text, label="superseded statement") for old in gone]
            text = _without(part.text, smaller, gone, block, archive=archive, refs=refs)
            if text is not None:
                card = Card(text)
                vouch(archive, card)
                parts.append(card)
        if parts:
            out.append((anchor, Message(message.role, tuple(parts), name=message.name)))
    return out


def _without(
    card: str,
    state: CardState,
    gone: list[Statement],
    block: str | None,
    *,
    archive: Archiver,
    refs: list[str],
) -> str | None:
    """`card` re-rendered in its form for `state` (what is left once `gone` retired): full,
    or dense over a new block entry showing what it showed less what retired."""
    if block is None:
        return render_card(state) if state.statements else None
    retired = {s.text for s in gone} | {dense_text(s.text) for s in gone}
    shown = [s for s in parse_card(card)[0].statements if s.text not in retired]
    entry = f"{render_card(state)}\n(previous card: {block})"
    new_block = archive.put(entry, label="card sources")
    refs.append(new_block)
    return render_card(state, block=new_block, shown=len(shown))


def fit_card(
    state: CardState,
    room: int,
    counter: TokenCounter,
    archive: Archiver,
    refs: list[str],
    *,
    previous_block: str | None = None,
    span: str | None = None,
    dense: bool = False,
    full_only: bool = False,
    pointer: bool = False,
) -> str | None:
    """The card text that fits `room` tokens (rule 3), or None when there is nothing to show.
    `span`: a folded span's reference to keep reachable through the block entry (dense);
    `full_only`: None unless the full card fits; `pointer`: when not even the bare header
    fits, the bare header all the same (the output is over its budget anyway, and the
    header's block reference is what keeps the span reachable from it)."""
    if not state.statements and span is None:
        return None
    every = ordered(state.statements)
    full = render_ordered(every)
    fits = _Fits(room, counter)
    if not dense and span is None and fits(full):
        return full
    if full_only:
        return None
    entry = full
    if previous_block is not None:
        entry += f"\n(previous card: {previous_block})"
    if span is not None:
        entry += f"\n(messages folded out of view: {span})"
    block = archive.put(entry, label="card sources")
    bare = render_ordered(every, block=block, shown=0)
    if fits.grows and fits.floor_over(bare):  # rule 6: every dense card is `bare` and more
        return _named(bare, block, refs) if pointer else None
    low, high = 0, len(every)
    while low < high:
        mid = (low + high + 1) // 2
        if fits(render_ordered(every, block=block, shown=mid)):
            low = mid
        else:
            high = mid - 1
    if low == 0 and not pointer and not fits(render_ordered(every, block=block, shown=0)):
        return None
    shown, also = _most_present(every, block, low, fits)
    return _named(render_ordered(every, block=block, shown=shown, also=also), block, refs)


def _named(card: str, block: str, refs: list[str]) -> str:
    """`card`, its block reported among `refs` (a block no card shows is not: rule 7)."""
    refs.append(block)
    return card


def _most_present(
    every: list[Statement], block: str, most: int, fits: Callable[[str], bool]
) -> tuple[int, int]:
    """How many statements the dense card shows whole and how many on its "(also: ...)"
    line (rule 3): when every rule fits whole, every rule stays whole; past them (or when
    they do not all fit), the split with the most worth: a statement on the card counts
    one, a rule shown whole two (its words are what keeps the agent from breaking it);
    on a tie, the most whole. `every`: the statements in card order; `most`: how many
    fit whole."""
    total = len(every)
    is_rule = (s.rank == RULE_RANK for s in every)
    whole_rules = list(itertools.accumulate(is_rule, initial=0))  # rules among the first k
    rules = whole_rules[-1] if whole_rules[-1] <= most else 0

    def worth(shown: int, also: int) -> int:
        return shown + also + whole_rules[shown]

    best = (most, 0)
    for shown in range(most, rules - 1, -1):
        also = _also(every, block, shown, fits)
        if worth(shown, also) > worth(*best):
            best = (shown, also)
        if sum(best) == total:
            break
    return best


def _also(every: list[Statement], block: str, shown: int, fits: Callable[[str], bool]) -> int:
    """How many statements past the `shown` ones fit on the card's "(also: ...)" line."""
    low, high = 0, len(every) - shown
    while low < high:
        mid = (low + high + 1) // 2
        if fits(render_ordered(every, block=block, shown=shown, also=mid)):
            low = mid
        else:
            high = mid - 1
    return low


def _cost(text: str, counter: TokenCounter) -> int:
    return counter.count(Message("user", (Card(text),)))


class _Fits:
    """Whether a card text fits `room` tokens (rule 6): not when the counter's cheap floor
    is over it already (a card fitted to a room it cannot have, as when the system prompt
    alone is over the budget, is rendered again and again), else by its count."""

    __slots__ = ("_count", "_floor", "grows", "room")

    def __init__(self, room: int, counter: TokenCounter) -> None:
        self.room = room
        self._count = counter.count
        self._floor = _floor_of(counter)
        self.grows = self._floor is not None and packaged(counter)
        """Whether a text's floor never falls as lines are added to it (`_measure` rule 7)."""

    def __call__(self, text: str) -> bool:
        message = Message("user", (Card(text),))
        floor = self._floor
        return (floor is None or floor(message) <= self.room) and self._count(message) <= self.room

    def floor_over(self, text: str) -> bool:
        """Whether the floor alone says `text` does not fit."""
        floor = self._floor
        return floor is not None and floor(Message("user", (Card(text),))) > self.room


def _floor_of(counter: TokenCounter) -> Callable[[Message], int] | None:
    """The counter's cheap lower bound of a message's count, if it has one: the engine's
    `Counts` (its inner counter's, or 0) or a `BoundedCounter`'s."""
    if isinstance(counter, Counts):
        return counter.floor
    return counter.count_floor if is_bounded(counter) else None


def _user_text(message: Message) -> str:
    parts = message.parts
    if len(parts) == 1:  # most messages: the text without a generator and a join
        return parts[0].text if isinstance(parts[0], Text) else ""
    return "\n".join(p.text for p in parts if isinstance(p, Text))


def _read_states_anything(text: str) -> bool:
    """Whether user text states anything."""
    return bool(text) and text_states_anything(text)


_states_anything: Final = Memo(_read_states_anything, 65_536).__getitem__
"""`_read_states_anything`, cached: histories repeat across compactions."""


def card_bounds(
    existing: str | None,
    body: Sequence[Message],
    units: Sequence[Unit],
    protection: Sequence[Protection],
    counter: TokenCounter,
) -> CardBounds:
    """Upper bounds of the card message after this compaction (rule 2)."""
    sources = [
        (message, "")
        for unit, held in zip(units, protection, strict=True)
        if held is Protection.NONE and unit.kind in (UnitKind.USER, UnitKind.EXCHANGE)
        for message in body[unit.start : unit.stop]
        if message.role == "user" and _states_anything(_user_text(message))
    ]
    state, _ = new_card(existing, sources, None)
    if not state.statements:
        return CardBounds(0, 0)
    every = ordered(state.statements)  # the rules first, in the order they were made
    full = _cost(render_ordered(every), counter) + REF_TOKENS_MAX * len(every)
    rules = [s for s in every if s.rank == RULE_RANK]
    dense = _cost(render_ordered(rules, block=""), counter) + REF_TOKENS_MAX if rules else 0
    whole = _cost(render_ordered(every, block=""), counter) + REF_TOKENS_MAX
    return CardBounds(full, min(full, dense), min(full, whole))


Count = Callable[[str], int]
