"""The neutral model's JSON form round-trips and rejects bad input with typed errors."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import Conversation, InvalidConversation, Message, Text, ToolSpec
from contextfold._serialize import (
    dump_conversation,
    dump_message,
    load_conversation,
    load_message,
)

from .strategies import messages


@given(messages)
def test_message_roundtrip_through_json(message: Message) -> None:
    data = json.loads(json.dumps(dump_message(message)))
    assert load_message(data) == message


@given(st.lists(messages, max_size=5))
def test_conversation_roundtrip(items: list[Message]) -> None:
    conv = Conversation(
        tuple(items), shape="body", tools=(ToolSpec("f", "does f", {"type": "object"}),)
    )
    assert load_conversation(json.loads(json.dumps(dump_conversation(conv)))) == conv


def test_defaults_are_left_out() -> None:
    assert dump_message(Message("user", (Text("hi"),))) == {
        "role": "user",
        "parts": [{"text": "hi", "kind": "text"}],
    }


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"role": "robot", "parts": []}, "role"),
        ({"role": "user", "parts": [{"kind": "nope"}]}, "parts[0].kind"),
        ({"role": "user", "parts": [{"kind": "text"}]}, "parts[0]"),
        ({"role": "user", "parts": [{"kind": "text", "text": "x", "bogus": 1}]}, "parts[0]"),
        ({"role": "user", "name": 3, "parts": []}, "name"),
    ],
)
def test_bad_json_names_the_field(data: object, field: str) -> None:
    with pytest.raises(InvalidConversation) as info:
        load_message(data, index=4)
    assert info.value.field == field


@given(
    st.recursive(
        st.none() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_arbitrary_json_gives_only_library_errors(data: object) -> None:
    with contextlib.suppress(InvalidConversation):
        load_conversation(data)
