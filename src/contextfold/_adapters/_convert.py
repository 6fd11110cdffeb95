"""Convert a payload between wire formats, keeping what both formats can express.

Rules:
1. `convert` parses (detecting the format unless given), normalizes the Conversation for
   the target and renders it in the input's shape: a list stays a list, a body a body.
   A payload already in the target format is only parsed and rendered back (unchanged).
2. Normalizing starts from neutral content only: every extras key goes (message, part,
   tool and body level; each adapter's wire layout and bookkeeping stay with its format),
   and so do message names, Opaque parts (another provider's data: documents, audio,
   server tools ...), reasoning (chat cannot carry it; Anthropic and Responses reject
   another provider's; only signed thinking would go to Anthropic) and images outside
   user messages and tool results. `_convert_turns` then restructures the messages.
   A conversation with nothing left that the target can take becomes one placeholder
   user turn (the APIs reject an empty one); an empty input stays empty.
3. Tools: function tools keep name, description, parameters and `strict` (Responses gets
   `strict: false` when the source did not say; Anthropic and Responses get an empty
   object schema when there was none); built-in and custom (free-text) tools are dropped,
   and so is a second tool of the same name.
4. Body fields: `model`, `stream`, `temperature`, `top_p` carry over (Anthropic takes a
   temperature from 0 to 1 only), the output limit is renamed (chat
   `max_completion_tokens` or `max_tokens`, Anthropic `max_tokens`, Responses
   `max_output_tokens`); the rest is another API's setting and is dropped. Anthropic needs
   `max_tokens`: it is there only when the source had a limit.
5. `normalize` also lists every Change (dropped, changed, added) by source message index.
   The public API stays `convert` alone; the list is for tests and a later report.
6. A bare list that opens with a system or developer prompt is refused for Anthropic
   (InvalidConversation at message 0, field `role`): the Messages API takes the prompt
   only in a body's `system`, and inlined as user text it would lose its role and read as
   the user's own statements. A body keeps it; a later system message is user text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final, assert_never

from .._errors import InvalidConversation, with_article
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
    Role,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from . import Format, check_format, parse, render
from ._convert_turns import (
    Change,
    Item,
    Restructure,
    for_anthropic,
    for_chat,
    for_responses,
    placeholder,
)
from ._openai_chat_layout import RAW

_RESTRUCTURE: Final[Mapping[Format, Restructure]] = {
    "openai-chat": for_chat,
    "anthropic": for_anthropic,
    "openai-responses": for_responses,
}
_SHARED_FIELDS: Final = ("model", "stream", "temperature", "top_p")
_LIMITS: Final[Mapping[Format, tuple[str, ...]]] = {
    "openai-chat": ("max_completion_tokens", "max_tokens"),
    "anthropic": ("max_tokens",),
    "openai-responses": ("max_output_tokens",),
}
"""The output limit's body field per format; the first one is written."""
_EMPTY_SCHEMA: Final[Mapping[str, object]] = {"type": "object", "properties": {}}


def convert(payload: object, to: str, *, format: str | None = None) -> object:
    """`payload` in the `to` wire format, in its own shape, keeping what both can express.

    Text, images, tool calls and results and their order survive; wire extras, reasoning,
    provider-specific parts and tools, and settings of the source API do not (rules above).
    Raises InvalidConversation for a payload that does not parse, ConfigurationError for
    an unknown format name.
    """
    target = check_format(to)
    source, conversation = parse(payload, format)
    if source == target:
        return render(conversation, target)
    if target == "anthropic" and conversation.shape == "list":
        _no_system_prompt(conversation, source)
    converted, _ = normalize(conversation, source, target)
    return render(converted, target)


def _no_system_prompt(conversation: Conversation, source: Format) -> None:
    """Rule 6: a bare Anthropic list has no place for a system prompt."""
    first = conversation.messages[0] if conversation.messages else None
    if first is not None and first.role in ("system", "developer"):
        raise InvalidConversation(
            f"a bare Anthropic message list has no place for the {first.role} prompt, and as"
            " user text it would read as the user's own words: convert a request body"
            " ({'messages': [...]}) to get Anthropic's top-level 'system', or leave the"
            f" {first.role} message out",
            index=0,
            field="role",
            format=source,
        )


