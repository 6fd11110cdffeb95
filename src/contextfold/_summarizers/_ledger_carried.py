"""Leave out of the ledger what the card carries and what the user has superseded.

Rules:
1. A text entry (goal, decision, state, note) that is one of the carried or stale
   statements, or a part of one, is dropped: the card shows the current statement, and a
   superseded one is never shown as current.
2. A value entry is dropped when a carried or stale statement contains it: the card
   carries it in the user's own words, or it is no longer current.
3. A text entry that names a stale value (one only the superseded statements state, or
   one a statement names as replaced: "not 3.12", "(X is out of date)") is dropped too,
   wherever it came from, and so is that value itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._statements._facts import normalize
from .._statements._kinds import replaced_values, values
from ._ledger_text import VALUES, Entry

_TEXT_SECTIONS = frozenset({"goals", "decisions", "state", "notes"})
_ELLIPSIS = "\u2026"


def without_carried(
    entries: list[Entry], carried: Sequence[str], stale: Sequence[str]
) -> list[Entry]:
    """`entries` without what rules 1-3 leave out."""
    if not carried and not stale:
        return entries
    said = [t for t in (*carried, *stale) if t]
    folded = [normalize(t) for t in said]
    current = {v for t in carried for v in values(t)} - {
        v for t in carried for v in replaced_values(t)
    }
    old = ({v for t in stale for v in values(t)} - current) | {
        v for t in (*carried, *stale) for v in replaced_values(t)
    }
    return [e for e in entries if not _covered(e, said, folded, old)]


def _covered(entry: Entry, said: list[str], folded: list[str], old: set[str]) -> bool:
    if entry.section in VALUES:
        return entry.text in old or any(entry.text in text for text in said)
    if entry.section not in _TEXT_SECTIONS:
        return False
    text = normalize(entry.text.rstrip(_ELLIPSIS))
    if text and any(text in f or f in text for f in folded if f):
        return True
    return any(value in entry.text for value in old)
