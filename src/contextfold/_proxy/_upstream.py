"""The upstream providers: which one a request goes to, and what crosses over.

Rules:
1. Paths under `/v1/messages` and requests carrying `anthropic-version` go to the
   Anthropic upstream, everything else to the OpenAI-compatible one. The proxy's `/v1`
   is replaced by the upstream's base URL, which ends where the provider's `/v1` does
   (`https://api.openai.com/v1`, `https://api.anthropic.com/v1`, `http://localhost:8000/v1`).
2. Client headers go upstream unchanged (credentials included), except hop-by-hop ones,
   `host`, `content-length`, `accept-encoding` (the proxy reads answers, so it asks for
   `identity`) and the proxy's own `x-contextfold-*`. Answers come back with their
   status and headers (a repeated one as often as it came), less hop-by-hop ones and the
   encoding the client no longer needs.
3. Credentials are never logged or stored: nothing here keeps headers.
4. One aiohttp session holds the pooled upstream connections (its C HTTP parser costs a
   fraction of the CPU per request of a pure-Python client, which on a small machine is
   what the proxy's throughput comes down to).
5. A request body sent with `content-encoding: gzip` (or `deflate`) is read inflated, up
   to the proxy's size limit; when the proxy sends a body of its own instead, it goes
   uncompressed, without the header. Any other encoding, broken data or a body that
   inflates past the limit is not read: it goes upstream as sent.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import aiohttp

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
_INFLATED: Final = frozenset({"gzip", "x-gzip", "deflate"})
PRIVATE: Final = "x-contextfold-"
UPSTREAM_ERRORS: Final = (aiohttp.ClientError, TimeoutError)
"""What a failed upstream exchange raises (the proxy answers 502)."""


@dataclass(frozen=True, slots=True)
class Upstreams:
    """Base URLs per provider (rule 1)."""

    openai: str
    anthropic: str

    def url(self, path: str, query: str, headers: Mapping[str, str]) -> str:
        base = (self.anthropic if is_anthropic(path, headers) else self.openai).rstrip("/")
        rest = path.removeprefix("/v1") if path.startswith("/v1") else path
        return base + rest + (f"?{query}" if query else "")


def is_anthropic(path: str, headers: Mapping[str, str]) -> bool:
    """Whether a request is for the Anthropic upstream (rule 1)."""
    return path.startswith("/v1/messages") or "anthropic-version" in headers


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """What goes upstream of the client's headers (rule 2)."""
    kept = [
        (k, v)
        for k, v in headers
        if k.lower() not in _DROP_REQUEST and not k.lower().startswith(PRIVATE)
    ]
    return [*kept, ("accept-encoding", "identity")]


def decoded(raw: bytes, encoding: str | None, limit: int) -> bytes | None:
    """A request body as the JSON it carries (rule 5): as it came, or inflated; None when
    it cannot be read that way."""
    name = (encoding or "identity").strip().lower()
    if name == "identity":
        return raw
    if name not in _INFLATED:
        return None
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # a gzip or zlib header, either
    try:
        plain = inflater.decompress(raw, limit + 1)
    except zlib.error:
        return None
    whole = inflater.eof and not inflater.unused_data and len(plain) <= limit
    return plain if whole else None


def without_encoding(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Request headers for a body the proxy wrote itself (rule 5)."""
    return [(k, v) for k, v in headers if k.lower() != "content-encoding"]


def response_headers(response: aiohttp.ClientResponse) -> list[tuple[bytes, bytes]]:
    """What goes back to the client of the upstream's headers (rule 2), each as it came
    (a repeated one, such as `set-cookie`, as often as it came), names in lower case."""
    return [
        (name.lower(), value)
        for name, value in response.raw_headers
        if name.decode("latin-1").lower() not in _DROP_RESPONSE
    ]


def client(timeout: float) -> aiohttp.ClientSession:
    """The shared async client (rule 4): pooled keep-alive connections (aiohttp sets
    TCP_NODELAY on them), no retries (the client's SDK retries), no redirects, answers
    asked for uncompressed."""
    connector = aiohttp.TCPConnector(limit=1_000, limit_per_host=0, keepalive_timeout=60)
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=10.0, sock_read=timeout),
        # only the client's headers go upstream (and accept-encoding: identity, rule 2)
        skip_auto_headers=("Accept", "Accept-Encoding", "Content-Type", "User-Agent"),
    )


async def send(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    headers: list[tuple[str, str]],
    content: bytes,
) -> aiohttp.ClientResponse:
    """Send a request; the answer's body is left to read (or stream) by the caller."""
    return await session.request(
        method, url, headers=headers, data=content or None, allow_redirects=False
    )