def normalize(
    conversation: Conversation, source: Format, target: Format
) -> tuple[Conversation, tuple[Change, ...]]:
    """The conversation as `target` can render it, and what changed on the way."""
    changes: list[Change] = []
    items: list[Item] = []
    for index, message in enumerate(conversation.messages):
        cleaned = _clean(message, index, target, changes)
        if cleaned.parts:
            items.append(Item(index, cleaned))
        else:
            changes.append(Change(index, "dropped", "message left empty"))
    if conversation.messages and not items:
        items.append(placeholder(0, changes))
    messages = _RESTRUCTURE[target](items, changes, conversation.shape) if items else []
    tools = _tools(conversation.tools, source, target, changes)
    extras = _body_fields(conversation.extras, source, target, changes)
    converted = Conversation(tuple(messages), shape=conversation.shape, tools=tools, extras=extras)
    return converted, tuple(changes)


# --- parts ---------------------------------------------------------------------------------


def _clean(message: Message, index: int, target: Format, changes: list[Change]) -> Message:
    parts: list[Part] = []
    for part in message.parts:
        kept = _clean_part(part, message.role, target)
        if kept is None:
            changes.append(
                Change(
                    index, "dropped", f"{part.kind} part in {with_article(message.role)} message"
                )
            )
            continue
        if isinstance(part, ToolResult) and _fewer_parts(kept, part):
            changes.append(Change(index, "dropped", "part of a tool result"))
        parts.append(kept)
    return Message(message.role, tuple(parts))


def _fewer_parts(kept: Part, part: ToolResult) -> bool:
    return isinstance(kept, ToolResult) and len(kept.parts) < len(part.parts)


def _clean_part(part: Part, role: Role, target: Format) -> Part | None:
    """The part without extras, or None when the target cannot take it (rule 2)."""
    match part:
        case Text() | Marker() | Summary() | Card() | ToolCall():
            return replace(part, extras=EMPTY)
        case Image():
            return replace(part, extras=EMPTY) if role == "user" else None
        case ToolResult():
            inner = (_result_part(p) for p in part.parts)
            return replace(part, parts=tuple(p for p in inner if p is not None), extras=EMPTY)
        case Reasoning():
            signed = part.signature is not None and part.encrypted is None
            return replace(part, extras=EMPTY) if target == "anthropic" and signed else None
        case Opaque():
            return None
        case _:
            assert_never(part)


def _result_part(part: Part) -> Part | None:
    """Text and images of a tool result, without extras; anything else is dropped."""
    if isinstance(part, Text | Marker | Summary | Card | Image):
        return replace(part, extras=EMPTY)
    return None


# --- tools and body ------------------------------------------------------------------------


def _tools(
    tools: tuple[ToolSpec, ...], source: Format, target: Format, changes: list[Change]
) -> tuple[ToolSpec, ...]:
    out: list[ToolSpec] = []
    names: set[str] = set()
    for spec in tools:
        if not _is_function(spec, source) or spec.name in names:
            changes.append(Change(None, "dropped", f"tool {spec.name!r}"))
            continue
        names.add(spec.name)
        parameters = spec.parameters
        if parameters is None and target != "openai-chat":
            parameters = _EMPTY_SCHEMA
        strict = spec.extras.get("strict")
        extras: Extras = EMPTY
        if isinstance(strict, bool) or target == "openai-responses":
            extras = {"strict": strict if isinstance(strict, bool) else False}
        out.append(ToolSpec(spec.name, spec.description, parameters, extras=extras))
    return tuple(out)


def _is_function(spec: ToolSpec, source: Format) -> bool:
    """Whether a parsed tool is a function tool (each adapter marks the others its own way)."""
    kind = spec.extras.get("type")
    if source == "openai-chat":
        return RAW not in spec.extras
    if source == "anthropic":
        return kind in (None, "custom")
    return kind == "function"


def _body_fields(extras: Extras, source: Format, target: Format, changes: list[Change]) -> Extras:
    out: dict[str, object] = {key: extras[key] for key in _SHARED_FIELDS if key in extras}
    limit = next((key for key in _LIMITS[source] if key in extras), None)
    if limit is not None:
        out[_LIMITS[target][0]] = extras[limit]
    temperature = out.get("temperature")
    if target == "anthropic" and not _unit_interval(temperature):
        out.pop("temperature", None)
    for key in extras:
        if key not in out and key != limit:
            changes.append(Change(None, "dropped", f"body field {key!r}"))
    return out or EMPTY


def _unit_interval(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
