"""Sending a request upstream and its answer back, with recall rounds in between.

Rules:
1. A request the proxy did not change is relayed as it is: status, headers and body, a
   stream chunk by chunk as it arrives (nothing parsed, nothing buffered).
2. A compacted request carries the recall tool; its answer is read (`_recall`): a recall
   round is answered from the archive and the request asked again, up to `rounds` times,
   the last without the recall tool (`_recall` rule 3). The client gets the final answer
   only.
3. Streaming a compacted request: events are held only until the answer shows what it is
   (`_sse` rule 3). Text or another tool goes live at once (the held events first); an
   answer of recall calls is held to its end and never reaches the client, whose stream
   then continues with the next round's answer. Whatever reaches the client passes
   through `_hide`: recall calls after text, or beside other tools, are taken out.
   A client that declared the recall tool itself gets every call as it came, and only
   the recall calls the proxy's archive answers make a round (`_recall` rule 4).
4. An upstream error status is the client's answer, unchanged. When a later round fails
   after a stream was promised, the stream ends with the provider's own error event
   (`_failures` rule 4): a round follows an answer held whole, so it is the first event.
5. An event stream the upstream breaks off (the connection drops, a read times out) ends
   cleanly with the provider's error event (`_failures` rule 3) and one log line, never a
   traceback. Another body broken off midway still aborts the client's connection: ended
   cleanly it would read as complete.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
from starlette.responses import Response, StreamingResponse

import contextfold as cf

from . import _failures, _hide, _recall, _sse
from ._metrics import Metrics
from ._upstream import UPSTREAM_ERRORS, response_headers, send

log = logging.getLogger("contextfold.proxy")


@dataclass(slots=True)
class Rounds:
    """What recall rounds need: the compacted body as data and the room left."""

    format: cf.Format
    key: str
    body: dict[str, Any]
    archive: cf.Archive
    model: str | None
    room: int
    limit: int
    shared: bool = False
    """The client declared the recall tool too (`_recall` rule 4)."""
    done: int = 0

    def is_round(self, response: dict[str, Any]) -> bool:
        """Whether the proxy answers `response` with another round (rules 2-3)."""
        archive = self.archive if self.shared else None
        return self.done < self.limit and _recall.is_round(self.format, response, archive)

    def hider(self) -> _hide.Hider:
        """What takes the recall calls out of an answer's events for the client."""
        return _hide.Hider(self.format, active=not self.shared)

    def next_body(self, response: dict[str, Any]) -> bytes:
        """The request after answering `response`'s recall calls (`_recall` rules 1-3)."""
        stateless = self.body.get("store") is False
        added = _recall.answer(
            self.format, response, self.archive, self.room, model=self.model, stateless=stateless
        )
        self.room -= cf.count_tokens(added, self.model, format=self.format)
        self.done += 1
        body = {**self.body, self.key: [*self.body[self.key], *added]}
        last = self.done >= self.limit
        self.body = _recall.last_round(self.format, body, self.shared) if last else body
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8", "surrogatepass")


@dataclass(slots=True)
class Outgoing:
    """One request on its way upstream."""

    url: str
    headers: list[tuple[str, str]]
    content: bytes
    rounds: Rounds | None = None


async def complete(
    client: aiohttp.ClientSession, out: Outgoing, metrics: Metrics, format: cf.Format
) -> Response:
    """A non-streaming request and its answer (rules 1, 2, 4)."""
    while True:
        answer = await send(client, "POST", out.url, out.headers, out.content)
        metrics.upstream.labels(str(answer.status)).inc()
        rounds = out.rounds
        if rounds is None:
            return await forwarded(answer, "POST", format, out.url)
        async with answer:
            content = await answer.read()
        data = _json(content) if answer.status == 200 else None
        if data is None:
            return relay(answer, content)
        if rounds.is_round(data):
            started = time.perf_counter()
            out.content = rounds.next_body(data)
            metrics.recall_rounds.inc()
            metrics.added.observe(time.perf_counter() - started)
            continue
        if not rounds.shared and _recall.has_recall(rounds.format, data):
            stripped = _recall.strip(rounds.format, data)
            return relay(answer, json.dumps(stripped).encode())
        return relay(answer, content)


