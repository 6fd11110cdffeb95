"""Anthropic Messages wire JSON -> neutral Conversation.

Rules:
1. A dict is a request body: `messages` is required; a top-level `system` becomes a
   leading system message marked `SYSTEM: "top"`; a non-empty `tools` list becomes
   ToolSpecs; every other field goes to Conversation.extras, in order. A list is a bare
   message list.
2. A mapped field is consumed only when it has the wire type; every other key of a block,
   message or tool stays in `extras` under its wire name, so rendering is exact.
3. Bookkeeping keys start with `anthropic:` (content form, `is_error` presence, redacted
   thinking, system placement); a wire field with that prefix is refused.
4. Blocks the model does not map (documents, search results, server tools, MCP, files,
   unknown types) become Opaque, kept whole. Tool-result content uses the same table.
5. Anything malformed raises InvalidConversation naming the wire message index and the
   field path; never KeyError or TypeError.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Set
from types import MappingProxyType
from typing import Final, TypeAlias, TypeVar, cast

from .._errors import InvalidConversation
from .._messages import (
    EMPTY,
    Conversation,
    Extras,
    Image,
    Message,
    Opaque,
    Part,
    Reasoning,
    Role,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)

FORMAT: Final = "anthropic"
PREFIX: Final = "anthropic:"
SYSTEM: Final = "anthropic:system"
"""On a system message: "top" (the body's `system`) or "message" (role system in messages)."""
CONTENT: Final = "anthropic:content"
"""Content form: "string" on messages; "string", "list" or "absent" on tool results."""
IS_ERROR: Final = "anthropic:is_error"
"""On a tool result whose wire block carried a boolean `is_error`."""
REDACTED: Final = "anthropic:redacted"
"""On a Reasoning parsed from a `redacted_thinking` block."""
BASE64: Final = ";base64,"
_T = TypeVar("_T")

_ROLES: Final[Mapping[str, Role]] = {"user": "user", "assistant": "assistant", "system": "system"}
_Where: TypeAlias = tuple[int | None, str]
"""Wire message index (None for the body's `system`) and the field path of a block."""


def error(reason: str, index: int | None = None, field: str | None = None) -> InvalidConversation:
    """An InvalidConversation for the anthropic format."""
    return InvalidConversation(reason, index=index, field=field, format=FORMAT)


def to_conversation(payload: object) -> Conversation:
    """Parse an Anthropic request body or message list."""
    if isinstance(payload, list):
        return Conversation(tuple(_message(item, i) for i, item in enumerate(payload)))
    if isinstance(payload, dict):
        return _body(payload)
    kind = type(payload).__name__
    raise error(f"expected a list of messages or a request body, got {kind}")


def _body(body: dict[object, object]) -> Conversation:
    items = body.get("messages")
    if not isinstance(items, list):
        raise error("a request body needs a 'messages' list", field="messages")
    system: tuple[Message, ...] = ()
    tools: tuple[ToolSpec, ...] = ()
    extras: dict[str, object] = {}
    for key, value in body.items():
        if not isinstance(key, str):
            raise error(f"field names must be strings, got {key!r}")
        if key == "system":
            system = (_system(value),)
        elif key == "tools" and isinstance(value, list) and value:
            tools = tuple(_tool(tool, k) for k, tool in enumerate(value))
        elif key != "messages":
            extras[key] = value
    messages = system + tuple(_message(item, i) for i, item in enumerate(items))
    return Conversation(messages, shape="body", tools=tools, extras=extras or EMPTY)


def _system(value: object) -> Message:
    if isinstance(value, str):
        return Message("system", (Text(value),), extras={SYSTEM: "top", CONTENT: "string"})
    if isinstance(value, list):
        parts = tuple(_block(block, (None, f"system[{k}]")) for k, block in enumerate(value))
        return Message("system", parts, extras={SYSTEM: "top"})
    raise error("'system' must be a string or a list of text blocks", field="system")


def _tool(tool: object, k: int) -> ToolSpec:
    where = f"tools[{k}]"
    if not isinstance(tool, dict):
        raise error("a tool must be an object", field=where)
    name = tool.get("name")
    if not isinstance(name, str):
        raise error("a tool needs a string 'name'", field=f"{where}.name")
    description = tool.get("description")
    schema = tool.get("input_schema")
    consumed = {"name"}
    if isinstance(description, str):
        consumed.add("description")
    if isinstance(schema, dict):
        consumed.add("input_schema")
    return ToolSpec(
        name,
        description if isinstance(description, str) else None,
        schema if isinstance(schema, dict) else None,
        extras=_rest(tool, consumed, (None, where)),
    )


def _message(item: object, index: int) -> Message:
    if not isinstance(item, dict):
        raise error("a message must be an object", index)
    raw = item.get("role")
    role = _ROLES.get(raw) if isinstance(raw, str) else None
    if role is None:
        raise error(f"unknown role {raw!r}; use user or assistant", index, "role")
    if "content" not in item:
        raise error("a message needs 'content'", index, "content")
    content = item["content"]
    extras = _rest(item, _MESSAGE_KEYS, (index, ""))
    if isinstance(content, str):
        extras = _STRING_FORM if extras is EMPTY else {**extras, CONTENT: "string"}
        parts: tuple[Part, ...] = (Text(content),)
    elif isinstance(content, list):
        parts = tuple([_block(block, (index, f"content[{k}]")) for k, block in enumerate(content)])
    else:
        raise error("'content' must be a string or a list of blocks", index, "content")
    if role == "system":
        extras = {**extras, SYSTEM: "message"}
    return Message(role, parts, extras=extras)


def _block(block: object, where: _Where) -> Part:
    if not isinstance(block, dict):
        raise error("a content block must be an object", *where)
    kind = block.get("type")
    if not isinstance(kind, str):
        raise error("a content block needs a string 'type'", where[0], f"{where[1]}.type")
    parse = _BLOCKS.get(kind)
    return _opaque(block, where) if parse is None else parse(block, where)


def _text(block: dict[object, object], where: _Where) -> Part:
    text = _required(block, "text", str, where)
    return Text(text, extras=_rest(block, _TEXT_KEYS, where))


def _image(block: dict[object, object], where: _Where) -> Part:
    url = _image_url(block.get("source"))
    if url is None:
        return _opaque(block, where)
    return Image(url, extras=_rest(block, _IMAGE_KEYS, where))


def _opaque(block: dict[object, object], where: _Where) -> Part:
    if not all(isinstance(key, str) for key in block):
        raise error("field names must be strings", *where)
    return Opaque(cast(dict[str, object], block))


def _image_url(source: object) -> str | None:
    """The neutral image source for a base64 or url source that renders back exactly."""
    if not isinstance(source, dict):
        return None
    kind = source.get("type")
    if kind == "base64" and len(source) == 3:
        media, data = source.get("media_type"), source.get("data")
        if isinstance(media, str) and isinstance(data, str) and BASE64 not in media:
            return f"data:{media}{BASE64}{data}"
    if kind == "url" and len(source) == 2:
        url = source.get("url")
        if isinstance(url, str) and not url.startswith("data:"):
            return url
    return None


def _tool_use(block: dict[object, object], where: _Where) -> Part:
    call_id = _required(block, "id", str, where)
    name = _required(block, "name", str, where)
    if "input" not in block:
        raise error("a tool_use block needs 'input'", where[0], f"{where[1]}.input")
    try:
        arguments = json.dumps(block["input"], ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        raise error(f"'input' is not JSON data: {exc}", where[0], f"{where[1]}.input") from None
    return ToolCall(call_id, name, arguments, extras=_rest(block, _TOOL_USE_KEYS, where))


def _tool_result(block: dict[object, object], where: _Where) -> Part:
    call_id = _required(block, "tool_use_id", str, where)
    consumed = {"type", "tool_use_id", "content"}
    parts: tuple[Part, ...] = ()
    content = block.get("content")
    form = "list"
    if "content" not in block:
        form = "absent"
    elif isinstance(content, str):
        parts, form = (Text(content),), "string"
    elif isinstance(content, list):
        index, path = where
        parts = tuple(_block(b, (index, f"{path}.content[{k}]")) for k, b in enumerate(content))
    else:
        raise error(
            "'content' must be a string or a list of blocks", where[0], f"{where[1]}.content"
        )
    is_error = block.get("is_error")
    if isinstance(is_error, bool):
        consumed.add("is_error")
    extras = {**_rest(block, consumed, where), CONTENT: form}
    if isinstance(is_error, bool):
        extras[IS_ERROR] = True
    return ToolResult(call_id, parts, is_error=is_error is True, extras=extras)


def _thinking(block: dict[object, object], where: _Where) -> Part:
    text = _required(block, "thinking", str, where)
    signature = block.get("signature")
    if isinstance(signature, str):
        return Reasoning(
            text, signature=signature, extras=_rest(block, _SIGNED_THINKING_KEYS, where)
        )
    return Reasoning(text, extras=_rest(block, _THINKING_KEYS, where))


def _redacted_thinking(block: dict[object, object], where: _Where) -> Part:
    data = _required(block, "data", str, where)
    extras = {**_rest(block, _REDACTED_KEYS, where), REDACTED: True}
    return Reasoning("", encrypted=data, extras=extras)


def _required(block: dict[object, object], key: str, kind: type[_T], where: _Where) -> _T:
    value = block.get(key)
    if not isinstance(value, kind):
        raise error(
            f"{block.get('type')} block needs a {kind.__name__} '{key}'",
            where[0],
            f"{where[1]}.{key}",
        )
    return value


def _rest(item: dict[object, object], consumed: Set[str], where: _Where) -> Extras:
    """The item's fields not in `consumed`, in order (EMPTY when there are none)."""
    if item.keys() <= consumed:
        return EMPTY
    rest: dict[str, object] = {}
    for key, value in item.items():
        if key in consumed:
            continue
        if not isinstance(key, str) or key.startswith(PREFIX):
            raise error(f"unsupported field name {key!r}", where[0], where[1] or None)
        rest[key] = value
    return rest


_STRING_FORM: Final[Extras] = MappingProxyType({CONTENT: "string"})
"""Shared, read-only extras of the common message: string content and no other field."""
_TEXT_KEYS: Final = frozenset({"type", "text"})
_MESSAGE_KEYS: Final = frozenset({"role", "content"})
_IMAGE_KEYS: Final = frozenset({"type", "source"})
_TOOL_USE_KEYS: Final = frozenset({"type", "id", "name", "input"})
_THINKING_KEYS: Final = frozenset({"type", "thinking"})
_SIGNED_THINKING_KEYS: Final = frozenset({"type", "thinking", "signature"})
_REDACTED_KEYS: Final = frozenset({"type", "data"})
_BLOCKS: Final[Mapping[str, Callable[[dict[object, object], _Where], Part]]] = {
    "text": _text,
    "image": _image,
    "tool_use": _tool_use,
    "tool_result": _tool_result,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
}
