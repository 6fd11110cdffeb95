"""A zero-dependency token estimate, modelled on o200k_base, that errs high.

Rules:
1. Split text the way o200k's pre-tokenizer does: PIECES approximates its regex with the
   standard `re` module (ASCII case classes; other letters fit both case slots). BPE never
   merges across these pieces, so the total is a sum over pieces.
2. Price each piece by what it is (a rules table, not a model): whitespace and digit runs
   cost one token; punctuation runs grow with length; a word costs its lead character (a
   space merges for free, `(` or `"` rarely do) plus its core by case and length, cheaper
   for prose words (after a space) than for identifier parts. Vowel-less and mixed-case
   cores are priced as the random strings they usually are. Letters of other scripts cost
   per character (Han, kana, Hangul, Cyrillic, Greek, accented Latin).
3. Long random-looking alphanumeric runs (ids, hashes, base64) are priced at their measured
   characters per token instead (1.35 for mixed case, 1.55 for single case).
4. The total is scaled by a per-class factor (`content_class`: prose, code, json, ids,
   listing, cjk) and rounded up. Identifier-heavy text and listings carry rarer words than
   the rules assume, so they get factors above 1; bench/heuristic_accuracy.py measures the
   result against exact counts per class.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Final, Literal, TypeAlias

__all__ = ["CLASSES", "ContentClass", "content_class", "count_text", "raw_estimate"]

ContentClass: TypeAlias = Literal["prose", "code", "json", "ids", "listing", "cjk"]
CLASSES: Final[tuple[ContentClass, ...]] = ("prose", "code", "json", "ids", "listing", "cjk")

_UP = r"[^\W\d_a-z]"
_LO = r"[^\W\d_A-Z]"
_LEAD = r"(?:[^\r\n\w]|_)"
_CONTRACTION = r"(?:'(?i:s|t|re|ve|m|ll|d))?"
PIECES: Final = re.compile(
    rf"{_LEAD}?{_UP}*{_LO}+{_CONTRACTION}|{_LEAD}?{_UP}+{_LO}*{_CONTRACTION}"
    r"|\d{1,3}| ?(?:[^\s\w]|_)+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
_RUNS: Final = re.compile(r"[A-Za-z0-9+/]{10,}")
_HEX: Final = re.compile(r"[0-9a-f]{16,}|[0-9A-F]{16,}")

# --- rules table (rule 2) -------------------------------------------------------------------

LEAD_COST: Final[Mapping[str, float]] = {
    " ": 0.0, "_": 0.2, ".": 0.2, "(": 0.4, "[": 0.7, "{": 0.9, "-": 0.45, "'": 0.45,
    '"': 0.9, "`": 0.9, "/": 0.6, "\\": 0.5, "\t": 0.5, ":": 0.7, "*": 0.5, ",": 0.5,
}  # fmt: skip
OTHER_LEAD_COST: Final = 0.9
"""Lead characters not listed (`=`, `<`, CJK punctuation ...) mostly stay separate."""

WORD_RATES: Final[Mapping[str, tuple[int, float]]] = {
    "prose": (8, 5.0),  # after a space: common words, one token up to ~8 letters
    "bare": (6, 4.0),  # line start, camelCase parts, after digits or punctuation
}
"""(knee, letters per extra token) for lower-case and Capitalised cores."""
UPPER_RATE: Final = (2, 2.8)
MIXED_CHARS_PER_TOKEN: Final = 2.7
VOWELLESS: Final = (5, 2.0)
"""(minimum length, chars per token) for cores without a vowel (`drwxr`, `lzswh`)."""

SCRIPT_BASE: Final = 0.75
ASCII_LETTER: Final = 0.22
OTHER_LETTER: Final = 0.3
SCRIPTS: Final[tuple[tuple[int, int, float], ...]] = (
    (0x3040, 0x30FF, 0.67),  # hiragana, katakana
    (0xAC00, 0xD7AF, 0.45),  # hangul syllables
    (0x3400, 0x9FFF, 0.8),  # CJK ideographs
    (0xF900, 0xFAFF, 0.8),  # CJK compatibility ideographs
    (0x0400, 0x04FF, 0.22),  # cyrillic
    (0x0370, 0x03FF, 0.45),  # greek
)
PUNCT_KNEE: Final = 2
PUNCT_EXTRA: Final = 0.35
NON_ASCII_PUNCT: Final = 0.7
REPEAT_CHARS_PER_TOKEN: Final = 20.0
SPACE_RUN: Final = (20, 20.0)
RANDOM_RUN: Final = (0.25, 1.35, 1.55)
"""(case changes per char that mark a run random, chars/token mixed case, single case)."""
ONE_TOKEN: Final = frozenset({"system", "developer", "user", "assistant", "tool"})
"""Role names, one token in every OpenAI encoding."""

CLASS_FACTOR: Final[Mapping[ContentClass, float]] = {
    "prose": 1.0, "code": 1.0, "json": 1.0, "ids": 1.08, "listing": 1.04, "cjk": 1.0,
}  # fmt: skip

_VOWELS: Final = frozenset("aeiouyAEIOUY")


def _letter_cost(char: str) -> float:
    code = ord(char)
    if code < 128:
        return ASCII_LETTER
    for low, high, cost in SCRIPTS:
        if low <= code <= high:
            return cost
    return OTHER_LETTER


def _core_cost(core: str, lead: str) -> float:
    """Tokens for the letters of a word, given the character before them."""
    size = len(core)
    if not core.isascii():
        return max(1.0, SCRIPT_BASE + sum(_letter_cost(c) for c in core))
    if size >= VOWELLESS[0] and _VOWELS.isdisjoint(core):
        return max(1.0, size / VOWELLESS[1])
    if core.islower() or (core[0].isupper() and core[1:].islower()):
        knee, rate = WORD_RATES["prose" if lead == " " else "bare"]
        return 1.0 + max(0, size - knee) / rate
    if core.isupper():
        return 1.0 + max(0, size - UPPER_RATE[0]) / UPPER_RATE[1]
    return max(1.0, size / MIXED_CHARS_PER_TOKEN)


def _punct_cost(piece: str) -> float:
    body = piece.lstrip(" ").rstrip("\r\n/")
    if not body.isascii():
        return max(1.0, sum(NON_ASCII_PUNCT if ord(c) >= 128 else PUNCT_EXTRA for c in body))
    if len(set(body)) <= 1:
        return 1.0 + len(body) / REPEAT_CHARS_PER_TOKEN
    return 1.0 + max(0, len(body) - PUNCT_KNEE) * PUNCT_EXTRA


@lru_cache(maxsize=1 << 16)
def piece_cost(piece: str) -> float:
    """Expected tokens for one pre-tokenizer piece (rule 2)."""
    first = piece[0]
    if piece.isspace():
        return 1.0 + max(0, len(piece) - SPACE_RUN[0]) / SPACE_RUN[1]
    if first.isdigit():
        return 1.0
    if first.isalpha():
        lead, core = "", piece
    elif len(piece) > 1 and piece[1].isalpha():
        lead, core = first, piece[1:]
    else:
        return _punct_cost(piece)
    quote = core.find("'", 1)
    if quote > 0:
        core = core[:quote]
    lead_cost = LEAD_COST.get(lead, OTHER_LEAD_COST) if lead else 0.0
    return lead_cost + _core_cost(core, lead)


_CASE_CHANGE: Final = re.compile(r"[a-z](?=[A-Z0-9])|[A-Z](?=[a-z0-9])|[0-9](?=[A-Za-z])")
_LOWER: Final = re.compile(r"[a-z]")
_UPPER: Final = re.compile(r"[A-Z]")


def _looks_random(run: str) -> tuple[bool, bool]:
    """Whether an alphanumeric run looks random, and whether it mixes lower and upper case.

    Random: many case/digit changes per character, long hex, or (mixed case) a share of
    capitals no camelCase identifier has.
    """
    mixed = bool(_LOWER.search(run) and _UPPER.search(run))
    if len(_CASE_CHANGE.findall(run)) >= RANDOM_RUN[0] * len(run):
        return True, mixed
    if not mixed:
        return bool(_HEX.fullmatch(run)) and not run.isalpha(), mixed
    return len(_UPPER.findall(run)) >= 0.3 * len(run), mixed


@lru_cache(maxsize=8)
def _random_runs(text: str) -> tuple[tuple[str, bool], ...]:
    """Alphanumeric runs that look random, with whether they mix cases (rule 3).

    Cached for the few latest texts: `raw_estimate` and `content_class` both need them, and
    runs never contain whitespace, so the stripped text gives the same runs.
    """
    found = []
    for run in _RUNS.findall(text):
        random, mixed = _looks_random(run)
        if random:
            found.append((run, mixed))
    return tuple(found)


def raw_estimate(text: str) -> float:
    """Expected tokens before slack and class factor (rules 1-3)."""
    total = sum(piece_cost(p) * n for p, n in Counter(PIECES.findall(text)).items())
    for run, mixed in _random_runs(text.strip()):
        per_token = RANDOM_RUN[1] if mixed else RANDOM_RUN[2]
        priced = sum(piece_cost(p) for p in PIECES.findall(run))
        total += max(0.0, len(run) / per_token - priced)
    return total


def count_text(text: str) -> int:
    """Estimated o200k tokens in `text`: raw estimate times class factor, rounded up (rule 4)."""
    if not text:
        return 0
    if text in ONE_TOKEN:
        return 1
    raw = raw_estimate(text)
    return max(math.ceil(raw), round(raw * CLASS_FACTOR[content_class(text)]))


# --- content classes -------------------------------------------------------------------------

_CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_ALIGNED: Final = re.compile(r"\S {2,}\S|\t|\|")
_COLON_ID: Final = re.compile(r"\S+:\S+:\S+")
_CODE_LINE: Final = re.compile(
    r"^\s*(?:def |class |return\b|import |from \S+ import|const |let |var |function\b|func "
    r"|fn |if\s*\(|for\s*\(|#include|package |use |SELECT\b|FROM\b|WHERE\b|[-+@]{1,3} |\}"
    r"|.*[;{]\s*$|.*\)\s*:\s*$|.*=>)"
)


def _visible(text: str) -> int:
    return len(text) - text.count(" ")


def _is_cjk(text: str) -> bool:
    return _CJK.search(text) is not None and len(_CJK.findall(text)) >= 0.15 * _visible(text)


def _is_json(text: str) -> bool:
    return text[0] in "{[" and text[-1] in "}]"


def _pathlike_chars(text: str) -> int:
    """Characters in whitespace-separated words with two path separators or `a:b:c` form.

    Same total as scanning with `\\S*[/\\\\]\\S*[/\\\\]\\S*|\\S+:\\S+:\\S+`, whose matches are
    always whole words, without that pattern's quadratic backtracking on long words.
    """
    return sum(
        len(word)
        for word in text.split()
        if word.count("/") + word.count("\\") >= 2
        or (word.count(":") >= 2 and _COLON_ID.fullmatch(word) is not None)
    )


def _is_ids(text: str) -> bool:
    id_chars = _pathlike_chars(text)
    id_chars += sum(len(run) for run, _ in _random_runs(text))
    return id_chars >= 0.3 * _visible(text)


@lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    """Non-blank lines, stripped (cached: the listing and code tests both read them)."""
    return tuple(line.strip() for line in text.splitlines() if line.strip())


def _is_listing(text: str) -> bool:
    lines = _lines(text)
    return len(lines) >= 3 and sum(bool(_ALIGNED.search(x)) for x in lines) >= 0.5 * len(lines)


def _is_code(text: str) -> bool:
    lines = _lines(text)
    return len(lines) >= 2 and sum(bool(_CODE_LINE.match(x)) for x in lines) >= 0.25 * len(lines)


_CLASS_TESTS: Final[tuple[tuple[ContentClass, Callable[[str], bool]], ...]] = (
    ("cjk", _is_cjk),
    ("json", _is_json),
    ("ids", _is_ids),
    ("listing", _is_listing),
    ("code", _is_code),
)
"""Checked in order on the stripped text; the first match wins, `prose` otherwise."""


def content_class(text: str) -> ContentClass:
    """The dominant kind of content in `text`."""
    stripped = text.strip()
    if stripped:
        for name, test in _CLASS_TESTS:
            if test(stripped):
                return name
    return "prose"