def _json(content: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(content)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


async def forwarded(
    answer: aiohttp.ClientResponse, method: str, format: cf.Format, url: str
) -> Response:
    """An answer as it is (rule 1): read whole when it states its length (or has no
    body), else relayed as it arrives (an event stream, a long JSON Lines download)."""
    sized = answer.content_length is not None or answer.status in (204, 304)
    if sized or method == "HEAD":
        async with answer:
            return relay(answer, await answer.read())
    return _headed(StreamingResponse(_plain(answer, format, url), answer.status), answer)


def relay(answer: aiohttp.ClientResponse, content: bytes) -> Response:
    """`content` as the answer's body, with the answer's status and headers."""
    return _headed(Response(content, answer.status), answer)


def _headed(response: Response, answer: aiohttp.ClientResponse) -> Response:
    """`response` carrying the upstream answer's headers, repeated ones included."""
    response.raw_headers.extend(response_headers(answer))
    return response


async def stream(
    client: aiohttp.ClientSession, out: Outgoing, metrics: Metrics, format: cf.Format
) -> Response:
    """A streaming request: the answer relayed as it arrives (rules 1, 3, 4, 5)."""
    first = await send(client, "POST", out.url, out.headers, out.content)
    metrics.upstream.labels(str(first.status)).inc()
    if first.status != 200:
        async with first:
            return relay(first, await first.read())
    if out.rounds is None:
        return _headed(StreamingResponse(_plain(first, format, out.url), 200), first)
    rounds = _ending(_rounds(client, out, first, metrics), out.rounds.format, out.url)
    return _headed(StreamingResponse(rounds, 200), first)


def _plain(answer: aiohttp.ClientResponse, format: cf.Format, url: str) -> AsyncIterator[bytes]:
    """The answer's bytes as they arrive; an event stream broken off ends cleanly (rule 5)."""
    chunks = _chunks(answer)
    if answer.content_type != "text/event-stream":
        return chunks
    return _ending(chunks, format, url)


async def _chunks(answer: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    async with answer:
        async for chunk in answer.content.iter_any():
            yield chunk


async def _ending(
    chunks: AsyncIterator[bytes], format: cf.Format, url: str
) -> AsyncIterator[bytes]:
    """`chunks` of an event stream, ended with the provider's error event when the upstream
    breaks it off (rule 5); counts the events relayed (Responses numbers them)."""
    events, tail = 0, b""
    try:
        async for chunk in chunks:
            events += (tail + chunk).count(b"\n\n")  # an event ends in a blank line
            tail = chunk[-1:]
            yield chunk
    except UPSTREAM_ERRORS as exc:
        log.warning(
            "upstream %s broke off a stream: %s: %s", _failures.origin(url), type(exc).__name__, exc
        )
        yield _failures.broken_event(format, exc, url, events)


async def _rounds(
    client: aiohttp.ClientSession,
    out: Outgoing,
    answer: aiohttp.ClientResponse,
    metrics: Metrics,
) -> AsyncIterator[bytes]:
    """Rule 3: one upstream stream per round, held until it shows what it is."""
    rounds = out.rounds
    assert rounds is not None
    while True:
        assembler = _sse.assembler(rounds.format)
        hide = rounds.hider()
        held: list[bytes] = []
        async for shown in _round(answer, assembler, hide, held):
            yield shown
        if _live(assembler):
            return
        response = assembler.response()
        if not rounds.is_round(response):
            rest = _shown(hide, held)
            if rest:
                yield rest
            return
        started = time.perf_counter()
        out.content = rounds.next_body(response)
        metrics.recall_rounds.inc()
        metrics.added.observe(time.perf_counter() - started)
        answer = await send(client, "POST", out.url, out.headers, out.content)
        metrics.upstream.labels(str(answer.status)).inc()
        if answer.status != 200:
            async with answer:
                text = (await answer.read()).decode("utf-8", "replace")
            yield _failures.refused_event(rounds.format, answer.status, text, 0)  # none shown
            return


async def _round(
    answer: aiohttp.ClientResponse,
    assembler: _sse.Assembler,
    hide: _hide.Hider,
    held: list[bytes],
) -> AsyncIterator[bytes]:
    """One answer's events for the client: none while it is held (kept in `held`), then
    the held ones and the rest as they come, recall calls taken out."""
    async with answer:
        async for event in _sse.events(answer.content.iter_any()):
            if _live(assembler):
                shown = hide(event)
            else:
                assembler.feed(_sse.data_of(event))
                held.append(event)
                shown = _shown(hide, held) if _live(assembler) else None
            if shown:
                yield shown


def _live(assembler: _sse.Assembler) -> bool:
    return assembler.decision == "live"


def _shown(hide: _hide.Hider, events: list[bytes]) -> bytes:
    return b"".join(shown for shown in map(hide, events) if shown)
