"""What kind of text a string is: the content classes token accuracy is measured per.

Rules:
1. Six classes: `cjk` (Han, kana, Hangul make up 15% of the visible characters), `json`
   (starts with `{`/`[` and ends with `}`/`]`), `ids` (paths, URLs, hashes, base64 and other
   random-looking runs cover 30% of the visible characters), `listing` (half the lines
   aligned in columns: `ls -la`, tables), `code` (a quarter of the lines look like code),
   and `prose` otherwise.
2. The tests run in that order on the stripped text and the first match wins.
3. Classes describe text for reports and tests; counts do not depend on them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final, Literal, TypeAlias

__all__ = ["CLASSES", "ContentClass", "content_class"]

ContentClass: TypeAlias = Literal["prose", "code", "json", "ids", "listing", "cjk"]
CLASSES: Final[tuple[ContentClass, ...]] = ("prose", "code", "json", "ids", "listing", "cjk")

_CJK: Final = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_ALIGNED: Final = re.compile(r"\S {2,}\S|\t|\|")
_PATHLIKE: Final = re.compile(r"\S*[/\\]\S*[/\\]\S*|\S+:\S+:\S+")
_CODE_LINE: Final = re.compile(
    r"^\s*(?:def |class |return\b|import |from \S+ import|const |let |var |function\b|func "
    r"|fn |if\s*\(|for\s*\(|#include|package |use |SELECT\b|FROM\b|WHERE\b|[-+@]{1,3} |\}"
    r"|.*[;{]\s*$|.*\)\s*:\s*$|.*=>)"
)
_RUNS: Final = re.compile(r"[A-Za-z0-9+/]{10,}")
_HEX: Final = re.compile(r"[0-9a-f]{16,}|[0-9A-F]{16,}")
_CASE_CHANGE: Final = re.compile(r"[a-z](?=[A-Z0-9])|[A-Z](?=[a-z0-9])|[0-9](?=[A-Za-z])")
_LOWER: Final = re.compile(r"[a-z]")
_UPPER: Final = re.compile(r"[A-Z]")


def _visible(text: str) -> int:
    return len(text) - text.count(" ")


def _looks_random(run: str) -> bool:
    """Many case or digit changes per character, long hex, or camelCase-defying capitals."""
    if len(_CASE_CHANGE.findall(run)) >= 0.25 * len(run):
        return True
    if not (_LOWER.search(run) and _UPPER.search(run)):
        return bool(_HEX.fullmatch(run)) and not run.isalpha()
    return len(_UPPER.findall(run)) >= 0.3 * len(run)


def _is_cjk(text: str) -> bool:
    return _CJK.search(text) is not None and len(_CJK.findall(text)) >= 0.15 * _visible(text)


def _is_json(text: str) -> bool:
    return text[0] in "{[" and text[-1] in "}]"


def _is_ids(text: str) -> bool:
    id_chars = sum(map(len, _PATHLIKE.findall(text)))
    id_chars += sum(len(run) for run in _RUNS.findall(text) if _looks_random(run))
    return id_chars >= 0.3 * _visible(text)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


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
