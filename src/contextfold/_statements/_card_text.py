"""The card's text form: rendered full or dense, and read back.

Rules:
1. `parse_card` inverts `render_card` exactly (I7), in both forms: full (a `- ` line per
   statement with the archive reference of the message that said it) and dense (one block
   reference in the header, then one statement a line, past its update lead-in; the block
   entry holds the full card, so the exact statements come back from it).
2. A dense card that cannot show every statement whole may end with one "(also: ...)"
   line: the values of the next statements in card order (a few of their words when they
   state no value), a pointer to the block entry that holds them whole, never a statement
   itself: reading the card back skips it, and it never shows a value the statement names
   as replaced, nor one hint twice.
3. The card's order: by rank (rules first), then in the order the statements were made.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from operator import attrgetter
from typing import Final

from .._content_cache import Memo
from .._messages import CARD_HEADER, REF_PATTERN
from ._card import CardState
from ._facts import word_set
from ._kinds import RANKS, UPDATE_LEAD, replaced_values, statement_kind
from ._statement import Statement, core_sentences, kind_of
from ._subjects import FILLER
from ._values import values

__all__ = [
    "CARD_INTRO",
    "dense_text",
    "hint",
    "ordered",
    "parse_card",
    "render_card",
    "render_ordered",
]

CARD_INTRO: Final = "What the user said that still holds (newest wins):"
_BLOCK: Final = "see "
_TEXT: Final = attrgetter("text")
_LINE: Final = re.compile(rf"^- (?P<text>.*?)(?: \((?P<source>{REF_PATTERN})\))?$")
_HEAD: Final = re.compile(rf"\({_BLOCK}(?P<ref>{REF_PATTERN})\)")


def ordered(statements: tuple[Statement, ...]) -> list[Statement]:
    """The card's order (rule 3): by rank (rules first), then in the order they were made."""
    ranks = list(map(RANKS.__getitem__, map(kind_of, map(_TEXT, statements))))
    return [statements[i] for i in sorted(range(len(statements)), key=ranks.__getitem__)]


def render_card(
    state: CardState, *, block: str | None = None, shown: int | None = None, also: int = 0
) -> str:
    """The card text: full (a reference per statement) or, with `block`, dense (one block
    reference); `shown` keeps only the first statements in card order, and `also` adds
    the values of the next ones on an "(also: ...)" line (dense only, rule 2)."""
    return render_ordered(ordered(state.statements), block=block, shown=shown, also=also)


def render_ordered(
    every: Sequence[Statement], *, block: str | None = None, shown: int | None = None, also: int = 0
) -> str:
    """`render_card` of the state whose statements, in card order, are `every` (`ordered`:
    a card fitted to its room is rendered again and again, and sorted once)."""
    items = every[:shown]
    if block is None:
        lines = [f"{CARD_HEADER} {CARD_INTRO}"]
        lines += [f"- {s.text}" + (f" ({s.source})" if s.source else "") for s in items]
    else:
        lines = [f"{CARD_HEADER} ({_BLOCK}{block})" if block else CARD_HEADER]
        lines += [dense_text(s.text) for s in items]
        said = every[len(items) : len(items) + also]
        hints = list(dict.fromkeys(h for s in said if (h := hint(s.text))))  # "7447" once
        if hints:
            lines.append(f"{_ALSO}{'; '.join(hints)})")
    return "\n".join(lines)


_ALSO: Final = "(also: "


def _read_hint(text: str) -> str:
    """What the "(also: ...)" line shows of a statement (rule 2): its current values in
    the order it names them, else (or when they are all short words) its first few
    content words (denials kept: a hint never reads as the opposite rule)."""
    core = dense_text(text)
    gone = replaced_values(text)
    found = [v for v in values(core) if v not in gone]
    found = [v for v in found if not any(v != w and v in w for w in found)]
    if any(map(_telling, found)):
        return " ".join(sorted(filter(_telling, found), key=core.find))
    words = [w.lstrip("(\"'").rstrip(".,;:!?()\"'") for w in core.split()]  # `.env` keeps its dot
    kept = [w for w in words if w and (w.lower() in _DENIALS or w.lower() not in FILLER)]
    return " ".join(kept[:_HINT_WORDS])


_HINT_WORDS: Final = 4
_DENIALS: Final = word_set(
    "never not no don't dont do-not avoid without cannot can't won't mustn't shouldn't"
)
"""Words a hint keeps although they are filler: without them a rule would read inverted."""


def _telling(value: str) -> bool:
    """Whether a value says enough alone to point at its statement ("PR" does not)."""
    return len(value) > _SHORT_VALUE or any(c.isdigit() or c in "-_./@$" for c in value)


_SHORT_VALUE: Final = 4


def _read_dense_text(text: str) -> str:
    """A statement as the dense card shows it: without an update's lead-in ("Sorry, I
    gave you the wrong value before.", "Change of plan:") or a trailing retraction ("Not
    3191."); the words that state it stay verbatim, the whole is in the block entry."""
    core = " ".join(core_sentences(text))
    bare = UPDATE_LEAD.sub("", core, count=1)
    if not bare:
        return core
    shown = bare[0].upper() + bare[1:]
    if statement_kind(shown) is None:
        return core
    return text if shown == text else shown  # the statement itself when that is all


def parse_card(text: str) -> tuple[CardState, str | None]:
    """The state a card text shows and its block reference (the inverse of `render_card`)."""
    found: list[Statement] = []
    lines = text.splitlines()
    head = _HEAD.search(lines[0]) if lines else None
    for line in lines[1:]:
        if line.startswith(_ALSO) and line.endswith(")"):
            continue  # rule 2: a pointer, not a statement
        match = _LINE.match(line) if line.startswith("- ") else None
        if match is not None and match.group("text"):
            found.append(Statement(match.group("text"), match.group("source") or ""))
        elif match is None and line.strip():
            found.append(Statement(line.strip()))
    return CardState(tuple(found)), head.group("ref") if head else None


hint: Final = Memo(_read_hint, 1 << 15).__getitem__
dense_text: Final = Memo(_read_dense_text, 1 << 15).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
