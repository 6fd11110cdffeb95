"""Field and placement checks for one Anthropic content block (used by validation).

Rules:
1. Known blocks (text, image, tool_use, tool_result, thinking, redacted_thinking) have
   well-typed fields; text holds non-whitespace (except in a final assistant prefill);
   image sources are base64 (jpeg, png, gif, webp), url or file; tool_use ids match
   [A-Za-z0-9_-]+. Unknown block types and unknown fields are not checked.
2. tool_result sits only in user messages; tool_use, thinking, server-tool calls and their
   results only in assistant messages; a role system message holds text only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Final, TypeAlias

_IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_TOOL_ID: Final = re.compile(r"[A-Za-z0-9_-]+")
THINKING: Final = frozenset({"thinking", "redacted_thinking"})
_ASSISTANT_ONLY: Final = frozenset(
    {"tool_use", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use"}
)

Block: TypeAlias = Mapping[object, object]
Issues: TypeAlias = Iterator[tuple[str, str]]
"""(field suffix, reason) pairs found inside one block."""


def block_issues(block: Block, role: str | None, prefill: bool) -> Issues:
    """Problems of one message-level block in a `role` message (`prefill`: final assistant)."""
    kind = kind_of(block)
    if kind is None:
        yield ".type", "a block needs a string 'type'"
        return
    misplaced = _misplaced(kind, role)
    if misplaced:
        yield "", misplaced
    text = block.get("text")
    if kind == "text" and not prefill and isinstance(text, str) and not text.strip():
        yield ".text", "text content blocks must contain non-whitespace text"
    check = _BLOCK_CHECKS.get(kind)
    if check is not None:
        yield from check(block)


def _misplaced(kind: str, role: str | None) -> str:
    """Why a `kind` block cannot sit in a `role` message ("" when it can)."""
    if role is None:
        return ""
    if kind == "tool_result" and role != "user":
        return "tool_result blocks belong in user messages"
    if (kind in _ASSISTANT_ONLY or server_result(kind)) and role != "assistant":
        return f"{kind} blocks belong in assistant messages"
    if role == "system" and kind != "text":
        return "a system message holds text blocks only"
    return ""


# --- per-block field checks ---------------------------------------------------------------


def _text_issues(block: Block) -> Issues:
    if not isinstance(block.get("text"), str):
        yield ".text", "a text block needs a string 'text'"


def _image_issues(block: Block) -> Issues:
    source = block.get("source")
    if not isinstance(source, dict):
        yield ".source", "an image needs a 'source' object"
        return
    kind = source.get("type")
    if kind == "base64":
        if source.get("media_type") not in _IMAGE_TYPES:
            yield ".source.media_type", "media_type must be image/jpeg, png, gif or webp"
        if not isinstance(source.get("data"), str):
            yield ".source.data", "base64 data must be a string"
    elif kind == "url":
        if not isinstance(source.get("url"), str):
            yield ".source.url", "a url source needs a string 'url'"
    elif kind == "file":
        if not isinstance(source.get("file_id"), str):
            yield ".source.file_id", "a file source needs a string 'file_id'"
    else:
        yield ".source.type", f"unknown image source type {kind!r}"


def _tool_use_issues(block: Block) -> Issues:
    call_id = block.get("id")
    if not isinstance(call_id, str) or not _TOOL_ID.fullmatch(call_id):
        yield ".id", "tool_use id must be a string matching [A-Za-z0-9_-]+"
    if not isinstance(block.get("name"), str) or not block.get("name"):
        yield ".name", "tool_use needs a non-empty string 'name'"
    if not isinstance(block.get("input"), dict):
        yield ".input", "tool_use 'input' must be an object"


def _tool_result_issues(block: Block) -> Issues:
    if not isinstance(block.get("tool_use_id"), str):
        yield ".tool_use_id", "tool_result needs a string 'tool_use_id'"
    if "is_error" in block and not isinstance(block.get("is_error"), bool):
        yield ".is_error", "is_error must be a boolean"
    content = block.get("content")
    if "content" not in block or isinstance(content, str):
        return
    if not isinstance(content, list):
        yield ".content", "must be a string or a list of blocks"
        return
    for k, inner in enumerate(content):
        kind = kind_of(inner) if isinstance(inner, dict) else None
        if not isinstance(inner, dict) or kind is None:
            yield f".content[{k}]", "a block must be an object with a string 'type'"
        elif kind in ("text", "image"):
            for suffix, reason in _BLOCK_CHECKS[kind](inner):
                yield f".content[{k}]{suffix}", reason


def _thinking_issues(block: Block) -> Issues:
    if not isinstance(block.get("thinking"), str):
        yield ".thinking", "a thinking block needs a string 'thinking'"
    if not isinstance(block.get("signature"), str):
        yield ".signature", "a thinking block needs its string 'signature'"


def _redacted_issues(block: Block) -> Issues:
    if not isinstance(block.get("data"), str):
        yield ".data", "a redacted_thinking block needs its string 'data'"


_BLOCK_CHECKS: Final[Mapping[str, Callable[[Block], Issues]]] = {
    "text": _text_issues,
    "image": _image_issues,
    "tool_use": _tool_use_issues,
    "tool_result": _tool_result_issues,
    "thinking": _thinking_issues,
    "redacted_thinking": _redacted_issues,
}


# --- small queries -------------------------------------------------------------------------


def kind_of(block: Block) -> str | None:
    kind = block.get("type")
    return kind if isinstance(kind, str) else None


def server_result(kind: str | None) -> bool:
    """Server-tool results (web_search_tool_result, mcp_tool_result, ...), not tool_result."""
    return kind is not None and kind != "tool_result" and kind.endswith("_tool_result")
