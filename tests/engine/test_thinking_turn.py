"""Anthropic extended thinking: the assistant turn in progress keeps its opening thinking.

With thinking enabled, the API rejects a request whose turn in progress (the assistant
messages answered by the final tool results, back to the last user turn) does not start
with a thinking block. Claude thinks once at the start of a turn and then calls tools step
after step, so compaction must never fold or drop that opening step while later steps of
the same turn stay.
"""

from __future__ import annotations

import copy
import json
import re

import pytest

import contextfold as cf

LOG = "".join(f"PASS tests/test_{i}.py::test_case_{i} ({i * 3} ms)\n" for i in range(120))


def _step(k: int, thinking: bool) -> list[dict[str, object]]:
    content: list[dict[str, object]] = []
    if thinking:
        plan = "I should run the suite in slices, then read the failures. " * 12
        content.append({"type": "thinking", "thinking": plan, "signature": "EqQBCkYIBxgCKkB"})
    content += [
        {"type": "text", "text": f"Running slice {k}."},
        {
            "type": "tool_use",
            "id": f"toolu_0{k}",
            "name": "bash",
            "input": {"cmd": f"pytest -k {k}"},
        },
    ]
    result = {"type": "tool_result", "tool_use_id": f"toolu_0{k}", "content": LOG}
    return [{"role": "assistant", "content": content}, {"role": "user", "content": [result]}]


def _body() -> dict[str, object]:
    messages: list[dict[str, object]] = [
        {"role": "user", "content": "Run the test suite and fix failures. Do not modify tests/."}
    ]
    for k in range(6):
        messages += _step(k, thinking=k == 0)
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "messages": messages,
    }


@pytest.mark.parametrize("budget", [6_000, 3_000, 1_500, 800, 300])
def test_the_turn_in_progress_keeps_its_opening_thinking(budget: int) -> None:
    body = _body()
    assert cf.validate(body, format="anthropic") == []
    result = cf.compact(copy.deepcopy(body), budget, format="anthropic")
    assert cf.validate(result.payload, format="anthropic") == []
    messages = result.payload["messages"]
    assert isinstance(messages, list)
    opening = _body()["messages"][1]  # type: ignore[index]
    assert opening in messages  # kept verbatim: thinking and signature untouched
    assert result.report.fits  # its results yield: the floor is the user turn and the opening
    if budget >= 800:  # room for the newest step beside the opening one
        assert messages[-1]["content"][0]["tool_use_id"] == "toolu_05"


BIG = "".join(f"line {i}: some file content here with code = {i * 7}\n" for i in range(3000))


@pytest.mark.parametrize("budget", [3_000, 1_000, 400])
def test_the_opening_steps_own_output_yields_to_the_budget(budget: int) -> None:
    # The opening step's result is a 50,000-token file: the opening message stays verbatim,
    # its result is cut (head and tail) or masked to fit, and the original is recoverable.
    body = _body()
    messages = body["messages"]
    assert isinstance(messages, list)
    messages[2]["content"][0]["content"] = BIG
    result = cf.compact(copy.deepcopy(body), budget, format="anthropic")
    out = result.payload["messages"]
    assert isinstance(out, list)
    assert cf.validate(result.payload, format="anthropic") == []
    assert messages[1] in out
    assert result.report.fits
    assert result.report.tokens_after <= budget
    at = out.index(messages[1])
    shown = out[at + 1]["content"][0]
    assert shown["tool_use_id"] == "toolu_00"
    assert shown["content"] != BIG
    refs = re.findall(r"\bcf:(r[0-9a-z]+)", json.dumps(shown))
    assert refs
    assert any(BIG.strip() in result.archive.recall_text(ref) for ref in refs)


def test_a_bare_message_list_is_compacted_the_same_way() -> None:
    # The list has no `thinking` field, but the request it belongs to may enable thinking
    # (an agent loop or the proxy sends the list inside such a body).
    messages = _body()["messages"]
    assert isinstance(messages, list)
    result = cf.compact(copy.deepcopy(messages), 1_500, format="anthropic")
    assert messages[1] in result.payload
    assert cf.validate({**_body(), "messages": result.payload}, format="anthropic") == []


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("budget", [3_000, 2_000, 1_500])
def test_an_agent_loop_view_keeps_the_opening_thinking(budget: int, big: bool) -> None:
    # The proxy's path: a ContextManager fed step by step; each view goes to the API and
    # fits once the turn has begun, also when the opening step read a 50,000-token file.
    body = _body()
    messages = body["messages"]
    assert isinstance(messages, list)
    if big:
        messages[2]["content"][0]["content"] = BIG
    manager = cf.ContextManager(budget, "claude-sonnet-4-5", format="anthropic")
    for message in messages:
        manager.extend([message])
        if message["role"] == "user":
            view = manager.view()
            assert cf.validate({**body, "messages": view}, format="anthropic") == []
            assert manager.tokens() <= budget
    assert messages[1] in view
