"""The three compacting endpoints: where a request body keeps its items, its system
prompt and its tools, and how the compacted body is put back together.

Rules:
1. Chat Completions keeps everything in `messages`; Responses keeps its items in `input`
   (a string is one user message) and its system prompt in `instructions`; Anthropic
   keeps `system` beside `messages`. The manager holds the system prompt in every format;
   the body keeps Responses' `instructions` as the client sent it.
2. A body that is not a JSON object with a list of items (or Responses' string) is not
   ours to change: it is forwarded byte for byte. So is a Responses request that continues
   server-side state (`previous_response_id`, `conversation`).
3. The compacted body is the client's body with the view in place of the items and the
   recall tool added to its tools. Each item's JSON is encoded once per session and the
   body is spliced from those bytes, so a turn does not re-encode the whole history.
4. What a session's manager counts besides the items is the request's tools (plus the
   recall tool) and its structured-output schema, which the manager reads from the body
   (`request_fields`) and counts as `cf.compact` counts the same body. Both belong to the
   root (`root_of`) and to what a body may carry after its items (`fixed_of`): a request
   that offers other tools or asks for another output format starts a new session counting
   them (tools compared without their cache marks, which a client may move; output
   formats as the fields that can hold one: `OUTPUT_FIELDS`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import contextfold as cf


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One compacting endpoint."""

    format: cf.Format
    items: str
    """The body key holding the conversation's items."""
    system: str | None
    """The body key holding the system prompt outside the items, if any."""


ENDPOINTS: Final[Mapping[str, Endpoint]] = {
    "/v1/chat/completions": Endpoint("openai-chat", "messages", None),
    "/v1/responses": Endpoint("openai-responses", "input", "instructions"),
    "/v1/messages": Endpoint("anthropic", "messages", "system"),
}
_SERVER_STATE: Final = ("previous_response_id", "conversation")


def is_ours(body: Mapping[str, object], endpoint: Endpoint) -> bool:
    """False for a Responses request continuing server-side state (rule 2)."""
    return endpoint.format != "openai-responses" or not any(body.get(k) for k in _SERVER_STATE)


def items_of(body: object, endpoint: Endpoint) -> list[object] | None:
    """The conversation's items in `body` (rule 1), None when the body is not ours (rule 2)."""
    if not isinstance(body, dict) or not is_ours(body, endpoint):
        return None
    items = body.get(endpoint.items)
    if isinstance(items, str) and endpoint.format == "openai-responses":
        return [{"role": "user", "content": items}]
    if isinstance(items, list) and items and all(isinstance(i, dict) for i in items):
        return list(items)
    return None


def digest(value: object) -> str:
    """A short content digest of a JSON value (key order does not matter)."""
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def root_of(body: Mapping[str, object], endpoint: Endpoint, items: Sequence[object]) -> str:
    """What every request of one conversation shares: endpoint, model, system prompt,
    tools and output schema (rule 4) and first two items (a chat's system message and its
    first user message, say)."""
    return digest([endpoint.format, *fixed_of(body, endpoint), items[:2]])


def fixed_of(body: Mapping[str, object], endpoint: Endpoint) -> tuple[object, ...]:
    """What of the root a body may carry after its items: model, system prompt, tools
    without their cache marks and output schema (rule 4)."""
    system = body.get(endpoint.system) if endpoint.system else None
    tools = body.get("tools")
    if isinstance(tools, list):
        tools = [_unmarked(tool) for tool in tools]
    output = {key: body[key] for key in OUTPUT_FIELDS if body.get(key) is not None}
    return body.get("model"), system, tools, output or None


def _unmarked(tool: object) -> object:
    if isinstance(tool, dict) and "cache_control" in tool:
        return {k: v for k, v in tool.items() if k != "cache_control"}
    return tool


def counted_tools(body: Mapping[str, object], endpoint: Endpoint) -> list[object]:
    """The tools a session's manager counts: the request's and the recall tool (rule 4)."""
    return with_recall_tool(body.get("tools"), endpoint.format)


OUTPUT_FIELDS: Final = ("response_format", "text", "output_config", "output_format")
"""The body fields that may hold a structured-output format (rule 4)."""


def with_recall_tool(tools: object, format: cf.Format) -> list[object]:
    """The request's tools plus the recall tool (once)."""
    given = list(tools) if isinstance(tools, list) else []
    return given if declares_recall(given) else [*given, cf.recall_tool(format)]


def declares_recall(tools: object) -> bool:
    """Whether the client's own tools include the recall tool (its agent recalls from its
    own archive: `_recall` rule 4)."""
    given = tools if isinstance(tools, list) else []
    return any(_tool_name(t) == cf.RECALL_TOOL_NAME for t in given)


def _tool_name(tool: object) -> object:
    if not isinstance(tool, dict):
        return None
    function = tool.get("function")
    return function.get("name") if isinstance(function, dict) else tool.get("name")


class Encoder:
    """Per-session cache of each view item's JSON bytes (rule 3)."""

    __slots__ = ("_cache",)

    def __init__(self) -> None:
        self._cache: dict[int, tuple[object, bytes]] = {}

    def items(self, view: Iterable[object]) -> bytes:
        """`[...]` holding the view's items, encoding only the ones not seen before."""
        old, new = self._cache, {}
        parts = []
        for item in view:
            hit = old.get(id(item))
            if hit is None or hit[0] is not item:
                hit = (item, json.dumps(item, ensure_ascii=False).encode("utf-8", "surrogatepass"))
            new[id(item)] = hit
            parts.append(hit[1])
        self._cache = new
        return b"[" + b", ".join(parts) + b"]"


def splice(body: Mapping[str, object], key: str, items: bytes) -> bytes:
    """`body` as JSON with `key` holding the already encoded `items` (rule 3)."""
    rest = {k: v for k, v in body.items() if k != key}
    head = json.dumps(rest, ensure_ascii=False).encode("utf-8", "surrogatepass")[:-1]
    sep = b", " if rest else b""
    return head + sep + json.dumps(key).encode() + b": " + items + b"}"
