"""Sessions and the archive in Redis, shared by every replica of one deployment.

Rules:
1. Keys (under `prefix`, default `cf:`): `meta:SID` and `snap:SID` strings, `log:SID` a
   list, `root:ROOT` a sorted set of session ids by last use; a session's archive is the
   hash `archive:SID` (reference -> entry) plus the list `archive:SID:refs` giving
   insertion order. Every session key, its archive included, expires `ttl` seconds after
   the session's last save or archive write.
2. A save is one MULTI/EXEC transaction, so another replica sees the whole turn or none.
3. An archive put is one Lua script (HSETNX, then RPUSH when it set, then the expiry):
   write-once and atomic between replicas, as `cf.ArchiveStore` asks.
4. Every Redis failure becomes a StoreError (sessions) or a cf.ArchiveError (archive).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final

import redis

import contextfold as cf

from ._store import Meta, Saved, StoreError, readable

_CANDIDATES: Final = 16
_PUT: Final = """
local kept = ARGV[2]
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[1])
else
  kept = redis.call('HGET', KEYS[1], ARGV[1])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return kept
"""


def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, decode_responses=True, socket_timeout=5.0)


class RedisArchive:
    """A cf.ArchiveStore in a Redis hash at `key`, expiring `ttl` seconds after the last
    write (rules 1 and 3)."""

    def __init__(self, client: redis.Redis, key: str, ttl: float, put: Any = None) -> None:
        self._client = client
        self._hash = key
        self._order = key + ":refs"
        self._ttl = max(1, int(ttl))
        self._put = put if put is not None else client.register_script(_PUT)

    def put(self, ref: str, data: str) -> str:
        try:
            keys = [self._hash, self._order]
            return str(self._put(keys=keys, args=[ref, data, self._ttl]))
        except redis.RedisError as exc:
            raise cf.ArchiveError(f"Redis archive: {exc}") from exc

    def get(self, ref: str) -> str | None:
        try:
            found = self._client.hget(self._hash, ref)
        except redis.RedisError as exc:
            raise cf.ArchiveError(f"Redis archive: {exc}") from exc
        return None if found is None else str(found)

    def refs(self) -> Iterator[str]:
        try:
            yield from (str(r) for r in self._client.lrange(self._order, 0, -1))
        except redis.RedisError as exc:
            raise cf.ArchiveError(f"Redis archive: {exc}") from exc

    def close(self) -> None:
        """Nothing: the client belongs to the session store."""

    def __repr__(self) -> str:
        return f"RedisArchive({self._hash!r})"


class RedisSessions:
    """A SessionStore in Redis (rules 1 and 2)."""

    def __init__(self, url: str, ttl: float, prefix: str = "cf:") -> None:
        self.ttl = ttl
        self._prefix = prefix
        self._client = _client(url)
        try:
            self._client.ping()
        except redis.RedisError as exc:
            raise StoreError(f"cannot reach Redis at {_shown(url)}: {exc}") from exc
        self._archives = _client(url)
        self._put = self._archives.register_script(_PUT)

    def archive_for(self, sid: str) -> cf.ArchiveStore:
        return RedisArchive(self._archives, self._key("archive", sid), self.ttl, self._put)

    def _key(self, kind: str, name: str) -> str:
        return f"{self._prefix}{kind}:{name}"

    def candidates(self, root: str) -> list[Meta]:
        try:
            since = time.time() - self.ttl
            key = self._key("root", root)
            sids = self._client.zrevrangebyscore(key, "+inf", since, start=0, num=_CANDIDATES)
            if not sids:
                return []
            metas = self._client.mget([self._key("meta", str(s)) for s in sids])
        except redis.RedisError as exc:
            raise StoreError(f"Redis: {exc}") from exc
        found = (readable(m) for m in metas if m is not None)
        return [meta for meta in found if meta is not None]

    def meta(self, sid: str) -> Meta | None:
        try:
            found = self._client.get(self._key("meta", sid))
        except redis.RedisError as exc:
            raise StoreError(f"Redis: {exc}") from exc
        return None if found is None else readable(str(found))

    def load(self, sid: str) -> Saved | None:
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.get(self._key("meta", sid))
            pipe.get(self._key("snap", sid))
            pipe.lrange(self._key("log", sid), 0, -1)
            meta, snap, log = pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"Redis: {exc}") from exc
        held = None if meta is None or snap is None else readable(meta)
        if held is None:
            return None
        return Saved(held, str(snap), [str(r) for r in log])

    def save(self, meta: Meta, *, snapshot: str | None, record: str | None) -> None:
        ttl = max(1, int(self.ttl))
        log = self._key("log", meta.sid)
        try:
            pipe = self._client.pipeline(transaction=True)
            pipe.set(self._key("meta", meta.sid), meta.dump(), ex=ttl)
            if snapshot is not None:
                pipe.set(self._key("snap", meta.sid), snapshot, ex=ttl)
                pipe.delete(log)
            else:
                pipe.expire(self._key("snap", meta.sid), ttl)
            if record is not None:
                pipe.rpush(log, record)
            pipe.expire(log, ttl)
            archive = self._key("archive", meta.sid)
            pipe.expire(archive, ttl)
            pipe.expire(archive + ":refs", ttl)
            root = self._key("root", meta.root)
            pipe.zadd(root, {meta.sid: meta.touched})
            pipe.zremrangebyscore(root, "-inf", meta.touched - self.ttl)
            pipe.expire(root, ttl)
            pipe.execute()
        except redis.RedisError as exc:
            raise StoreError(f"Redis: {exc}") from exc

    def close(self) -> None:
        self._client.close()
        self._archives.close()


def _shown(url: str) -> str:
    """`url` without its password (rule: credentials are never echoed)."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.rsplit("@", 1)[1]
    return scheme + sep + rest
