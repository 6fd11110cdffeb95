"""What a ContextManager takes in: messages as a request carries them, tool definitions.

Rules:
1. A response object appended as it came back (the SDK's `Message`,
   `ChatCompletionMessage`) loses the fields only responses have, so it reads as the
   request message it becomes; anything else passes through untouched.
2. Tools are ToolSpecs or definitions in the format's wire shape (the dicts an SDK call
   takes), parsed as the format's own `tools`; the given order is kept.
3. A batch is read whole before any of it is added (`read_batch`): a bad message raises
   InvalidConversation naming its index in the batch, and the manager takes none of it.
   A neutral Message is checked too (`checked`): every field of the right type
   (`_messages_check`), and one the manager's format can carry, so a message that would
   make every later view fail is refused when it is given, not taken in.
4. An Anthropic message `{"role": "system", "content": ...}` (the Messages API takes none)
   is read as the body's `system`: it is the manager's system prompt, as `system=` gives
   it, sent by `system_prompt()` and counted in the budget.
5. Provider usage is the prompt's size: a number as given; a usage object or dict by its
   `prompt_tokens` (OpenAI chat, cached tokens included), else `input_tokens` plus
   Anthropic's `cache_creation_input_tokens` and `cache_read_input_tokens` (its
   `input_tokens` leaves out what the cache served; OpenAI's Responses count includes it).
6. A request's structured-output schema (`request_fields`: a request body, or just its
   `response_format`, `text`, `output_config` or `output_format`) costs what `cf.compact`
   counts for it in a body (`_tokens._accounting` rule 6): the manager keeps those fields
   only, and only when they ask for a JSON schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from ._adapters import parse, render
from ._adapters._sdk import to_plain
from ._errors import ConfigurationError, InvalidConversation
from ._messages import Conversation, Message, ToolSpec
from ._messages_check import check_message
from ._tokens._accounting import output_fields

__all__ = [
    "as_payload",
    "output_fields",
    "prompt_tokens",
    "read_batch",
    "read_message",
    "request_shaped",
    "tool_specs",
]

_ANTHROPIC_RESPONSE = frozenset({"id", "type", "model", "usage", "stop_reason", "stop_sequence"})
_CHAT_RESPONSE = frozenset({"annotations"})


def as_payload(message: object, format: str) -> object:
    """What `parse` reads one given message from: a one-message list of it as a request
    carries it, or for an Anthropic system message a body with it as `system` (rule 4)."""
    shaped = request_shaped(message, format)
    if (
        format == "anthropic"
        and isinstance(shaped, dict)
        and shaped.get("role") == "system"
        and "content" in shaped
    ):
        return {"system": shaped["content"], "messages": []}
    return [shaped]


def request_shaped(message: object, format: str) -> object:
    """A message as a request may carry it: a response object appended as it came back
    (the SDK's `Message`, `ChatCompletionMessage`) loses the fields only responses have."""
    if not isinstance(message, dict):
        return message
    if format == "anthropic" and message.get("type") == "message":
        return {k: v for k, v in message.items() if k not in _ANTHROPIC_RESPONSE}
    if format == "openai-chat" and message.get("role") == "assistant":
        return {
            k: v
            for k, v in message.items()
            if k not in _CHAT_RESPONSE and (v is not None or k == "content")
        }
    return message


def tool_specs(tools: Iterable[object], format: str) -> tuple[ToolSpec, ...]:
    """ToolSpecs from ToolSpecs or tool definitions in the format's wire shape (the dicts
    an SDK call takes: `{"type": "function", "function": {...}}`, `{"name", "input_schema"}`)."""
    if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Iterable):
        raise ConfigurationError(
            f"tools must be a list of tool definitions (or ToolSpecs), got {type(tools).__name__}"
        )
    given = list(tools)
    wire = [t for t in given if not isinstance(t, ToolSpec)]
    if not wire:
        return tuple(t for t in given if isinstance(t, ToolSpec))
    key = "input" if format == "openai-responses" else "messages"
    _, parsed = parse({key: [], "tools": [to_plain(t) for t in wire]}, format)
    specs = iter(parsed.tools)
    return tuple(t if isinstance(t, ToolSpec) else next(specs) for t in given)


def read_message(wire: object, format: str) -> list[Message]:
    """The messages one given message is in `format`: a wire message (an SDK object, a
    dict) parsed, or a neutral Message as it is once `checked` (rule 3)."""
    if isinstance(wire, Message):
        return [checked(wire, format)]
    _, conversation = parse(as_payload(to_plain(wire), format), format)
    return list(conversation.messages)


def checked(message: Message, format: str) -> Message:
    """`message` when it is well formed and `format` can carry it (rule 3), else
    InvalidConversation naming the field."""
    check_message(message)
    if format == "anthropic" and message.role in ("system", "developer"):
        return message  # the body's `system`, not a message: nothing to render alone
    try:
        render(Conversation((message,)), format)
    except InvalidConversation as exc:
        raise InvalidConversation(exc.reason, field=exc.field, format=format) from None
    except (TypeError, ValueError, LookupError, AttributeError) as exc:  # odd extras
        raise InvalidConversation(
            f"the message cannot be rendered ({type(exc).__name__}: {exc}); check its extras",
            field="extras",
            format=format,
        ) from None
    return message


def read_batch(
    messages: Iterable[object], read: Callable[[object], list[Message]]
) -> list[Message]:
    """Every message of a batch, each read by `read` (rule 3): a bad one raises with its
    index in the batch, before anything is added."""
    out: list[Message] = []
    for index, message in enumerate(messages):
        try:
            out += read(message)
        except InvalidConversation as exc:
            where = {"field": exc.field, "format": exc.format}
            raise InvalidConversation(exc.reason, index=index, **where) from exc
    return out


_CACHE_FIELDS = ("cache_creation_input_tokens", "cache_read_input_tokens")


def prompt_tokens(usage: object) -> int:
    """The prompt tokens a provider reported, from a number or a usage object (rule 5)."""
    if isinstance(usage, int) and not isinstance(usage, bool) and usage >= 0:
        return usage
    if not isinstance(usage, int):
        prompt = _field(usage, "prompt_tokens")
        if prompt is not None:
            return prompt
        given = _field(usage, "input_tokens")
        if given is not None:
            return given + sum(_field(usage, name) or 0 for name in _CACHE_FIELDS)
    raise ConfigurationError(
        f"observe_usage() needs the prompt's tokens: a count of at least 0 or the provider's "
        f"usage (with prompt_tokens, or input_tokens and its cache counts), got {usage!r}"
    )


def _field(usage: object, name: str) -> int | None:
    value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
