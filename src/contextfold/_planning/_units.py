"""Group a conversation into atomic units that compaction never cuts inside.

Rules:
1. Leading system/developer messages form the SYSTEM prefix.
2. Messages made only of Card and Summary parts right after the prefix form the PREAMBLE;
   elsewhere they, and bridges (one Marker describing folded turns), are BRIDGE units.
   These are typed parts the engine made in this process; text never makes them (the
   engine's `_artifacts` decides what text is an artifact, before grouping).
   A message whose payload was masked to a marker is still the turn it was.
3. A user message that carries no tool result is a USER turn.
4. An EXCHANGE starts at an assistant message and absorbs the assistant messages that
   follow it (reasoning, calls and text of one response), then every message carrying
   results for its calls. A later assistant message joins the same exchange only while
   one of its calls is still unanswered, so parallel and interleaved calls stay together.
5. A result nobody asked for is an ORPHAN; a call nobody answered is DANGLING. Both are
   reported so the engine can repair them; neither is ever split from its unit.
   A tool message that holds no ToolResult (a wire item kept Opaque, such as a Responses
   computer_call_output answering the computer_call item before it) answers a call the
   model cannot see: it joins the exchange in progress; elsewhere it is an ORPHAN that
   `holds_result` tells repair not to remove (it may answer a stored response's call).
   Likewise a result for a call nobody in view made joins an exchange whose assistant
   messages are all Opaque items (a Responses item_reference names a call by id alone):
   it may answer a call they hide, so folding never parts it from them.
6. Any other message (a system note mid-conversation) is a NOTE.
7. `grouped` also tells which exchanges are plain: one assistant message whose calls the
   rest answer exactly, each once, with no result left over (what repair passes through
   untouched), seen in the same walk.
Grouping is pure and linear in the number of messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .._messages import (
    BRIDGE_NOTE,
    Card,
    Marker,
    Message,
    Opaque,
    Summary,
    ToolCall,
    ToolResult,
    slot_init,
)


class UnitKind(Enum):
    """What a unit is; the rules table in `_rules.py` says what compaction may do to it."""

    __hash__ = object.__hash__  # members are singletons: hashed in C, not by name

    SYSTEM = "system"
    PREAMBLE = "preamble"
    BRIDGE = "bridge"
    USER = "user"
    EXCHANGE = "exchange"
    NOTE = "note"
    ORPHAN = "orphan"


@slot_init
@dataclass(frozen=True, slots=True)
class Unit:
    """Messages `start`..`stop` (exclusive) of the conversation, taken or left whole."""

    kind: UnitKind
    start: int
    stop: int
    dangling: tuple[str, ...] = ()
    """Ids of calls in this exchange that no message answers."""


_ARTIFACT_PARTS = (Card, Summary)
_BRIDGE_END = f" {BRIDGE_NOTE}]"


def is_artifact_message(message: Message) -> bool:
    """True for the card, summary and bridge messages compaction makes."""
    parts = message.parts
    if not parts:
        return False
    first = parts[0]
    if isinstance(first, _ARTIFACT_PARTS):
        return all(isinstance(p, _ARTIFACT_PARTS) for p in parts)
    return len(parts) == 1 and isinstance(first, Marker) and first.text.endswith(_BRIDGE_END)


def is_bridge(message: Message) -> bool:
    """True for a bridge: one marker whose description is BRIDGE_NOTE."""
    parts = message.parts
    return len(parts) == 1 and isinstance(parts[0], Marker) and parts[0].text.endswith(_BRIDGE_END)


def carries_results(message: Message) -> bool:
    """True for tool messages and for user messages that hold tool results."""
    role = message.role
    if role != "user":
        return role == "tool"
    parts = message.parts
    if len(parts) == 1:  # most user messages: one part, read without a generator
        return isinstance(parts[0], ToolResult)
    return any(isinstance(p, ToolResult) for p in parts)


def group_units(messages: Sequence[Message]) -> list[Unit]:
    """Partition `messages` into units (rules 1-6); the units cover every message in order."""
    return grouped(messages)[0]


def grouped(messages: Sequence[Message]) -> tuple[list[Unit], list[bool]]:
    """`group_units(messages)`, and per unit whether it is a plain exchange (rule 7)."""
    units: list[Unit] = []
    i = _prefix(messages, units)
    plain = [False] * len(units)
    n = len(messages)
    while i < n:
        message = messages[i]
        simple = False
        if is_artifact_message(message):
            unit = Unit(UnitKind.BRIDGE, i, i + 1)
        elif message.role == "assistant":
            unit, simple = _exchange(messages, i)
        elif carries_results(message):
            unit = Unit(UnitKind.ORPHAN, i, i + 1)
        elif message.role == "user":
            unit = Unit(UnitKind.USER, i, i + 1)
        else:
            unit = Unit(UnitKind.NOTE, i, i + 1)
        units.append(unit)
        plain.append(simple)
        i = unit.stop
    return units, plain


def _prefix(messages: Sequence[Message], units: list[Unit]) -> int:
    i = 0
    while i < len(messages) and messages[i].role in ("system", "developer"):
        i += 1
    if i:
        units.append(Unit(UnitKind.SYSTEM, 0, i))
    start = i
    while i < len(messages) and is_artifact_message(messages[i]) and not is_bridge(messages[i]):
        i += 1
    if i > start:
        units.append(Unit(UnitKind.PREAMBLE, start, i))
    return i


def _exchange(messages: Sequence[Message], start: int) -> tuple[Unit, bool]:
    """The exchange from `start` (rule 4), and whether it is plain (rule 7)."""
    pending: dict[str, int] = {}
    unanswered = 0  # calls pending: the sum of `pending`
    answered_any = False
    callers = 0  # assistant messages in the unit
    strays = 0  # results in its messages that answer no pending call
    hides = True  # every assistant message so far is Opaque items: they may hide calls
    i = start
    n = len(messages)
    while i < n:
        message = messages[i]
        role = message.role
        if role == "assistant":
            if answered_any and not unanswered:
                break
            callers += 1
            hides = (
                hides and bool(message.parts) and all(isinstance(p, Opaque) for p in message.parts)
            )
            for part in message.parts:
                if isinstance(part, ToolCall):
                    pending[part.id] = pending.get(part.id, 0) + 1
                    unanswered += 1
        elif role == "tool" or carries_results(message):
            answered, left = _answers(message, pending)
            if not answered and holds_result(message):
                if not hides:
                    break
                left = sum(isinstance(p, ToolResult) for p in message.parts)
            answered_any = True
            unanswered -= answered
            strays += left
        else:
            break
        i += 1
    if not unanswered:  # every call answered (the common case)
        return Unit(UnitKind.EXCHANGE, start, i), callers == 1 and not strays
    dangling = tuple(sorted(c for c, left in pending.items() for _ in range(left)))
    return Unit(UnitKind.EXCHANGE, start, i, dangling), False


def holds_result(message: Message) -> bool:
    """False for a tool message of Opaque wire items only (rule 5)."""
    return message.role != "tool" or any(isinstance(p, ToolResult) for p in message.parts)


def _answers(message: Message, pending: dict[str, int]) -> tuple[int, int]:
    """Consume the results in `message` that answer pending calls; how many did (0 when
    none does, and then nothing is consumed) and how many results did not."""
    parts = message.parts
    if len(parts) == 1:  # the common case: one result, answering one pending call or none
        part = parts[0]
        if not isinstance(part, ToolResult) or pending.get(part.call_id, 0) <= 0:
            return _NONE
        pending[part.call_id] -= 1
        return _ONE
    ids = [p.call_id for p in parts if isinstance(p, ToolResult)]
    if not any(pending.get(c, 0) > 0 for c in ids):
        return _NONE
    answered = 0
    for call_id in ids:
        if pending.get(call_id, 0) > 0:
            pending[call_id] -= 1
            answered += 1
    return answered, len(ids) - answered


_NONE, _ONE = (0, 0), (1, 0)
