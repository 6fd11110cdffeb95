"""Parse OpenAI Responses `input` items (a list or a whole request body) into a Conversation.

Rules:
1. One Message per input item, in order. Item fields the model does not map stay in
   `Message.extras` verbatim, the item's `type` included: rendering dispatches on it.
2. Roles: message items keep theirs (user, assistant, system, developer); function and
   custom tool calls and reasoning are "assistant", their outputs "tool". Every other item
   type (web_search_call, mcp_call, item_reference, unknown ...) is one `Opaque(item)`:
   "tool" for outputs (`*_output`, mcp_approval_response), else "assistant" (the model
   produced it). Its `Message.extras` is just `{"type": ...}`.
3. Content parts: input_text / output_text / refusal -> Text (never an artifact);
   input_image with an `image_url` -> Image; everything else (files, images by file_id,
   unknown types) -> Opaque. String content is one Text without extras; a typed part keeps
   its other fields (`type`, annotations, logprobs ...) in the part's extras.
4. Body: a string `instructions` becomes a leading system message flagged INSTRUCTIONS; a
   string `input` one user message flagged INPUT_STRING; a non-empty `tools` list becomes
   ToolSpecs; every other field goes to `Conversation.extras` in order.
5. Extras keys starting with `contextfold/` are that bookkeeping; an item carrying one is
   rejected.
6. Parsing accepts what the model maps and keeps the rest verbatim; a reasoning item needs
   its `summary` list (the API requires it, and rendering a Reasoning always writes one).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Final

from .._errors import InvalidConversation, with_article
from .._messages import (
    DETAILS,
    EMPTY,
    Conversation,
    Detail,
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

FORMAT: Final = "openai-responses"
INSTRUCTIONS: Final = "contextfold/instructions"
"""Message extras flag: this system message is the body's top-level `instructions`."""
INPUT_STRING: Final = "contextfold/input"
"""Message extras flag: this user message was the body's `input` given as a plain string."""

TEXT_KEYS: Final[Mapping[str, str]] = {
    "input_text": "text",
    "output_text": "text",
    "refusal": "refusal",
}
"""Content part types that carry text, and the key holding it."""
CALL_ARGUMENTS: Final[Mapping[str, str]] = {
    "function_call": "arguments",
    "custom_tool_call": "input",
}
"""Tool call item types, and the key holding the call's arguments."""
OUTPUT_TYPES: Final[frozenset[str]] = frozenset({"function_call_output", "custom_tool_call_output"})
_MESSAGE_ROLES: Final[Mapping[str, Role]] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
}
_DETAILS: Final[Mapping[str, Detail]] = {detail: detail for detail in DETAILS}
_TOOL_SIDE: Final[frozenset[str]] = frozenset({"mcp_approval_response"})
_FUNCTION_TOOLS: Final[frozenset[str]] = frozenset({"function", "custom"})


def invalid(reason: str, index: int | None = None, field: str | None = None) -> InvalidConversation:
    """An InvalidConversation for this format."""
    return InvalidConversation(reason, index=index, field=field, format=FORMAT)


def role_of_type(kind: str) -> Role:
    """The neutral role of a non-message item type (rule 2)."""
    if kind in OUTPUT_TYPES or kind in _TOOL_SIDE or kind.endswith("_output"):
        return "tool"
    return "assistant"


def rest(data: Mapping[str, object], mapped: Collection[str]) -> Extras:
    """The fields of `data` not in `mapped`, in order (EMPTY when there are none)."""
    out = {key: value for key, value in data.items() if key not in mapped}
    return out if out else EMPTY


# --- conversation --------------------------------------------------------------------------


def to_conversation(payload: object) -> Conversation:
    """Parse a list of input items or a request body."""
    if isinstance(payload, list):
        return Conversation(parse_items(payload), shape="list")
    if isinstance(payload, Mapping):
        return _body(payload)
    raise invalid(f"expected a list of input items or a request body, got {type(payload).__name__}")


def _body(body: Mapping[str, object]) -> Conversation:
    if "input" not in body:
        raise invalid("the request body has no 'input'", field="input")
    consumed = {"input"}
    messages: list[Message] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        consumed.add("instructions")
        flag = {INSTRUCTIONS: True}
        messages.append(Message("system", (Text(instructions),), extras=flag))
    raw = body["input"]
    if isinstance(raw, str):
        messages.append(Message("user", (Text(raw),), extras={INPUT_STRING: True}))
    elif isinstance(raw, list):
        messages.extend(parse_items(raw))
    else:
        raise invalid("'input' must be a string or a list of items", field="input")
    tools: tuple[ToolSpec, ...] = ()
    raw_tools = body.get("tools")
    if isinstance(raw_tools, list) and raw_tools:
        consumed.add("tools")
        tools = tuple(parse_tool(tool, i) for i, tool in enumerate(raw_tools))
    return Conversation(tuple(messages), shape="body", tools=tools, extras=rest(body, consumed))


def parse_tool(tool: object, position: int) -> ToolSpec:
    """A ToolSpec for one entry of `tools`: function and custom tools map their fields."""
    field = f"tools[{position}]"
    if not isinstance(tool, Mapping):
        raise invalid("a tool must be an object", field=field)
    kind = tool.get("type")
    if not isinstance(kind, str):
        raise invalid("a tool needs a string 'type'", field=f"{field}.type")
    if kind not in _FUNCTION_TOOLS:
        return ToolSpec(kind, extras=tool)
    name = tool.get("name")
    if not isinstance(name, str):
        raise invalid(f"{with_article(kind)} tool needs a string 'name'", field=f"{field}.name")
    mapped = ["name"]
    description = tool.get("description")
    if isinstance(description, str):
        mapped.append("description")
    parameters = tool.get("parameters")
    if isinstance(parameters, Mapping):
        mapped.append("parameters")
    return ToolSpec(
        name,
        description if isinstance(description, str) else None,
        parameters if isinstance(parameters, Mapping) else None,
        extras=rest(tool, mapped),
    )


