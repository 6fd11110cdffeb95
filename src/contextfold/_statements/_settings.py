"""The settings a statement gives: a thing named beside a number or version ("Node 18",
"port 8080", "3 retries", "the timeout to 30 seconds"), and when a newer one changes them.

Rules:
1. A setting is a key and a value: a plain number or version (not an amount, a date, a
   time, a percentage or part of an identifier) and the word right before it, past at
   most one linking word ("retries to 5", "port is 9090", "batch size of 64"), or right
   after it ("3 retries"). The key is no filler, unit or change word; a capitalized word
   after a word is a name and counts even if filler ("Go 1.22"; "May 20" is a date). A
   noun a number picks one of many by ("issue 42", "Option 2") is no key, and that
   number no value ("Test 6 fails" sets no "fails").
   Keys and words are folded without case or suffix ("retries"/"retry",
   "targeting"/"target", "running"/"run").
2. A newer statement changes an older one's settings when it gives every key the older
   gives, one of them with another value, and names nothing the older does not (its
   words but change words such as "upgraded", "bump", "scale" are all in the older): "We
   upgraded to Postgres 16" changes "We use Postgres 14", "Let's bump retries to 5"
   changes "Max 3 retries per request"; "Use port 5432 for Postgres" names Postgres, so
   "Use port 8080 for the API" still holds, and "We upgraded to Postgres 16" leaves "We
   use Postgres 14 and Redis 6" standing (the newer does not say the Redis one again).
   A permission changes nothing, and a prohibition changes only a prohibition ("Don't
   use Python 2" leaves "Use Python 3.10" standing).
   Two statements that both give settings, none with a key of the other, are about
   different things however many words they share ("Max 3 retries per request", "Max 10
   requests per minute"); so are two that pick different ones of many by the same noun
   and none in common ("Test 5 fails." and "Test 6 fails too."; "Review PR 123." and
   "Review PR 124 as well."), unless both choose ("go with", "pick", "take") and the
   newer adds nothing ("Let's go with option 2." after "Let's go with option 1.").
3. Cheap first: a text without a plain number (one search) gives no setting and is read
   no further; what a text gives is cached per text, as every statement on the card is
   asked again.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .._content_cache import Memo
from ._facts import word_set
from ._statement import kind_of
from ._subjects import FILLER, VALUE_WORDS
from ._values import UPDATE_WORDS, plural_stem

__all__ = ["apart", "has_settings", "newest_changed"]

_PLAIN: Final = r"(?<![\w$€£.:/-])v?\d+(?:\.\d+)*(?![\w%:/-]|\.\d)"
_TOKEN: Final = re.compile(rf"{_PLAIN}|[A-Za-z][\w'+#-]*|[=:]")
"""A plain number or version, a word, or a linking sign, in order (rule 1)."""
_NUMBER: Final = re.compile(r"v?\d+(?:\.\d+)*")
_PLAIN_NUMBER: Final = re.compile(
    r"[\dv](?:(?<=\d)(?<![\w$€£.:/-]\d)\d*(?:\.\d+)*(?![\w%:/-]|\.\d)|(?<=v)\d)"
)
"""A plain number (`_PLAIN` from its first digit, as `_facts` rule 5 says), or a word such
as "v1", anywhere: a text without one has no number token either (rule 3). Both start
with one class of digits and `v`, which the engine skips to (the alternation of a digit's
form and `v` then a digit it tried at every character); test_fast_patterns checks the
plain form."""
_LINKS: Final = word_set("to at of is are = : now")
_CHANGE: Final = UPDATE_WORDS | word_set(
    "upgrade upgraded upgrading downgrade downgraded set scale scaled went allow allowed permit"
)
"""Words that say a change ("upgraded", "bump", "next"), never what changes."""
_COUNTED: Final = word_set(
    """
    issue issues bug bugs ticket tickets pr prs mr test tests line lines chapter chapters
    step steps room rooms flight flights item items row rows column columns section part
    phase task tasks case cases page pages option options seat gate figure table lesson
    exercise question problem file files commit job episode level slide attempt day
    """
)
"""Nouns a number picks one of many by ("issue 42", "Option 2", "test 5"): never a key,
as "Room 102 is free" says nothing against "Room 101 is booked"."""
_NEVER_KEYS: Final = VALUE_WORDS | _CHANGE | _COUNTED
_NOT_KEYS: Final = FILLER | _NEVER_KEYS

Settings = tuple[frozenset[tuple[str, str]], frozenset[str], frozenset[tuple[str, str]]]
"""(key, value) pairs, the folded words beside them, and the (noun, number) pairs that
pick one of many ("issue 42"), all read in one pass (rule 2)."""
_NONE: Final[Settings] = (frozenset(), frozenset(), frozenset())


def _fold(word: str) -> str:
    """`word` without case or suffix (rule 1), to compare two forms of one word."""
    lowered = word.lower()
    word = plural_stem(lowered)
    if word == lowered and len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif word == lowered and len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word


def _key(tokens: list[str], index: int) -> str | None:
    """The key `tokens[index]` is, if it is one (rule 1)."""
    if not 0 <= index < len(tokens):
        return None
    token = tokens[index]
    if not token[0].isalpha() or _NUMBER.fullmatch(token) is not None:
        return None
    lowered = token.lower()
    named = index and token[0].isupper() and tokens[index - 1][0].isalpha()
    if lowered in _NEVER_KEYS or (lowered in FILLER and not named):
        return None  # a name ("Go") may be a filler word, never a unit or a change word
    return _fold(token)


def _read_settings(text: str) -> Settings:
    if _PLAIN_NUMBER.search(text) is None:
        return _NONE  # rule 3
    tokens = _TOKEN.findall(text)
    pairs: set[tuple[str, str]] = set()
    items: set[tuple[str, str]] = set()
    for index, token in enumerate(tokens):
        if _NUMBER.fullmatch(token) is None:
            continue
        value = token.lstrip("v")
        if index and (noun := tokens[index - 1].lower()) in _COUNTED:
            items.add((_fold(noun), value))  # one of many ("test 6 fails"): no setting
            continue
        before = index - 2 if index > 1 and tokens[index - 1].lower() in _LINKS else index - 1
        for key in (_key(tokens, before), _key(tokens, index + 1)):
            if key is not None:
                pairs.add((key, value))
    if not pairs:
        return (frozenset(), frozenset(), frozenset(items)) if items else _NONE
    words = {_fold(t) for t in tokens if t[0].isalpha() and t.lower() not in _NOT_KEYS}
    return frozenset(pairs), frozenset(words - _CHANGE_FOLDS), frozenset(items)


_CHANGE_FOLDS: Final = frozenset(map(_fold, _CHANGE))
"""Change words in any form ("upgrades", "bumping"): never what a statement names."""
_settings: Final = Memo(_read_settings, 1 << 15).__getitem__


def apart(new: str, old: str) -> bool:
    """Whether `new` and `old` are about different things (rule 2): both give settings,
    none with a key of the other, or both pick different ones of many by a noun they
    share and none in common ("Test 6 fails too." is not "Test 5 fails." said again)."""
    mine, _, my_items = _settings(new)
    theirs, _, their_items = _settings(old)
    if mine and theirs and not {key for key, _ in mine} & {key for key, _ in theirs}:
        return True
    if not my_items or not their_items or my_items & their_items:
        return False
    shared = {noun for noun, _ in my_items} & {noun for noun, _ in their_items}
    return bool(shared) and not _rechosen(new, old)


_CHOICE: Final = re.compile(
    r"\b(?:go(?:ing)? with|went with|pick(?:ed|ing)?|choose|chose|chosen|take|took|"
    r"opt(?:ed)? for|settled? on|decided? on|prefer)\b",
    re.IGNORECASE,
)
_ADDED: Final = re.compile(r"\b(?:too|also|as well|another|in addition|plus|and)\b", re.IGNORECASE)


def _rechosen(new: str, old: str) -> bool:
    """Whether `new` picks another one of many where `old` picked one: both choose ("go
    with", "pick", "take"), and `new` adds nothing ("too", "as well")."""
    return (
        _CHOICE.search(new) is not None
        and _CHOICE.search(old) is not None
        and _ADDED.search(new) is None
    )


def has_settings(text: str) -> bool:
    """Whether `text` gives any setting (rule 1)."""
    return bool(_settings(text)[0])


def _changes(new: str, old: str) -> bool:
    """Whether `new` gives what `old` gives with a value changed (rule 2)."""
    mine, my_words, _ = _settings(new)
    theirs, their_words, _ = _settings(old)
    if not mine or not theirs or not my_words <= their_words:
        return False
    my_keys = {key for key, _ in mine}
    return {key for key, _ in theirs} <= my_keys and not theirs <= mine


def newest_changed(said: Sequence[str], new: str) -> int | None:
    """The index of the newest of `said` whose settings `new` gives with a value changed
    (rule 2), of the same polarity ("Don't use Python 2" leaves "Use Python 3.10")."""
    if not has_settings(new):
        return None  # rule 3: most statements give none
    kind = kind_of(new)
    if kind == "permission":
        return None
    for index in range(len(said) - 1, -1, -1):
        old = said[index]
        if _changes(new, old) and (kind == "prohibition") == (kind_of(old) == "prohibition"):
            return index
    return None
