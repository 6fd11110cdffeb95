"""An input holding only tool results with no call (adapters rule 6): repair removes such a
result, so nothing would be left; every format and entry point says so the same way, at the
input's first orphan, instead of returning an empty list the provider rejects."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf

from ..cli.conftest import run

_FIELD = {
    "openai-chat": "tool_call_id",
    "openai-responses": "call_id",
    "anthropic": "content[0].tool_use_id",
}


def _orphan(fmt: str, call_id: str) -> dict[str, Any]:
    if fmt == "openai-chat":
        return {"role": "tool", "tool_call_id": call_id, "content": "done"}
    if fmt == "openai-responses":
        return {"type": "function_call_output", "call_id": call_id, "output": "done"}
    block = {"type": "tool_result", "tool_use_id": call_id, "content": "done"}
    return {"role": "user", "content": [block]}


def _body(fmt: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    if fmt == "openai-chat":
        return {"model": "gpt-4o", "messages": items}
    if fmt == "openai-responses":
        return {"model": "gpt-4o", "instructions": "Be brief.", "input": items}
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": "Be brief.",
        "messages": items,
    }


@pytest.mark.parametrize("fmt", sorted(_FIELD))
@pytest.mark.parametrize("shape", ["list", "body"])
def test_compact_names_the_orphan_instead_of_returning_nothing(fmt: str, shape: str) -> None:
    items = [_orphan(fmt, "call_1")]
    payload: object = items if shape == "list" else _body(fmt, items)
    with pytest.raises(cf.InvalidConversation) as caught:
        cf.compact(payload, 1_000, format=fmt)
    error = caught.value
    assert (error.index, error.field, error.format) == (0, _FIELD[fmt], fmt)
    assert "leaves no message" in error.reason
    assert "before it" in error.reason  # how to fix it


@pytest.mark.parametrize("fmt", sorted(_FIELD))
def test_the_manager_refuses_to_compact_to_nothing(fmt: str) -> None:
    manager = cf.ContextManager(1_000, format=fmt)
    manager.extend([_orphan(fmt, "call_1")])
    with pytest.raises(cf.InvalidConversation) as caught:
        manager.compact()
    assert (caught.value.index, caught.value.field) == (0, _FIELD[fmt])
    assert manager.view() == [_orphan(fmt, "call_1")]  # left as it was
    manager.extend([{"role": "user", "content": "Start over."}])
    manager.compact()  # now repair leaves the user message
    assert manager.view() == [{"role": "user", "content": "Start over."}]


@given(
    fmt=st.sampled_from(sorted(_FIELD)),
    calls=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=4),
    body=st.booleans(),
)
def test_any_run_of_orphans_raises_at_the_first(fmt: str, calls: list[str], body: bool) -> None:
    items = [_orphan(fmt, c) for c in calls]
    payload: object = _body(fmt, items) if body else items
    with pytest.raises(cf.InvalidConversation) as caught:
        cf.compact(payload, 1_000, format=fmt)
    assert caught.value.index == 0  # the first orphan, whatever else is wrong after it


def test_the_cli_exits_2_naming_the_item() -> None:
    body = b'{"input": [{"type": "function_call_output", "call_id": "c1", "output": "hi"}]}'
    ran = run("compact", "-", "-b", "1000", stdin=body)
    assert ran.code == 2, ran.stdout
    assert ran.stdout == ""
    assert "message 0, field 'call_id'" in ran.stderr
    assert "add its function_call (or previous_response_id) before it" in ran.stderr
