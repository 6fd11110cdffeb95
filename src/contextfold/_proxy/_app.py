"""The ASGI app: routes, the compacting path, and everything forwarded as it is.

Rules:
1. `POST /v1/chat/completions`, `/v1/responses` and `/v1/messages` are compacted;
   `/v1/messages/count_tokens` is answered here with our count; `/healthz` and `/metrics`
   are the proxy's own; every other path and method goes upstream unchanged.
2. A compacting request: read (at most `max_body` bytes, else 413), find its session,
   add its new items, take the view. Unless the session was ever compacted the client's
   bytes go upstream unchanged; otherwise the compacted body does, with the recall tool.
3. Anything that goes wrong while compacting (a body we cannot read, a store that is
   down, a bug) forwards the client's bytes unchanged and logs one line naming the error
   type and message, never headers or bodies: a request is never dropped.
4. With `token` set, a request without it in `x-contextfold-token` gets 401 in its
   provider's error shape. The token is compared in constant time and never forwarded.
   A CORS preflight (OPTIONS) needs none: browsers send it without the request's headers.
5. An upstream that cannot be reached or does not answer in time is 502 or 504 in the
   provider's shape, naming the upstream (`_failures` rule 2).
6. `count_tokens` answers 400 in Anthropic's shape for what the Messages API refuses: no
   model, no messages, a conversation `validate` rejects.
7. Compacting and counting run in a worker thread, never on the event loop: a request
   whose history takes seconds to compact must not hold up every stream being relayed
   and every other request meanwhile. Compactions take turns (one lock: sessions and
   their managers are not shared between threads at once).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final

import aiohttp
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import contextfold as cf

from . import _failures, _relay
from ._budgets import WINDOW_HEADER, budget_for, window_for
from ._config import Config, open_store
from ._marks import remarked
from ._metrics import Metrics
from ._scan import scan
from ._sessions import SESSION_HEADER, Sessions, Turn
from ._upstream import (
    UPSTREAM_ERRORS,
    Upstreams,
    client,
    decoded,
    is_anthropic,
    request_headers,
    send,
    without_encoding,
)
from ._wire import (
    ENDPOINTS,
    Endpoint,
    declares_recall,
    fixed_of,
    items_of,
    splice,
    with_recall_tool,
)

log = logging.getLogger("contextfold.proxy")
TOKEN_HEADER: Final = "x-contextfold-token"
_FORWARDED: Final = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
"""Every method (rule 1): OPTIONS is a browser's CORS preflight, the provider's to answer."""


class TooLarge(Exception):
    """The body is over the size limit."""


class Proxy:
    """The proxy's state: config, sessions, upstream client and metrics."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.sessions = Sessions(
            open_store(config.store, config.ttl),
            config.policy(),
            config.ttl,
            config.max_sessions,
        )
        self.upstreams = Upstreams(config.openai_upstream, config.anthropic_upstream)
        self.metrics = Metrics(lambda: len(self.sessions))
        self._http: aiohttp.ClientSession | None = None
        self._turns = threading.Lock()
        """Held while a request's turn is taken (rule 7)."""

    def http(self) -> aiohttp.ClientSession:
        """The upstream client, made on first use (inside the server's event loop)."""
        if self._http is None:
            self._http = client(self.config.timeout)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
        self.sessions.close()

    # --- routes ------------------------------------------------------------------------

    async def compacting(self, request: Request) -> Response:
        endpoint = ENDPOINTS[request.url.path]
        raw = await self._admit(request, endpoint)
        if isinstance(raw, Response):
            return raw
        out, body = await asyncio.to_thread(self._outgoing_alone, request, endpoint, raw)
        try:
            if isinstance(body, dict) and body.get("stream") is True:
                return await _relay.stream(self.http(), out, self.metrics, endpoint.format)
            return await _relay.complete(self.http(), out, self.metrics, endpoint.format)
        except UPSTREAM_ERRORS as exc:
            return _unreachable(endpoint, exc, out.url)

    async def count_tokens(self, request: Request) -> Response:
        endpoint = ENDPOINTS["/v1/messages"]
        raw = await self._admit(request, endpoint)
        if isinstance(raw, Response):
            return raw
        encoding = request.headers.get("content-encoding")
        try:
            total = await asyncio.to_thread(self._counted, raw, encoding)
        except (ValueError, cf.ContextFoldError) as exc:
            return _error(endpoint, 400, "invalid_request_error", str(exc))
        return JSONResponse({"input_tokens": total})

    def _counted(self, raw: bytes, encoding: str | None) -> int:
        """The tokens of a `count_tokens` body (rule 6), off the event loop (rule 7)."""
        plain = decoded(raw, encoding, self.config.max_body)
        if plain is None:
            raise ValueError(f"cannot read a body with content-encoding {encoding!r}")
        body = json.loads(plain)
        _countable(body)
        return cf.count_tokens(body, body["model"], format="anthropic")

    async def forward(self, request: Request) -> Response:
        """Every other path, method and body: upstream unchanged (rule 1); the proxy's own
        errors in the shape of the provider the request is for."""
        path = request.url.path
        if is_anthropic(path, request.headers):
            endpoint = ENDPOINTS["/v1/messages"]
        else:  # a stored response streamed again gets Responses' stream error event
            responses = path.startswith("/v1/responses/")
            endpoint = ENDPOINTS["/v1/responses" if responses else "/v1/chat/completions"]
        raw = await self._admit(request, endpoint)
        if isinstance(raw, Response):
            return raw
        url = self.upstreams.url(request.url.path, request.url.query, request.headers)
        headers = request_headers(request.headers.items())
        try:
            answer = await send(self.http(), request.method, url, headers, raw)
            relayed = await _relay.forwarded(answer, request.method, endpoint.format, url)
        except UPSTREAM_ERRORS as exc:
            return _unreachable(endpoint, exc, url)
        self.metrics.requests.labels(request.url.path, "passthrough").inc()
        return relayed

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "sessions": len(self.sessions)})

    async def metrics_text(self, request: Request) -> Response:
        return Response(self.metrics.text(), media_type="text/plain; version=0.0.4")

    # --- the compacting path ---------------------------------------------------------

    def _outgoing_alone(
        self, request: Request, endpoint: Endpoint, raw: bytes
    ) -> tuple[_relay.Outgoing, object]:
        """`_outgoing` in a worker thread, one request at a time (rule 7)."""
        with self._turns:
            started = time.perf_counter()
            found = self._outgoing(request, endpoint, raw)
            self.metrics.added.observe(time.perf_counter() - started)
            return found

    def _outgoing(
        self, request: Request, endpoint: Endpoint, raw: bytes
    ) -> tuple[_relay.Outgoing, object]:
        """What goes upstream for a compacting request (rules 2 and 3)."""
        url = self.upstreams.url(request.url.path, request.url.query, request.headers)
        out = _relay.Outgoing(url, request_headers(request.headers.items()), raw)
        path = request.url.path
        plain = decoded(raw, request.headers.get("content-encoding"), self.config.max_body)
        if plain is None:  # an encoding we do not read (`_upstream` rule 5)
            self.metrics.requests.labels(path, "forwarded").inc()
            return out, None
        try:
            body, turn = self._turn(request.headers, endpoint, plain)
        except Exception as exc:  # rule 3: never drop a request over our own failure
            log.warning("compaction failed, forwarding as sent: %s: %s", type(exc).__name__, exc)
            self.metrics.requests.labels(path, "failed").inc()
            return out, _loads(plain)
        if turn is None or not turn.live.meta.folded:
            self.metrics.requests.labels(path, "forwarded").inc()
            return out, body
        assert isinstance(body, dict)
        self._compacted(out, endpoint, body, turn)
        return out, body

    def _turn(
        self, headers: Mapping[str, str], endpoint: Endpoint, raw: bytes
    ) -> tuple[object, Turn | None]:
        """The body as data and its session's turn (None: not ours to compact). A body
        continuing a live session is read past what that session already holds."""
        named = headers.get(SESSION_HEADER)
        known = self.sessions.known(raw, endpoint, named)
        if known is not None:
            budget = self._budget(headers, endpoint, known.body)
            turn = None if budget is None else self.sessions.resume(known, budget)
            if turn is not None:
                live = turn.live
                self.sessions.remember(live, raw[: known.rest.end], live.head, live.fixed)
                return known.body, turn
        try:
            scanned = scan(raw, endpoint.items)
        except ValueError:
            return None, None
        body = scanned.body
        items = items_of(body, endpoint)
        budget = None if items is None else self._budget(headers, endpoint, body)
        if items is None or budget is None:
            return body, None
        turn = self.sessions.turn(endpoint, body, items, budget, named)
        if scanned.end is not None:
            fixed = fixed_of(body, endpoint)
            self.sessions.remember(turn.live, raw[: scanned.end], scanned.head, fixed)
        return body, turn

    def _budget(
        self, headers: Mapping[str, str], endpoint: Endpoint, body: dict[str, Any]
    ) -> int | None:
        model = body.get("model")
        window = window_for(
            model if isinstance(model, str) else None,
            self.config.windows,
            self.config.default_window,
            headers.get(WINDOW_HEADER),
        )
        return None if window is None else budget_for(body, endpoint.format, window)

    def _compacted(
        self, out: _relay.Outgoing, endpoint: Endpoint, body: dict[str, Any], turn: Turn
    ) -> None:
        """Rule 2: the view in place of the items, with the recall tool."""
        manager = turn.live.manager
        data = {**body, "tools": with_recall_tool(body.get("tools"), endpoint.format)}
        if endpoint.format == "anthropic":
            system = manager.system_prompt()
            data.pop("system", None)
            if system is not None:
                data["system"] = system
        view = remarked(turn.view, turn.marks)
        out.content = splice(data, endpoint.items, turn.live.encoder.items(view))
        out.headers = without_encoding(out.headers)
        data[endpoint.items] = view
        model = data.get("model")
        out.rounds = _relay.Rounds(
            endpoint.format,
            endpoint.items,
            data,
            turn.live.archive,
            model if isinstance(model, str) else None,
            max(0, manager.budget - turn.tokens),
            self.config.recall_rounds,
            shared=declares_recall(body.get("tools")),
        )
        self.metrics.requests.labels(_path(endpoint), "compacted").inc()
        if turn.compacted and manager.last_report is not None:
            report = manager.last_report
            self.metrics.compactions.inc()
            self.metrics.saved.inc(max(0, report.tokens_before - report.tokens_after))

    # --- limits and access ---------------------------------------------------------------

    async def _admit(self, request: Request, endpoint: Endpoint) -> bytes | Response:
        """The request's body, or the answer refusing it (a missing token, too large)."""
        refused = self._refused(request, endpoint)
        if refused is not None:
            return refused
        try:
            return await self._read(request)
        except TooLarge:
            return _error(endpoint, 413, "request_too_large", self._too_large())

    async def _read(self, request: Request) -> bytes:
        declared = request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.config.max_body:
            raise TooLarge
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > self.config.max_body:
                raise TooLarge
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_large(self) -> str:
        return f"request body over the proxy's limit of {self.config.max_body:,} bytes"

    def _refused(self, request: Request, endpoint: Endpoint) -> Response | None:
        """Rule 4."""
        token = self.config.token
        if token is None or request.method == "OPTIONS":  # a preflight carries no headers
            return None
        given = request.headers.get(TOKEN_HEADER, "")
        if hmac.compare_digest(given.encode(), token.encode()):
            return None
        return _error(endpoint, 401, "authentication_error", f"missing or wrong {TOKEN_HEADER}")


