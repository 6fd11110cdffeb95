"""Fold the collected span into the summary: chunked requests, anchored merge, a hard cap.

Rules:
1. The span goes to the summarizer in chunks of at most `chunk_tokens` (default: the
   budget), oldest first; each request merges the previous summary body (anchored merge).
2. The summary never exceeds its reserve: a longer answer is cut at a line boundary.
3. The summary being replaced is archived, so no earlier summary is ever lost.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

from .._messages import Message, Summary
from .._policy import Policy
from .._report import SummaryInfo
from .._strategies._steps import Summarize
from .._summarizers._protocol import SummaryRequest, SummaryResult
from .._tokens._protocol import TokenCounter
from ._apply import Applied, Archiver
from ._preamble import SUMMARY_INTRO, summary_body, summary_text


def reserve_for(policy: Policy, budget: int, *, small: bool = False) -> int:
    """Tokens reserved for the summary body (a quarter of it, at least 48, when `small`)."""
    step = policy.steps.get("summarize")
    if isinstance(step, Summarize) and step.reserve is not None:
        reserve = step.reserve
    else:
        reserve = min(2000, max(128, budget // 10))
    return max(48, reserve // 4) if small else reserve


def summary_cap(reserve: int, counter: TokenCounter) -> int:
    """Upper bound of the summary message's tokens (intro + reserve)."""
    return counter.count(Message("user", (Summary(SUMMARY_INTRO),))) + reserve


def fold(
    applied: Applied,
    previous: str | None,
    *,
    policy: Policy,
    budget: int,
    counter: TokenCounter,
    archive: Archiver,
    small: bool = False,
) -> Generator[SummaryRequest, SummaryResult, str]:
    """Summarize `applied.folded` into one summary text (rules 1-3)."""
    reserve = reserve_for(policy, budget, small=small)
    step = policy.steps.get("summarize")
    chunk = step.chunk_tokens if isinstance(step, Summarize) and step.chunk_tokens else budget
    if previous is not None:
        applied.refs.append(archive.put(previous))
    body = summary_body(previous)
    for messages, refs in _chunks(applied.folded, applied.folded_refs, chunk, counter):
        request = SummaryRequest(
            tuple(messages), previous=body, refs=tuple(refs), max_tokens=reserve
        )
        result = yield request
        body = result.text
        applied.summaries.append(
            SummaryInfo(
                result.summarizer,
                len(messages),
                result.input_tokens,
                result.output_tokens,
                result.cached,
            )
        )
    return _capped(body or "", summary_cap(reserve, counter), counter)


def _chunks(
    messages: Sequence[Message], refs: Sequence[str], limit: int, counter: TokenCounter
) -> list[tuple[list[Message], list[str]]]:
    chunks: list[tuple[list[Message], list[str]]] = []
    size = 0
    for message, ref in zip(messages, refs, strict=True):
        tokens = counter.count(message)
        if chunks and size + tokens <= limit:
            chunks[-1][0].append(message)
            chunks[-1][1].append(ref)
            size += tokens
        else:
            chunks.append(([message], [ref]))
            size = tokens
    return chunks


def _capped(body: str, cap: int, counter: TokenCounter) -> str:
    """`summary_text(body)`, cut at a line boundary so its message fits `cap` (rule 2)."""

    def cost(text: str) -> int:
        return counter.count(Message("user", (Summary(summary_text(text)),)))

    if cost(body) <= cap:
        return summary_text(body)
    lines = body.splitlines()
    low, high = 0, len(lines)
    while low < high:
        mid = (low + high + 1) // 2
        if cost("\n".join(lines[:mid])) <= cap:
            low = mid
        else:
            high = mid - 1
    kept = "\n".join(lines[:low])
    while kept and cost(kept) > cap:
        kept = kept[: len(kept) // 2]
    return summary_text(kept)
