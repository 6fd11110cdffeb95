"""Corpus conversations (OpenAI chat wire messages) as neutral messages, for ledger tests.

A deliberately small reader for the two corpus files; the real adapter lives in
`contextfold._adapters`. It keeps what the ledger reads: roles, text, tool calls, results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from contextfold import Message, Part, Role, Text, ToolCall, ToolResult

_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}


def content_text(content: object) -> str:
    """The text of an OpenAI chat `content` (string, list of text parts, or null)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "\n".join(t for t in texts if isinstance(t, str))
    return ""


def to_messages(raw: Sequence[Mapping[str, object]]) -> list[Message]:
    """Neutral messages for a corpus conversation."""
    out: list[Message] = []
    for wire in raw:
        role = str(wire["role"])
        text = content_text(wire.get("content"))
        if role == "tool":
            result = ToolResult(str(wire["tool_call_id"]), (Text(text),))
            out.append(Message("tool", (result,)))
            continue
        parts: list[Part] = [Text(text)] if text else []
        calls = wire.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call["function"]
            parts.append(ToolCall(call["id"], function["name"], function["arguments"]))
        out.append(Message(_ROLES[role], tuple(parts)))
    return out
