"""Properties of the per-conversation managers the integrations share (`_threads`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold.integrations._threads import Threads

Message = dict[str, Any]


def exchange(i: int, size: int) -> list[Message]:
    """An assistant tool call and its result (the result `size` words long)."""
    call = {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{i}", "content": f"line {i} " * size},
    ]


steps = st.lists(
    st.one_of(
        st.tuples(st.just("grow"), st.integers(1, 4), st.integers(10, 400)),
        st.tuples(st.just("rewrite"), st.integers(0, 6), st.integers(10, 400)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40, deadline=None)
@given(steps)
def test_only_new_messages_are_converted_and_the_view_stays_valid(
    plan: list[tuple[str, int, int]],
) -> None:
    converted: list[Message] = []

    def to_wire(message: Message) -> list[dict[str, object]]:
        converted.append(message)
        return [message]

    threads: Threads[Message] = Threads(to_wire)
    history: list[Message] = [
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": "Never push to main. Read everything."},
    ]
    made = 0

    def make(archive: cf.Archive) -> cf.ContextManager:
        nonlocal made
        made += 1
        return cf.ContextManager(1_500, archive=archive)

    threads.view("k", history, make)
    for number, (kind, count, size) in enumerate(plan):
        old, rebuilt = history, made
        if kind == "grow":
            for j in range(count):
                history = [*history, *exchange(number * 10 + j, size)]
        else:  # a rewritten history: keep the opening, then different messages
            history = [*history[:2], *exchange(1_000 + number, size)]
        converted.clear()
        pairs = threads.view("k", history, make)
        if history[: len(old)] == old:  # it continues (a rewrite of the opening alone does)
            assert made == rebuilt
            assert converted == history[len(old) :]  # O(new messages)
        else:
            assert made == rebuilt + 1
            assert converted == history  # a fresh manager over the whole history
        wires = [wire for wire, _ in pairs]
        assert cf.validate(wires, format="openai-chat") == []
        assert wires[0] == history[0]  # the system prompt, first, verbatim
        assert any(w == history[1] for w in wires)  # the latest user message, verbatim
        for wire, original in pairs:
            if original is not None:  # a kept message maps back to the very item given
                assert any(original is item for item in history)
                assert wire == original
