"""OpenAI Chat Completions messages <-> the neutral model (the commonest layouts are read
at once by `_openai_chat_common`).

Rules:
1. Input is a bare message list (shape `list`) or a request body with `messages` (shape
   `body`); body fields other than `messages`, `tools` and legacy `functions` stay in
   `Conversation.extras`, in order.
2. Roles map one to one; a legacy `function` message becomes a `tool` message. A `tool`
   (or `function`) message holds one ToolResult whose parts are the message content.
3. Content: a string is one part, a list is one part per entry, `null` carries no parts.
   `text` parts are Text (never artifacts: the engine recognises those), plain
   `image_url` parts (a url and an auto/low/high/original detail) become Image,
   everything else (audio, files, refusals, unknown types) is Opaque, kept whole.
4. Assistant `tool_calls` (function and custom) and legacy `function_call` become
   ToolCall parts after the content; a call without string id, name and arguments raises
   InvalidConversation. A legacy call has no id: it gets `legacy-call-<i>`
   (i its message index) and the next `function` message answers it (a `function`
   message with no call before it answers `legacy-result-<i>`).
5. Everything not mapped stays as the layout module says, so rendering gives back the
   exact input. Pairing is not checked here; `validate` reports it.
6. A message parses the same wherever it stands, unless a legacy `function_call` or
   `function` message is in the list (their ids name positions). So `reparse` of a list
   without those reads only the messages that changed since parsing: an unchanged one
   renders back to its input and parses to itself (rule 5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, cast

from .._errors import InvalidConversation
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
    Role,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from ._openai_chat_common import read_common, read_common_calls
from ._openai_chat_layout import (
    FORM,
    INNER,
    KIND,
    LEGACY,
    RAW,
    ROLE,
    freeze,
    invalid,
    leftovers,
)
from ._openai_chat_render import from_conversation
from ._openai_chat_validate import validate

__all__ = ["from_conversation", "reparse", "to_conversation", "validate"]

_ROLES: Final[Mapping[str, Role]] = {
    "system": "system",
    "developer": "developer",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_DETAILS: Final[Mapping[str, Detail]] = {detail: detail for detail in DETAILS}
_CALL_KINDS: Final[Mapping[str, tuple[str, str]]] = {
    "function": ("function", "arguments"),
    "custom": ("custom", "input"),
}


def to_conversation(payload: object) -> Conversation:
    """Parse a chat message list or request body (rule 1)."""
    if isinstance(payload, list):
        return Conversation(_messages(payload), shape="list")
    if isinstance(payload, dict):
        return _body(payload)
    raise invalid(f"expected a list of messages or a request body, got {type(payload).__name__}")


def reparse(payload: object, parsed: Sequence[Message], same: Sequence[bool]) -> Conversation:
    """`to_conversation(payload)`, where `payload` renders `parsed` and `same[j]` says
    `parsed[j]` came from `to_conversation` unchanged: those are taken as they are (rule 6)."""
    if not _positionless(payload, parsed, same):
        return to_conversation(payload)

    def read(items: list[object]) -> tuple[Message, ...]:
        fresh = iter(_messages([raw for raw, kept in zip(items, same, strict=True) if not kept]))
        return tuple([m if kept else next(fresh) for m, kept in zip(parsed, same, strict=True)])

    try:
        if isinstance(payload, list):
            return Conversation(read(payload), shape="list")
        return _body(cast(dict[str, object], payload), read)
    except InvalidConversation:  # raised again, naming its index in the whole list
        return to_conversation(payload)


def _positionless(payload: object, parsed: Sequence[Message], same: Sequence[bool]) -> bool:
    """Whether `payload`'s messages, one per `parsed` and `same`, read alike anywhere."""
    items = payload.get("messages") if isinstance(payload, dict) else payload
    if not isinstance(items, list) or not len(items) == len(parsed) == len(same):
        return False
    for raw in items:
        if type(raw) is dict and ("function_call" in raw or raw.get("role") == "function"):
            return False
    return True


def _body(
    body: dict[str, object], read: Callable[[list[object]], tuple[Message, ...]] | None = None
) -> Conversation:
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise invalid("a request body needs a 'messages' list", field="messages")
    mapped = ["messages"]
    tools: list[ToolSpec] = []
    for key in ("tools", "functions"):
        entries = body.get(key)
        if isinstance(entries, list) and entries:
            mapped.append(key)
            tools.extend(_tool_spec(entry, legacy=key == "functions") for entry in entries)
    return Conversation(
        _messages(messages) if read is None else read(messages),
        shape="body",
        tools=tuple(tools),
        extras=freeze(leftovers(body, mapped)),
    )


