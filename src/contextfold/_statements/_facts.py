"""Deterministic fact extraction from text, shared by the ledger and the card (JSON leaves:
`_json_leaves`).

Rules:
1. A fact is a (role, value) pair. `named` facts take their role from a name the data
   gave (a JSON key, "my user ID is X"); the others take it from the value's shape
   (path, date, money, error type, ...). Values are quoted verbatim, never rewritten.
2. A value's shape is read word by word (`_shapes`); shapes that span a space (`May 20th`,
   `11 AM`) and named values are read in prose only.
3. Quoted material inside a user message (tagged blocks like `<pr_description>`, code
   fences, HTML comments, `>` quotes) is a document the user pasted, not their words:
   `outside_quotes` removes it for callers that need the user's own sentences.
4. Everything is a pure function of its input: no clock, no randomness, no set order.
5. Speed never changes what is found. The regex engine skips fast only to a leading
   character set, so a pattern that would start with a check (a word boundary, a
   lookbehind) matches its first character first and makes the check behind it; the plain
   form of each is in tests/statements/test_fast_patterns.py, which checks that both find
   the same matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, fields
from itertools import chain, islice
from typing import Final

from .._content_cache import ContentCache, Memo, WordMemo
from ._shapes import PUNCTUATION, shapes, words


def word_set(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text` (for word tables written as prose)."""
    return frozenset(text.split())


def word_order(text: str) -> dict[str, int]:
    """Each whitespace-separated word of `text` mapped to its position."""
    return {word: i for i, word in enumerate(text.split())}


@dataclass(frozen=True, slots=True)
class Fact:
    """One identifier or value found in text or data."""

    role: str
    """What the value is: a JSON key (`reservation_id`) or a shape (`path`, `date`)."""
    value: str
    named: bool = False
    """True when the role came from a name in the data rather than the value's shape."""


_SPACED: Final = re.compile(
    r"""
    [JFMASOND\d](?<!\w.)  # rule 5: the first character at a word start, the rest after it
    (?:(?P<date>(?:(?<=J)(?:an|un|ul)|(?<=F)eb|(?<=M)(?:ar|ay)|(?<=A)(?:pr|ug)|(?<=S)ep
        |(?<=O)ct|(?<=N)ov|(?<=D)ec)[a-z]{0,6}\.?[ ]\d{1,2}(?:st|nd|rd|th)?\b(?:,?[ ]\d{4})?)
  | (?P<time>(?<=\d)\d?(?::\d{2})?[ ][AaPp]\.?[Mm]\b(?:[ ](?:[ECMP][SD]T|UTC|GMT)\b)?)
  | (?P<quantity>(?<=\d)\d*(?:\.\d+)?[ ](?:%|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?|days?
        |weeks?|months?|years?|[kKmMgG]i?[bB]|tokens?|bags?|passengers?|lines?)(?!\w)))
    """,
    re.VERBOSE,
)
"""Shapes that span a space (`May 20th`, `11 AM`, `3 bags`), looked for in prose only."""

_NAMED_HINT: Final = re.compile(
    r"[icnep](?<!\w.)(?:(?<=i)ds?|(?<=n)umbers?|(?<=c)odes?|(?<=e)(?:mail|nding)|(?<=p)ort)\b"
)
"""A word `_NAMED_IN_TEXT` needs, in lowercased text: without one, it is not run."""
_SCAN_HEAD: Final = 6000
_SCAN_TAIL: Final = 2000

_NAMED_IN_TEXT: Final = re.compile(
    r"[IiNnCcEePp](?<!\w.)"  # rule 5: a group ends where the name does, which starts here
    r"(?:(?P<kind>(?<=I)D|(?<=[Ii])[Dd]s?|(?<=[Nn])umbers?|(?<=[Cc])odes?|(?<=[Ee])mail)"
    r"\s*(?:is|was|are|:|=|#)\s*\**`?(?P<value>[\w.@/+-]*\d[\w.@/+-]*|[A-Z0-9]{5,})"
    r"|(?P<ending>(?<=[Ee])nding (?:in|with)|(?<=[Pp])ort) \**(?P<digits>\d{2,6})\b)"
)
_ROLE_BEFORE: Final = re.compile(r"(?:\b([A-Za-z]+)\s+)?\b([A-Za-z]+)\s+$")
_ROLE_SKIP: Final = word_set(
    """
    my the your our his her their a an new this that is and
    """
)


