"""Independent checks of engine output at the neutral level (I1 pairing, I2 order)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from contextfold import Card, Marker, Message, Summary, ToolCall, ToolResult


def calls(message: Message) -> list[str]:
    return [p.id for p in message.parts if isinstance(p, ToolCall)]


def results(message: Message) -> list[str]:
    return [p.call_id for p in message.parts if isinstance(p, ToolResult)]


def pairing_problems(messages: Sequence[Message], shape: str) -> list[str]:
    """How `messages` would break the format's tool pairing and turn rules."""
    if shape == "anthropic":
        return _anthropic(messages)
    return _separate_results(messages, immediate=shape == "openai-chat")


def _separate_results(messages: Sequence[Message], *, immediate: bool) -> list[str]:
    problems: list[str] = []
    pending: Counter[str] = Counter()
    for i, message in enumerate(messages):
        if message.role == "tool":
            for call_id in results(message):
                if pending[call_id] <= 0:
                    problems.append(f"{i}: result {call_id} without a call")
                pending[call_id] -= 1
            continue
        if immediate and +pending:
            problems.append(f"{i}: calls {sorted(+pending)} not answered immediately")
            pending.clear()
        pending.update(calls(message))
    if +pending:
        problems.append(f"end: calls {sorted(+pending)} never answered")
    return problems


def _anthropic(messages: Sequence[Message]) -> list[str]:
    problems: list[str] = []
    turns = [(i, m) for i, m in enumerate(messages) if m.role not in ("system", "developer")]
    if turns and turns[0][1].role != "user":
        problems.append(f"{turns[0][0]}: first turn is not a user turn")
    for (i, a), (_, b) in pairwise(turns):
        if a.role == b.role:
            problems.append(f"{i}: two {a.role} turns in a row")
        if a.role == "assistant" and Counter(calls(a)) != Counter(results(b)):
            problems.append(f"{i}: calls {calls(a)} answered by {results(b)}")
        if a.role != "assistant" and results(b):
            problems.append(f"{i}: results without calls")
    if turns and turns[-1][1].role == "assistant" and calls(turns[-1][1]):
        problems.append("end: calls never answered")
    return problems


def is_artifact(message: Message) -> bool:
    return bool(message.parts) and all(
        isinstance(p, Card | Summary | Marker) for p in message.parts
    )