def _messages(items: list[object]) -> tuple[Message, ...]:
    out: list[Message] = []
    pending: str | None = None
    for index, raw in enumerate(items):
        if not isinstance(raw, dict):
            raise invalid(f"a message must be an object, got {type(raw).__name__}", index)
        common = read_common(raw) or read_common_calls(raw)
        if common is not None:
            out.append(common)
            continue
        role = raw.get("role")
        if not isinstance(role, str) or role not in _ROLES:
            raise invalid(f"unknown role {role!r}", index, "role")
        if role == "assistant":
            message, pending = _assistant(raw, index, pending)
        elif role in ("tool", "function"):
            message = _tool_message(raw, index, role, pending)
            pending = None if role == "function" else pending
        else:
            message = _plain(raw, index, _ROLES[role])
        out.append(message)
    return tuple(out)


def _plain(raw: dict[str, object], index: int, role: Role) -> Message:
    mapped = ["role"]
    name = _name(raw, mapped)
    parts, form = _content(raw, index, mapped)
    return Message(role, parts, name=name, extras=_extras(raw, mapped, form))


def _assistant(
    raw: dict[str, object], index: int, pending: str | None
) -> tuple[Message, str | None]:
    mapped = ["role"]
    name = _name(raw, mapped)
    parts, form = _content(raw, index, mapped)
    calls = raw.get("tool_calls")
    if isinstance(calls, list) and calls:
        mapped.append("tool_calls")
        parts += tuple(_tool_call(call, index, f"tool_calls[{j}]") for j, call in enumerate(calls))
    elif calls is not None and calls != []:
        raise invalid("tool_calls must be a list of tool calls", index, "tool_calls")
    legacy = raw.get("function_call")
    if isinstance(legacy, dict):
        mapped.append("function_call")
        pending = f"legacy-call-{index}"
        parts += (_legacy_call(legacy, pending, index),)
    elif legacy is not None:
        raise invalid("function_call must be an object", index, "function_call")
    extras = _extras(raw, mapped, form)
    return Message("assistant", parts, name=name, extras=extras), pending


def _tool_message(raw: dict[str, object], index: int, role: str, pending: str | None) -> Message:
    mapped = ["role"]
    flags: dict[str, object] = {}
    if role == "function":
        call_id = pending or f"legacy-result-{index}"
        flags[ROLE] = "function"
    else:
        found = raw.get("tool_call_id")
        if not isinstance(found, str):
            raise invalid("a tool message needs a string 'tool_call_id'", index, "tool_call_id")
        call_id = found
        mapped.append("tool_call_id")
    name = _name(raw, mapped)
    parts, form = _content(raw, index, mapped)
    extras = _extras(raw, mapped, form, flags)
    return Message("tool", (ToolResult(call_id, parts),), name=name, extras=extras)


def _name(raw: dict[str, object], mapped: list[str]) -> str | None:
    name = raw.get("name")
    if isinstance(name, str):
        mapped.append("name")
        return name
    return None


def _content(
    raw: dict[str, object], index: int, mapped: list[str]
) -> tuple[tuple[Part, ...], bool]:
    """The content parts and whether they came from a list; appends `content` if mapped."""
    content = raw.get("content")
    if isinstance(content, str):
        mapped.append("content")
        return (Text(content),), False
    if isinstance(content, list) and content:
        mapped.append("content")
        return tuple(_part(part, index, f"content[{j}]") for j, part in enumerate(content)), True
    if content is None or content == []:
        return (), False
    raise invalid("content must be a string, a list of parts or null", index, "content")


def _extras(raw: dict[str, object], mapped: list[str], form: bool, flags: Extras = EMPTY) -> Extras:
    extras = leftovers(raw, mapped)
    if form:
        extras[FORM] = "list"
    if flags:
        extras.update(flags)
    return freeze(extras)


def _part(raw: object, index: int, field: str) -> Part:
    if not isinstance(raw, dict):
        raise invalid(f"a content part must be an object, got {type(raw).__name__}", index, field)
    kind = raw.get("type")
    if kind == "text":
        text = raw.get("text")
        if isinstance(text, str):
            return Text(text, extras=freeze(leftovers(raw, ["type", "text"])))
    elif kind == "image_url":
        image = _image(raw)
        if image is not None:
            return image
    return Opaque(raw)


