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
from ._facts import normalize, word_set
from ._kinds import UPDATE_LEAD, is_pick, replaced_values
from ._retractions import is_retraction
from ._statement import Statement, core_words
from ._values import plural_stem, values

__all__ = ["best_match", "by_value", "is_retraction_text", "own_words"]


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
    kinds = _value_kinds(new.text) - _VAGUE
    best: tuple[int, int] | None = None
    for index, old in enumerate(current):
        theirs = core_words(old.text)
        named = len(gone & _keys_of(old.text)) + len(gone.intersection(theirs)) if gone else 0
        named += len(words & _name_words(old.text))  # "Marta left" names "Marta Ruiz"
        shared = len(words.intersection(theirs))
        if family and (words.issubset(theirs) or words.issuperset(theirs)):
            shared += len(family & _families(old.text))  # "the budget was raised to $800"
        if not named and not shared:
            continue
        alike = bool(kinds & _value_kinds(old.text))
        if not named and shared < 2 and _weak(words, theirs, head, kinds, alike):
            continue
        score = 8 * named + 2 * shared + alike
        if best is None or score >= best[0]:
            best = (score, index)
    return None if best is None else best[1]


_VAGUE: Final = frozenset({"number", "name"})
"""Value kinds too common to say what an update is about."""


def _weak(
    words: frozenset[str],
    theirs: tuple[str, ...],
    head: str | None,
    kinds: frozenset[str],
    alike: bool,
) -> bool:
    """Whether one shared word is too little (rule 1): one of several ("write"), unless it
    is a choice's head or both state a URL, email or path; and one word with a date, time,
    amount or version the older does not state a value of its kind for ("moved my flight
    to May 14" is not "Neither of those flights work for me")."""
    if kinds and not alike:
        return True
    return (
        min(len(words), len(theirs)) > 1
        and head not in theirs
        and not (alike and bool(kinds & _SHAPED))
    )


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


def _read_name_words(text: str) -> frozenset[str]:
    """The words of the names among `text`'s values, as subject words ("marta")."""
    found = [v for v in values(text) if _NAMED.fullmatch(v) and " " in v]
    return frozenset(w.casefold() for v in found for w in v.split()) if found else frozenset()


_name_words: Final = Memo(_read_name_words, 1 << 15).__getitem__


def _read_keys(text: str) -> frozenset[str]:
    return _value_keys(values(text))


_keys_of: Final = Memo(_read_keys, 1 << 15).__getitem__
"""`_value_keys(values(text))`, cached: every update asks it of every statement on the card."""


