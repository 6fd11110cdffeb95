"""Synthetic histories: exact size, valid pairing, corpus-like results, determinism."""

from __future__ import annotations

import itertools

import pytest
from bench.synthetic import RESULT_CHARS, history, turns

import contextfold as cf


@pytest.mark.parametrize("size", [1, 2, 7, 50, 333])
def test_history_has_exactly_n_messages_and_is_valid(size: int) -> None:
    messages = history(size, seed=3)
    assert len(messages) == size
    assert messages[0]["role"] == "system"
    assert not messages[-1].get("tool_calls")
    assert cf.validate(messages, "openai-chat") == []


def test_tool_results_are_between_200_and_20000_characters() -> None:
    results = [str(m["content"]) for m in history(2_000, seed=1) if m["role"] == "tool"]
    sizes = sorted(len(r) for r in results)
    assert RESULT_CHARS[0] <= sizes[0]
    assert sizes[-1] <= RESULT_CHARS[1]
    assert 300 <= sizes[len(sizes) // 2] <= 1_200  # median near the corpus's ~600
    assert len(set(results)) == len(results)  # no two results alike


def test_history_is_deterministic() -> None:
    assert history(120, seed=9) == history(120, seed=9)
    assert history(120, seed=9) != history(120, seed=10)


def test_turns_end_where_a_request_is_sent() -> None:
    chunks = list(itertools.islice(turns(seed=4), 40))
    assert all(chunk[-1]["role"] in ("tool", "user") for chunk in chunks)
    flat = [m for chunk in chunks for m in chunk]
    assert cf.validate([{"role": "system", "content": "s"}, *flat], "openai-chat") == []
