"""Grouping into units: a partition of the messages that never splits a call from its result."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    Card,
    Marker,
    Message,
    Opaque,
    Reasoning,
    Summary,
    Text,
    ToolCall,
    ToolResult,
)
from contextfold._messages import BRIDGE_NOTE
from contextfold._planning._units import UnitKind, group_units, grouped

from ..engine.conversations import conversation, shapes
from ..strategies import messages as any_messages


def call(i: str) -> ToolCall:
    return ToolCall(i, "bash", "{}")


def result(i: str) -> ToolResult:
    return ToolResult(i, (Text("ok"),))


def kinds(messages: list[Message]) -> list[tuple[str, int, int]]:
    return [(u.kind.value, u.start, u.stop) for u in group_units(messages)]


def test_chat_parallel_calls_form_one_exchange() -> None:
    messages = [
        Message("system", (Text("s"),)),
        Message("user", (Text("go"),)),
        Message("assistant", (call("a"), call("b"))),
        Message("tool", (result("a"),)),
        Message("tool", (result("b"),)),
        Message("assistant", (Text("done"),)),
    ]
    assert kinds(messages) == [
        ("system", 0, 1),
        ("user", 1, 2),
        ("exchange", 2, 5),
        ("exchange", 5, 6),
    ]


def test_responses_reasoning_and_interleaved_calls_stay_together() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("assistant", (Reasoning("think"),)),
        Message("assistant", (call("a"),)),
        Message("assistant", (call("b"),)),
        Message("tool", (result("a"),)),
        Message("assistant", (Reasoning("more"),)),  # b still pending: same unit
        Message("tool", (result("b"),)),
        Message("assistant", (Text("done"),)),
    ]
    assert kinds(messages) == [("user", 0, 1), ("exchange", 1, 7), ("exchange", 7, 8)]


def test_anthropic_results_in_user_messages() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("assistant", (Reasoning("t", signature="s"), call("a"))),
        Message("user", (result("a"), Text("and also this"))),
        Message("assistant", (Text("ok"),)),
    ]
    assert kinds(messages) == [("user", 0, 1), ("exchange", 1, 3), ("exchange", 3, 4)]


def test_dangling_and_orphans_are_reported() -> None:
    messages = [
        Message("user", (Text("go"),)),
        Message("tool", (result("zz"),)),
        Message("assistant", (call("a"), call("b"))),
        Message("tool", (result("a"),)),
        Message("user", (Text("stop"),)),
    ]
    units = group_units(messages)
    assert [u.kind for u in units] == [
        UnitKind.USER,
        UnitKind.ORPHAN,
        UnitKind.EXCHANGE,
        UnitKind.USER,
    ]
    assert units[2].dangling == ("b",)


def test_opaque_outputs_stay_with_the_opaque_calls_before_them() -> None:
    # Responses hosted tools (computer_call, shell_call, mcp approval ...) parse as Opaque
    # items; their outputs are "tool" messages with no ToolResult, answering the call item
    # right before them. They are part of that exchange, not orphans to remove.
    def item(kind: str) -> Opaque:
        return Opaque({"type": kind, "call_id": "c1"})

    messages = [
        Message("user", (Text("go"),)),
        Message("assistant", (Reasoning("t", encrypted="e"),)),
        Message("assistant", (item("computer_call"),), extras={"type": "computer_call"}),
        Message("tool", (item("computer_call_output"),), extras={"type": "computer_call_output"}),
        Message("assistant", (call("a"),)),
        Message("tool", (result("a"),)),
        Message("tool", (item("mcp_approval_response"),), extras={"type": "x"}),
        Message("assistant", (Text("done"),)),
    ]
    assert kinds(messages) == [
        ("user", 0, 1),
        ("exchange", 1, 4),
        ("exchange", 4, 7),
        ("exchange", 7, 8),
    ]
    assert UnitKind.ORPHAN not in [u.kind for u in group_units(messages)]


def test_preamble_and_bridges() -> None:
    bridge = Message("assistant", (Marker("r0123456789", f"[cf:r0123456789 {BRIDGE_NOTE}]"),))
    masked = Message(
        "assistant", (Marker("r0123456789", "[cf:r0123456789 assistant text masked]"),)
    )
    messages = [
        Message("system", (Text("s"),)),
        Message("user", (Card("[cf:rules]\n- x"), Summary("[cf:summary] y"))),
        bridge,
        Message("user", (Text("go"),)),
        masked,
    ]
    assert kinds(messages) == [
        ("system", 0, 1),
        ("preamble", 1, 2),
        ("bridge", 2, 3),
        ("user", 3, 4),
        ("exchange", 4, 5),  # a masked turn is still a turn
    ]


@given(st.lists(any_messages, max_size=30))
def test_units_partition_any_message_list(messages: list[Message]) -> None:
    units = group_units(messages)
    assert [u.start for u in units] == [0, *[u.stop for u in units]][: len(units)]
    assert (units[-1].stop if units else 0) == len(messages)
    assert all(u.start < u.stop for u in units)


@given(st.data())
def test_units_never_split_a_call_from_its_result(data: st.DataObject) -> None:
    messages = data.draw(conversation(data.draw(shapes)))
    for unit in group_units(messages):
        span = messages[unit.start : unit.stop]
        calls = [p.id for m in span for p in m.parts if isinstance(p, ToolCall)]
        results = [p.call_id for m in span for p in m.parts if isinstance(p, ToolResult)]
        assert sorted(calls) == sorted(results)


def _plain(messages: list[Message], start: int, stop: int) -> bool:
    """The definition of a plain exchange (rule 7), read from its messages: one assistant
    message, the first, whose calls the others' results answer exactly, each once."""
    if messages[start].role != "assistant":
        return False
    calls = [p.id for p in messages[start].parts if isinstance(p, ToolCall)]
    answered: list[str] = []
    for message in messages[start + 1 : stop]:
        if message.role == "assistant":
            return False
        answered += [p.call_id for p in message.parts if isinstance(p, ToolResult)]
    return sorted(calls) == sorted(answered)


_ids = st.sampled_from(["a", "b", "c"])
_messy = st.lists(
    st.one_of(
        st.builds(
            lambda ids: Message("assistant", tuple(map(call, ids))), st.lists(_ids, max_size=3)
        ),
        st.builds(lambda ids: Message("tool", tuple(map(result, ids))), st.lists(_ids, max_size=2)),
        st.builds(lambda ids: Message("user", (*map(result, ids), Text("t"))), st.lists(_ids)),
        st.just(Message("user", (Text("next"),))),
    ),
    max_size=12,
)
"""Calls and results in any order, stray, repeated or missing."""


@given(st.data())
def test_plain_exchanges_are_seen_while_grouping(data: st.DataObject) -> None:
    """`grouped` marks plain exactly the exchanges the definition calls plain, and its
    units are `group_units`'."""
    messages = data.draw(st.one_of(conversation(data.draw(shapes)), st.lists(any_messages), _messy))
    units, plain = grouped(messages)
    assert units == group_units(messages)
    expected = [
        u.kind is UnitKind.EXCHANGE and not u.dangling and _plain(messages, u.start, u.stop)
        for u in units
    ]
    assert plain == expected
