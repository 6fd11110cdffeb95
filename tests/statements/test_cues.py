"""The combined cue pattern finds a match exactly when one of the cues does."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements._cues import CUES, _any_cue, classify

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

sentences = st.lists(st.sampled_from(_WORDS) | st.text(max_size=6), max_size=14).map(" ".join)


@given(sentences)
def test_combined_pattern_matches_when_a_cue_does(sentence: str) -> None:
    some = any(cue.search(sentence) is not None for _, cue in CUES)
    assert (_any_cue().search(sentence) is not None) == some


def test_rules_still_classified() -> None:
    assert classify("Never deploy on Fridays.") == "prohibition"
    assert classify("Always run the tests first.") == "obligation"
    assert classify("The weather is nice today.") is None
