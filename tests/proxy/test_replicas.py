"""Two `contextfold serve` processes sharing one real redis-server: a session alternating
between them continues exactly as it does in one process, with recall answered from the
shared archive; and the Redis archive keeps the write-once contract."""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import redis

from contextfold._proxy._store import Meta
from contextfold._proxy._store_redis import RedisArchive, RedisSessions

from . import agents
from .conftest import WINDOWS
from .processes import contextfold_serve
from .upstream import Upstream, serve

TURNS = 14
SECRET = "sk-replica-SECRET-0042"


class Alternating:
    """An OpenAI client whose requests alternate between proxies."""

    def __init__(self, *urls: str) -> None:
        self.clients = [
            openai.OpenAI(base_url=u + "/v1", api_key=SECRET, max_retries=0) for u in urls
        ]
        self._next = itertools.cycle(self.clients)
        self.chat = self
        self.completions = self

    def create(self, **kwargs: Any) -> Any:
        return next(self._next).chat.completions.create(**kwargs)

    def run(self) -> None:
        try:
            agents.chat(self, TURNS)  # type: ignore[arg-type]
        finally:
            for client in self.clients:
                client.close()


@contextlib.contextmanager
def _upstream() -> Iterator[Upstream]:
    yield from serve(Upstream(dict(WINDOWS), recall_every=4))


def _items(upstream: Upstream) -> list[Any]:
    return [seen.body["messages"] for seen in upstream.seen]


def test_a_session_alternating_between_replicas_continues_as_in_one_process(
    redis_url: str, tmp_path: Path
) -> None:
    alone_db = f"sqlite:{tmp_path / 'alone.db'}"
    with _upstream() as alone_up, contextfold_serve(alone_up.url, "--store", alone_db) as alone:
        Alternating(alone.url).run()
    with (
        _upstream() as shared_up,
        contextfold_serve(shared_up.url, "--store", redis_url) as one,
        contextfold_serve(shared_up.url, "--store", redis_url) as two,
    ):
        Alternating(one.url, two.url).run()
    assert shared_up.refused == []
    assert alone_up.refused == []
    assert any(seen.round for seen in shared_up.seen), "no recall round was answered"
    assert not any(error for _, error in shared_up.recall_answers)
    assert _items(shared_up) == _items(alone_up)  # the same requests, item for item
    logs = "".join(alone.stderr + one.stderr + two.stderr)
    assert SECRET not in logs
    with redis.Redis.from_url(redis_url) as client:
        stored = b"".join(key + bytes(client.dump(key) or b"") for key in client.scan_iter("*"))
    assert b"cf:archive" in stored
    assert SECRET.encode() not in stored
    files = [p for p in tmp_path.iterdir() if p.name.startswith("alone.db")]
    assert len(files) >= 2  # sessions and archive (and their journals)
    assert not any(SECRET.encode() in p.read_bytes() for p in files)
    assert all(seen.headers["authorization"] == f"Bearer {SECRET}" for seen in shared_up.seen)


def test_the_redis_archive_is_write_once_ordered_and_expires(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    archive = RedisArchive(client, "t:archive:s1", ttl=120)
    assert archive.put("r0000000001", "first") == "first"
    assert archive.put("r0000000001", "second") == "first"
    assert archive.put("r0000000002", "other") == "other"
    assert archive.get("r0000000001") == "first"
    assert archive.get("r0000000009") is None
    assert list(archive.refs()) == ["r0000000001", "r0000000002"]
    assert 0 < client.ttl("t:archive:s1") <= 120
    assert 0 < client.ttl("t:archive:s1:refs") <= 120
    archive.close()
    client.close()


def test_a_sessions_archive_expires_with_the_session(redis_url: str) -> None:
    store = RedisSessions(redis_url, 300, prefix="x:")
    store.archive_for("s9").put("r0000000001", "folded")
    store.save(Meta("s9", "root", 1, "a", "b", 1, True, 0, 1.0), snapshot="{}", record=None)
    with redis.Redis.from_url(redis_url, decode_responses=True) as client:
        for key in ("x:meta:s9", "x:snap:s9", "x:archive:s9", "x:archive:s9:refs"):
            assert 0 < client.ttl(key) <= 300, key
    store.close()


def test_an_unreachable_redis_is_a_clear_error() -> None:
    from contextfold._proxy._store import StoreError

    with pytest.raises(StoreError, match=r"cannot reach Redis at redis://127\.0\.0\.1:9/0"):
        RedisSessions("redis://127.0.0.1:9/0", 60)


def _children(pid: int) -> list[str]:
    listed = Path(f"/proc/{pid}/task/{pid}/children")
    return listed.read_text().split() if listed.exists() else []


def test_workers_sharing_a_sqlite_store_build_the_views_one_process_builds(
    tmp_path: Path,
) -> None:
    alone_db, shared_db = (f"sqlite:{tmp_path / name}" for name in ("alone.db", "shared.db"))
    with _upstream() as alone_up, contextfold_serve(alone_up.url, "--store", alone_db) as alone:
        Alternating(alone.url).run()
    with (
        _upstream() as shared_up,
        contextfold_serve(shared_up.url, "--store", shared_db, "--workers", "2") as served,
    ):
        Alternating(served.url, served.url).run()  # two connections, either worker
        if Path("/proc/self/task").exists():
            assert len(_children(served.process.pid)) >= 2
        time.sleep(0.2)  # let the reader thread take what the workers wrote
        serving = list(served.stderr)  # what they wrote while serving, before the stop
    assert shared_up.refused == []
    assert any(seen.round for seen in shared_up.seen), "no recall round was answered"
    assert _items(shared_up) == _items(alone_up)
    assert not any("Traceback" in line for line in serving), "".join(serving)
