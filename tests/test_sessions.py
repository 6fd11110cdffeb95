"""Sessions: a stateless caller's re-sent histories continue their ContextManager."""

from __future__ import annotations

import asyncio
import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import ContextManager, Sessions

Wire = dict[str, object]


def exchange(k: int, size: int) -> list[Wire]:
    """One user request, a tool call with its result, and the reply."""
    call = f"call_{k}"
    return [
        {"role": "user", "content": f"Request {k}: please look at order ORD-{k:04d}."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call,
                    "type": "function",
                    "function": {"name": "read", "arguments": json.dumps({"id": k})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call, "content": f"row {k} " * size},
        {"role": "assistant", "content": f"Order ORD-{k:04d} looks fine."},
    ]


def history(sizes: list[int]) -> list[Wire]:
    out: list[Wire] = [{"role": "system", "content": "You are a careful support agent."}]
    for k, size in enumerate(sizes):
        out += exchange(k, size)
    return out


def test_a_resent_history_continues_its_session_like_an_agent_loop() -> None:
    """Each call sends everything so far; the views are those of one manager fed the new
    messages, and every view fits."""
    sizes = [40 + 37 * (k % 9) for k in range(30)]
    full = history(sizes)
    sessions: Sessions[Wire] = Sessions(1_500, "gpt-4o")
    manager: ContextManager[Wire] = ContextManager(1_500, "gpt-4o")
    sent = 0
    compacted = 0
    for end in range(5, len(full) + 1, 4):
        resent = sessions.view(copy.deepcopy(full[:end]))  # fresh objects, as from JSON
        manager.extend(full[sent:end])
        sent = end
        assert resent.messages == manager.view()
        assert resent.continued == (end > 5)
        assert cf.count_tokens(resent.messages, model="gpt-4o") <= 1_500
        compacted += resent.report is not None
    assert compacted >= 1
    assert len(sessions) == 1


def test_a_changed_history_starts_over_and_the_old_session_stays() -> None:
    full = history([30] * 6)
    sessions: Sessions[Wire] = Sessions(4_000, "gpt-4o")
    assert not sessions.view(full[:9]).continued
    edited = copy.deepcopy(full)
    edited[1]["content"] = "Request 0: please look at order ORD-9999."
    assert not sessions.view(edited).continued  # an older message differs
    assert sessions.view(full).continued  # the first history is still known
    assert len(sessions) == 2


def test_the_caller_mutating_its_messages_cannot_fake_a_continuation() -> None:
    """What a session was given is its own copy: a later edit of the caller's dicts is a
    different history."""
    full = history([30] * 4)
    sessions: Sessions[Wire] = Sessions(4_000, "gpt-4o")
    mine = full[:9]
    sessions.view(mine)
    mine[1]["content"] = "Something else entirely."  # the same dict object, changed
    assert not sessions.view(mine + full[9:]).continued


def test_the_longest_session_a_history_continues_wins() -> None:
    full = history([30] * 6)
    sessions: Sessions[Wire] = Sessions(4_000, "gpt-4o")
    sessions.view(full[:5])
    sessions.view(full[:13])  # continues the first: one session, 13 messages
    sessions.view(full[:5])  # a shorter history: a session of its own
    assert len(sessions) == 2
    resent = sessions.view(full)
    assert resent.continued
    again: ContextManager[Wire] = ContextManager(4_000, "gpt-4o")
    again.extend(full[:13])
    again.view()
    again.extend(full[13:])
    assert resent.messages == again.view()


def test_sessions_are_bounded_least_recently_used_first_out() -> None:
    sessions: Sessions[Wire] = Sessions(4_000, "gpt-4o", size=2)
    a, b, c = (history([10 + k] * 2) for k in range(3))
    sessions.view(a)
    sessions.view(b)
    sessions.view(a)  # a is now the most recent
    sessions.view(c)  # b goes
    assert len(sessions) == 2
    assert sessions.view(a + exchange(9, 5)).continued
    assert not sessions.view(b + exchange(9, 5)).continued


def test_a_bad_history_raises_typed_and_forgets_no_session() -> None:
    sessions: Sessions[Wire] = Sessions(4_000, "gpt-4o", size=2)
    a, b = history([10] * 2), history([11] * 2)
    sessions.view(a)
    sessions.view(b)
    for bad in (None, 5, "hello", {"role": "user", "content": "hi"}):
        with pytest.raises(cf.InvalidConversation, match="list of messages"):
            sessions.view(bad)  # type: ignore[arg-type]
    with pytest.raises(cf.InvalidConversation) as info:
        sessions.view([{"role": "user", "content": "new"}, {"role": "narrator"}])
    assert info.value.index == 1
    assert len(sessions) == 2
    assert sessions.view(a + exchange(9, 5)).continued  # the oldest session is still there
    assert sessions.view(b + exchange(9, 5)).continued


def test_bad_settings_are_refused_at_once() -> None:
    with pytest.raises(cf.ConfigurationError, match="size"):
        Sessions(1_000, size=0)
    with pytest.raises(cf.ConfigurationError, match="budget"):
        Sessions(0)


def test_an_asyncio_server_calls_view_in_a_worker_thread() -> None:
    full = history([60] * 12)
    direct: Sessions[Wire] = Sessions(1_200, "gpt-4o")
    threaded: Sessions[Wire] = Sessions(1_200, "gpt-4o")
    ends = range(5, len(full) + 1, 8)

    async def run() -> list[list[Wire]]:
        return [(await asyncio.to_thread(threaded.view, full[:end])).messages for end in ends]

    assert asyncio.run(run()) == [direct.view(full[:end]).messages for end in ends]


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 400), min_size=2, max_size=14),
    cuts=st.lists(st.integers(1, 9), min_size=1, max_size=8),
    budget=st.integers(400, 3_000),
    edit=st.none() | st.integers(0, 40),
)
def test_views_match_one_manager_fed_the_new_messages(
    sizes: list[int], cuts: list[int], budget: int, edit: int | None
) -> None:
    """Property: re-sent prefixes give the views of one manager fed each call's new
    messages; a history edited in the middle starts a fresh manager, which it then matches."""
    full = history(sizes)
    sessions: Sessions[Wire] = Sessions(budget, "gpt-4o")
    reference: ContextManager[Wire] = ContextManager(budget, "gpt-4o")
    sent = 0
    end = 0
    for step, cut in enumerate(cuts):
        end = min(len(full), end + cut)
        if edit is not None and step == len(cuts) // 2 and 0 < edit < sent:
            full = copy.deepcopy(full)
            if isinstance(full[edit].get("content"), str):
                full[edit]["content"] = f"{full[edit]['content']} (edited)"
                reference = ContextManager(budget, "gpt-4o")
                sent = 0
        resent = sessions.view(full[:end])
        reference.extend(full[sent:end])
        sent = end
        assert resent.messages == reference.view()
        assert cf.count_tokens(resent.messages, model="gpt-4o") <= budget


def test_threads_sharing_one_sessions_get_the_views_of_sequential_calls() -> None:
    """Rule 5: calls from many threads are serialized; each conversation's views are the
    ones it gets alone."""
    from concurrent.futures import ThreadPoolExecutor

    conversations = [history([40 + 9 * k] * 8) for k in range(4)]
    ends = list(range(5, len(conversations[0]) + 1, 6))
    alone = []
    for full in conversations:
        single: Sessions[Wire] = Sessions(900, "gpt-4o")
        alone.append([single.view(full[:end]).messages for end in ends])
    shared: Sessions[Wire] = Sessions(900, "gpt-4o")

    def run(full: list[Wire]) -> list[list[Wire]]:
        return [shared.view(full[:end]).messages for end in ends]

    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(run, conversations))
    assert together == alone
    assert len(shared) == 4
