"""A stored session that cannot be read back (written by another contextfold version, or
damaged) is a lost session: the next request starts over from the client's history and is
compacted, in SQLite and in a real Redis, instead of failing (and going out uncompacted)
on every turn until the session expires (`_store` rule 5)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
import redis

import contextfold as cf
from contextfold._proxy._config import open_store
from contextfold._proxy._sessions import Sessions

from .test_sessions import START, _exchange, _turn

Damage = Callable[[dict[str, object]], dict[str, object]]
MetaDamage = Callable[[str], str]


def _older_snapshot(snapshot: dict[str, object]) -> dict[str, object]:
    return {**snapshot, "version": 1}


def _bad_text(snapshot: dict[str, object]) -> dict[str, object]:
    view = snapshot["view"]
    assert isinstance(view, list)
    return {**snapshot, "view": [{"role": "user", "parts": [{"kind": "text", "text": None}]}]}


def _sqlite_rewrite(path: Path, *, snapshot: Damage | None, meta: MetaDamage | None) -> None:
    with sqlite3.connect(path) as db:
        if snapshot is not None:
            for sid, text in db.execute("SELECT sid, snapshot FROM snapshots").fetchall():
                changed = json.dumps(snapshot(json.loads(text)))
                db.execute("UPDATE snapshots SET snapshot = ? WHERE sid = ?", (changed, sid))
        if meta is not None:
            for sid, text in db.execute("SELECT sid, meta FROM sessions").fetchall():
                db.execute("UPDATE sessions SET meta = ? WHERE sid = ?", (meta(text), sid))


def _redis_rewrite(url: str, *, snapshot: Damage | None, meta: MetaDamage | None) -> None:
    with redis.Redis.from_url(url, decode_responses=True) as client:
        if snapshot is not None:
            for key in client.scan_iter("cf:snap:*"):
                client.set(key, json.dumps(snapshot(json.loads(client.get(key)))), keepttl=True)
        if meta is not None:
            for key in client.scan_iter("cf:meta:*"):
                client.set(key, meta(client.get(key)), keepttl=True)


def _length_as_text(text: str) -> str:
    meta = json.loads(text)
    return json.dumps({**meta, "length": str(meta["length"])})


DAMAGES: list[tuple[Damage | None, MetaDamage | None]] = [
    (_older_snapshot, None),
    (_bad_text, None),
    (None, lambda _: '{"sid": "s1"}'),  # a meta of another layout
    (None, lambda _: "not json"),
    (None, _length_as_text),  # the right root, a field of the wrong type
]


def _two_turns(
    url: str,
    rewrite: Callable[..., None],
    where: str | Path,
    damage: tuple[Damage | None, MetaDamage | None],
) -> None:
    policy = cf.Policy(high=0.9, low=0.6)
    items = list(START)
    first = Sessions(open_store(url, 3_600.0), policy, 3_600.0)
    try:
        for number in range(4):
            items += _exchange(number, 60)
            _turn(first, items)
    finally:
        first.close()
    snapshot, meta = damage
    rewrite(where, snapshot=snapshot, meta=meta)
    second = Sessions(open_store(url, 3_600.0), policy, 3_600.0)  # another replica
    try:
        items += _exchange(9, 60)
        turn = _turn(second, items)
        assert turn.compacted or turn.live.meta.folded
        assert cf.validate(turn.view, "openai-chat") == []
        items += _exchange(10, 60)
        again = _turn(second, items)  # and the new session goes on from there
        assert again.live.meta.sid == turn.live.meta.sid
    finally:
        second.close()


@pytest.mark.parametrize("damage", DAMAGES)
def test_an_unreadable_sqlite_session_starts_over(
    tmp_path: Path, damage: tuple[Damage | None, MetaDamage | None]
) -> None:
    path = tmp_path / "sessions.db"
    _two_turns(f"sqlite:{path}", _sqlite_rewrite, path, damage)


@pytest.mark.parametrize("damage", DAMAGES)
def test_an_unreadable_redis_session_starts_over(
    redis_url: str, damage: tuple[Damage | None, MetaDamage | None]
) -> None:
    _two_turns(redis_url, _redis_rewrite, redis_url, damage)
