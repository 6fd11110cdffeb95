"""Neutral Conversation -> Anthropic Messages wire JSON (the inverse of the parser).

Rules:
1. Messages map 1:1, in order; nothing is merged or split (the engine keeps alternation).
2. Leading system (or developer) messages not marked `SYSTEM: "message"` become the body's
   top-level `system`: a string when it was one (or is one plain text), else text blocks.
   A bare list has no top level, so a leading system message there is an error.
3. Content keeps its recorded form: a string stays a string while every part is plain text
   without extras (texts joined by newlines); otherwise it becomes a list of blocks. A new
   tool result (no recorded form) is a string when it is plain text, else blocks.
4. Markers, summaries and cards are text blocks carrying the extras of the part.
5. Shapes Anthropic cannot express (a `tool` or named message, a later system message,
   encrypted reasoning from another provider) raise InvalidConversation naming the
   neutral message index.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, assert_never

from .._messages import (
    EMPTY,
    Card,
    Conversation,
    Extras,
    Image,
    Marker,
    Message,
    Opaque,
    Part,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ._anthropic_parse import BASE64, CONTENT, IS_ERROR, PREFIX, REDACTED, SYSTEM, error

_HEAD: Final = ("model", "max_tokens")
"""Body fields rendered before `system` and `messages`; the other extras come after."""
_Block = dict[str, object]
_TEXTS: Final = (Text, Marker, Summary, Card)


def from_conversation(conversation: Conversation) -> object:
    """Render a Conversation as an Anthropic request body or message list."""
    messages = conversation.messages
    lead = _leading_system(messages)
    rendered = [_message(m, i) for i, m in enumerate(messages[lead:], start=lead)]
    if conversation.shape == "list":
        if lead:
            raise error("a bare message list cannot hold a system prompt; use a request body", 0)
        return rendered
    extras = conversation.extras
    body: dict[str, object] = {key: extras[key] for key in _HEAD if key in extras}
    if lead:
        body["system"] = _system(messages[:lead])
    body["messages"] = rendered
    if conversation.tools:
        body["tools"] = [_tool(tool) for tool in conversation.tools]
    for key, value in extras.items():
        body.setdefault(key, value)
    return body


def _leading_system(messages: tuple[Message, ...]) -> int:
    count = 0
    for message in messages:
        if message.role not in ("system", "developer") or message.extras.get(SYSTEM) == "message":
            break
        count += 1
    return count


def _system(messages: tuple[Message, ...]) -> object:
    first = messages[0]
    plain = SYSTEM not in first.extras and len(messages) == 1
    if len(messages) == 1 and (first.extras.get(CONTENT) == "string" or plain):
        joined = _joined(first.parts)
        if joined is not None:
            return joined
    return [_block(part, 0, f"system[{k}]") for m in messages for k, part in enumerate(m.parts)]


def _tool(tool: ToolSpec) -> _Block:
    out: _Block = {"name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    if tool.parameters is not None:
        out["input_schema"] = tool.parameters
    return _with_extras(out, tool.extras)


def _message(message: Message, index: int) -> _Block:
    role = message.role
    if role in ("tool", "developer") or (
        role == "system" and message.extras.get(SYSTEM) != "message"
    ):
        raise error(
            f"Anthropic has no {role!r} message at this position; convert it first", index, "role"
        )
    if message.name is not None:
        raise error("Anthropic messages have no 'name'", index, "name")
    content: object = None
    if message.extras is not EMPTY and message.extras.get(CONTENT) == "string":
        content = _joined(message.parts)
    if content is None:
        content = [_block(part, index, f"content[{k}]") for k, part in enumerate(message.parts)]
    return _with_extras({"role": role, "content": content}, message.extras)


def _block(part: Part, index: int, where: str) -> _Block:
    match part:
        case Text() | Marker() | Summary() | Card():
            return _with_extras({"type": "text", "text": part.text}, part.extras)
        case Image():
            return _with_extras(
                {"type": "image", "source": _source(part.source, index, where)}, part.extras
            )
        case ToolCall():
            block = {
                "type": "tool_use",
                "id": part.id,
                "name": part.name,
                "input": _input(part, index, where),
            }
            return _with_extras(block, part.extras)
        case ToolResult():
            return _tool_result(part, index, where)
        case Reasoning():
            return _reasoning(part, index, where)
        case Opaque():
            return dict(part.payload)
        case _:
            assert_never(part)


def _source(url: str, index: int, where: str) -> _Block:
    if not url.startswith("data:"):
        return {"type": "url", "url": url}
    media, sep, data = url[5:].partition(BASE64)
    if not sep:
        raise error("an inline image must be a base64 data URL", index, f"{where}.source")
    return {"type": "base64", "media_type": media, "data": data}


def _input(call: ToolCall, index: int, where: str) -> object:
    try:
        return json.loads(call.arguments)
    except (ValueError, RecursionError) as exc:
        raise error(f"tool call arguments are not JSON: {exc}", index, f"{where}.input") from None


def _tool_result(part: ToolResult, index: int, where: str) -> _Block:
    out: _Block = {"type": "tool_result", "tool_use_id": part.call_id}
    content = _result_content(part, index, where)
    if content is not None:
        out["content"] = content
    if part.is_error or IS_ERROR in part.extras:
        out["is_error"] = part.is_error
    return _with_extras(out, part.extras)


def _result_content(part: ToolResult, index: int, where: str) -> object:
    """The recorded content form (string, list or absent: None); new results see rule 3."""
    form = part.extras.get(CONTENT)
    if form is None:
        form = "string" if part.parts else "absent"
    if form == "absent" and not part.parts:
        return None
    joined = _joined(part.parts) if form == "string" else None
    if joined is not None:
        return joined
    return [_block(p, index, f"{where}.content[{k}]") for k, p in enumerate(part.parts)]


def _reasoning(part: Reasoning, index: int, where: str) -> _Block:
    if part.extras.get(REDACTED):
        if part.encrypted is None:
            raise error("redacted thinking needs its encrypted data", index, f"{where}.data")
        return _with_extras({"type": "redacted_thinking", "data": part.encrypted}, part.extras)
    if part.encrypted is not None:
        raise error(
            "encrypted reasoning from another provider cannot be sent to Anthropic", index, where
        )
    out: _Block = {"type": "thinking", "thinking": part.text}
    if part.signature is not None:
        out["signature"] = part.signature
    return _with_extras(out, part.extras)


def _joined(parts: tuple[Part, ...]) -> str | None:
    """The parts as one string when all are plain text without extras, else None."""
    if len(parts) == 1:
        part = parts[0]
        if isinstance(part, _TEXTS) and part.extras is EMPTY:
            return part.text
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, _TEXTS) or part.extras:
            return None
        texts.append(part.text)
    return "\n".join(texts)


def _with_extras(out: _Block, extras: Extras | Mapping[str, object]) -> _Block:
    """`out` plus the wire fields kept in `extras` (never overriding a mapped field)."""
    if extras is EMPTY:
        return out
    for key, value in extras.items():
        if key not in out and not key.startswith(PREFIX):
            out[key] = value
    return out
