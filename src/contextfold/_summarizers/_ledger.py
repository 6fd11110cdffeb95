"""Placeholder ledger (the real extractive ledger is being written)."""

from __future__ import annotations

from .._messages import message_text
from ._protocol import SummaryRequest, SummaryResult


class LedgerSummarizer:
    """First line of every message, with its reference."""

    name = "ledger"

    def summarize(self, request: SummaryRequest) -> SummaryResult:
        """A line per message."""
        lines = [request.previous] if request.previous else []
        refs = request.refs or ("",) * len(request.messages)
        for message, ref in zip(request.messages, refs, strict=True):
            first = message_text(message).strip().split("\n", 1)[0][:80]
            lines.append(f"- {message.role}: {first} ({ref})")
        return SummaryResult("\n".join(lines), summarizer="ledger")

    async def asummarize(self, request: SummaryRequest) -> SummaryResult:
        """Awaitable form."""
        return self.summarize(request)
