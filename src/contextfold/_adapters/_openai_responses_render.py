"""Render a Conversation as OpenAI Responses `input` items (or a whole request body).

Rules:
1. Exact inverse of parsing: unchanged messages give back the very items they came from.
   Unmapped fields come back from extras; mapped fields are written after them.
2. Dispatch on the item `type` kept in `Message.extras`; messages the engine created (no
   `type`) dispatch on their parts: one ToolCall -> function_call, one ToolResult ->
   function_call_output, one Reasoning -> reasoning, anything else -> a message item.
3. Message content is a string when it is exactly one text part without a wire `type`
   (string content, or a new artifact); otherwise a list of typed parts, where new text
   parts become input_text (output_text with empty annotations for the assistant).
   So a new `(Card, Summary)` message renders as two typed parts (two texts on reading).
4. A tool output is a string when every part is text without a wire `type`, joined by
   OUTPUT_JOIN (a pruned `Text(head) + Marker + Text(tail)` of a string output stays a
   string); otherwise a list of typed parts.
5. Shapes the wire cannot express raise InvalidConversation naming the message: a tool
   call, tool result or reasoning part sharing a message with other parts, a tool result
   outside a "tool" message, a call or reasoning outside an "assistant" one.
   `Message.name` has no Responses field and is not written.
6. The INSTRUCTIONS message (first, body shape) becomes the `instructions` field; the
   INPUT_STRING message becomes a string `input` while it is the only input item.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final, TypeAlias, assert_never

from .._messages import (
    EMPTY,
    Card,
    Conversation,
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
from ._openai_responses_parse import (
    CALL_ARGUMENTS,
    INPUT_STRING,
    INSTRUCTIONS,
    OUTPUT_TYPES,
    invalid,
)

OUTPUT_JOIN: Final = "\n"
"""Separator between the text parts of a tool output rendered as one string."""

TextLike: TypeAlias = Text | Marker | Summary | Card


def from_conversation(conversation: Conversation) -> object:
    """The wire payload for `conversation`, in its shape."""
    indexed = list(enumerate(conversation.messages))
    if conversation.shape == "list":
        return [render_message(_unflagged(m), i) for i, m in indexed]
    body: dict[str, object] = dict(conversation.extras)
    if indexed and INSTRUCTIONS in indexed[0][1].extras:
        instructions = _plain_text(indexed[0][1])
        if instructions is not None:
            body["instructions"] = instructions
            indexed = indexed[1:]
    text = _plain_text(indexed[0][1]) if len(indexed) == 1 else None
    if text is not None and INPUT_STRING in indexed[0][1].extras:
        body["input"] = text
    else:
        body["input"] = [render_message(_unflagged(m), i) for i, m in indexed]
    if conversation.tools:
        body["tools"] = [render_tool(spec) for spec in conversation.tools]
    return body


def _unflagged(message: Message) -> Message:
    """`message` without the bookkeeping flags (rule 6), which the wire item does not have."""
    extras = message.extras
    if INSTRUCTIONS not in extras and INPUT_STRING not in extras:
        return message
    kept = {k: v for k, v in extras.items() if k not in (INSTRUCTIONS, INPUT_STRING)}
    return replace(message, extras=kept or EMPTY)


def _plain_text(message: Message) -> str | None:
    """The text of a message that is one text part without a wire type, else None."""
    if len(message.parts) != 1:
        return None
    part = message.parts[0]
    if isinstance(part, TextLike) and "type" not in part.extras:
        return part.text
    return None


def _untyped_text(part: Part) -> bool:
    return isinstance(part, TextLike) and "type" not in part.extras


def render_tool(spec: ToolSpec) -> dict[str, object]:
    """One entry of `tools`: built-in tools verbatim, function and custom tools rebuilt."""
    kind = spec.extras.get("type", "function")
    if kind not in ("function", "custom"):
        return dict(spec.extras)
    tool: dict[str, object] = {"type": kind}
    tool.update(spec.extras)
    tool["name"] = spec.name
    if spec.description is not None:
        tool["description"] = spec.description
    if spec.parameters is not None:
        tool["parameters"] = spec.parameters
    return tool


# --- items ---------------------------------------------------------------------------------


def render_message(message: Message, index: int) -> object:
    """The input item for one message (rule 2)."""
    kind = message.extras.get("type")
    if len(message.parts) == 1:
        match message.parts[0]:
            case ToolCall() as call:
                return _call_item(message, call, kind, index)
            case ToolResult() as result:
                return _output_item(message, result, kind, index)
            case Reasoning() as reasoning:
                return _reasoning_item(message, reasoning, kind, index)
            case Opaque() as opaque if isinstance(kind, str) and kind != "message":
                return _plain(opaque.payload)
            case _:
                pass
    if kind is not None and kind != "message":
        raise invalid(f"a {kind!r} item must keep its single original part", index)
    return _message_item(message, index)


def _call_item(message: Message, call: ToolCall, kind: object, index: int) -> dict[str, object]:
    if message.role != "assistant":
        raise invalid(f"a tool call must be in an assistant message, not {message.role!r}", index)
    item_type = "function_call" if kind is None else kind
    if not isinstance(item_type, str) or item_type not in CALL_ARGUMENTS:
        raise invalid(f"a {kind!r} item cannot hold a tool call", index)
    item: dict[str, object] = {"type": item_type}
    item.update(message.extras)
    item["call_id"] = call.id
    item["name"] = call.name
    item[CALL_ARGUMENTS[item_type]] = call.arguments
    return item


def _output_item(
    message: Message, result: ToolResult, kind: object, index: int
) -> dict[str, object]:
    if message.role != "tool":
        raise invalid(
            f"a tool result must be alone in a 'tool' message, not in a {message.role!r} one; "
            "normalize the conversation for Responses first",
            index,
        )
    if kind is not None and not (isinstance(kind, str) and kind in OUTPUT_TYPES):
        raise invalid(f"a {kind!r} item cannot hold a tool result", index)
    item: dict[str, object] = {"type": "function_call_output"}
    item.update(message.extras)
    item["call_id"] = result.call_id
    item["output"] = _output_value(result, index)
    return item


def _output_value(result: ToolResult, index: int) -> object:
    parts = result.parts
    if parts and all(_untyped_text(p) for p in parts):
        return OUTPUT_JOIN.join(p.text for p in parts if isinstance(p, TextLike))
    return [_content_part(p, "input_text", index, f"output[{i}]") for i, p in enumerate(parts)]


def _reasoning_item(
    message: Message, reasoning: Reasoning, kind: object, index: int
) -> dict[str, object]:
    if message.role != "assistant" or kind not in (None, "reasoning"):
        raise invalid("reasoning must be its own item in an assistant message", index)
    item: dict[str, object] = {"type": "reasoning"}
    item.update(message.extras)
    if "summary" not in item:
        text = reasoning.text
        item["summary"] = [{"type": "summary_text", "text": text}] if text else []
    if reasoning.encrypted is not None:
        item["encrypted_content"] = reasoning.encrypted
    return item


def _message_item(message: Message, index: int) -> dict[str, object]:
    role = message.role
    if role == "tool":
        raise invalid("a 'tool' message must hold exactly one tool result", index)
    item: dict[str, object] = dict(message.extras)
    item["role"] = role
    text = _plain_text(message)
    if text is not None:
        item["content"] = text
        return item
    default = "output_text" if role == "assistant" else "input_text"
    item["content"] = [
        _content_part(p, default, index, f"content[{i}]") for i, p in enumerate(message.parts)
    ]
    return item


def _content_part(part: Part, default: str, index: int, field: str) -> object:
    match part:
        case Text() | Marker() | Summary() | Card():
            return _text_part(part, default)
        case Image():
            image: dict[str, object] = {"type": "input_image"}
            image.update(part.extras)
            image["image_url"] = part.source
            if part.detail is not None:
                image["detail"] = part.detail
            return image
        case Opaque():
            return _plain(part.payload)
        case ToolCall() | ToolResult() | Reasoning():
            raise invalid(
                f"a {part.kind} part must be its own item, not share a message with other "
                "parts; normalize the conversation for Responses first",
                index,
                field,
            )
        case _:
            assert_never(part)


def _text_part(part: TextLike, default: str) -> dict[str, object]:
    kind = part.extras.get("type", default)
    out: dict[str, object] = {"type": kind}
    out.update(part.extras)
    out["refusal" if kind == "refusal" else "text"] = part.text
    if kind == "output_text" and "type" not in part.extras:
        out["annotations"] = []
    return out


def _plain(payload: Mapping[str, object]) -> object:
    return payload if isinstance(payload, dict) else dict(payload)
