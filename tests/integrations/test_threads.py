"""Properties of the per-conversation managers the integrations share (`_threads`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold.integrations._threads import Threads, snapshot

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


def test_conversations_viewed_at_once_from_two_threads_never_mix() -> None:
    """A web server runs agents in worker threads; without a checkpointer every conversation
    has the same key (None). Each caller must get the view of its own history only."""
    import threading
    import time

    def to_wire(message: Message) -> list[dict[str, object]]:
        time.sleep(0.0001)  # a framework's conversion, letting the other thread run
        return [message]

    threads: Threads[Message] = Threads(to_wire)
    wrong: list[tuple[str, int]] = []

    def talk(name: str) -> None:
        history: list[Message] = [
            {"role": "system", "content": "Be careful."},
            {"role": "user", "content": f"Conversation {name}."},
        ]
        for turn in range(25):
            reply = {"role": "assistant", "content": f"{name}: step {turn} done."}
            history = [*history, reply, {"role": "user", "content": f"{name}: go on."}]
            pairs = threads.view(None, history, lambda a: cf.ContextManager(100_000, archive=a))
            if [wire for wire, _ in pairs] != history:
                wrong.append((name, turn))

    workers = [threading.Thread(target=talk, args=(name,)) for name in "AB"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wrong == []


def test_an_awaited_view_never_waits_for_a_busy_conversation() -> None:
    """A view awaited while another call feeds the same conversation in a worker thread
    does not block the event loop on that call: it views its own history by itself."""
    import asyncio
    import threading
    import time

    entered, release = threading.Event(), threading.Event()

    def to_wire(message: Message) -> list[dict[str, object]]:
        if message.get("content") == "slow":
            entered.set()
            release.wait(10)
        return [message]

    def make(archive: cf.Archive) -> cf.ContextManager:
        return cf.ContextManager(100_000, archive=archive)

    threads: Threads[Message] = Threads(to_wire)
    opening: list[Message] = [
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": "Never push to main."},
    ]
    threads.view(None, opening, make)
    slow = [*opening, {"role": "assistant", "content": "slow"}]
    worker = threading.Thread(target=threads.view, args=(None, slow, make))
    worker.start()
    assert entered.wait(10)
    fast = [*opening, {"role": "assistant", "content": "fast"}]
    started = time.monotonic()
    pairs = asyncio.run(threads.aview(None, fast, make))
    waited = time.monotonic() - started
    release.set()
    worker.join()
    assert [wire for wire, _ in pairs] == fast
    assert waited < 5


def test_an_item_changed_in_place_is_seen_an_opaque_one_is_compared_by_identity() -> None:
    import threading

    class Opaque:  # a tool's own result object: no value equality, cannot be deep-copied
        def __init__(self) -> None:
            self.lock = threading.Lock()

    def to_wire(message: Message) -> list[dict[str, object]]:
        return [{k: v for k, v in message.items() if k != "extra"}]

    made: list[cf.ContextManager] = []

    def make(archive: cf.Archive) -> cf.ContextManager:
        made.append(cf.ContextManager(100_000, archive=archive))
        return made[-1]

    threads: Threads[Message] = Threads(to_wire)
    history: list[Message] = [
        {"role": "user", "content": "My key is sk-1.", "extra": Opaque()},
        {"role": "assistant", "content": "Noted."},
    ]
    threads.view(None, history, make)
    history.append({"role": "user", "content": "Go on."})
    threads.view(None, history, make)
    assert len(made) == 1  # the very objects, one of them opaque: a continuation
    history[1]["content"] = "Noted, [redacted]."  # changed in place
    pairs = threads.view(None, history, make)
    assert len(made) == 2
    sent = [wire["content"] for wire, _ in pairs]
    assert sent == ["My key is sk-1.", "Noted, [redacted].", "Go on."]
    assert snapshot(history[0]) is history[0]  # kept itself: only replacing it is seen
