"""Which statement on the card an update replaces, by what it names (`_card` rule 2).

Rules:
1. An update replaces the statement it names by an old value ("not 3.12", "instead of
   npm": a value or a subject word), or, for a retraction, by any value it holds ("forget
   what I said about Fridays", without case or plural); else the one it shares the most
   subject words with (the family noun "budget" or "deadline" counting as one when no
   other words differ). One shared word of several is no match ("write"), unless the
   update only names a choice and that word is its head ("Scratch that, aisle seat
   please" after "I prefer a window seat").
2. An update with no subject words replaces the newest statement with a date, amount or
   version when it states one of that kind ("Actually, make it 3.12").
"""

from __future__ import annotations

import re
from typing import Final

from .._content_cache import Memo
from ._facts import normalize
from ._kinds import UPDATE_LEAD, is_pick, replaced_values
from ._retractions import is_retraction
from ._statement import Statement, core_words
from ._values import plural_stem, values

__all__ = ["best_match", "by_value", "is_retraction_text"]


def _read_retraction(text: str) -> bool:
    return is_retraction(normalize(text))


is_retraction_text: Final = Memo(_read_retraction, 1 << 15).__getitem__
"""Cached per text: every statement on the card is asked again for every new one."""


def best_match(current: list[Statement], new: Statement) -> int | None:
    gone = _named_as_gone(new.text)
    said = core_words(new.text)
    words = frozenset(said)
    family = _families(new.text)
    head = _pick_head(new.text) if said else None
    best: tuple[int, int] | None = None
    for index, old in enumerate(current):
        theirs = core_words(old.text)
        named = len(gone & _keys_of(old.text)) + len(gone.intersection(theirs)) if gone else 0
        shared = len(words.intersection(theirs))
        if family and (words.issubset(theirs) or words.issuperset(theirs)):
            shared += len(family & _families(old.text))  # "the budget was raised to $800"
        if not named and not shared:
            continue
        if not named and shared < 2 and min(len(words), len(theirs)) > 1 and head not in theirs:
            continue  # one shared word of several ("write") is not the same subject
        score = 4 * named + shared
        if best is None or score >= best[0]:
            best = (score, index)
    return None if best is None else best[1]


def _read_pick_head(text: str) -> str | None:
    """The head word of an update that only names a choice ("Scratch that, aisle seat
    please" -> "seat": its last subject word), or None for any other."""
    said = core_words(text)
    return said[-1] if said and is_pick(UPDATE_LEAD.sub("", text, count=1) or text) else None


_pick_head: Final = Memo(_read_pick_head, 1 << 15).__getitem__
"""Cached per text: asked once for every statement an update is matched against."""


def _named_as_gone(text: str) -> frozenset[str]:
    """The values `text` says no longer hold, as `_value_keys`: those it names as old ones
    ("not 3.12", "instead of npm": a word too, so it matches a subject word), and for a
    retraction every value it names ("Forget what I said about Fridays": a name is a
    value, so it is no subject word to match by)."""
    gone = replaced_values(text)
    if is_retraction_text(text):
        gone = gone | values(text)
    return _value_keys(gone) if gone else gone


def _value_keys(found: frozenset[str]) -> frozenset[str]:
    """Values compared without case or a plural's "s" ("Friday" names "Fridays")."""
    return frozenset(_stem_value(v.casefold()) for v in found) if found else found


def _stem_value(value: str) -> str:
    """A value without a plural's "s", as subject words are stemmed (`plural_stem`)."""
    return plural_stem(value)


def _read_keys(text: str) -> frozenset[str]:
    return _value_keys(values(text))


_keys_of: Final = Memo(_read_keys, 1 << 15).__getitem__
"""`_value_keys(values(text))`, cached: every update asks it of every statement on the card."""


_VALUE_KINDS: Final = (
    re.compile(
        r"\d{4}-\d{2}-\d{2}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|"
        r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?"
    ),
    re.compile(r"[$€£]\d[\d,.]*"),
    re.compile(r"v?\d+(?:\.\d+)+"),
)
"""Values distinctive enough to say what an update without subject words is about: a
date (a weekday, "May 20th"), an amount of money, a version (not a bare number: ids and
counts are numbers too)."""


def _value_kinds(text: str) -> frozenset[int]:
    found = values(text)
    return frozenset(i for i, shape in enumerate(_VALUE_KINDS) if any(map(shape.fullmatch, found)))


def by_value(current: list[Statement], new: Statement) -> int | None:
    """The newest statement with a value of a kind `new` states ("Actually, make it 3.12"
    after "The python version must be 3.11"), when `new` names no old value either."""
    kinds = _value_kinds(new.text)
    if not kinds or replaced_values(new.text):
        return None
    for index in range(len(current) - 1, -1, -1):
        if kinds & _value_kinds(current[index].text):
            return index
    return None


_FAMILY: Final = re.compile(r"\b(?:budget|deadline)\b")


def _families(text: str) -> frozenset[str]:
    """The rule families an update names by their noun ("the deadline moved to ..."): cue
    words, so never subject words, yet what an update without other words is about."""
    return frozenset(_FAMILY.findall(normalize(text)))