FACTS_CACHE: Final = 1 << 15
"""Texts whose facts are remembered (bounded: about one per message of a large history)."""


def _normalize(text: str) -> str:
    """Text folded for comparison: lowercase, straight quotes, single spaces, no end dots."""
    folded = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    folded = folded.replace("\u201d", '"').lower()
    return " ".join(folded.split()).strip(" .!;,")


NORMALIZED: Final = Memo(_normalize, 1 << 16)
normalize: Final = NORMALIZED.__getitem__
"""`_normalize`, cached: statements are compared with every other one on the card."""


def text_facts(text: str, *, prose: bool = True) -> list[Fact]:
    """Identifier-like values in `text`: named ones, then spaced ones, then by word.

    `prose` (user and agent text) also reads named values ("my user ID is X") and shapes
    that span a space (a word's value inside one of those is not repeated); tool output is
    read word by word, head and tail only when long.
    """
    return list(_PROSE_FACTS(text) if prose else _data_facts(text))


def prose_facts(text: str) -> tuple[Fact, ...]:
    """`text_facts(text)`, as the tuple every caller shares (read-only)."""
    return _PROSE_FACTS(text)


def spaced_values(text: str) -> list[str]:
    """The values of `prose_facts(text)` whose shapes span a space (`May 20th`, `11 AM`,
    `3 bags`), in order."""
    return [m.group() for m in _SPACED.finditer(text)]


def _data_facts(text: str) -> tuple[Fact, ...]:
    if len(text) > _SCAN_HEAD + _SCAN_TAIL:
        text = f"{text[:_SCAN_HEAD]}\n{text[-_SCAN_TAIL:]}"
    return tuple(_words_facts(text))


def _prose_facts(text: str) -> tuple[Fact, ...]:
    named = _NAMED_HINT.search(text.lower()) is not None
    facts = [Fact(r, v, True) for r, v in _named_in_text(text)] if named else []
    spaced = [Fact(m.lastgroup or "value", m.group()) for m in _SPACED.finditer(text)]
    facts += spaced
    words = list(_words_facts(text))
    if spaced:
        joined = "\0".join(s.value for s in spaced)  # `in joined`: in one of them (no NUL)
        words = [
            f
            for f in words
            if not (f.value in joined if "\0" not in f.value else _in_any(f.value, spaced))
        ]
    return (*facts, *words)


def _words_facts(text: str) -> Iterator[Fact]:
    """The facts of each word of `text` in order (iterated in C: texts have many words); a
    closing tag's name (`</system-reminder>`) is markup, not the path `/system-reminder`."""
    if "</" in text:
        text = text.replace("</", "< ")
    return chain.from_iterable(map(_word_facts, words(text)))


def _read_word(word: str) -> tuple[Fact, ...]:
    """The shapes in one word."""
    found = shapes(word)
    return tuple([_shape_fact(role, value) for role, value in found]) if found else ()


_SET_ROLE, _SET_VALUE, _SET_NAMED = (getattr(Fact, f.name).__set__ for f in fields(Fact))


def _shape_fact(role: str, value: str) -> Fact:
    """`Fact(role, value)`, each slot set once (the frozen `__init__` sets each through
    `object.__setattr__` by name): words are read by the ten thousand."""
    fact: Fact = object.__new__(Fact)
    _SET_ROLE(fact, role)
    _SET_VALUE(fact, value)
    _SET_NAMED(fact, False)
    return fact


_word_facts: Final = WordMemo(_read_word, 1 << 16).__getitem__
"""The facts of one word (cached: the same words recur across a conversation)."""


