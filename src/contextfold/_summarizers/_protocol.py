"""The summarizer seam: one request type, one result type, one method.

Rules:
1. `Summarizer.summarize(request) -> SummaryResult` is the whole contract. Async backends
   add `asummarize` with the same signature; the compaction flow is written once and
   pumped by a sync or an async driver, so no logic exists twice.
2. A summarizer returns the body of the summary only; the engine adds the header and the
   archive references, so every backend's output reads the same way.
3. `SummaryResult.summarizer` names who actually wrote the text (after any fallback), and
   the token usage lets callers tally cost. Credentials never appear in either.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Protocol, runtime_checkable

from .._messages import Message


@dataclass(frozen=True, slots=True)
class SummaryRequest:
    """Fold `messages` (the oldest span) into one summary, merging `previous` if given."""

    messages: tuple[Message, ...]
    """The span to summarize, oldest first; compaction artifacts inside it are kept as is."""
    _: KW_ONLY
    previous: str | None = None
    """Body of the summary already in the conversation, to merge (anchored merge)."""
    refs: tuple[str, ...] = ()
    """Archive reference of each message in `messages` (same order), for citations."""
    max_tokens: int = 1024
    """Upper bound on the summary's size in tokens (the reserve)."""
    carried: tuple[str, ...] = ()
    """User statements the conversation carries verbatim beside the summary (the card):
    the summary need not repeat them."""
    stale: tuple[str, ...] = ()
    """User statements superseded by newer ones: their old values must not appear in the
    summary as current."""


@dataclass(frozen=True, slots=True)
class SummaryResult:
    """What a summarizer produced and what it cost."""

    text: str
    _: KW_ONLY
    summarizer: str
    """Who wrote it, e.g. `ledger`, `openai:gpt-4o-mini`, `anthropic:claude-haiku-4-5`."""
    input_tokens: int = 0
    output_tokens: int = 0
    cached: bool = False
    """True when the text came from the summary cache and no model was called."""


@runtime_checkable
class Summarizer(Protocol):
    """Writes the body of a summary for a span of conversation."""

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """The summary of `request.messages`, merged with `request.previous`."""
        ...


@runtime_checkable
class AsyncSummarizer(Protocol):
    """A summarizer that can also be awaited."""

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form of `Summarizer.summarize`."""
        ...
