"""The shape of one word: which identifier or value it is, if any.

Rules:
1. A word is a URL, or a run of characters that are not separators (`1,250` is one word,
   and so is a call `f()`). Words never span a space.
2. Shapes are tried in SHAPES order and the first that matches the whole word (past its
   trailing punctuation) wins, so a URL is not also read as a path and a date is not a
   number; a word no shape matches whole is searched for shapes inside it. Hyphenated or
   dotted names with a digit or a capital (`build-F1-3F9A.internal`, `archive-R1-3F9A`, a
   UUID) are one value (`slug`), never their pieces; a dotfile (`.env`, `.env.local`) keeps
   its leading dot. Values are quoted verbatim.
3. Speed never changes what is found (as `_facts` rule 5 says): a word too short for a
   value is not read, one with no mark of any shape (_SHAPED) is not searched inside (a
   word matched whole has one, so the mark is looked for only before the search), bare
   digits are a `number` without matching, lowercase letters followed by nothing but
   punctuation are read for nothing (every shape needs a digit, a capital, a character
   that is neither a letter nor punctuation, or a `.` or `:` with letters after it), a
   word is matched whole only against the shapes that can start as it does and find the
   characters they need in it (`_NEEDS`) and searched inside only for shapes that can
   find theirs (`_RARE`), and text with no URL and no `,ddd` is split into words in C (a
   Python step per `()`, not per word). Patterns are compiled at import, never per word.
   tests/statements/test_fast_patterns.py checks each against the plain form.
"""

from __future__ import annotations

import re
from typing import Final

DOTFILE: Final = (
    r"\.(?<![\w.]\.)(?:(?:env|git|github|gitlab|gitattributes|gitmodules|venv|tox|nox|vscode|idea"
    r"|ssh|aws|kube|docker|terraform|circleci|husky|cargo|npm|yarn|pnpm|config|cache|coverage"
    r"|hypothesis|devcontainer|DS_Store|htaccess|editorconfig|flake8|python-version"
    r"|(?:mypy|pytest|ruff|jest|eslint|parcel)_cache)(?:[.-][\w-]+)*"
    r"|[a-z][\w-]+rc(?:\.[\w-]+)*|[a-z][\w-]*ignore"
    r"|[a-z][\w-]*\.(?:ya?ml|json|toml|cfg|ini|conf|lock))(?![\w(-]|\.[\w-])"
)
"""A dotfile or dot-folder by its name (`.env`, `.env.local`, `.gitignore`, `.npmrc`,
`.pre-commit-config.yaml`, `.mypy_cache`): known names and the `rc`, `ignore` and
config-file forms. Other words that start with a dot (`.join`, `.__name__`) are attribute
references in code, read as before."""