def _in_any(value: str, spaced: list[Fact]) -> bool:
    return any(value in s.value for s in spaced)


_PROSE_FACTS: Final = ContentCache(_prose_facts, FACTS_CACHE)
"""Facts of prose per text, across calls (tool output is cached by `tool_facts`)."""


def _named_in_text(text: str) -> Iterator[tuple[str, str]]:
    """(role, value) for "my user ID is X", "reservation number: X" and the like."""
    for match in _NAMED_IN_TEXT.finditer(text):
        before = _ROLE_BEFORE.search(text, max(0, match.start() - 40), match.start())
        words = [w.lower() for w in before.groups() if w] if before else []
        words = [w for w in words if w not in _ROLE_SKIP]
        if match.start("ending") >= 0:
            ending = text[match.start() : match.end("ending")]
            label = "port" if ending.lower() == "port" else "_".join([*words[-1:], "ending"])
            yield label, match.group("digits")
        elif words:
            kind = text[match.start() : match.end("kind")].lower().removesuffix("s")
            yield "_".join([*words, kind]), match.group("value").rstrip(PUNCTUATION)


# --- sentences and quoted material -----------------------------------------------------------

_QUOTED: Final = re.compile(
    r"<(?P<tag>[A-Za-z_][\w-]*)(?:\s[^>]*)?>.*?</(?P=tag)>"
    r"|```.*?(?:```|\Z)|<!--.*?(?:-->|\Z)|^[ \t]*>.*?$"
    r"|(?:(?<=\n\n)|\A)(?:(?: {4}|\t)[ \t]*(?![-*+\u2022]\s|\d{1,2}[.)]\s)[^\n]*(?:\n|\Z))+",
    re.S | re.M,
)
"""Pasted material: tagged blocks, code fences, HTML comments, quoted lines (`> `), and
indented blocks after a blank line (Markdown's code blocks; an indented list item is
the user's own)."""
_PASTE_MARKS: Final = ("<", "`", ">", "    ", "\t")
"""What a text with any _QUOTED match holds."""
_TAGGED: Final = re.compile(r"<(?P<tag>[A-Za-z_][\w-]*)(?:\s[^>]*)?>(?P<body>.*?)</(?P=tag)>", re.S)
_SENTENCE_END: Final = re.compile(
    r"[\"')\]\s](?<=[.!?][\"')\]\s])(?<!\b(?:Dr|Mr|Ms|St)\.[\"')\]\s])(?<!\bMrs\.[\"')\]\s])"
    r"(?<!\bProf\.[\"')\]\s])(?:(?<=\s)\s*|(?<=[\"')\]])[\"')\]]*\s+)(?=[^a-z\s])"
)
"""Spaces (after closing quotes or brackets) that end a sentence: after `.!?`, before a
character that is not lowercase, unless the `.` ends a title ("Dr. Patel", "Mrs. Lee"),
which the name after it belongs to (rule 5: matched from its first character; a line
without `.!?` is not searched: most lines of a tool's output)."""
_BULLET: Final = re.compile(r"^(?:[-*\u2022]|\d{1,2}[.)])\s+")


def outside_quotes(text: str) -> str:
    """`text` without pasted documents: tagged blocks, code fences, HTML comments, quotes."""
    if not any(map(text.__contains__, _PASTE_MARKS)):
        return text
    return _QUOTED.sub("\n", text)


def tagged_blocks(text: str) -> list[tuple[str, str]]:
    """(tag, body) for each `<tag>...</tag>` block, in order."""
    if "</" not in text:
        return []
    return [(m.group("tag"), m.group("body")) for m in _TAGGED.finditer(text)]


def sentences(text: str) -> list[str]:
    """Sentences of `text`, line by line, stripped of list bullets, in order (a full-width
    stop ends one with no space after it)."""
    out: list[str] = []
    for raw in text.splitlines():
        line = _BULLET.sub("", raw.strip())
        ends = "." in line or "!" in line or "?" in line  # what every sentence end follows
        for piece in _SENTENCE_END.split(line) if ends else (line,):
            for part in _CJK_END.split(piece) if _CJK_STOPS.intersection(piece) else (piece,):
                sentence = part.strip()
                if sentence:
                    out.append(sentence)
    return out


