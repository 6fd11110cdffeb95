"""How the proxy is set up: one frozen record, and the store its URL names.

Rules:
1. `--store` takes `sqlite:PATH` (or a bare path) for one process, `redis://...` (or
   `rediss://`, `unix://`) for replicas sharing a deployment.
2. A bad value is a ConfigurationError saying what was expected.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import contextfold as cf

from ._store import SessionStore

DEFAULT_STORE: Final = "sqlite:contextfold-proxy.db"
_REDIS: Final = ("redis://", "rediss://", "unix://")


@dataclass(frozen=True, slots=True)
class Config:
    """Everything `contextfold serve` is told."""

    openai_upstream: str = "https://api.openai.com/v1"
    anthropic_upstream: str = "https://api.anthropic.com/v1"
    store: str = DEFAULT_STORE
    windows: Mapping[str, int] = field(default_factory=dict)
    """Context windows by model name (or prefix ending in `*`), over the built-in table."""
    default_window: int | None = None
    high: float = 0.9
    low: float = 0.6
    ttl: float = 3_600.0
    """Seconds a session may stay idle before it expires."""
    token: str | None = None
    """When set, clients must send it in `x-contextfold-token`."""
    max_body: int = 32 * 1024 * 1024
    recall_rounds: int = 3
    timeout: float = 600.0
    max_sessions: int = 10_000
    """Sessions kept in memory by one process (others are read back from the store)."""

    def policy(self) -> cf.Policy:
        return cf.Policy(high=self.high, low=self.low)


def open_store(url: str, ttl: float) -> SessionStore:
    """The session store `url` names (rule 1)."""
    if url.startswith(_REDIS):
        from ._store_redis import RedisSessions  # noqa: PLC0415 - only replicas need redis

        return RedisSessions(url, ttl)
    path = url.removeprefix("sqlite:").removeprefix("//")
    if not path or "://" in path:
        raise cf.ConfigurationError(
            f"--store {url!r}: use sqlite:PATH for one process or redis://HOST:PORT/DB"
        )
    from ._store_sqlite import SqliteSessions  # noqa: PLC0415

    return SqliteSessions(path, ttl)