# --- items ---------------------------------------------------------------------------------


def parse_items(items: list[object]) -> tuple[Message, ...]:
    """One Message per input item."""
    return tuple(parse_item(item, index) for index, item in enumerate(items))


def parse_item(item: object, index: int) -> Message:
    """The Message for the input item at `index`."""
    if not isinstance(item, Mapping):
        raise invalid(f"an input item must be an object, got {type(item).__name__}", index)
    if INSTRUCTIONS in item or INPUT_STRING in item:
        raise invalid("keys starting with 'contextfold/' are reserved", index)
    kind = item.get("type")
    if kind is None:
        if "role" in item:
            return _message(item, index)
        if "id" in item:  # an item reference may leave out its type
            return Message("assistant", (Opaque(item),), extras={"type": "item_reference"})
        raise invalid("an input item needs a 'type' (or a 'role' for a message)", index, "type")
    if not isinstance(kind, str):
        raise invalid("an item 'type' must be a string", index, "type")
    parser = _ITEM_PARSERS.get(kind)
    if parser is not None:
        return parser(item, index)
    return Message(role_of_type(kind), (Opaque(item),), extras={"type": kind})


def _message(item: Mapping[str, object], index: int) -> Message:
    raw_role = item.get("role")
    role = _MESSAGE_ROLES.get(raw_role) if isinstance(raw_role, str) else None
    if role is None:
        raise invalid(
            f"unknown message role {raw_role!r}; use user, assistant, system or developer",
            index,
            "role",
        )
    content = item.get("content")
    parts: tuple[Part, ...]
    if isinstance(content, str):
        parts = (Text(content),)
    elif isinstance(content, list):
        parts = parse_parts(content, index, "content")
    else:
        raise invalid("'content' must be a string or a list of content parts", index, "content")
    return Message(role, parts, extras=rest(item, ("role", "content")))


def parse_parts(parts: list[object], index: int, field: str) -> tuple[Part, ...]:
    """Neutral parts for a list of content parts (rule 3)."""
    return tuple(_part(part, index, f"{field}[{i}]") for i, part in enumerate(parts))


def _part(part: object, index: int, field: str) -> Part:
    if not isinstance(part, Mapping):
        raise invalid("a content part must be an object", index, field)
    kind = part.get("type")
    if not isinstance(kind, str):
        raise invalid("a content part needs a string 'type'", index, f"{field}.type")
    key = TEXT_KEYS.get(kind)
    if key is not None:
        text = part.get(key)
        if not isinstance(text, str):
            raise invalid(
                f"{with_article(kind)} part needs a string {key!r}", index, f"{field}.{key}"
            )
        return Text(text, extras=rest(part, (key,)))
    url = part.get("image_url")
    if kind == "input_image" and isinstance(url, str):
        raw_detail = part.get("detail")
        detail = _DETAILS.get(raw_detail) if isinstance(raw_detail, str) else None
        if detail is None:
            return Image(url, extras=rest(part, ("image_url",)))
        return Image(url, detail=detail, extras=rest(part, ("image_url", "detail")))
    return Opaque(part)


def _string(item: Mapping[str, object], key: str, index: int) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise invalid(f"{key!r} must be a string", index, key)
    return value


def _call(item: Mapping[str, object], index: int) -> Message:
    kind = str(item["type"])
    arguments = CALL_ARGUMENTS[kind]
    call = ToolCall(
        _string(item, "call_id", index),
        _string(item, "name", index),
        _string(item, arguments, index),
    )
    return Message("assistant", (call,), extras=rest(item, ("call_id", "name", arguments)))


def _output(item: Mapping[str, object], index: int) -> Message:
    call_id = _string(item, "call_id", index)
    output = item.get("output")
    parts: tuple[Part, ...]
    if isinstance(output, str):
        parts = (Text(output),)
    elif isinstance(output, list):
        parts = parse_parts(output, index, "output")
    else:
        raise invalid("'output' must be a string or a list of content parts", index, "output")
    return Message("tool", (ToolResult(call_id, parts),), extras=rest(item, ("call_id", "output")))


def _reasoning(item: Mapping[str, object], index: int) -> Message:
    texts: list[str] = []
    summary = item.get("summary")
    if not isinstance(summary, list):
        raise invalid(
            "'summary' must be a list of summary_text parts (may be [])", index, "summary"
        )
    for i, entry in enumerate(summary):
        text = entry.get("text") if isinstance(entry, Mapping) else None
        if not isinstance(text, str):
            raise invalid("a summary part needs a string 'text'", index, f"summary[{i}].text")
        texts.append(text)
    encrypted = item.get("encrypted_content")
    if isinstance(encrypted, str):
        part = Reasoning("\n\n".join(texts), encrypted=encrypted)
        return Message("assistant", (part,), extras=rest(item, ("encrypted_content",)))
    return Message("assistant", (Reasoning("\n\n".join(texts)),), extras=rest(item, ()))


_ITEM_PARSERS: Final[Mapping[str, Callable[[Mapping[str, object], int], Message]]] = {
    "message": _message,
    "function_call": _call,
    "custom_tool_call": _call,
    "function_call_output": _output,
    "custom_tool_call_output": _output,
    "reasoning": _reasoning,
}
