"""A SQLite cache of summaries, keyed by everything that determines them.

Rules:
1. The key is (summarizer name, PROMPT_VERSION, digest); the digest is the sha256 of the
   exact span (each message in its neutral JSON form), its refs, the previous summary and
   max_tokens. A hit makes no model call and returns `cached=True` with zero tokens,
   since nothing was spent.
2. Only successful results are stored. No credential ever reaches the cache: it holds
   names, digests, summary texts and token counts.
3. A broken cache never costs a turn: CachedSummarizer logs the storage error and asks
   the model as if the cache were not there.
4. Wrap each model backend, not a fallback chain, so a last-resort answer is never
   cached under a model's name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Protocol

from .._errors import ArchiveError
from .._serialize import dump_message
from ._flow import acall
from ._prompt import PROMPT_VERSION
from ._protocol import Summarizer, SummaryRequest, SummaryResult

__all__ = ["CacheKey", "CachedSummarizer", "NamedSummarizer", "SummaryCache", "cache_key"]

log = logging.getLogger("contextfold")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS summaries (
    summarizer TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    digest TEXT NOT NULL,
    writer TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    PRIMARY KEY (summarizer, prompt_version, digest)
)
"""


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Where a summary lives in the cache."""

    summarizer: str
    prompt_version: str
    digest: str


def cache_key(summarizer: str, request: SummaryRequest) -> CacheKey:
    """The key of `request` summarized by `summarizer` under the current prompt."""
    content = {
        "messages": [dump_message(m) for m in request.messages],
        "refs": list(request.refs),
        "previous": request.previous,
        "max_tokens": request.max_tokens,
    }
    raw = json.dumps(
        content, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return CacheKey(summarizer, PROMPT_VERSION, hashlib.sha256(raw.encode()).hexdigest())


class SummaryCache:
    """Summaries stored in SQLite at `path` (`:memory:` for a cache that dies with it)."""

    __slots__ = ("__weakref__", "_close", "_conn", "_lock", "path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = str(path)
        import sqlite3  # noqa: PLC0415 - lazily: a CLI run without a cache never loads it

        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise ArchiveError(f"cannot open the summary cache at {self.path}: {exc}") from None
        self._conn = conn
        self._lock = threading.Lock()
        self._close = weakref.finalize(self, conn.close)

    def __repr__(self) -> str:
        return f"SummaryCache({self.path!r})"

    def get(self, key: CacheKey) -> SummaryResult | None:
        """The cached result under `key`, marked `cached=True`, or None."""
        rows = self._run(
            "SELECT writer, text FROM summaries"
            " WHERE summarizer = ? AND prompt_version = ? AND digest = ?",
            (key.summarizer, key.prompt_version, key.digest),
        )
        if not rows:
            return None
        writer, text = rows[0]
        return SummaryResult(str(text), summarizer=str(writer), cached=True)

    def put(self, key: CacheKey, result: SummaryResult) -> None:
        """Store `result` under `key`, replacing any older entry."""
        self._run(
            "INSERT OR REPLACE INTO summaries VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key.summarizer,
                key.prompt_version,
                key.digest,
                result.summarizer,
                result.text,
                result.input_tokens,
                result.output_tokens,
            ),
        )

    def __len__(self) -> int:
        (count,) = self._run("SELECT COUNT(*) FROM summaries", ())[0]
        return int(str(count))

    def _run(self, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
        import sqlite3  # noqa: PLC0415 - loaded by __init__ already

        try:
            with self._lock:
                return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise ArchiveError(f"summary cache at {self.path} failed: {exc}") from None

    def close(self) -> None:
        """Close the database; also done when the cache is garbage-collected."""
        self._close()

    def __enter__(self) -> SummaryCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class NamedSummarizer(Summarizer, Protocol):
    """A summarizer with a stable name (`openai:MODEL`), the first part of its cache keys."""

    @property
    def name(self) -> str:
        """Backend and model, e.g. `anthropic:claude-haiku-4-5`."""
        ...


class CachedSummarizer:
    """`inner` behind a summary cache: an identical request never reaches the model twice."""

    __slots__ = ("cache", "inner")

    def __init__(self, inner: NamedSummarizer, cache: SummaryCache) -> None:
        self.inner = inner
        self.cache = cache

    @property
    def name(self) -> str:
        """The inner summarizer's name."""
        return self.inner.name

    def __repr__(self) -> str:
        return f"CachedSummarizer({self.inner!r}, {self.cache!r})"

    def _lookup(self, key: CacheKey) -> SummaryResult | None:
        try:
            return self.cache.get(key)
        except ArchiveError as exc:
            log.warning("summary cache read failed, asking the model (%s)", exc)
            return None

    def _store(self, key: CacheKey, result: SummaryResult) -> None:
        try:
            self.cache.put(key, result)
        except ArchiveError as exc:
            log.warning("summary cache write failed (%s)", exc)

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The cached summary of `request`, or the inner summarizer's (then cached)."""
        key = cache_key(self.inner.name, request)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        result = self.inner.summarize(request)
        self._store(key, result)
        return result

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `summarize`."""
        key = cache_key(self.inner.name, request)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        result = await acall(self.inner, request)
        self._store(key, result)
        return result
