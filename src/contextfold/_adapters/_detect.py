"""Signals that only one wire format has, for format auto-detection.

Rules (a signal names one format; the first reason seen per format is kept):
- body keys: `input`/`instructions`/`previous_response_id` -> Responses; top-level
  `system`, `stop_sequences`, `top_k`, `thinking` -> Anthropic; `max_completion_tokens`,
  `response_format`, `n`, `logprobs` -> OpenAI chat;
- items with a top-level `type` (function_call, reasoning, message, ...) -> Responses;
- `tool_calls`, `tool_call_id`, legacy `function_call`, roles `tool`/`function` -> chat;
- content block types: tool_use, tool_result, thinking, image with `source`, and any
  server tool block (`*_tool_use`, `*_tool_result`) -> Anthropic; image_url, input_audio,
  file -> chat; input_text, output_text, input_image -> Responses. `refusal` is no signal:
  chat and Responses both have it;
- tool definitions: `input_schema` -> Anthropic; `{"type": "function", "function": {...}}`
  -> chat; a function tool with a top-level `name` -> Responses.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

_BODY_KEYS: Final[Mapping[str, str]] = {
    "input": "openai-responses",
    "instructions": "openai-responses",
    "previous_response_id": "openai-responses",
    "system": "anthropic",
    "stop_sequences": "anthropic",
    "top_k": "anthropic",
    "thinking": "anthropic",
    "max_completion_tokens": "openai-chat",
    "response_format": "openai-chat",
    "n": "openai-chat",
    "logprobs": "openai-chat",
}
_MESSAGE_KEYS: Final[Mapping[str, str]] = {
    "tool_calls": "openai-chat",
    "tool_call_id": "openai-chat",
    "function_call": "openai-chat",
}
_ROLES: Final[Mapping[str, str]] = {"tool": "openai-chat", "function": "openai-chat"}
_KEY_AND_ROLE_FORMATS: Final = frozenset(_MESSAGE_KEYS.values()) | frozenset(_ROLES.values())
_BLOCK_TYPES: Final[Mapping[str, str]] = {
    "tool_use": "anthropic",
    "tool_result": "anthropic",
    "thinking": "anthropic",
    "redacted_thinking": "anthropic",
    "document": "anthropic",
    "search_result": "anthropic",
    "server_tool_use": "anthropic",
    "image_url": "openai-chat",
    "input_audio": "openai-chat",
    "file": "openai-chat",
    "input_text": "openai-responses",
    "output_text": "openai-responses",
    "input_image": "openai-responses",
    "input_file": "openai-responses",
    "summary_text": "openai-responses",
}

_SERVER_BLOCK_SUFFIXES: Final = ("_tool_use", "_tool_result")


def signals(payload: object) -> dict[str, str]:
    """Map of format name to the first reason found for it in `payload`."""
    found: dict[str, str] = {}
    messages: object = payload
    if isinstance(payload, Mapping):
        for key, fmt in _BODY_KEYS.items():
            if key in payload:
                found.setdefault(fmt, f"request body has {key!r}")
        messages = payload.get("messages", payload.get("input"))
        tools = payload.get("tools")
        if isinstance(tools, list):
            for tool in tools:
                if isinstance(tool, Mapping):
                    _tool_signals(tool, found)
    if isinstance(messages, list):
        _items_signals(messages, found)
    return found


def _items_signals(items: list[object], found: dict[str, str]) -> None:
    keyed = False  # every format a message key or role names is found already
    for index, item in enumerate(items):
        if (
            keyed
            and type(item) is dict
            and "type" not in item
            and type(item.get("content")) is not list
        ):
            continue  # what `_item_signals` reads in it can add no reason
        if isinstance(item, Mapping):
            _item_signals(item, index, found)
            keyed = _KEY_AND_ROLE_FORMATS.issubset(found)


def _item_signals(item: Mapping[object, object], index: int, found: dict[str, str]) -> None:
    # each reason is written only for a format not found yet (the first one is kept)
    if "type" in item and "openai-responses" not in found:
        found["openai-responses"] = f"message {index} has an item 'type'"
    if not _KEY_AND_ROLE_FORMATS.issubset(found):  # else these can add no reason
        for key, fmt in _MESSAGE_KEYS.items():
            if key in item and fmt not in found:
                found[fmt] = f"message {index} has {key!r}"
        role = item.get("role")
        if isinstance(role, str) and role in _ROLES and _ROLES[role] not in found:
            found[_ROLES[role]] = f"message {index} has role {role!r}"
    content = item.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping):
                _block_signals(block, index, found)


def _block_signals(block: Mapping[object, object], index: int, found: dict[str, str]) -> None:
    kind = block.get("type")
    if not isinstance(kind, str):
        return
    fmt = _BLOCK_TYPES.get(kind)
    if (kind == "image" and "source" in block) or kind.endswith(_SERVER_BLOCK_SUFFIXES):
        fmt = "anthropic"
    if fmt is not None and fmt not in found:
        found[fmt] = f"message {index} has a {kind!r} content block"


def _tool_signals(tool: Mapping[object, object], found: dict[str, str]) -> None:
    if "input_schema" in tool:
        found.setdefault("anthropic", "a tool definition has 'input_schema'")
    elif tool.get("type") == "function" and isinstance(tool.get("function"), Mapping):
        found.setdefault("openai-chat", "a tool definition nests its 'function'")
    elif tool.get("type") == "function" and "name" in tool:
        found.setdefault("openai-responses", "a function tool definition has a top-level 'name'")
