"""Counter floors: a cheap lower bound of every message's count, never above it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Text, ToolCall, ToolResult
from contextfold._tokens._accounting import runs_of_non_space

from ..strategies import messages

_COUNTERS = {
    "o200k": cf.TiktokenCounter("o200k_base"),
    "cl100k": cf.TiktokenCounter("cl100k_base"),
    "heuristic": cf.HeuristicCounter(),
    "heuristic, margin": cf.HeuristicCounter(margin=1.3, format="anthropic"),
}
# Text that stresses pre-tokenizers: separators Python splits on but tiktoken does not,
# runs of spaces, CJK, code and JSON.
_tricky = st.text(alphabet=st.sampled_from(list("ab 1\n\t\x1c\x1f.:{}\"'_-é中😀\u2028\xa0")))


@pytest.mark.parametrize("name", sorted(_COUNTERS))
@given(message=messages)
def test_the_floor_never_exceeds_the_count(name: str, message: Message) -> None:
    counter = _COUNTERS[name]
    assert 0 <= counter.count_floor(message) <= counter.count(message)


@given(text=_tricky)
def test_runs_of_non_space_bound_tiktoken_from_below(text: str) -> None:
    for counter in (_COUNTERS["o200k"], _COUNTERS["cl100k"]):
        assert runs_of_non_space(text) <= counter.count_text(text)


def test_the_floor_is_close_for_prose_and_calls() -> None:
    counter = _COUNTERS["o200k"]
    prose = "Please keep the public API stable and run the whole test suite before merging."
    call = ToolCall("call_1", "read_file", '{"path": "src/app/main.py", "limit": 200}')
    message = Message("assistant", (Text(prose), call))
    assert counter.count_floor(message) >= 0.6 * counter.count(message)


def test_a_calibrated_floor_scales_with_its_counter() -> None:
    counter = cf.CalibratedCounter(_COUNTERS["o200k"])
    for estimated, actual in ((1000, 1500), (2000, 3000), (4000, 6000), (3000, 4500)):
        counter.observe(estimated, actual)
    message = Message("tool", (ToolResult("call_1", (Text("line one\nline two " * 40),)),))
    assert 0 < counter.count_floor(message) <= counter.count(message)
    plain = cf.CalibratedCounter(_Seven())  # a counter that cannot bound itself
    assert plain.count_floor(message) == 0


class _Seven:
    def count(self, message: Message) -> int:
        return 7