SHAPES: Final = (
    ("url", "h", r"https?://[^\s<>\"'`)\]]+"),
    ("email", r"[\w.+-]", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    ("test", r"[\w./-]", r"[\w./-]+\.py::[\w:\[\].-]+"),
    ("date", r"\d", r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?"),
    ("time", r"\d", r"\d{1,2}(?::\d{2})?[AaPp]\.?[Mm]\.?|\d{1,2}:\d{2}(?::\d{2})?"),
    ("money", r"[$€£]", r"[$€£]\d[\d,]*(?:\.\d+)?"),
    ("path", r"[~./\w-]", r"(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*/?|[\w.-]+(?:/[\w.-]+)+"),
    ("dotfile", r"\.", DOTFILE),
    ("error", r"[A-Za-z_]", r"(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning)"),
    (
        "file",
        r"[\w-]",
        r"[\w-]+\.(?:py|pyi|js|jsx|ts|tsx|json|md|rst|txt|ya?ml|toml|cfg|ini|rs|go|java|c|h"
        r"|cc|cpp|hpp|sh|html|css|sql|rb|php|ipynb|csv|xml|lock|log)",
    ),
    (
        "slug",
        r"[A-Za-z\d]",
        r"(?=[\w.-]*[A-Z\d])[A-Za-z\d]+(?:\.[A-Za-z\d]+)*(?:-[A-Za-z\d]+(?:\.[A-Za-z\d]+)*)+",
    ),
    ("version", r"[v\d]", r"v\d+(?:\.\d+)+|\d+(?:\.\d+){2,3}"),
    ("symbol", r"[A-Za-z_]", r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z_]\w*\(\)"),
    (
        "quantity",
        r"\d",
        r"\d+(?:\.\d+)?(?:%|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?"
        r"|years?|[kKmMgG]i?[bB]|tokens?|bags?|passengers?|lines?)",
    ),
    ("identifier", r"[_A-Za-z]", r"_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+|_+[A-Za-z]\w*"),
    ("class", r"[A-Za-z]", r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*[A-Z]\w*"),
    ("hash", r"[0-9a-f]", r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}"),
    ("code", r"[A-Z\d]", r"[A-Z][A-Z0-9]{2,11}|\d+[A-Z][A-Z0-9]+"),
    ("alnum", r"[A-Za-z]", r"[A-Za-z]+\d+[A-Za-z0-9]*"),
    ("number", r"\d", r"\d[\d,]{2,}(?:\.\d+)?"),
)
"""Shapes of one word as (role, the characters a match can start with, pattern), tried in
order: the first that matches the whole word wins."""


def _alternation(rows: tuple[tuple[str, str, str], ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?P<{role}>{pattern})" for role, _, pattern in rows))


_SHAPES: Final = _alternation(SHAPES)
_FIRST: Final = {
    "0": "0123456789",
    "a": "abcdefghijklmnopqrstuvwxyz",
    "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
}
"""Classes of a word's first character with shapes of their own (rule 3): ASCII digits,
lowercase and capitals; a word that starts otherwise is matched against every shape."""


_ROWS: Final = tuple((row[0], row[1], _alternation((row,))) for row in SHAPES)
"""Each shape alone: (role, the characters it can start with, its pattern as one group)."""
_NEEDS: Final = {
    "url": "/",
    "email": "@",
    "test": ":",
    "date": "-",
    "time": ":Mm",
    "path": "/",
    "dotfile": ".",
    "error": "EW",
    "file": ".",
    "slug": "-",
    "version": ".",
    "symbol": ".(",
    "identifier": "_",
}
"""Shapes that need one of these characters outside any optional part of their pattern
(`Error`, `Exception` and `Warning` start with E or W): a word with none is not tried."""
_MARKS: Final = frozenset("".join(_NEEDS.values()))
_RARE: Final = "/-:@"
"""Marks most words lack; the shapes that need one of them alone are left out of the
search inside a word with none (`_inner`)."""
_WITHOUT_RARE: Final = _alternation(
    tuple(row for row in SHAPES if row[0] not in _NEEDS or not set(_NEEDS[row[0]]) <= set(_RARE))
)
_CAPITALS: Final = frozenset({"class", "code"})
"""Shapes that need an ASCII capital, which a word that `str.islower` has not."""
_TRIED: Final[dict[tuple[str, frozenset[str], bool], tuple[re.Pattern[str], ...]]] = {}
"""The shapes a word is tried against, by its first character's class, the _MARKS it has
and whether it is lowercase (a few hundred keys on the whole corpus; bounded)."""
_MAX_TRIED: Final = 1 << 12


def _shapes_for(first: str, marks: frozenset[str], lower: bool) -> tuple[re.Pattern[str], ...]:
    """SHAPES, in order, that can start with a character of class `first` ("" for any) and
    find what they need in a word with `marks` (lowercase when `lower`)."""
    key = (first, marks, lower)
    found = _TRIED.get(key)
    if found is None:
        if len(_TRIED) >= _MAX_TRIED:
            _TRIED.clear()
        found = _TRIED[key] = tuple(
            pattern
            for role, start, pattern in _ROWS
            if (not first or re.search(start, _FIRST[first]))
            and (role not in _NEEDS or not marks.isdisjoint(_NEEDS[role]))
            and not (lower and role in _CAPITALS)
        )
    return found


def _whole_shape(word: str) -> re.Match[str] | None:
    """`_SHAPES.fullmatch(word)` (rule 3): each shape alone, in order, tried only if it can
    start as the word does and finds the characters it needs in it; the first that matches
    the whole word wins, as it does in the alternation."""
    first = word[:1]
    if "0" <= first <= "9":
        first = "0"
    elif "a" <= first <= "z":
        first = "a"
    elif "A" <= first <= "Z":
        first = "A"
    else:
        first = ""
    key = (first, _MARKS.intersection(word), word.islower())
    for pattern in _TRIED.get(key) or _shapes_for(*key):
        match = pattern.fullmatch(word)
        if match is not None:
            return match
    return None


_ALIASES: Final = {"alnum": "identifier"}
_WORD: Final = re.compile(
    r"https?://[^\s<>\"'`)\]]+"
    r"|[^\s,;()\[\]{}<>\"'`=|*!?]+(?:,(?=\d{3})[^\s,;()\[\]{}<>\"'`=|*!?]+)*(?:\(\))?"
)
"""A word: a URL, or a run of characters that are not separators (`1,250` is one word)."""
_SEPARATORS: Final = bytes.maketrans(b",;()[]{}<>\"'`=|*!?", b" " * 18)
"""_WORD's separators other than spaces, each turned into a space (in ASCII bytes: a table
of 256 is one lookup a byte, where `str.translate` looks each character up in a dict)."""
_THOUSANDS: Final = re.compile(r",\d{3}")
_INTERESTING: Final = re.compile(r"[\d_/.@$€£~:A-Z](?:(?<![A-Z])|(?<=.[A-Z]))")
"""A digit or one of `_/.@$€£~:`, or a capital after any character: what a word needs for
any shape (rule 3; only whether there is one is asked). One class first, which the engine
skips to (the plain `[...]|.[A-Z]` it tried at every character)."""
_SHAPED: Final = re.compile(
    r"\d|[$€£@/]|::|Error|Exception|Warning|[\w-]\.[A-Za-z_]|\.(?<![\w.]\.)[A-Za-z_]|\w\("
    r"|[A-Za-z\d]-[A-Za-z\d]"
    r"|_[A-Za-z]|[A-Za-z\d]_|[a-z\d][A-Z]|[A-Z][A-Z\d]"
)
"""What a word with any _SHAPES match has (rule 3): a digit, a currency sign, `@`, `/`,
`::`, an error name, a dotted name or a dotfile's leading dot (`.env`), a call, a hyphen
between letters or digits, an underscore next to a letter, or a capital after a letter,
digit or capital. A word with none is not searched (long runs of dots cost the full
search time squared)."""
_CAPS_WORDS: Final = frozenset(
    """
    AND THE NOT YES FOR BUT ALL ANY ARE CAN DON HAS HAVE THIS THAT WITH YOU YOUR NOTE
    PLEASE THANK THANKS ONLY MUST NEVER ALWAYS IMPORTANT OBSERVATION STOP
    """.split()  # noqa: SIM905 - a word table written as prose, like `_facts.word_set`
)
"""Capitalized words that are not codes."""
PUNCTUATION: Final = ".,;:!?'\"*"
_TRAILING: Final = PUNCTUATION + ")]}"
_MIN_VALUE: Final = 3
_MAX_VALUE: Final = 160


def words(text: str) -> list[str]:
    """`_WORD.findall(text)`, split in C where that is the same (rule 3): text with no URL
    and no `,ddd` is its runs of characters that are not separators, each with the `()`
    that touches it (`f()x` is `f()` and `x`; a `()` that touches no run is no word)."""
    if "http" in text or _CALL in text or _THOUSANDS.search(text):
        return _WORD.findall(text)
    if "()" not in text:
        return _spaced(text).split()
    *before, last = _spaced(text.replace("()", _CALL)).split(_CALL)
    out: list[str] = []
    for segment in before:
        found = segment.split()
        if segment and not segment[-1].isspace():
            found[-1] += "()"
        out += found
    out += last.split()
    return out


_CALL: Final = "\x01"
"""Stands for `()` while text is split: neither a space nor a separator."""


def _spaced(text: str) -> str:
    """`text` with each separator a space. The separators are ASCII, so this translates its
    UTF-8 bytes (surrogates too), and `str.split` knows the spaces `\\s` does."""
    data = text.encode("utf-8", "surrogatepass").translate(_SEPARATORS)
    return data.decode("utf-8", "surrogatepass")


def shapes(word: str) -> list[tuple[str, str]]:
    """(role, value) for the shapes in one word (rule 2)."""
    if len(word) < _MIN_VALUE or _INTERESTING.search(word) is None:
        return []  # a value is part of the word, and `_clean` drops the short ones
    stripped = word.rstrip(PUNCTUATION)
    if stripped.isdigit() and stripped.isascii() and _MIN_VALUE <= len(stripped) <= _MAX_VALUE:
        return [("number", stripped)]  # no shape before `number` matches bare digits whole
    if stripped.isalpha() and stripped.islower():
        return []  # lowercase letters, then punctuation: no shape matches anywhere in it
    whole = _whole_shape(stripped)
    if whole is not None:  # a match in `stripped`: _SHAPED would find its mark (rule 3)
        role = whole.lastgroup or "value"
        role = _ALIASES.get(role, role)
        value = _clean(stripped, role)  # `whole.group()` is `stripped`
        return [] if value is None else [(role, value)]
    if _SHAPED.search(word) is None:
        return []
    out: list[tuple[str, str]] = []
    for match in _inner(word):
        role = _ALIASES.get(match.lastgroup or "value", match.lastgroup or "value")
        value = _clean(match.group(), role)
        if value is not None:
            out.append((role, value))
    return out


def _inner(word: str) -> list[re.Match[str]]:
    """`_SHAPES.finditer(word)` (rule 3): a shape that needs a mark the word lacks matches
    nowhere in it, so leaving it out changes no match; the shapes that need one of _RARE
    (paths, slugs, tests, e-mails), which cost the most on a long run of `[\\w.-]`, are
    left out of the search inside a word with none."""
    pattern = _WITHOUT_RARE if _RARE_CHARS.isdisjoint(word) else _SHAPES
    return list(pattern.finditer(word))


_RARE_CHARS: Final = frozenset(_RARE)


def _clean(raw: str, role: str) -> str | None:
    value = raw.rstrip(_TRAILING if role in {"url", "path", "time"} else PUNCTUATION).strip()
    if len(value) < _MIN_VALUE or len(value) > _MAX_VALUE:
        return None
    if role == "code" and value in _CAPS_WORDS:
        return None
    if role == "path" and not _path_like(value):
        return None
    if role == "symbol" and _false_symbol(value):
        return None
    if role == "slug" and _COMPOUND.fullmatch(value) is not None:
        return None
    return value


_COMPOUND: Final = re.compile(r"\d+(?:-[a-z]+)+|\d+-\d+")
"""A number-word compound (`24-hour`, `64-bit`) or a range (`3-4`): not a name."""


_DOTTED_HEAD: Final = re.compile(r"\.[A-Za-z_][\w-]*/")


def _path_like(value: str) -> bool:
    if value.startswith(("/", "~/", "./", "../")):
        return any(map(str.isalpha, value)) and "//" not in value
    if _DOTTED_HEAD.match(value) is not None:
        return True  # under a dotfile or dot-folder: `.github/workflows`
    head, _, last = value.rpartition("/")
    if value.count("/") >= 2 or ("." in last and not last.endswith(".")):
        return True
    return (
        head in _TOP_FOLDERS and len(last) > 1 and last.replace("_", "").replace("-", "").isalnum()
    )


_TOP_FOLDERS: Final = frozenset(
    """
    src lib libs app apps test tests spec specs docs doc bin cmd pkg internal vendor config
    configs scripts examples migrations fixtures feat feature fix bugfix hotfix release
    """.split()  # noqa: SIM905 - a word table written as prose, like `_facts.word_set`
)
"""Folders a one-slash relative path starts with ("tests/unit", "src/api"; git branch
prefixes, "feat/login"): without one, "and/or" or "read/write" is no path."""


def _false_symbol(value: str) -> bool:
    parts = value.removesuffix("()").split(".")
    return len(parts) > 1 and max(map(len, parts)) < 3
