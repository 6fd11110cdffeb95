"""The upstream providers: which one a request goes to, and what crosses over.

Rules:
1. Paths under `/v1/messages` and requests carrying `anthropic-version` go to the
   Anthropic upstream, everything else to the OpenAI-compatible one. The proxy's `/v1`
   is replaced by the upstream's base URL, which ends where the provider's `/v1` does
   (`https://api.openai.com/v1`, `https://api.anthropic.com/v1`, `http://localhost:8000/v1`).
2. Client headers go upstream unchanged (credentials included), except hop-by-hop ones,
   `host`, `content-length`, `accept-encoding` (the proxy reads answers, so it asks for
   them uncompressed) and the proxy's own `x-contextfold-*`. Answers come back with their
   status and headers, less hop-by-hop ones and the encoding the client no longer needs.
3. Credentials are never logged or stored: nothing here keeps headers.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import httpx

_DROP_REQUEST: Final = frozenset(
    {
        "host",
        "content-length",
        "connection",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "accept-encoding",
    }
)
_DROP_RESPONSE: Final = frozenset(
    {"content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive"}
)
PRIVATE: Final = "x-contextfold-"


@dataclass(frozen=True, slots=True)
class Upstreams:
    """Base URLs per provider (rule 1)."""

    openai: str
    anthropic: str

    def url(self, path: str, query: str, headers: Mapping[str, str]) -> str:
        anthropic = path.startswith("/v1/messages") or "anthropic-version" in headers
        base = (self.anthropic if anthropic else self.openai).rstrip("/")
        rest = path.removeprefix("/v1") if path.startswith("/v1") else path
        return base + rest + (f"?{query}" if query else "")


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """What goes upstream of the client's headers (rule 2)."""
    return [
        (k, v)
        for k, v in headers
        if k.lower() not in _DROP_REQUEST and not k.lower().startswith(PRIVATE)
    ]


def response_headers(response: httpx.Response) -> dict[str, str]:
    """What goes back to the client of the upstream's headers (rule 2)."""
    return {k: v for k, v in response.headers.items() if k.lower() not in _DROP_RESPONSE}


def client(timeout: float) -> httpx.AsyncClient:
    """The shared async client: pooled connections, no retries (the client's SDK retries)."""
    limits = httpx.Limits(max_connections=1_000, max_keepalive_connections=200)
    # Headers and body go out in separate writes: without TCP_NODELAY the body waits for
    # the upstream's delayed ACK.
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    transport = httpx.AsyncHTTPTransport(limits=limits, socket_options=nodelay)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(timeout, connect=10.0), transport=transport, follow_redirects=False
    )
