"""Wire formats in and out: detection and dispatch to one pure module per format.

Rules:
1. Each format module has `to_conversation(payload) -> Conversation`,
   `from_conversation(conversation) -> payload` and `validate(payload) -> list[Problem]`.
   They are pure, total (typed errors, never KeyError/TypeError) and exact:
   `from_conversation(to_conversation(x)) == x` for every payload they accept.
2. SDK objects (openai / anthropic pydantic models) become plain JSON before parsing.
3. Detection looks for signals only one format has. No signal at all (plain text turns,
   valid everywhere) reads as OpenAI chat; signals of two formats raise AmbiguousFormat.
4. `parse_plain` and `validate_plain` take what `to_plain` gave, so a caller that parses
   and validates one payload walks it once.
5. `parse_rendered` reads back a rendered conversation, taking the messages the adapter
   parsed and nothing changed as they are where the format allows it (OpenAI chat: its
   rule 6); it gives what `parse_plain` gives.
6. Repair removes a tool result no call asked for. When that would leave no message at
   all (the input was nothing but such results), the provider would reject the empty
   list: `emptied` is the error instead, at the input's first problem, the same in each
   format.
7. A Responses body with `previous_response_id` or `conversation` continues state the
   provider stored: it puts those items before the input, unseen here (`stored_context`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final, Literal, NamedTuple, TypeAlias

from .._errors import AmbiguousFormat, ConfigurationError, InvalidConversation
from .._messages import Conversation, Message
from .._validation import Problem
from . import _anthropic, _openai_chat, _openai_responses
from ._detect import signals
from ._openai_responses_validate import hides_calls, stored_field
from ._sdk import to_plain

Format: TypeAlias = Literal["openai-chat", "openai-responses", "anthropic"]
FORMATS: Final[tuple[Format, ...]] = ("openai-chat", "openai-responses", "anthropic")


class _Adapter(NamedTuple):
    to_conversation: Callable[[object], Conversation]
    from_conversation: Callable[[Conversation], object]
    validate: Callable[[object], list[Problem]]


_ADAPTERS: Final[Mapping[Format, _Adapter]] = {
    "openai-chat": _Adapter(
        _openai_chat.to_conversation, _openai_chat.from_conversation, _openai_chat.validate
    ),
    "openai-responses": _Adapter(
        _openai_responses.to_conversation,
        _openai_responses.from_conversation,
        _openai_responses.validate,
    ),
    "anthropic": _Adapter(
        _anthropic.to_conversation, _anthropic.from_conversation, _anthropic.validate
    ),
}


def check_format(format: str) -> Format:
    """`format` as a Format, or ConfigurationError naming the accepted ones."""
    for name in FORMATS:
        if format == name:
            return name
    raise ConfigurationError(f"unknown format {format!r}; use one of {', '.join(FORMATS)}")


def detect(payload: object) -> Format:
    """The wire format of `payload` (see rule 3)."""
    return _detect_plain(to_plain(payload))


def _detect_plain(plain: object) -> Format:
    found = signals(plain)
    if len(found) > 1:
        evidence = "; ".join(f"{fmt}: {why}" for fmt, why in sorted(found.items()))
        raise AmbiguousFormat(f"payload mixes wire formats ({evidence}); pass format= explicitly")
    if found:
        return check_format(next(iter(found)))
    if not isinstance(plain, list | dict):
        raise InvalidConversation(
            f"expected a list of messages or a request body, got {type(plain).__name__}"
        )
    if isinstance(plain, dict) and "messages" not in plain and "input" not in plain:
        other = next((name for key, name in _OTHER_FORMATS.items() if key in plain), None)
        if other is not None:
            raise InvalidConversation(
                f"unsupported format: this looks like a {other} request; contextfold reads "
                f"{', '.join(FORMATS)} (convert it, or send the messages in one of those)"
            )
    return "openai-chat"


_OTHER_FORMATS: Final = {
    "contents": "Gemini (generateContent)",
    "prompt": "completions (prompt, not messages)",
}


def parse(payload: object, format: str | None = None) -> tuple[Format, Conversation]:
    """Detect (unless given) the format and parse `payload` into a Conversation."""
    return parse_plain(to_plain(payload), format)


def parse_plain(plain: object, format: str | None = None) -> tuple[Format, Conversation]:
    """`parse` of what `to_plain` gave (rule 4)."""
    fmt = _detect_plain(plain) if format is None else check_format(format)
    return fmt, _ADAPTERS[fmt].to_conversation(plain)


def parse_rendered(
    plain: object, format: Format, parsed: Sequence[Message], same: Sequence[bool]
) -> Conversation:
    """`parse_plain(plain, format)[1]`, where `plain` renders messages `parsed` and `same[j]`
    says `parsed[j]` is a message this adapter parsed, unchanged (rule 5)."""
    if format == "openai-chat":
        return _openai_chat.reparse(plain, parsed, same)
    return _ADAPTERS[format].to_conversation(plain)


def render(conversation: Conversation, format: str) -> object:
    """The wire payload for `conversation` in `format`, in the conversation's shape."""
    return _ADAPTERS[check_format(format)].from_conversation(conversation)


def validate(payload: object, format: str | None = None) -> list[Problem]:
    """Ways the provider would reject `payload` (empty when it is valid)."""
    return validate_plain(to_plain(payload), format)


def validate_plain(plain: object, format: str | None = None) -> list[Problem]:
    """`validate` of what `to_plain` gave (rule 4)."""
    fmt = _detect_plain(plain) if format is None else check_format(format)
    return _ADAPTERS[fmt].validate(plain)


_CALL_OF: Final[Mapping[Format, str]] = {
    "openai-chat": "the assistant message with its tool_calls",
    "openai-responses": "its function_call (or previous_response_id)",
    "anthropic": "the assistant message with its tool_use",
}


def emptied(plain: object, format: Format) -> InvalidConversation:
    """Rule 6: the error for an input that repair would leave with no message."""
    problems = validate_plain(plain, format) or [Problem(None, None, "a tool result has no call")]
    first = min(problems, key=lambda p: -1 if p.index is None else p.index)  # the earliest
    return InvalidConversation(
        f"{first.reason}; removing it (repair) leaves no message: add {_CALL_OF[format]} before it",
        index=first.index,
        field=first.field,
        format=format,
    )


def answers_outside(plain: object, format: Format) -> bool:
    """Whether results in `plain` may answer calls it does not show (rule 6)."""
    return format == "openai-responses" and hides_calls(plain)


def stored_context(plain: object, format: Format) -> str | None:
    """Rule 7: the body field by which the provider adds stored items before `plain`'s."""
    if format != "openai-responses" or not isinstance(plain, Mapping):
        return None
    return stored_field(plain)


def item_count(payload: object) -> int:
    """Messages (or input items) in the wire list of `payload`; lifted system prompts excluded."""
    plain = payload if type(payload) in (list, dict) else to_plain(payload)  # no deep walk
    if isinstance(plain, Mapping):
        plain = plain.get("messages", plain.get("input"))
    return len(plain) if isinstance(plain, list) else 1 if isinstance(plain, str) else 0
