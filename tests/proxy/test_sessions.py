"""Sessions: continuing requests are recognised in O(new), diverging ones fork, named ones
restart when they do not continue, idle ones expire, and replicas sharing a store build
exactly the views one process builds (a Hypothesis property over turn sizes)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._proxy._config import open_store
from contextfold._proxy._scan import scan
from contextfold._proxy._sessions import Sessions, Turn
from contextfold._proxy._wire import ENDPOINTS, fixed_of

CHAT = ENDPOINTS["/v1/chat/completions"]
BUDGET = 4_000


def _sessions(path: Path, ttl: float = 3_600.0) -> Sessions:
    return Sessions(open_store(f"sqlite:{path}", ttl), cf.Policy(high=0.9, low=0.6), ttl)


def _exchange(turn: int, lines: int, tag: str = "") -> list[dict[str, Any]]:
    call = {
        "id": f"call_{tag}{turn}",
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": f"{tag}f{turn}.py"})},
    }
    text = "".join(f"{tag}{turn}:{i:03d} value_{turn}_{i} = compute({i})\n" for i in range(lines))
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": text},
    ]


def _turn(sessions: Sessions, items: list[Any], named: str | None = None) -> Turn:
    body = {"model": "gpt-4o", "messages": items, "max_tokens": 256}
    return sessions.turn(CHAT, body, list(items), BUDGET, named)


START = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Read them."}]


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sizes=st.lists(st.integers(2, 90), min_size=4, max_size=10))
def test_replicas_sharing_a_store_build_the_views_one_process_builds(
    sizes: list[int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("replicas")
    alone = _sessions(folder / "alone.db")
    replicas = [_sessions(folder / "shared.db"), _sessions(folder / "shared.db")]
    items = list(START)
    try:
        for turn, lines in enumerate(sizes):
            items += _exchange(turn, lines)
            expected = _turn(alone, items)
            got = _turn(replicas[turn % 2], items)  # the session alternates between replicas
            assert got.view == expected.view
            assert got.live.meta.sid == _turn_sid(replicas, got)
        assert cf.validate(expected.view, "openai-chat") == []
    finally:
        for sessions in (alone, *replicas):
            sessions.close()


def _turn_sid(replicas: list[Sessions], got: Turn) -> str:
    """Both replicas continue one session: the one the first request started."""
    first = replicas[0].store.candidates(got.live.meta.root)
    assert len(first) == 1
    return first[0].sid


def test_a_continuing_request_adds_only_its_new_items(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    items = START + _exchange(0, 10)
    first = _turn(sessions, items)
    items += _exchange(1, 10)
    second = _turn(sessions, items)
    assert second.live is first.live
    assert second.live.meta.length == len(items)
    saved = sessions.store.load(second.live.meta.sid)
    assert saved is not None
    assert json.loads(saved.log[-1])["items"] == _exchange(1, 10)  # O(new) written


def test_diverging_conversations_fork_and_keep_their_own_items(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    shared = START + _exchange(0, 5)
    _turn(sessions, shared)
    left = _turn(sessions, shared + _exchange(1, 5, "left"))
    right = _turn(sessions, shared + _exchange(1, 5, "right"))
    assert left.live.meta.sid != right.live.meta.sid  # the second one forks
    assert "left" not in json.dumps(right.view)
    again = _turn(sessions, shared + _exchange(1, 5, "left") + _exchange(2, 5, "left"))
    assert again.live.meta.sid == left.live.meta.sid  # each branch continues its own
    assert "right" not in json.dumps(again.view)


def test_a_named_session_restarts_when_the_history_does_not_continue(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    one = _turn(sessions, START + _exchange(0, 5), named="agent-7")
    other = [{"role": "user", "content": "Something else entirely."}]
    two = _turn(sessions, other, named="agent-7")
    assert two.live.meta.sid == one.live.meta.sid
    assert two.view == other
    assert "agent-7" not in sessions.store.load(two.live.meta.sid).snapshot  # type: ignore[union-attr]


def test_idle_sessions_expire(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db", ttl=0.2)
    items = START + _exchange(0, 5)
    first = _turn(sessions, items)
    time.sleep(0.3)
    later = _turn(sessions, items + _exchange(1, 5))
    assert later.live.meta.sid != first.live.meta.sid


def test_items_refused_midway_leave_the_session_as_last_saved(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    items = START + _exchange(0, 5)
    _turn(sessions, items)
    call, result = _exchange(1, 5)
    with pytest.raises(cf.InvalidConversation):  # the call goes in, then the role fails
        _turn(sessions, [*items, call, {"role": "narrator", "content": "?"}])
    again = _turn(sessions, [*items, call, result])
    assert again.view == [*items, call, result]


def _parts(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items with each text content as one content part (as marking clients send it)."""
    return [
        {**i, "content": [{"type": "text", "text": i["content"]}]} if i["content"] else i
        for i in items
    ]


