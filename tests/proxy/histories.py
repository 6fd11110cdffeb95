"""A long coding-agent session as a chat request body, too long for the window: thirty
read_file calls, each answered with the same failing test log."""

from __future__ import annotations

import json
from typing import Any

LOG = "".join(f"line {n}: collected 12 items, 3 failed in tests/test_api.py\n" for n in range(60))


def long_session(model: str = "gpt-4o", *, reasoning: bool = False) -> dict[str, Any]:
    """The session; with `reasoning`, every tool call turn carries its `reasoning_content`
    (as DeepSeek's clients send it back)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Fix the failing tests."},
    ]
    for n in range(30):
        call = {"name": "read_file", "arguments": json.dumps({"path": f"f{n}.py"})}
        turn: dict[str, Any] = {"role": "assistant", "content": None}
        if reasoning:
            turn["reasoning_content"] = f"Step {n}: read f{n}.py next."
        turn["tool_calls"] = [{"id": f"call_c{n}", "type": "function", "function": call}]
        messages.append(turn)
        messages.append({"role": "tool", "tool_call_id": f"call_c{n}", "content": LOG})
    return {"model": model, "messages": messages, "max_tokens": 500}
