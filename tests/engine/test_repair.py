"""Minimal repair of broken histories, in each format's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Archive, Message, Text, ToolCall, ToolResult
from contextfold._engine import _repair as repair_module
from contextfold._engine._repair import MISSING_RESULT, repair
from contextfold._engine._shape import SHAPES
from contextfold._planning._units import Unit, group_units


def call(i: str) -> ToolCall:
    return ToolCall(i, "bash", "{}")


def result(i: str) -> ToolResult:
    return ToolResult(i, (Text("ok"),))


def fix(
    messages: list[Message], fmt: str, *, pending_tail: bool = False
) -> tuple[list[Message], list[str]]:
    archive = Archive()
    origins = list(range(len(messages)))
    out = repair(messages, origins, SHAPES[fmt], archive.put, pending_tail=pending_tail)
    return out.messages, out.notes


def test_chat_dangling_call_gets_an_error_result_after_its_block() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("assistant", (call("a"), call("b"))),
        Message("tool", (result("a"),)),
        Message("user", (Text("next"),)),
    ]
    out, notes = fix(messages, "openai-chat")
    assert out[3] == Message("tool", (ToolResult("b", (Text(MISSING_RESULT),), is_error=True),))
    assert out[4] == messages[3]
    assert notes == ["message 1: added an error result for unanswered call 'b'"]


def test_anthropic_dangling_call_joins_the_result_message() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("assistant", (call("a"), call("b"))),
        Message("user", (result("a"), Text("and more"))),
    ]
    out, _ = fix(messages, "anthropic")
    parts = out[2].parts
    assert [type(p).__name__ for p in parts] == ["ToolResult", "ToolResult", "Text"]
    assert isinstance(parts[1], ToolResult)
    assert parts[1].call_id == "b"
    assert parts[1].is_error


def test_anthropic_call_without_any_result_message_gets_one() -> None:
    messages = [Message("user", (Text("go"),)), Message("assistant", (call("a"),))]
    out, _ = fix(messages, "anthropic")
    assert out[2].role == "user"
    assert isinstance(out[2].parts[0], ToolResult)


def test_pending_tail_is_left_for_the_agent_loop() -> None:
    messages = [Message("user", (Text("go"),)), Message("assistant", (call("a"),))]
    out, notes = fix(messages, "openai-chat", pending_tail=True)
    assert out == messages
    assert notes == []


def test_stray_results_are_removed_and_archived() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("tool", (result("zz"),)),
        Message("assistant", (call("a"),)),
        Message("user", (result("a"), result("q"), Text("hi"))),
        Message("assistant", (call("c"),)),
        Message("user", (result("c"), result("c"))),
    ]
    out, notes = fix(messages, "anthropic")
    assert messages[1] not in out
    assert out[2].parts == (result("a"), Text("hi"))
    assert out[4].parts == (result("c"),)
    assert len(notes) == 3


def test_compact_repairs_and_reports_even_when_it_fits() -> None:
    payload = [
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "ghost", "content": "stray"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        },
    ]
    result = cf.compact(payload, 10_000)
    assert result.report.compacted
    assert result.report.reason.startswith("repaired")
    assert len(result.report.repaired) == 2
    assert cf.validate(result.payload, format="openai-chat") == []


def test_strict_compaction_raises_budget_unreachable() -> None:
    payload = [{"role": "system", "content": "rules " * 400}, {"role": "user", "content": "hi"}]
    with pytest.raises(cf.BudgetUnreachable) as info:
        cf.compact(payload, 50, strict=True)
    assert info.value.budget == 50
    assert info.value.required > 50


_ids = st.sampled_from(["a", "b", "c"])
_messy = st.lists(
    st.one_of(
        st.builds(
            lambda ids: Message("assistant", tuple(ToolCall(i, "bash", "{}") for i in ids)),
            st.lists(_ids, max_size=3),
        ),
        st.builds(lambda i: Message("tool", (ToolResult(i, (Text("ok"),)),)), _ids),
        st.just(Message("user", (Text("next"),))),
    ),
    max_size=12,
)


@pytest.mark.parametrize("shape", sorted(SHAPES))
@given(messages=_messy, tail=st.booleans())
def test_sound_exchanges_skip_the_repair_they_do_not_need(
    shape: str, messages: list[Message], tail: bool
) -> None:
    """The fast path for exchanges that need nothing gives exactly the general repair."""

    def run() -> tuple[object, ...]:
        fixed = repair(
            messages, list(range(len(messages))), SHAPES[shape], Archive().put, pending_tail=tail
        )
        return fixed.messages, fixed.origins, fixed.notes, fixed.units

    def tangled(messages: list[Message]) -> tuple[list[Unit], list[bool]]:
        """The units, with no exchange taken as plain: every one goes the general way."""
        units = group_units(messages)
        return units, [False] * len(units)

    fast = run()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(repair_module, "grouped", tangled)
        assert run() == fast


@pytest.mark.parametrize(
    "state", [{"previous_response_id": "resp_68a1"}, {"conversation": "conv_68a1"}]
)
@pytest.mark.parametrize("budget", [10_000, 300, 60])
def test_outputs_answering_a_stored_response_are_kept(state: dict[str, str], budget: int) -> None:
    # A Responses body continuing a stored response sends the outputs of that response's
    # calls, which are not in `input`: they are not strays (the API needs every one).
    log = "".join(f"test_{i} passed in 0.{i:02d}s\n" for i in range(60))
    outputs = [
        {"type": "function_call_output", "call_id": "call_tests", "output": log},
        {"type": "function_call_output", "call_id": "call_lint", "output": "clean"},
    ]
    body: dict[str, object] = {
        "model": "o4-mini",
        **state,
        "input": [*outputs, {"role": "user", "content": "next?"}],
    }
    assert cf.validate(body, format="openai-responses") == []
    result = cf.compact(body, budget, format="openai-responses")
    items = result.payload["input"]
    assert isinstance(items, list)
    assert result.report.repaired == ()
    assert [(i.get("type"), i.get("call_id")) for i in items[:2]] == [
        ("function_call_output", "call_tests"),
        ("function_call_output", "call_lint"),
    ]


def test_an_output_answering_a_call_behind_an_item_reference_is_kept() -> None:
    items = [
        {"role": "user", "content": "What is the weather in Paris?"},
        {"type": "item_reference", "id": "fc_67ab12"},
        {"type": "function_call_output", "call_id": "call_w1", "output": '{"temp": 18}'},
    ]
    result = cf.compact(items, 5_000, format="openai-responses")
    assert result.report.repaired == ()
    assert result.payload == items


@pytest.mark.parametrize("budgets", [(8000, 3000), (6000, 2500), (9000, 5000)])
def test_compacting_an_anthropic_output_again_reports_no_repair(budgets: tuple[int, int]) -> None:
    """An output's card, summary and bridges alternate; lifting them leaves turns of one
    role side by side, which is no fault of the input (the CLI printed "repaired message
    2: bridged turns that did not alternate" for every second compaction)."""
    example = Path(__file__).resolve().parents[2] / "examples" / "coding-session.anthropic.json"
    first, second = budgets
    once = cf.compact(json.loads(example.read_text()), first)
    assert once.report.compacted
    assert once.report.repaired == ()
    again = cf.compact(once.payload, second)
    assert again.report.compacted
    assert again.report.repaired == (), again.report.repaired
    assert cf.validate(again.payload) == []


def test_turns_that_do_not_alternate_in_the_input_are_still_reported() -> None:
    payload = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "one"},
            {"role": "user", "content": "two"},
            {"role": "assistant", "content": "three"},
            {"role": "user", "content": "four"},
        ],
    }
    result = cf.compact(payload, 10_000, format="anthropic")
    assert result.report.repaired == ("message 1: bridged turns that did not alternate",)
    assert cf.validate(result.payload, format="anthropic") == []
