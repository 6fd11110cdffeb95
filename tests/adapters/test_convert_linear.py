"""`convert` is linear: the work per message does not grow with the input (issue 12, fault 7).

Counted in function calls (sys.setprofile), not in seconds, so the test is exact and never
flaky; bench/convert.py measures the time. A quadratic step (joining a run of one role
pairwise, as before the fix) makes 4x the messages cost about 16x the calls.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import FORMATS


def calls(fn: Callable[[], object]) -> int:
    """Python and C function calls made by `fn()`, cold: after one run that builds what is
    built once per process (lazily compiled tables), with the content caches cleared, so
    the count does not depend on which example ran before (Hypothesis replays them)."""
    fn()
    cf.clear_caches()
    count = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _call(i: int) -> dict[str, object]:
    return {"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}


TURNS: dict[str, Callable[[int], list[dict[str, object]]]] = {
    "user": lambda i: [{"role": "user", "content": f"u{i}"}],
    "assistant": lambda i: [{"role": "assistant", "content": f"a{i}"}],
    "call": lambda i: [
        {"role": "assistant", "content": None, "tool_calls": [_call(i)]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": "r"},
    ],
    "calls in a row": lambda i: [{"role": "assistant", "content": None, "tool_calls": [_call(i)]}],
    "results in a row": lambda i: [{"role": "tool", "tool_call_id": f"c{i}", "content": "r"}],
    "system": lambda i: [{"role": "system", "content": f"s{i}"}],
}


def body(messages: list[dict[str, object]]) -> dict[str, object]:
    """A request body: a bare Anthropic list has no place for the system prompt."""
    return {"messages": messages}


def chat(pattern: list[str], repeats: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = [{"role": "system", "content": "s"}]
    for r in range(repeats):
        for k, turn in enumerate(pattern):
            out += TURNS[turn](r * len(pattern) + k)
    return out


@pytest.mark.parametrize("target", FORMATS)
@settings(max_examples=15, deadline=None)
@given(pattern=st.lists(st.sampled_from(sorted(TURNS)), min_size=1, max_size=4))
def test_four_times_the_messages_cost_about_four_times_the_calls(
    target: str, pattern: list[str]
) -> None:
    small, large = body(chat(pattern, 60)), body(chat(pattern, 240))
    source = "openai-chat"
    ratio = calls(lambda: cf.convert(large, target, format=source)) / calls(
        lambda: cf.convert(small, target, format=source)
    )
    assert ratio < 4.6, f"{pattern}: 4x the messages cost {ratio:.1f}x the calls"


@pytest.mark.parametrize("source", FORMATS)
@pytest.mark.parametrize("target", FORMATS)
def test_every_direction_is_linear_on_one_role_runs(source: str, target: str) -> None:
    def payload(n: int) -> object:
        return cf.convert(body(chat(["user", "call", "assistant", "assistant"], n)), source)

    small, large = payload(50), payload(200)
    ratio = calls(lambda: cf.convert(large, target, format=source)) / calls(
        lambda: cf.convert(small, target, format=source)
    )
    assert ratio < 4.6
