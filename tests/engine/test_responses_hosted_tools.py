"""Responses items the neutral model keeps whole (hosted tool calls and their outputs).

computer_call, shell_call, local_shell_call, apply_patch_call and mcp_approval_request
parse as Opaque items; the items answering them (by call_id, or by id for local shell and
approval_request_id for MCP approvals) are "tool" messages without a ToolResult. A valid
input keeps them; compaction keeps each answer with its call or removes both.
"""

from __future__ import annotations

import copy

import pytest

import contextfold as cf

LOG = "".join(f"step {i}: wrote build/out_{i}.o and checked src/mod_{i}.py\n" for i in range(80))

_ANSWERS = {
    "computer_call_output": ("call_id", "computer_call", "call_id"),
    "shell_call_output": ("call_id", "shell_call", "call_id"),
    "local_shell_call_output": ("id", "local_shell_call", "call_id"),
    "apply_patch_call_output": ("call_id", "apply_patch_call", "call_id"),
    "mcp_approval_response": ("approval_request_id", "mcp_approval_request", "id"),
}


def _items() -> list[dict[str, object]]:
    shot = {"type": "computer_screenshot", "image_url": "data:image/png;base64," + "A" * 800}
    return [
        {"role": "user", "content": "Clean the build directory, then open the report."},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA" + "x" * 600},
        {
            "type": "computer_call",
            "id": "cu_1",
            "call_id": "call_c",
            "action": {"type": "screenshot"},
            "pending_safety_checks": [],
            "status": "completed",
        },
        {"type": "computer_call_output", "call_id": "call_c", "output": shot},
        {
            "type": "shell_call",
            "id": "sh_1",
            "call_id": "call_s",
            "action": {"commands": ["make clean"]},
            "status": "completed",
        },
        {
            "type": "shell_call_output",
            "call_id": "call_s",
            "output": [{"stdout": LOG, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
        },
        {
            "type": "local_shell_call",
            "id": "ls_1",
            "call_id": "call_l",
            "action": {"type": "exec", "command": ["ls"], "env": {}},
            "status": "completed",
        },
        {"type": "local_shell_call_output", "id": "call_l", "output": LOG},
        {
            "type": "mcp_approval_request",
            "id": "mcpr_1",
            "server_label": "deploy",
            "name": "publish",
            "arguments": "{}",
        },
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Done. " + LOG[:900], "annotations": []}],
        },
        {"role": "user", "content": "Thanks. What is left to do?"},
    ]


def _unpaired(items: list[object]) -> list[str]:
    """Hosted calls in `items` without their answer, and answers without their call."""
    calls: set[tuple[str, object]] = set()
    answers: set[tuple[str, object]] = set()
    for item in items:
        assert isinstance(item, dict)
        kind = item.get("type")
        for answer, (own_key, call_type, call_key) in _ANSWERS.items():
            if kind == call_type:
                calls.add((call_type, item.get(call_key)))
            elif kind == answer:
                answers.add((call_type, item.get(own_key)))
    return sorted(f"{k} {i} unanswered" for k, i in calls - answers) + sorted(
        f"answer to {k} {i} without its call" for k, i in answers - calls
    )


def test_a_valid_input_with_hosted_tool_outputs_comes_back_unchanged() -> None:
    payload = _items()
    assert cf.validate(payload, format="openai-responses") == []
    result = cf.compact(payload, 50_000, format="openai-responses")
    assert result.report.repaired == ()
    assert result.payload == _items()


@pytest.mark.parametrize("budget", [2_000, 1_200, 800, 500, 300, 150])
def test_compaction_keeps_each_hosted_output_with_its_call(budget: int) -> None:
    body = {"model": "computer-use-preview", "truncation": "auto", "input": _items()}
    result = cf.compact(copy.deepcopy(body), budget, format="openai-responses")
    items = result.payload["input"]
    assert isinstance(items, list)
    assert _unpaired(items) == []
    assert cf.validate(result.payload, format="openai-responses") == []
    for ref in result.report.refs:
        result.recall(ref)


@pytest.mark.parametrize("budget", [5_000, 100, 30])
def test_a_hosted_output_answering_a_stored_response_is_kept(budget: int) -> None:
    # Its computer_call is in the stored response, not in the input: the API needs it.
    shot = {"type": "computer_screenshot", "image_url": "data:image/png;base64," + "A" * 3000}
    output = {"type": "computer_call_output", "call_id": "call_c", "output": shot}
    body = {
        "model": "computer-use-preview",
        "previous_response_id": "resp_68a1",
        "truncation": "auto",
        "input": [output, {"role": "user", "content": "Continue with the next form field."}],
    }
    result = cf.compact(copy.deepcopy(body), budget, format="openai-responses")
    items = result.payload["input"]
    assert isinstance(items, list)
    assert items[0] == output
