"""A request for work done a certain way carries the limit it sets (`_cues` rule 1)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold._statements._cues import classify

ASKS = ("Could you", "Can you please", "Would you", "Hey, can you")
WORK = ("rewrite the parser in Rust", "summarize the incident", "draft the release notes")
UNITS = ("lines", "words", "characters")


@given(
    st.sampled_from(ASKS),
    st.sampled_from(WORK),
    st.sampled_from(("keeping it under", "in at most", "in no more than")),
    st.integers(2, 900),
    st.sampled_from(UNITS),
)
def test_a_request_with_a_bound_is_a_limit(
    ask: str, work: str, bound: str, number: int, unit: str
) -> None:
    assert classify(f"{ask} {work}, {bound} {number} {unit}?") == "limit"


@pytest.mark.parametrize(
    "question",
    [
        "Can you check whether the file is under 100 lines?",
        "Could you tell me if it stays under 50 words?",
        "Could you do it without changing the dates?",
        "How do I keep it under 200 lines?",
    ],
)
def test_a_question_for_an_answer_or_without_a_bound_is_no_rule(question: str) -> None:
    assert classify(question) is None
