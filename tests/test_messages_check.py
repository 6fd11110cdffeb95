"""Neutral Messages built by hand: a field of the wrong type is refused where it comes in,
naming the message index and the field, and the manager takes none of the batch."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contextfold as cf
from contextfold import Message, Text

GOOD_PARTS: list[cf.Part] = [
    Text("hello"),
    cf.Image("https://example.com/a.png", detail="low"),
    cf.ToolCall("c1", "read", "{}"),
    cf.ToolResult("c1", (Text("out"),), is_error=True),
    cf.Reasoning("thinking", signature="sig"),
    cf.Opaque({"type": "document"}),
    cf.Marker("r0123456789", "[cf:r0123456789 masked]"),
    cf.Summary("[cf:summary] earlier"),
    cf.Card("[cf:rules] be brief"),
]
WRONG = st.sampled_from([None, 5, 1.5, b"bytes", ["x"], object()])


def _fields(part: cf.Part) -> list[str]:
    return [f.name for f in dataclasses.fields(part) if f.name not in ("_", "kind")]


@settings(max_examples=200, deadline=None)
@given(
    part=st.sampled_from(GOOD_PARTS),
    data=st.data(),
    wrong=WRONG,
    fmt=st.sampled_from(cf.FORMATS),
)
def test_a_part_field_of_the_wrong_type_is_refused_naming_it(
    part: cf.Part, data: st.DataObject, wrong: object, fmt: str
) -> None:
    """Property: any one field of any part made the wrong type: `extend` raises
    InvalidConversation with the batch index and the field path, and adds nothing."""
    name = data.draw(st.sampled_from(_fields(part)))
    if name in ("signature", "encrypted", "detail") and wrong is None:
        return  # None is a valid value there
    broken = dataclasses.replace(part, **{name: wrong})  # type: ignore[arg-type]
    manager = cf.ContextManager(1000, format=fmt)
    manager.add(Message("user", (Text("first"),)))
    before = manager.view()
    batch = [Message("user", (Text("ok"),)), Message("user", (broken,))]
    with pytest.raises(cf.InvalidConversation) as info:
        manager.extend(batch)
    assert info.value.index == 1
    assert info.value.field == f"parts[0].{name}"
    assert manager.view() == before


@pytest.mark.parametrize(
    ("message", "field"),
    [
        (Message("boss", (Text("x"),)), "role"),  # type: ignore[arg-type]
        (Message("user", [Text("x")]), "parts"),  # type: ignore[arg-type]
        (Message("user", "hello"), "parts"),  # type: ignore[arg-type]
        (Message("user", ({"type": "text", "text": "x"},)), "parts[0]"),  # type: ignore[arg-type]
        (Message("user", (Text("x"),), name=5), "name"),  # type: ignore[arg-type]
        (Message("user", (Text("x"),), extras=[1]), "extras"),  # type: ignore[arg-type]
        (Message("tool", (cf.ToolResult("c", "out"),)), "parts[0].parts"),  # type: ignore[arg-type]
    ],
)
def test_a_malformed_message_is_refused_by_add(message: Message, field: str) -> None:
    manager = cf.ContextManager(1000)
    with pytest.raises(cf.InvalidConversation) as info:
        manager.add(message)
    assert info.value.field == field
    assert manager.view() == []


def test_a_message_the_format_cannot_carry_is_refused_when_given_not_at_every_view() -> None:
    manager = cf.ContextManager(1000, format="anthropic")
    manager.add(Message("user", (Text("hi"),)))
    tool = Message("tool", (cf.ToolResult("c1", (Text("out"),)),))
    with pytest.raises(cf.InvalidConversation) as info:
        manager.extend([Message("assistant", (Text("ok"),)), tool])
    assert info.value.index == 1
    assert info.value.field == "role"
    assert manager.view() == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
