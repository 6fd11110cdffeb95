"""The neutral model -> OpenAI Chat Completions messages.

Rules:
1. Parsed messages render back exactly (see the layout module). Messages the engine
   edited or created render by the same rules from whatever layout they still carry.
2. Content renders as a string when every part is text (Text, Marker, Summary, Card)
   without extras and the message did not come from list-shaped content; several texts
   are then joined by a blank line. Otherwise it renders as a list of parts. A message
   with no content parts has no `content` key unless its extras kept one verbatim.
3. Chat cannot express ToolResult outside a `tool` message, Reasoning, or a tool
   message holding anything but one ToolResult: rendering raises InvalidConversation
   naming the message index; cross-format conversion normalizes first. `is_error` has
   no chat field: the result's text already says what failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, TypeGuard, assert_never

from .._messages import (
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
from ._openai_chat_layout import FORM, INNER, KIND, LEGACY, RAW, ROLE, assemble, invalid

JOIN: Final = "\n\n"
"""Separator of texts joined into one string content."""


def from_conversation(conversation: Conversation) -> object:
    """Render `conversation` as a chat message list or request body (its shape)."""
    messages = [_message(message, index) for index, message in enumerate(conversation.messages)]
    if conversation.shape == "list":
        return messages
    fields: dict[str, object] = {"messages": messages}
    tools = [_tool_definition(spec) for spec in conversation.tools if not spec.extras.get(LEGACY)]
    functions = [_tool_definition(spec) for spec in conversation.tools if spec.extras.get(LEGACY)]
    if tools:
        fields["tools"] = tools
    if functions:
        fields["functions"] = functions
    return assemble(fields, conversation.extras)


def _message(message: Message, index: int) -> dict[str, object]:
    if not message.extras and message.name is None and len(message.parts) == 1:
        common = _common(message.role, message.parts[0])
        if common is not None:
            return common
    match message.role:
        case "tool":
            fields = _tool_message(message, index)
        case "assistant":
            fields = _assistant(message, index)
        case "system" | "developer" | "user":
            fields = {"role": message.role}
            if message.name is not None:
                fields["name"] = message.name
            _put_content(fields, message.parts, message, index)
        case _:
            assert_never(message.role)
    return assemble(fields, message.extras)


def _common(role: str, part: Part) -> dict[str, object] | None:
    """The commonest messages (no extras, no name, one part) written at once: one plain
    text, or a tool message's one result holding one plain text; None for any other.
    What the general path writes for them."""
    if role != "tool":
        return {"role": role, "content": part.text} if _is_plain_text(part) else None
    if not isinstance(part, ToolResult) or len(part.parts) != 1:
        return None
    text = part.parts[0]
    if not _is_plain_text(text):
        return None
    return {"role": "tool", "tool_call_id": part.call_id, "content": text.text}


def _tool_message(message: Message, index: int) -> dict[str, object]:
    result = message.parts[0] if len(message.parts) == 1 else None
    if not isinstance(result, ToolResult):
        raise invalid("a tool message must carry exactly one ToolResult", index, "content")
    legacy = message.extras.get(ROLE) == "function"
    fields: dict[str, object] = {"role": "function" if legacy else "tool"}
    if not legacy:
        fields["tool_call_id"] = result.call_id
    if message.name is not None:
        fields["name"] = message.name
    _put_content(fields, result.parts, message, index)
    return fields


def _assistant(message: Message, index: int) -> dict[str, object]:
    fields: dict[str, object] = {"role": "assistant"}
    if message.name is not None:
        fields["name"] = message.name
    calls = [part for part in message.parts if isinstance(part, ToolCall)]
    content = [part for part in message.parts if not isinstance(part, ToolCall)]
    _put_content(fields, tuple(content), message, index)
    tool_calls = [_tool_call(call) for call in calls if not call.extras.get(LEGACY)]
    if tool_calls:
        fields["tool_calls"] = tool_calls
    legacy = [call for call in calls if call.extras.get(LEGACY)]
    if len(legacy) > 1:
        raise invalid("a message can carry only one legacy function_call", index, "function_call")
    if legacy:
        fields["function_call"] = assemble(
            {"name": legacy[0].name, "arguments": legacy[0].arguments}, legacy[0].extras
        )
    return fields


def _put_content(
    fields: dict[str, object], parts: tuple[Part, ...], message: Message, index: int
) -> None:
    if not parts:
        return
    if message.extras.get(FORM) != "list" and all(map(_is_plain_text, parts)):
        texts = [part.text for part in parts if isinstance(part, _TEXTS)]
        fields["content"] = texts[0] if len(texts) == 1 else JOIN.join(texts)
        return
    fields["content"] = [_part(part, index, f"content[{j}]") for j, part in enumerate(parts)]


_TEXTS: Final = (Text, Marker, Summary, Card)
"""The parts written as plain text (a tuple: `isinstance` with it is quicker than a union)."""


def _is_plain_text(part: Part) -> TypeGuard[Text | Marker | Summary | Card]:
    return isinstance(part, _TEXTS) and not part.extras


def _part(part: Part, index: int, field: str) -> object:
    match part:
        case Text() | Marker() | Summary() | Card():
            return assemble({"type": "text", "text": part.text}, part.extras)
        case Image():
            image: dict[str, object] = {"url": part.source}
            if part.detail is not None:
                image["detail"] = part.detail
            return assemble({"type": "image_url", "image_url": image}, part.extras)
        case Opaque():
            return dict(part.payload)
        case ToolCall() | ToolResult() | Reasoning():
            raise invalid(
                f"OpenAI chat cannot carry a {part.kind!r} part here; "
                "convert the conversation to chat form first",
                index,
                field,
            )
        case _:
            assert_never(part)


def _tool_call(call: ToolCall) -> dict[str, object]:
    custom = call.extras.get(KIND) == "custom"
    inner_key, argument_key = ("custom", "input") if custom else ("function", "arguments")
    inner: dict[str, object] = {"name": call.name, argument_key: call.arguments}
    inner_extras = call.extras.get(INNER)
    if isinstance(inner_extras, Mapping):
        inner = assemble(inner, inner_extras)
    fields: dict[str, object] = {"id": call.id, "type": inner_key, inner_key: inner}
    return assemble(fields, call.extras)


def _tool_definition(spec: ToolSpec) -> object:
    if RAW in spec.extras:
        return spec.extras[RAW]
    function: dict[str, object] = {"name": spec.name}
    if spec.description is not None:
        function["description"] = spec.description
    if spec.parameters is not None:
        function["parameters"] = spec.parameters
    function = assemble(function, spec.extras)
    if spec.extras.get(LEGACY):
        return function
    return {"type": "function", "function": function}
