"""The ledger's value pool: every identifier or value a span mentions, with its source.

Rules:
1. One record per value. Its source is the best place it was mentioned: the user's own
   words (USER), the agent's text or tool-call arguments (AGENT), tool output only (TOOL).
   The source picks the ledger section (`user`, `identifiers`, `seen`); the newest mention
   at that source dates it and gives its ref.
2. Its role is the most telling name it was given: a name from the data beats a shape;
   a field of many beats a single-valued setting.
3. The pool counts values and mentions per source, so the reader can stop reading
   low-priority material once the pool holds many times what the bound can show, or once
   reading more mostly repeats what it holds.
4. A value shaped like an archive reference is never listed: the ledger cites real ones
   at line ends, and one a tool printed would look recallable and recall nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .._messages import REF_PATTERN
from .._statements._facts import Fact
from ._ledger_text import SHAPE_ROLES, Entry, Section, is_setting, value_entry

USER: Final = 0
AGENT: Final = 1
TOOL: Final = 2
SECTIONS: Final[tuple[Section, Section, Section]] = ("user", "identifiers", "seen")
"""Section of a value by its source."""
_MENTIONS: Final = 4


@dataclass(slots=True)
class _Record:
    role: str
    named: bool
    """Whether the mention that gave `role` named it (`Fact.named`)."""
    named_at: int
    """The seq of that mention: with `role` and `named`, it gives the role's rank."""
    source: int
    seq: int
    ref: str


class Pool:
    """Values by text, each with its role, best source, recency and ref."""

    __slots__ = ("_mentions", "_records", "_values")

    def __init__(self) -> None:
        self._records: dict[str, _Record] = {}
        self._values = [0, 0, 0]
        """Distinct values per source (a value counts where it was first seen)."""
        self._mentions = [0, 0, 0]

    def full(self, source: int, size: int) -> bool:
        """True when `size` values of `source`, or four times as many mentions, were read."""
        return self._values[source] >= size or self._mentions[source] >= _MENTIONS * size

    def note(self, facts: Sequence[Fact], source: int, seq: int, ref: str) -> int:
        """Record one mention of each of `facts` (rules 1-2), numbered `seq + 1` on; returns
        the last number given."""
        self._mentions[source] += len(facts)
        records = self._records
        known_before = len(records)
        for fact in facts:
            seq += 1
            value = fact.value
            known = records.get(value)
            if known is None:
                if _listable(value):
                    records[value] = _Record(fact.role, fact.named, seq, source, seq, ref)
                continue
            if source < known.source or (source == known.source and seq > known.seq):
                known.source, known.seq, known.ref = source, seq, ref
            role = fact.role
            if role != known.role and _renames(known, role, fact.named, value, seq):
                known.role, known.named, known.named_at = role, fact.named, seq
        self._values[source] += len(records) - known_before
        return seq

    def entries(self) -> list[Entry]:
        """One grouped entry per value (the entries of one message share their refs)."""
        refs: dict[str, tuple[str, ...]] = {"": ()}
        out: list[Entry] = []
        for value, r in self._records.items():
            cited = refs.get(r.ref)
            if cited is None:
                cited = refs[r.ref] = (r.ref,)
            out.append(value_entry(SECTIONS[r.source], value, r.role, cited, r.seq))
        return out


_REF: Final = re.compile(REF_PATTERN)


def _listable(value: str) -> bool:
    """One line, and not shaped like an archive reference (rule 4)."""
    return (
        "\n" not in value
        and "\r" not in value
        and "\t" not in value
        and not (value[:1] == "r" and _REF.fullmatch(value))
    )


def _renames(known: _Record, role: str, named: bool, value: str, seq: int) -> bool:
    """Whether a mention of `value` as `role` names it better than `known` does (rule 2):
    a name from the data beats a shape; a field of many beats a single-valued setting; then
    the newer name wins. (`_role_rank` compared, a setting tested only between two names.)"""
    named = named and role not in SHAPE_ROLES
    if named != (known.named and known.role not in SHAPE_ROLES):
        return named
    if named:
        many = not is_setting(role, value)
        if many != (not is_setting(known.role, value)):
            return many
    return seq > known.named_at


def _role_rank(role: str, named: bool, value: str, seq: int) -> tuple[int, int, int]:
    """The rank of a role (rule 2): the larger wins (`_renames` is its comparison)."""
    named = named and role not in SHAPE_ROLES
    return (int(named), int(named and not is_setting(role, value)), seq)