def _loads(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _path(endpoint: Endpoint) -> str:
    return next(p for p, e in ENDPOINTS.items() if e is endpoint)


def _error(endpoint: Endpoint, status: int, kind: str, message: str) -> Response:
    """An error in the shape the endpoint's provider uses."""
    return JSONResponse(_failures.body(endpoint.format, kind, message), status)


def _unreachable(endpoint: Endpoint, exc: Exception, url: str) -> Response:
    """Rule 5: 502 or 504 naming the upstream."""
    log.warning("upstream %s failed: %s: %s", _failures.origin(url), type(exc).__name__, exc)
    status, content = _failures.upstream_failed(endpoint.format, exc, url)
    return JSONResponse(content, status)


def _countable(body: object) -> None:
    """Rule 6: ValueError saying what the Messages API would refuse in a count request."""
    if not isinstance(body, dict):
        raise ValueError("expected a JSON object with 'model' and 'messages'")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        got = "none" if model is None else repr(model)
        raise ValueError(f"model: a model name is required (a string), got {got}")
    problems = cf.validate(body, "anthropic")
    if problems:
        raise ValueError(str(problems[0]))


def create_app(config: Config) -> Starlette:
    """The proxy as an ASGI app."""
    proxy = Proxy(config)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await proxy.close()

    routes = [Route(path, proxy.compacting, methods=["POST"]) for path in ENDPOINTS]
    routes += [
        Route("/v1/messages/count_tokens", proxy.count_tokens, methods=["POST"]),
        Route("/healthz", proxy.healthz, methods=["GET"]),
        Route("/metrics", proxy.metrics_text, methods=["GET"]),
        Route("/{path:path}", proxy.forward, methods=_FORWARDED),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.proxy = proxy
    return app