_DATE: Final = (
    r"\d{4}-\d{2}-\d{2}|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|"
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?"
)
_VALUE_KINDS: Final = (
    ("date", re.compile(rf"(?<![\w.])(?:{_DATE})(?!\w)")),
    ("time", re.compile(r"(?<![\w.:])\d{1,2}(?::\d{2}\s?(?:[ap]\.?m\b\.?)?|\s?[ap]\.?m\b\.?)")),
    ("money", re.compile(r"[$€£]\d[\d,.]*\d|[$€£]\d")),
    ("version", re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?![\w%])")),
    ("percent", re.compile(r"(?<![\w.])\d[\d.]*\s?(?:%|percent\b)")),
    ("url", re.compile(r"\bhttps?://\S+")),
    ("email", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")),
    ("path", re.compile(r"(?<![\w/])~?\.{0,2}/[\w.-]+(?:/[\w.-]+)*|\b[\w.-]+(?:/[\w.-]+)+")),
)
"""Values distinctive enough to say what an update without subject words is about (rule
2): a date (a weekday, "May 20th"), a time of day, an amount of money, a version, a
percentage; then a count by its unit ("400 words", "4 nights") and a bare number."""
_COUNT: Final = re.compile(r"(?<![\w.,$€£/:-])\d[\d,]*(?:\.\d+)?(?:\s([a-z]+))?(?![\w%])")
_NAMED: Final = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_AMOUNTS: Final = frozenset({"money", "percent"})
_HEADS: Final = dict.fromkeys(
    ("people", "persons", "guests", "attendees", "participants", "pax", "heads", "adults"),
    "people",
)
"""Units that all count people ("40 guests", "55 people confirmed")."""
_SHAPED: Final = frozenset({"url", "email", "path"})
"""Kinds of value that, stated by both, make one shared word enough (rule 1)."""
_NOT_UNITS: Final = word_set(
    """
    am pm and or to of in at on is are was for the a an per by from with if so but as it
    that this then than max min maximum minimum tops total each more less instead please
    now too also only here there today tomorrow tonight not no
    """
)


def _read_value_kinds(text: str) -> frozenset[str]:
    """The kinds of value `text` states (`_VALUE_KINDS`, then "count:<unit>", "number"
    and, for a value that is a capitalized name alone, "name")."""
    found: set[str] = set()
    rest = text
    for kind, shape in _VALUE_KINDS:
        if shape.search(rest) is not None:
            found.add(kind)
            rest = shape.sub(" ", rest)
    for match in _COUNT.finditer(rest):
        unit = _unit(match.group(1))
        found.add(f"count:{unit}" if unit else "number")
    if any(_NAMED.fullmatch(v) and _DAY_OR_MONTH.match(v) is None for v in values(text)):
        found.add("name")
    return frozenset(found)


def _unit(word: str | None) -> str:
    """The unit a count is in ("4 nights" -> "night"), or "" when the word after the
    number is none: a count's unit is plural or an abbreviation ("my 7447 card" is an id)."""
    if not word or word in _NOT_UNITS:
        return ""
    word = _HEADS.get(word, word)
    if word in _ABBREVIATIONS or word == "people":
        return word
    return _stem_value(word) if len(word) > 3 and word.endswith("s") else ""


_ABBREVIATIONS: Final = word_set("kb mb gb tb ms kg km mi lb px pt hrs mins secs")


def own_words(text: str) -> int:
    """How many subject words `text` has beyond the units its counts are in ("55 people
    confirmed" has one: "confirmed")."""
    words = core_words(text)
    if not words:
        return 0
    units = {_unit(m.group(1)) for m in _COUNT.finditer(text)}
    return sum(_stem_value(word) not in units for word in words)


_DAY_OR_MONTH: Final = re.compile(
    r"(?:(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|"
    r"Nov|Dec)[a-z]*)$"
)
_value_kinds: Final = Memo(_read_value_kinds, 1 << 15).__getitem__


def by_value(current: list[Statement], new: Statement, *, alone: bool = True) -> int | None:
    """The newest statement with a value of a kind `new` states ("Actually, make it 3.12"
    after "The python version must be 3.11"), when `new` names no old value either. An
    update with subject words of its own (`alone` false) that matched nothing must state a
    date, time, amount, version or count of one unit: a bare number or a name is not enough
    to say what it is about, and naming a family ("the budget for the hotel") it says which
    one, so is no other one's update. A bare number said alone ("Actually make it 650") replaces the
    newest amount (money, a percentage or a count of a unit; a bare number may be a
    request's index, "Request 2: ...")."""
    kinds = _value_kinds(new.text)
    if not alone:
        if _families(new.text):
            return None  # "the budget for the hotel": another budget than the card's
        kinds = kinds - {"number", "name"}
    if not kinds or replaced_values(new.text):
        return None
    if kinds != {"number"}:
        return _newest_of(current, kinds)
    for index in range(len(current) - 1, -1, -1):
        theirs = _value_kinds(current[index].text)
        if theirs & _AMOUNTS or any(kind.startswith("count:") for kind in theirs):
            return index
    return None


def _newest_of(current: list[Statement], kinds: frozenset[str]) -> int | None:
    for index in range(len(current) - 1, -1, -1):
        if kinds & _value_kinds(current[index].text):
            return index
    return None


_FAMILY: Final = re.compile(r"\b(?:budget|deadline)\b")


def _families(text: str) -> frozenset[str]:
    """The rule families an update names by their noun ("the deadline moved to ..."): cue
    words, so never subject words, yet what an update without other words is about."""
    return frozenset(_FAMILY.findall(normalize(text)))
