"""Each pattern written for speed (`_facts` rule 5) finds what its plain form finds."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements import _facts, _kinds

_SPACED = re.compile(
    r"""
    (?=[JFMASOND\d])
    (?:(?P<date>\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?[ ]\d{1,2}
        (?:st|nd|rd|th)?\b(?:,?[ ]\d{4})?)
  | (?P<time>\b\d{1,2}(?::\d{2})?[ ][AaPp]\.?[Mm]\b(?:[ ](?:[ECMP][SD]T|UTC|GMT)\b)?)
  | (?P<quantity>\b\d+(?:\.\d+)?[ ](?:%|ms|secs?|seconds?|minutes?|mins?|hours?|hrs?|days?
        |weeks?|months?|years?|[kKmMgG]i?[bB]|tokens?|bags?|passengers?|lines?)(?!\w)))
    """,
    re.VERBOSE,
)
_NAMED_HINT = re.compile(r"\b(?:id|ids|numbers?|codes?|email|ending|port)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[^a-z\s])")
_NUMBER = re.compile(r"(?<![\w.-])\$?\d+(?:[.,:/-]\d+)*%?(?!\w)")
_NAME = re.compile(r"(?<=[a-z,;:] )(?:[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*|[A-Z]{2,}\w*(?![\w-]))")

_PIECES = (
    "Jan",
    "June",
    "Sept.",
    "May",
    "Mar",
    "Dec",
    "Oct",
    "Nov",
    "Aug",
    "Apr",
    "Feb",
    "Jul",
    "5",
    "12",
    "2024",
    "3.5",
    "1,250",
    "$40",
    "40%",
    "th",
    "st",
    "AM",
    "p.m.",
    "PST",
    "UTC",
    "ms",
    "days",
    "GB",
    "bags",
    "lines",
    "id",
    "ids",
    "ID",
    "number",
    "codes",
    "email",
    "ending",
    "port",
    "import",
    "Alice",
    "Smith",
    "NASA",
    "SFO-LAX",
    "x",
    "the",
    "and",
    ":",
    ",",
    ".",
    "!",
    "?",
    '"',
    "'",
    ")",
    "]",
    "-",
    "_",
    "/",
    "é",
    "٣",
)
_GLUE = (" ", "", "  ", "\t", "\u00a0", ", ", ". ", '." ', "\n")
texts = st.lists(st.sampled_from(_PIECES) | st.text(max_size=4), max_size=16).flatmap(
    lambda parts: st.lists(st.sampled_from(_GLUE), min_size=len(parts), max_size=len(parts)).map(
        lambda glue: "".join(p + g for p, g in zip(parts, glue, strict=True))
    )
)


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], str | None]]:
    return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]


@given(texts)
def test_spaced_values(text: str) -> None:
    assert _found(_facts._SPACED, text) == _found(_SPACED, text)


@given(texts)
def test_named_hint(text: str) -> None:
    lowered = text.lower()
    found = _facts._NAMED_HINT.search(lowered) is not None
    assert found == (_NAMED_HINT.search(lowered) is not None)


@given(texts)
def test_sentence_ends(text: str) -> None:
    for line in text.splitlines():
        assert _facts._SENTENCE_END.split(line) == _SENTENCE_END.split(line)


@given(texts)
def test_numbers_and_names(text: str) -> None:
    assert _found(_kinds._NUMBER, text) == _found(_NUMBER, text)
    assert _found(_kinds._NAME, text) == _found(_NAME, text)