_CJK_STOPS: Final = frozenset("\u3002\uff01\uff1f")
_CJK_END: Final = re.compile(
    r"(?<=[\u3002\uff01\uff1f])(?=\s*[^\s\"'\u300d\u300f)\]\u201d\u2019?!.,\uff01\uff1f])"
)
"""A full-width stop ends a sentence with no space after it ("…ください。テストを…"), unless
a closing quote or a mark of the sentence around it follows ("…ください。" in a review)."""


def splits_to_itself(sentence: str) -> bool:
    """Whether a sentence that `sentences` returned is its own only sentence: unless it
    starts with a bullet, it holds no line break and no sentence end (the split found
    every end in the line it came from)."""
    return _BULLET.match(sentence) is None


def clip(text: str, limit: int) -> str:
    """`text` on one line, cut to `limit` characters with an ellipsis when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


# --- errors and code -------------------------------------------------------------------------

_ERROR_START: Final = re.compile(
    r"\s*(?:(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b"
    r"|(?:error|fatal|FAILED|ERROR|FAIL)\b(?:[:\s]|\Z)|E\s{2,}\S)",
    re.I,
)
"""How a line that states an error starts, matched on the line itself (a word that ends it
is taken as followed by its line break)."""
_ERROR_PHRASES: Final = (
    "no such file or directory",
    "command not found",
    "no module named",
    "permission denied",
    "traceback (most recent call last)",
)
"""Phrases that make any line state an error (compared in lowercase)."""
_EXCEPTION_LINE: Final = re.compile(
    r"^\s*((?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b:?.*)$", re.M
)
_LABEL: Final = re.compile(r"[A-Z]+:\s*")
"""A label line before an output ("OBSERVATION:")."""
_HEAD_LINES: Final = 6
_ERROR_HEAD: Final = 4000
"""Characters of an output read for its first lines (a long output is never split whole)."""


def error_line(text: str) -> str | None:
    """The line that best states the error in a tool output, or None if it shows none."""
    if "Traceback (most recent call last)" in text:
        tail = text.rsplit("Traceback (most recent call last)", 1)[1]
        found = _EXCEPTION_LINE.findall(tail)
        if found:
            return clip(found[-1], 200)
    for line in _head_lines(text):
        if _ERROR_START.match(line) or _states_an_error(line.lower()):
            return clip(line, 200)
    return None


def _states_an_error(low: str) -> bool:
    """Whether a lowercased line holds one of _ERROR_PHRASES (the line lowered once; the
    tests written out: a generator costs more than the five searches)."""
    no_file, no_command, no_module, denied, traceback = _ERROR_PHRASES
    return (
        no_file in low or no_command in low or no_module in low or denied in low or traceback in low
    )


def _head_lines(text: str) -> list[str]:
    """The first _HEAD_LINES lines with text, past a label line ("OBSERVATION:")."""
    said = (line for line in text[:_ERROR_HEAD].splitlines() if line.strip())
    lines = list(islice(said, _HEAD_LINES + 1))
    if lines and _LABEL.fullmatch(lines[0]):
        return lines[1:]
    return lines[:_HEAD_LINES]


_DEFINITION: Final = re.compile(r"^\s*(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)", re.M)


def defined_names(code: str, limit: int | None = None) -> list[str]:
    """`def name` / `class Name` for each definition in a code snippet, in order, unique;
    the first `limit` of them only, read no further than they are (code without `def` or
    `class` is not searched)."""
    if "def" not in code and "class" not in code:
        return []
    found: dict[str, None] = {}
    for match in _DEFINITION.finditer(code):
        found[f"{match.group(1)} {match.group(2)}"] = None
        if len(found) == limit:
            break
    return list(found)
