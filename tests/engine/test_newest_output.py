"""The newest tool output is cut only as much as the room requires, wherever it is.

Regression: a result the agent had read, followed by its reply and the user's next turn,
was pruned to the fixed prune size (about 2,000 tokens) with 80,000 tokens of room left:
only the `keep_last` tail was sized to the room. Now the newest unit that holds tool
output is trimmed to the room, before any older unit gets it: the room under the budget
when it is the last thing the agent asked for, else the room under the target (the
low-water mark, so an agent loop's next turn does not compact again at once).
"""

from __future__ import annotations

import pytest
from bench.newest import AFTER  # what follows the newest result: nothing, turns
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold._messages import ToolResult, part_text

from ..servers.chat_model import source_file

pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

CALL = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}


def _conversation(lines: int, after: str, older: int) -> list[dict[str, object]]:
    head: list[dict[str, object]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Read the service and find the failing handler."},
    ]
    for k in range(older):  # older results, which must not take the newest output's room
        call = {**CALL, "id": f"o{k}"}
        head += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"o{k}", "content": source_file(f"old{k}.py", 90)},
        ]
    newest: list[dict[str, object]] = [
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c1", "content": source_file("service.py", lines)},
    ]
    return head + newest + AFTER[after]


@settings(max_examples=25, deadline=None)
@given(
    lines=st.integers(300, 3_000),
    share=st.floats(0.1, 0.7),
    after=st.sampled_from(sorted(AFTER)),
    older=st.integers(0, 3),
    fmt=st.sampled_from(("openai-chat", "anthropic", "openai-responses")),
)
def test_the_newest_output_fills_the_room_the_budget_leaves(
    lines: int, share: float, after: str, older: int, fmt: str
) -> None:
    chat = _conversation(lines, after, older)
    payload = chat if fmt != "openai-responses" else cf.convert(chat, fmt)
    if fmt == "anthropic":  # the system prompt has no place in a bare list: a body
        payload = cf.convert({"messages": chat}, fmt)
    tokens = cf.count_tokens(payload, "gpt-4o")
    budget = int(tokens * share)
    result = cf.compact(payload, budget, "gpt-4o")
    assert result.report.fits
    assert result.report.tokens_after <= budget
    assert result.report.tokens_after >= 0.9 * result.report.target, result.report  # room used
    kept = next(
        part
        for message in result.conversation.messages
        for part in message.parts
        if isinstance(part, ToolResult) and part.call_id == "c1"
    )
    original = str(chat[len(chat) - len(AFTER[after]) - 1]["content"])
    content = part_text(kept)
    if content == original:  # it fits whole once older results gave up their room
        return
    assert len(content) < len(original)
    assert content[:200] == original[:200]  # a head and tail of it, not a marker
    originals = [result.recall(ref) for ref in result.report.refs]
    assert any(isinstance(o, ToolResult) and part_text(o) == original for o in originals)


def test_older_results_are_not_kept_at_the_newest_outputs_expense() -> None:
    payload = _conversation(2_000, "the agent's reply, the user's turn", 3)
    budget = cf.count_tokens(payload, "gpt-4o") // 4
    result = cf.compact(payload, budget, "gpt-4o")
    out = result.payload
    assert isinstance(out, list)
    newest = next(m for m in out if m.get("tool_call_id") == "c1")
    older = [m for m in out if str(m.get("tool_call_id", "")).startswith("o")]
    kept_whole = [m for m in older if "old" in str(m.get("content")) and "[cf:" not in str(m)]
    assert not kept_whole  # the older reads gave their room to the newest one
    assert cf.count_tokens([newest], "gpt-4o") > result.report.target // 2