def _marked(item: dict[str, Any]) -> dict[str, Any]:
    """`item` with a cache mark on its last content part."""
    *parts, last = item["content"]
    return {**item, "content": [*parts, {**last, "cache_control": {"type": "ephemeral"}}]}


def test_a_cache_mark_that_moves_to_the_newest_item_continues_the_session(
    tmp_path: Path,
) -> None:
    sessions = _sessions(tmp_path / "s.db")
    items = _parts(START + _exchange(0, 5))
    first = _turn(sessions, [*items[:-1], _marked(items[-1])])
    items += _parts(_exchange(1, 5))
    second = _turn(sessions, [*items[:-1], _marked(items[-1])])  # the mark moved on
    assert second.live.meta.sid == first.live.meta.sid
    assert "cache_control" not in json.dumps(second.live.manager.view())  # held unmarked
    assert second.marks == ((1, _marked(items[-1])),)


def test_conversations_that_share_their_start_and_a_reply_never_mix(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    start = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    _turn(sessions, start)  # two users open the same way: one session holds both starts
    _turn(sessions, start)
    mine = {"role": "assistant", "content": "Your balance is 1,204.55 EUR."}
    theirs = {"role": "assistant", "content": "Hello! How can I help?"}
    thanks = {"role": "user", "content": "thanks"}
    _turn(sessions, [*start, mine, thanks])
    other = _turn(sessions, [*start, theirs, thanks])
    assert other.view == [*start, theirs, thanks]
    assert "1,204.55" not in json.dumps(other.live.manager.view())


def test_a_mark_that_stays_on_an_older_item_is_kept_past_a_known_prefix(
    tmp_path: Path,
) -> None:
    sessions = _sessions(tmp_path / "s.db")
    items = _parts(START + _exchange(0, 200))
    items[1] = _marked(items[1])  # the client marks its task once and for all

    def send(items: list[dict[str, Any]], known_prefix: bool) -> Turn:
        raw = json.dumps({"model": "gpt-4o", "messages": items, "max_tokens": 256}).encode()
        known = sessions.known(raw, CHAT, None)
        assert (known is not None) is known_prefix
        if known is not None:
            resumed = sessions.resume(known, BUDGET)
            assert resumed is not None
            return resumed
        scanned = scan(raw, "messages")
        turn = sessions.turn(CHAT, scanned.body, items, BUDGET, None)
        assert scanned.end is not None
        sessions.remember(turn.live, raw[: scanned.end], scanned.head, fixed_of(scanned.body, CHAT))
        return turn

    send(items, known_prefix=False)
    items += _parts(_exchange(1, 20))
    turn = send(items, known_prefix=True)  # read past the first body's bytes: new items only
    assert (len(items) - 1, items[1]) in turn.marks


def test_a_one_item_session_is_continued_by_its_next_turn(tmp_path: Path) -> None:
    sessions = _sessions(tmp_path / "s.db")
    first = _turn(sessions, START[1:])  # one user message, no system prompt
    second = _turn(sessions, [*START[1:], *_exchange(1, 3)])
    assert second.live is first.live
    assert len(sessions) == 1
    third = _turn(sessions, [*START[1:], *_exchange(1, 3), *_exchange(2, 3)])
    assert third.live is first.live  # under the root of its first two items from now on
    assert third.live.meta.length == 5
    other = _turn(sessions, [*START[1:], *_exchange(1, 3, tag="b")])
    assert other.live is not first.live  # another reply to the same first message
    assert len(sessions) == 2
