"""The values a sentence states, and what it is about: its subject words, values left out.

Rules:
1. `subject_words` are a sentence's content words with values (and the words inside them:
   "example" of "bob@example.com"), names, filler and update words removed (hyphenated
   words split, plurals folded): what two statements must share to be about the same
   thing, each once, in order (a tuple: cached per text, it holds a fraction of a set's
   memory). `values` are the values it states, verbatim.
2. Speed never changes a result: values are read only from a text with a mark some value
   needs (_VALUE_MARK), and only when more than whether there is one is needed (`names`:
   a number or a name is one), and patterns that would start with a check match their
   first character first (as `_facts` rule 5 says).
3. Subject words leave the values out, but the values are read for that only when a
   token that gives subject words could be one: letters alone, with at most the first a
   capital (or two capitals), are a value only as a name or in a shape that spans a space
   or joins them ("a/b", "x@y").
4. Letters beyond ASCII are letters: a word is read whole ("München", not "M" and
   "nchen"), a capitalized word holding one is a name where an ASCII one would be (after a
   lowercase word or a comma; "José Ñúñez" joined as one), and a word of a script without
   case (東京, 서울) is a name wherever it stands in English text (a sentence all in such a
   script names nothing, as before). ASCII text takes none of these paths, so
   its results and speed are those of the ASCII patterns alone.
All functions are pure and cached by sentence.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from itertools import chain, filterfalse
from operator import attrgetter
from typing import Final

from .._content_cache import Memo, WordMemo
from ._facts import prose_facts, spaced_values, word_set
from ._subjects import FILLER, VALUE_WORDS

_TOKEN: Final = re.compile(
    r"[A-Za-z$\d](?:(?<=[A-Za-z])(?:[A-Za-z0-9_'+#.-]*[A-Za-z0-9+#])?|(?<=\$)\d[\w.,:/$%-]*"
    r"|(?<=\d)[\w.,:/$%-]*)"
)
"""A word, or a number with what sticks to it (rule 2: from its first character)."""
_NUMBER: Final = re.compile(
    r"[$\d](?<![\w.-][$\d])(?:(?<=\$)\d+|(?<=\d)\d*)(?:[.,:/-]\d+)*%?(?!\w)"
)
"""A number or amount, not inside a word (rule 2: from its first character)."""
_NAME: Final = re.compile(
    r"[A-Z](?<=[a-z,;:] [A-Z])(?:[a-z]+(?![a-z]|[^\W\d_A-Za-z])(?:[ -][A-Z][a-z]+(?![a-z]|"
    r"[^\W\d_A-Za-z]))*|[A-Z]\w*(?![\w-]))"
)
"""A capitalized name or an acronym after a lowercase word or a comma (rule 2: from its
first letter)."""
_VALUE_MARK: Final = re.compile(
    r"[\d$€£@/_(:.A-Z-](?:(?<=[\d$€£@/_(])|(?<=:):|(?<=[\w-]\.)[A-Za-z_]|(?<=[A-Za-z\d]-)[A-Za-z\d]"
    r"|(?<=\.)(?<![\w.]\.)[A-Za-z_]|(?<=[a-z\d][A-Z])"
    r"|(?<=[A-Z])(?:[A-Z\d]|(?<=[a-z,;:] [A-Z])[A-Za-z]|rror|xception|arning))"
)
"""What a text with any value has (rule 2): a digit, a currency sign, `@`, `/`, `_`, `(`,
`::`, a dotted or hyphenated name, a dotfile's leading dot (`.env`), a capital after a
letter or digit, two capitals, a name after a lowercase word (`_NAME`), or an error name:
every `_NUMBER`, `_NAME` and `prose_facts` value needs one (`_shapes._SHAPED`,
`_facts._SPACED`, `_facts._NAMED_IN_TEXT`)."""
NO_VALUES: Final[frozenset[str]] = frozenset()
UPDATE_WORDS: Final = word_set(
    """
    actually correction update changed change changes switch switched switching moved move
    instead longer anymore now rather replace replaced replacing raised raise lowered
    lower increased increase decreased decrease reduced reduce extended extend bumped bump
    postponed postpone pushed push back updated new old current currently from going
    forward wait sorry scratch plan plans today week this next
    """
)
"""Words that say a statement is an update, never what it is about (`_settings` too)."""


_WIDE_TOKEN: Final = re.compile(
    r"(?:[^\W_]|\$)(?:(?<=[^\W\d_])(?:[\w'+#.-]*(?:[^\W_]|[+#]))?|(?<=\$)\d[\w.,:/$%-]*"
    r"|(?<=\d)[\w.,:/$%-]*)"
)
"""`_TOKEN` for text beyond ASCII (rule 4): letters of any script are letters."""
_WIDE_RUN: Final = re.compile(r"(?<![\w'’-])[^\W\d_]+(?:[ -][^\W\d_]+)*(?![\w-])")
"""Words of letters in a row (one space or hyphen apart), where a name may be (rule 4)."""
_LATIN: Final = re.compile(r"[A-Za-z]{2}")
"""An English word: a word without case is a name only amid one (text all in another
script is not read for statements at all, so none of its words is a name)."""
_AFTER: Final = re.compile(r"[^\W\d_A-Z][,;:]? $|[,;:] $")
"""What stands before a name: a lowercase word, or a comma (as in `_NAME`)."""


def _wide_names(text: str) -> list[str]:
    """Names that hold a letter beyond ASCII (rule 4): a capitalized run after a lowercase
    word or a comma, and any word of a script without case; [] for ASCII text."""
    if text.isascii():
        return []
    latin = _LATIN.search(text) is not None
    found: list[str] = []
    for run in _WIDE_RUN.finditer(text):
        words = run.group().replace("-", " ").split(" ")
        start = run.start()
        capital = ""
        for word in words:
            if latin and not word.isascii() and word.lower() == word.upper():
                found.append(word)  # a script without case amid English: 東京
            capital = _capital_run(text, start, word, capital, found)
            start += len(word) + 1
        if capital and not capital.isascii():
            found.append(capital)
    return found


def _capital_run(text: str, start: int, word: str, run: str, found: list[str]) -> str:
    """The run of capitalized words `word` (at `start`) continues or starts; a run that
    ends is added to `found` when it holds a letter beyond ASCII."""
    if word[0].isupper() and word[0].lower() != word[0].upper():
        if run:
            return f"{run}{text[start - 1]}{word}"
        return word if _AFTER.search(text, max(0, start - 3), start) else ""
    if run and not run.isascii():
        found.append(run)
    return ""


def names(text: str) -> bool:
    """Whether `text` states a value (`values(text)` is not empty), read without them all
    when a number or a name shows one (rule 2: both are values whenever they match)."""
    if _VALUE_MARK.search(text) is None:
        return bool(_wide_names(text))
    if _NUMBER.search(text) is not None or _NAME.search(text) is not None:
        return True
    return bool(values(text))


def _read_values(text: str) -> frozenset[str]:
    """The values `text` states, verbatim: identifiers, dates, amounts, numbers, names."""
    if _VALUE_MARK.search(text) is None and text.isascii():
        return NO_VALUES  # rule 2: most sentences hold no mark of any value
    return _marked_values(text)


def _marked_values(text: str) -> frozenset[str]:
    """`_read_values` without its gate."""
    found = set(map(_VALUE, prose_facts(text)))
    found.update([number.rstrip(".,") for number in _NUMBER.findall(text)])
    found.update(_NAME.findall(text))
    found.update(_wide_names(text))
    found.discard("")
    return frozenset(found) if found else NO_VALUES


_VALUE: Final = attrgetter("value")


def _read_subject_words(text: str) -> tuple[str, ...]:
    """Content words of `text` without values, names, filler or update words, each once
    (rule 1)."""
    token = _TOKEN if text.isascii() else _WIDE_TOKEN
    tokens = token.findall(text)
    stated = _stated(text, tokens)
    if stated:
        skip = {*stated, *(w for v in stated for w in token.findall(v))}  # an email's parts too
        tokens = list(filterfalse(skip.__contains__, tokens))
    return tuple(dict.fromkeys(chain.from_iterable(map(_word_subjects, tokens))))


def _stated(text: str, tokens: list[str]) -> Collection[str]:
    """`values(text)`, or those of them that can be, or hold, a token of `tokens` that gives
    subject words (rule 3): when every such token is letters alone with at most its first
    one a capital (or two capitals), no value but a name or a shape that spans a space is
    one (a value of a word's shape or a named one has a digit, a mark or more capitals, and
    a number digits), so the values are not read (in text with ASCII digits alone: a run of
    hex letters before another digit is a hash)."""
    known = _VALUES.get(text)
    if known is not None:
        return known
    if _VALUE_MARK.search(text) is None and text.isascii():
        return NO_VALUES
    if (
        not any(map(_unplain, tokens))
        and (text.isascii() or _OTHER_DIGIT.search(text) is None)
        and _JOINED.search(text) is None
    ):
        return [*_NAME.findall(text), *_wide_names(text), *spaced_values(text)]
    return values(text)


def _plain(token: str) -> bool:
    """Letters alone, with at most the first a capital, or two capitals (`_stated`)."""
    return token.isalpha() and (token[1:].islower() or (len(token) == 2 and token.isupper()))


def _read_unplain(token: str) -> bool:
    """Whether `token` gives subject words and is not `_plain` (`_stated`: every token of a
    statement is asked, so the answer is cached per word)."""
    return bool(_word_subjects(token)) and not _plain(token)


_JOINED: Final = re.compile(r"[@/:\\.](?=\w)")
"""Plain words joined into one value ("bob@example.com", "src/app", ".env"): its words are no
subject words, so the values are read (rule 3)."""
_OTHER_DIGIT: Final = re.compile(r"(?![0-9])\d")
"""A digit other than 0-9 (which `\\d` in a shape's pattern also matches): never in ASCII
text, which is not searched (the pattern has no first character to skip to)."""


def _read_word_subjects(word: str) -> tuple[str, ...]:
    """The subject words one token gives, wherever it stands (cached: words recur)."""
    if word.isalpha():  # most tokens: one piece, no digit, no apostrophe
        lowered = word.lower()
        if lowered in _NOT_SUBJECTS:
            return ()
        # a stem shares its key's characters
        stem = plural_stem(word if lowered == word else lowered)
        return (stem,) if len(stem) > 1 and stem not in _NOT_STEMS else ()
    if _has_digit(word):
        return ()
    lowered = word.lower()
    if lowered in FILLER:
        return ()
    out: list[str] = []
    for piece in (lowered,) if lowered.isalpha() else _JOINERS.split(lowered):
        if piece in FILLER or piece in UPDATE_WORDS or "'" in piece:
            continue
        stem = plural_stem(piece)
        if len(stem) > 1 and stem not in FILLER and stem not in VALUE_WORDS:
            out.append(stem)
    return tuple(out)


_JOINERS: Final = re.compile(r"[-_./]")
_NOT_SUBJECTS: Final = FILLER | UPDATE_WORDS
"""Words that are never subject words (one lookup for both tables)."""
_NOT_STEMS: Final = FILLER | VALUE_WORDS
"""Stems that are never subject words."""


def _has_digit(word: str) -> bool:
    """Whether `word` has a digit (a word of letters has none: the classes are disjoint)."""
    return not word.isalpha() and any(map(str.isdigit, word))


def plural_stem(word: str) -> str:
    """`word` without a plural ending ("retries" -> "retry", "ports" -> "port")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


_VALUES: Final = Memo(_read_values, 1 << 15)
values: Final = _VALUES.__getitem__
subject_words: Final = Memo(_read_subject_words, 1 << 15).__getitem__
_word_subjects: Final = WordMemo(_read_word_subjects, 1 << 16).__getitem__
_unplain: Final = WordMemo(_read_unplain, 1 << 16).__getitem__
"""Cached per text (rule 4 of `_content_cache`): cleared by `clear_caches()`."""
