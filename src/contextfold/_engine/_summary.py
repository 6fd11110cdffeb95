"""Fold the collected span into the summary: chunked requests, anchored merge, a hard cap.

Rules:
1. The span goes to the summarizer in chunks of at most `chunk_tokens` (default: the
   budget), oldest first; each request merges the previous summary body (anchored merge).
   A summarizer that bounds its own reading (the embedded ledger) gets the whole span in
   one request unless the policy sets `chunk_tokens`: nothing is counted to cut it.
2. The summary never exceeds the tokens it is given (`max_tokens`: the room the plan
   left after the card, at least its reserve): a longer answer is cut at a line boundary.
3. The summary being replaced is archived (by `_room`, which names it in the span), so
   no earlier summary is ever lost.
4. Its intro names one span reference: an archive entry listing every folded message
   (reference, role, first words), chained to the previous span, so the model can reach
   every folded message from the output itself.
5. Each request names the statements the card carries verbatim and those no longer
   current (superseded), so the summary neither repeats the card nor revives old values.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from itertools import chain

from .._messages import Message, Part, Summary, Text, ToolResult, part_text
from .._policy import Policy
from .._report import SummaryInfo
from .._strategies._steps import Summarize
from .._summarizers._protocol import SummaryRequest, SummaryResult
from .._tokens._protocol import TokenCounter
from ._apply import Applied, Archiver
from ._preamble import summary_body, summary_text
from ._transform import REF_TOKENS_MAX

_PREVIEW = 72


def reserve_for(policy: Policy, budget: int, *, small: bool = False) -> int:
    """Tokens reserved for the summary body (a quarter of it, at least 48, when `small`)."""
    step = policy.steps.get("summarize")
    if isinstance(step, Summarize) and step.reserve is not None:
        reserve = step.reserve
    else:
        reserve = min(2000, max(128, budget // 10))
    return max(48, reserve // 4) if small else reserve


def summary_cap(reserve: int, counter: TokenCounter) -> int:
    """Upper bound of the summary message's tokens (intro + reserve; the intro naming the
    recall tool, the longer one)."""
    intro = counter.count(Message("user", (Summary(summary_text("", "")),)))
    return intro + REF_TOKENS_MAX + reserve


def chunk_size(policy: Policy, budget: int, *, whole_spans: bool) -> int | None:
    """Tokens per summary request (rule 1); None: the whole span in one request."""
    step = policy.steps.get("summarize")
    if isinstance(step, Summarize) and step.chunk_tokens:
        return step.chunk_tokens
    return None if whole_spans else budget


def fold(
    applied: Applied,
    previous: str | None,
    *,
    span: str,
    max_tokens: int,
    chunk: int | None,
    counter: TokenCounter,
    carried: tuple[str, ...] = (),
    stale: tuple[str, ...] = (),
    recall: bool = True,
) -> Generator[SummaryRequest, SummaryResult, str]:
    """Summarize `applied.folded` into one summary text of at most `max_tokens` (rules 1-5);
    `span` is the reference `make_span` gave the folded messages."""
    intro = counter.count(Message("user", (Summary(summary_text("", span, recall)),)))
    body = summary_body(previous)
    room = max(0, max_tokens - intro)
    if room:
        for messages, refs in _chunks(applied.folded, applied.folded_refs, chunk, counter):
            request = SummaryRequest(
                tuple(messages),
                previous=body,
                refs=tuple(refs),
                max_tokens=room,
                carried=carried,
                stale=stale,
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
    return _capped(body or "", span, max(intro, max_tokens), counter, recall)


def has_body(text: str) -> bool:
    """Whether a summary text says anything beyond its intro line."""
    return "\n" in text.strip()


def make_span(
    applied: Applied, earlier: str | None, archive: Archiver, replaced: Sequence[str] = ()
) -> str:
    """Archive the list of folded messages (rule 4) and of the statements the user replaced
    (`replaced`, their references); returns its reference."""
    text = "\n".join(_span_lines(applied, earlier, replaced))  # lines freed before `put`
    ref = archive.put(text, label="folded span")
    applied.refs.append(ref)
    return ref


def _span_lines(applied: Applied, earlier: str | None, replaced: Sequence[str]) -> Iterator[str]:
    yield "Messages taken out of view, oldest first (recall a ref for the message):"
    gone = chain(
        zip(applied.folded, applied.folded_refs, strict=True),
        zip(applied.dropped, applied.dropped_refs, strict=True),
    )
    for message, ref in gone:
        yield f"- {ref} {message.role}: {_preview(message)}"
    if earlier:
        yield f"Folded before these: {earlier}"
    if replaced:
        yield f"Statements the user has since replaced: {', '.join(replaced)}"


def _preview(message: Message) -> str:
    """The first _PREVIEW characters of the message's text, spaces collapsed, reading only
    as much of a long text as that takes: spaces collapsed in a prefix give a prefix of
    the whole collapsed, so a prefix that collapses to _PREVIEW characters is enough."""
    read = _PREVIEW + 8  # enough for most prose; code and lists read more
    while True:
        head, whole = _text_head(message, read)
        words = " ".join(head.split())
        if whole or len(words) >= _PREVIEW:
            return words[:_PREVIEW]
        read *= 8


def _text_head(message: Message, size: int) -> tuple[str, bool]:
    """The first `size` characters (or so) of `message_text(message)`, and whether that is
    all of it."""
    parts = message.parts
    if len(parts) == 1:
        text = _one_text(parts[0])
        return text[:size], len(text) <= size
    texts: list[str] = []
    room = size
    for part in parts:
        text = part_text(part)
        if not text:
            continue
        if room <= 0:
            return "\n".join(texts), False
        texts.append(text[:room])
        room -= len(text) + 1
    return "\n".join(texts), room >= -1


def _one_text(part: Part) -> str:
    """`part_text(part)`, a Text or a result holding one Text read at once."""
    if type(part) is Text:
        return part.text
    if type(part) is ToolResult and len(part.parts) == 1 and type(part.parts[0]) is Text:
        return part.parts[0].text
    return part_text(part)


def _chunks(
    messages: Sequence[Message], refs: Sequence[str], limit: int | None, counter: TokenCounter
) -> list[tuple[list[Message], list[str]]]:
    """The span in requests of at most `limit` tokens each (None: one request, uncounted)."""
    if limit is None:
        return [(list(messages), list(refs))] if messages else []
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


def _capped(body: str, span: str, cap: int, counter: TokenCounter, recall: bool) -> str:
    """`summary_text(body, span, recall)`, cut at a line boundary so its message fits `cap`."""

    def cost(text: str) -> int:
        return counter.count(Message("user", (Summary(summary_text(text, span, recall)),)))

    if cost(body) <= cap:
        return summary_text(body, span, recall)
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
    return summary_text(kept, span, recall)