def _image(raw: dict[str, object]) -> Image | None:
    """An Image for a plain `image_url` part; None sends the part to Opaque."""
    inner = raw.get("image_url")
    if not isinstance(inner, dict) or not isinstance(inner.get("url"), str):
        return None
    keys, wanted = list(inner), inner.get("detail")
    if keys == ["url"]:
        detail = None
    elif keys == ["url", "detail"] and isinstance(wanted, str) and wanted in _DETAILS:
        detail = _DETAILS[wanted]
    else:
        return None
    extras = freeze(leftovers(raw, ["type", "image_url"]))
    return Image(inner["url"], detail=detail, extras=extras)


def _tool_call(raw: object, index: int, field: str) -> ToolCall:
    if not isinstance(raw, dict):
        raise invalid("a tool call must be an object", index, field)
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in _CALL_KINDS:
        raise invalid("a tool call's type must be 'function' or 'custom'", index, f"{field}.type")
    inner_key, argument_key = _CALL_KINDS[kind]
    call_id = raw.get("id")
    if not isinstance(call_id, str):
        raise invalid("a tool call needs a string 'id'", index, f"{field}.id")
    inner = raw.get(inner_key)
    if not isinstance(inner, dict):
        raise invalid(f"a tool call needs a {inner_key!r} object", index, f"{field}.{inner_key}")
    name, arguments = _name_and_arguments(inner, argument_key, index, f"{field}.{inner_key}")
    extras = leftovers(raw, ["id", "type", inner_key])
    inner_extras = leftovers(inner, ["name", argument_key])
    if inner_extras:
        extras[INNER] = freeze(inner_extras)  # shared first, then the call's (rule 4)
    if kind == "custom":
        extras[KIND] = "custom"
    return ToolCall(call_id, name, arguments, extras=freeze(extras))


def _legacy_call(raw: dict[str, object], call_id: str, index: int) -> ToolCall:
    name, arguments = _name_and_arguments(raw, "arguments", index, "function_call")
    extras = leftovers(raw, ["name", "arguments"])
    extras[LEGACY] = True
    return ToolCall(call_id, name, arguments, extras=freeze(extras))


def _name_and_arguments(
    raw: dict[str, object], argument_key: str, index: int, field: str
) -> tuple[str, str]:
    name, arguments = raw.get("name"), raw.get(argument_key)
    if not isinstance(name, str):
        raise invalid("a tool call needs a string 'name'", index, f"{field}.name")
    if not isinstance(arguments, str):
        raise invalid(
            f"a tool call's {argument_key!r} must be a string (JSON text)",
            index,
            f"{field}.{argument_key}",
        )
    return name, arguments


def _tool_spec(raw: object, *, legacy: bool) -> ToolSpec:
    """A function tool as ToolSpec; any other tool (custom, odd layout) is kept whole."""
    function = raw if legacy else _function_of(raw)
    spec = _function_spec(function, legacy) if isinstance(function, dict) else None
    if spec is not None:
        return spec
    name, description = _names_of(raw)
    extras: dict[str, object] = {RAW: raw}
    if legacy:
        extras[LEGACY] = True
    return ToolSpec(name, description, extras=extras)


def _function_of(raw: object) -> object:
    if isinstance(raw, dict) and list(raw) == ["type", "function"] and raw["type"] == "function":
        return raw["function"]
    return None


def _function_spec(raw: dict[str, object], legacy: bool) -> ToolSpec | None:
    name, description, parameters = raw.get("name"), raw.get("description"), raw.get("parameters")
    if not isinstance(name, str):
        return None
    mapped = ["name"]
    if isinstance(description, str):
        mapped.append("description")
    else:
        description = None
    if isinstance(parameters, dict):
        mapped.append("parameters")
    else:
        parameters = None
    extras = leftovers(raw, mapped)
    if legacy:
        extras[LEGACY] = True
    return ToolSpec(name, description, parameters, extras=freeze(extras))


def _names_of(raw: object) -> tuple[str, str | None]:
    """Best-effort name and description of a tool kept whole (for token counting)."""
    if not isinstance(raw, dict):
        return "", None
    for key in ("function", "custom"):
        inner = raw.get(key)
        if isinstance(inner, dict):
            raw = inner
            break
    name, description = raw.get("name"), raw.get("description")
    return (
        name if isinstance(name, str) else "",
        description if isinstance(description, str) else None,
    )
