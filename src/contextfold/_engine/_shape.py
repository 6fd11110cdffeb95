"""Structural rules of each wire format that the engine must respect when it edits.

Rules:
1. `alternate`: user and assistant turns must alternate and the first turn after the
   system prompt must be a user turn (Anthropic). The engine keeps this by inserting
   BRIDGE messages: one Marker pointing at a fixed archived note, in the missing role.
2. `results_in_user`: tool results travel inside a user message (Anthropic) rather than
   in messages of their own (OpenAI chat `tool` messages, Responses output items).
3. `joined_preamble`: the card and the summary share one user message (Anthropic, to
   keep alternation) instead of one message each.
4. `results_follow_calls`: a call's result must be in the message(s) right after the
   message that made it (OpenAI chat, Anthropic), not just anywhere later (Responses).
5. `thinking_opens_turn`: with thinking enabled, the assistant turn in progress (the
   assistant messages back from the final tool results to the last user turn) must start
   with its thinking (Anthropic). The request may not say whether thinking is enabled (a
   bare message list), so a turn in progress that opens with reasoning keeps that opening
   message (`turn_opening`): its unit never leaves the view (neither folded nor dropped),
   but its tool results yield like the tail's (trimmed, then masked; they are the
   assistant's own calls answered, not the thinking), so the floor stays the system
   prompt and the latest user turn.
6. `continues_last`: a final assistant message is a prefill the model continues
   (Anthropic): it is part of the request, so it stays verbatim with the floor
   (`prefill`); elsewhere a final assistant message is history like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from .._messages import BRIDGE_NOTE, Message, Reasoning, Role, ToolCall, ToolResult
from ._transform import marker


@dataclass(frozen=True, slots=True)
class Shape:
    """The structural rules of one wire format."""

    alternate: bool
    results_in_user: bool
    joined_preamble: bool
    results_follow_calls: bool = True
    thinking_opens_turn: bool = False
    continues_last: bool = False


SHAPES: Final[Mapping[str, Shape]] = {
    "openai-chat": Shape(alternate=False, results_in_user=False, joined_preamble=False),
    "openai-responses": Shape(
        alternate=False, results_in_user=False, joined_preamble=False, results_follow_calls=False
    ),
    "anthropic": Shape(
        alternate=True,
        results_in_user=True,
        joined_preamble=True,
        thinking_opens_turn=True,
        continues_last=True,
    ),
}

BRIDGE_ARCHIVED: Final = (
    "contextfold bridge: turns that stood here were folded into the summary or removed; "
    "their originals are in the archive under the references shown in the summary."
)


BRIDGE_REF: Final = "r0000000000"
"""A stand-in reference of the same length, for sizing bridges before archiving."""


def bridge(role: Role, ref: str) -> Message:
    """A one-marker message in `role` that keeps turns alternating."""
    return Message(role, (marker(ref, BRIDGE_NOTE),))


def alternation_gaps(messages: Sequence[Message]) -> list[int]:
    """Indices of the messages `add_bridges` would put a bridge before."""
    gaps: list[int] = []
    previous: Role | None = None
    for index, message in enumerate(messages):
        role = message.role
        if role in ("system", "developer"):
            continue
        if role == previous or (previous is None and role == "assistant"):
            gaps.append(index)
        previous = role
    return gaps


def needs_bridge(previous: str | None, role: str) -> bool:
    """Whether a turn of `role` after one of `previous` (None: the first turn) needs a
    bridge before it where user and assistant turns alternate, starting with a user turn."""
    return role == previous or (previous is None and role == "assistant")


def bridges_needed(messages: Sequence[Message]) -> int:
    """How many bridges `add_bridges` would insert into `messages`."""
    previous: str | None = None
    needed = 0
    for message in messages:
        role = message.role
        if role not in ("system", "developer"):
            needed += needs_bridge(previous, role)
            previous = role
    return needed


def add_bridges(
    messages: Sequence[Message],
    origins: Sequence[int | None],
    archive_note: Callable[[str], str],
) -> tuple[list[Message], list[int | None]]:
    """Insert bridges so user and assistant turns alternate, starting with a user turn."""
    out: list[Message] = []
    out_origins: list[int | None] = []
    previous: Role | None = None
    for message, origin in zip(messages, origins, strict=True):
        role = message.role
        if role not in ("system", "developer"):
            if needs_bridge(previous, role):
                missing: Role = "assistant" if role == "user" else "user"
                out.append(bridge(missing, archive_note(BRIDGE_ARCHIVED)))
                out_origins.append(None)
            previous = role
        out.append(message)
        out_origins.append(origin)
    return out, out_origins


def turn_opening(messages: Sequence[Message]) -> int | None:
    """The message opening the assistant turn in progress, when it opens with reasoning
    (rule 5): the conversation ends with a message of tool results only, and the turn goes
    back over assistant messages and such result messages to the last other message."""
    if not messages or not _only_results(messages[-1]):
        return None
    opening = None
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if message.role == "assistant":
            opening = i
        elif not _only_results(message):
            break
    if opening is None or not messages[opening].parts:
        return None
    return opening if isinstance(messages[opening].parts[0], Reasoning) else None


def prefill(messages: Sequence[Message]) -> bool:
    """Whether the last message is a prefill (rule 6): an assistant message that calls
    nothing (a final call awaits its result instead)."""
    if not messages or messages[-1].role != "assistant":
        return False
    return not any(isinstance(p, ToolCall) for p in messages[-1].parts)


def _only_results(message: Message) -> bool:
    return (
        message.role == "user"
        and bool(message.parts)
        and all(isinstance(p, ToolResult) for p in message.parts)
    )
