"""The commonest OpenAI chat layouts, read at once: the parser's fast path.

Rules:
1. Read at once, in any key order and with nothing else in the message: string content
   with its role (and a tool message's call id and name); a tool message whose content is
   a list of plain text parts; an assistant message with function calls and string or
   null content.
2. Each reader returns what the general path (`_openai_chat`) reads from the same message,
   extras and their key order included, or None for any other message, which the general
   path then reads (and, if it is invalid, names the bad field).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .._messages import EMPTY, Message, Part, Role, Text, ToolCall, ToolResult
from ._openai_chat_layout import FORM, INNER, freeze, leftovers

__all__ = ["read_common", "read_common_calls"]

_PLAIN_ROLES: Final[Mapping[str, Role]] = {
    "system": "system",
    "developer": "developer",
    "user": "user",
    "assistant": "assistant",
}
_ROLE_CONTENT: Final = ["role", "content"]
_TOOL_RESULT: Final = ["role", "tool_call_id", "content"]
_NAMED_RESULT: Final = ["role", "tool_call_id", "name", "content"]


def read_common(raw: dict[str, object]) -> Message | None:
    """The commonest layouts, read at once: string content with the role (and a tool
    message's call id and name), nothing else, in any key order; None for any other
    message. What the general path reads from these, without its bookkeeping."""
    content = raw.get("content")
    if type(content) is not str:
        return _listed_result(raw, content) if type(content) is list else None
    role, size = raw.get("role"), len(raw)
    if size == 2 and type(role) is str and role in _PLAIN_ROLES:
        # the key order, if not canonical: with two keys, "role" first is canonical
        extras = EMPTY if next(iter(raw)) == "role" else freeze(leftovers(raw, _ROLE_CONTENT))
        return Message(_PLAIN_ROLES[role], (Text(content),), extras=extras)
    call_id, name = raw.get("tool_call_id"), raw.get("name")
    if role != "tool" or type(call_id) is not str or size != (3 if name is None else 4):
        return None
    result = (ToolResult(call_id, (Text(content),)),)
    if name is None:
        return Message("tool", result, extras=freeze(leftovers(raw, _TOOL_RESULT)))
    if type(name) is not str:
        return None
    return Message("tool", result, name=name, extras=freeze(leftovers(raw, _NAMED_RESULT)))


def _listed_result(raw: dict[str, object], content: list[object]) -> Message | None:
    """A tool message whose content is a list of plain text parts (`type` then `text`,
    nothing else), read at once; None for any other message. What the general path reads
    from it: the list form and every key not mapped stay in extras."""
    call_id, name = raw.get("tool_call_id"), raw.get("name")
    if raw.get("role") != "tool" or type(call_id) is not str or not content:
        return None
    if name is not None and type(name) is not str:
        return None
    texts: list[Part] = []
    for part in content:
        if type(part) is not dict or len(part) != 2 or next(iter(part)) != "type":
            return None
        text = part.get("text")
        if part["type"] != "text" or type(text) is not str:
            return None
        texts.append(Text(text))
    extras = leftovers(raw, _TOOL_RESULT if name is None else _NAMED_RESULT)
    extras[FORM] = "list"
    return Message("tool", (ToolResult(call_id, tuple(texts)),), name=name, extras=freeze(extras))


_WITH_CALLS: Final = ["role", "content", "tool_calls"]
_CALLS_ONLY: Final = ["role", "tool_calls"]
_CALL: Final = ["id", "type", "function"]
_FUNCTION: Final = ["name", "arguments"]


def read_common_calls(raw: dict[str, object]) -> Message | None:
    """An assistant message with function calls and string or null content, nothing
    else, in any key order, read at once; None for any other message. What the general
    path reads from it (a null content stays in extras)."""
    calls = raw.get("tool_calls")
    if len(raw) != 3 or raw.get("role") != "assistant" or type(calls) is not list or not calls:
        return None
    content = raw.get("content", EMPTY)
    parts: list[Part] = []
    if type(content) is str:
        parts.append(Text(content))
    elif content is not None:
        return None
    for call in calls:
        part = _common_call(call)
        if part is None:
            return None
        parts.append(part)
    mapped = _CALLS_ONLY if content is None else _WITH_CALLS
    return Message("assistant", tuple(parts), extras=freeze(leftovers(raw, mapped)))


def _common_call(call: object) -> ToolCall | None:
    """A function call with string id, name and arguments; None for any other. What the
    general path's `_tool_call` reads from it, without naming fields for errors it cannot
    have."""
    if type(call) is not dict or call.get("type") != "function":
        return None
    inner = call.get("function")
    if type(inner) is not dict:
        return None
    call_id, name, arguments = call.get("id"), inner.get("name"), inner.get("arguments")
    if type(call_id) is not str or type(name) is not str or type(arguments) is not str:
        return None
    extras = leftovers(call, _CALL)
    inner_extras = leftovers(inner, _FUNCTION)
    if inner_extras:
        extras[INNER] = freeze(inner_extras)  # shared first, then the call's
    return ToolCall(call_id, name, arguments, extras=freeze(extras))
