"""Where a payload's tokens go: per role, per tool, the largest messages, the overheads.

Rules:
1. Counts come from the same counter `compact()` uses (`counter_for(model, format)`), so
   `tokens` here equals the report's `tokens_before`.
2. Totals add up: `tokens == fixed + sum(role tokens)`; framing (each message's wrapper
   tokens) is part of the role totals and shown on its own for information.
3. A part's tokens are the message's tokens with the part minus without it: counters are
   additive over parts, so per-tool numbers need no private accounting.
4. Indices are wire indices (what `--pin` takes); a system prompt lifted out of the
   message list (Anthropic `system`, Responses `instructions`) has none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Final

import contextfold as cf

TOP: Final = 8
PREVIEW: Final = 60
UNKNOWN_TOOL: Final = "(unknown call)"


@dataclass(frozen=True, slots=True)
class RoleRow:
    """Messages and tokens of one role."""

    role: str
    messages: int
    tokens: int


@dataclass(slots=True)
class ToolRow:
    """Calls and results of one tool, and their tokens."""

    name: str
    calls: int = 0
    call_tokens: int = 0
    results: int = 0
    result_tokens: int = 0


@dataclass(frozen=True, slots=True)
class MessageRow:
    """One message: where it is, who sent it, what it holds."""

    index: int | None
    role: str
    tools: str
    tokens: int
    preview: str


@dataclass(frozen=True, slots=True)
class Breakdown:
    """The whole picture for one payload."""

    format: str
    counter: str
    messages: int
    tokens: int
    fixed: int
    """Reply priming and tool definitions, counted once per request."""
    framing: int
    """Per-message wrapper tokens, included in the role totals."""
    tool_definitions: int
    by_role: list[RoleRow] = field(default_factory=list)
    by_tool: list[ToolRow] = field(default_factory=list)
    largest: list[MessageRow] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON data."""
        return asdict(self)


def breakdown(
    payload: object, model: str | None, format: str | None, *, top: int = TOP
) -> Breakdown:
    """Count `payload` message by message and part by part."""
    fmt, conversation = cf.parse(payload, format)
    counter = cf.counter_for(model, fmt)
    messages = conversation.messages
    counts = [counter.count(m) for m in messages]
    offset = len(messages) - _wire_count(payload)
    roles: Counter[str] = Counter()
    role_tokens: Counter[str] = Counter()
    for message, tokens in zip(messages, counts, strict=True):
        roles[message.role] += 1
        role_tokens[message.role] += tokens
    tools, labels = _tools(messages, counter)
    rows = [
        MessageRow(_index(i, offset), m.role, labels[i], counts[i], _preview(m.parts))
        for i, m in enumerate(messages)
    ]
    fixed = counter.fixed_overhead(conversation)
    return Breakdown(
        format=fmt,
        counter=counter.name,
        messages=len(messages),
        tokens=fixed + sum(counts),
        fixed=fixed,
        framing=sum(counter.count(_bare(m)) for m in messages),
        tool_definitions=len(conversation.tools),
        by_role=[
            RoleRow(r, roles[r], role_tokens[r]) for r in sorted(roles, key=_neg(role_tokens))
        ],
        by_tool=tools,
        largest=sorted(rows, key=lambda r: -r.tokens)[:top],
    )


def _neg(tokens: Counter[str]) -> Callable[[str], int]:
    return lambda role: -tokens[role]


def _bare(message: cf.Message) -> cf.Message:
    return cf.Message(message.role, (), name=message.name)


def _wire_count(payload: object) -> int:
    """Messages (or items) in the payload's wire list."""
    items = payload.get("messages", payload.get("input")) if isinstance(payload, dict) else payload
    return len(items) if isinstance(items, list) else 1


def _index(position: int, offset: int) -> int | None:
    index = position - offset
    return index if index >= 0 else None


def _preview(parts: tuple[cf.Part, ...]) -> str:
    """The first words of a message's text."""
    for part in parts:
        inner = part.parts if isinstance(part, cf.ToolResult) else (part,)
        for piece in inner:
            if isinstance(piece, cf.Text | cf.Marker | cf.Summary | cf.Card) and piece.text.strip():
                flat = " ".join(piece.text.split())
                return flat if len(flat) <= PREVIEW else flat[: PREVIEW - 3] + "..."
    return ""


def _tools(
    messages: tuple[cf.Message, ...], counter: cf.TokenCounter
) -> tuple[list[ToolRow], list[str]]:
    """Per tool: calls, results and their tokens (rule 3); per message: the tools it names."""
    rows: dict[str, ToolRow] = {}
    called: dict[str, str] = {}
    labels: list[str] = []
    for message in messages:
        bare = counter.count(_bare(message))
        names: list[str] = []
        for part in message.parts:
            if not isinstance(part, cf.ToolCall | cf.ToolResult):
                continue
            size = counter.count(cf.Message(message.role, (part,), name=message.name)) - bare
            if isinstance(part, cf.ToolCall):
                called[part.id] = part.name
                row = rows.setdefault(part.name, ToolRow(part.name))
                row.calls, row.call_tokens = row.calls + 1, row.call_tokens + size
            else:
                tool = called.get(part.call_id, UNKNOWN_TOOL)
                row = rows.setdefault(tool, ToolRow(tool))
                row.results, row.result_tokens = row.results + 1, row.result_tokens + size
            names.append(row.name)
        labels.append(", ".join(dict.fromkeys(names)))
    return sorted(rows.values(), key=lambda r: -(r.call_tokens + r.result_tokens)), labels
