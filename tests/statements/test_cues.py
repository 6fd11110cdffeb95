"""The cue pre-filter (rule 3) never rejects a sentence a cue matches: classifying with the
candidate cues agrees with trying every cue."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements._cue_table import CUES, Kind
from contextfold._statements._cues import (
    _LEAD_IN,
    _MAX_CHARS,
    _MIN_CHARS,
    _QUOTED_SPAN,
    _REPORTED,
    _context_ok,
    candidates,
    classify,
    compiled,
    fold,
)

_WORDS = (
    "you",
    "may",
    "never",
    "do",
    "not",
    "don't",
    "always",
    "must",
    "should",
    "please",
    "use",
    "instead",
    "of",
    "not",
    "at",
    "most",
    "under",
    "$50",
    "by",
    "friday",
    "deadline",
    "budget",
    "is",
    "3",
    "keep",
    "only",
    "stick",
    "to",
    "no",
    "new",
    "i",
    "prefer",
    "actually",
    "note",
    "that",
    "when",
    "deploying,",
    "tag",
    "make",
    "sure",
    "every",
    "request",
    "has",
    "to",
    ",",
    "no",
    "exceptions",
    "the",
    "agent",
    "we",
    "need",
    "to",
    "limit",
    "to",
    "10",
    "tokens",
    "wait",
    "feel",
    "free",
    "to",
    "it's",
    "fine",
    "to",
    "within",
    "2",
    "days",
)

_NEEDED = sorted({word for _, needs, _ in CUES for word in needs})
_JOINED = ("i'd", "you're", "it's", "its", "don't", "mustn't", "shouldn't", "aren't", "i", "we")
_PUNCT = (
    ",",
    ".",
    ":",
    "!",
    "'",
    '"',
    "-",
    "_",
    "2",
    "é",
    "Important:",
    "rule:",
    "the readme says",
    "ないでください",
    "ないで寝た",
    "不要",
    "必ず",
    "ください",
    "？",
    "ändere",
    "jamás",
)

words = st.sampled_from(_WORDS) | st.sampled_from(_NEEDED) | st.sampled_from(_JOINED)
pieces = words | st.sampled_from(_PUNCT) | st.text(max_size=6)
sentences = st.lists(pieces, max_size=14).map(" ".join) | st.lists(pieces, max_size=14).map("".join)


def _read_every_cue(sentence: str) -> tuple[Kind, str] | None:
    """`_cues.read_rule` by its plain definition: every cue tried, in order, on every form."""
    if not _MIN_CHARS <= len(sentence) <= _MAX_CHARS or sentence.rstrip().endswith(("?", "？")):
        return None
    folded = fold(sentence)
    if _REPORTED.match(folded) is not None:
        return None
    lead_in = _LEAD_IN.match(folded)
    forms = (folded[lead_in.end() :], folded) if lead_in is not None else (folded,)
    for form in forms:
        probe = _QUOTED_SPAN.sub(" ", form)
        for kind, _, pattern in CUES:
            if re.search(pattern, probe) is not None and _context_ok(kind, probe):
                return kind, form
    return None


@given(sentences)
def test_prefilter_keeps_every_cue_that_matches(sentence: str) -> None:
    folded = fold(sentence)
    kept = candidates(folded)
    lead_in = _LEAD_IN.match(folded)
    forms = [folded] + ([folded[lead_in.end() :]] if lead_in is not None else [])
    for form in forms:
        for cue in compiled():
            if cue[1].search(form) is not None:
                assert cue in kept, (form, cue[1].pattern)


@given(sentences)
def test_classify_agrees_with_trying_every_cue(sentence: str) -> None:
    found = _read_every_cue(sentence)
    assert classify(sentence) == (found[0] if found is not None else None)


def test_rules_still_classified() -> None:
    assert classify("Never deploy on Fridays.") == "prohibition"
    assert classify("Always run the tests first.") == "obligation"
    assert classify("The weather is nice today.") is None
