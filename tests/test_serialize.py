"""The neutral model's JSON form round-trips and rejects bad input with typed errors."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextfold import (
    Conversation,
    Image,
    InvalidConversation,
    Message,
    Opaque,
    Part,
    Text,
    ToolResult,
    ToolSpec,
)
from contextfold._messages import EMPTY
from contextfold._serialize import (
    JSON_OPTIONS,
    dump_conversation,
    dump_json,
    dump_message,
    dump_part,
    load_conversation,
    load_message,
    plain,
)

from .strategies import messages, wide_json, wide_messages, wide_parts, wide_texts


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


# --- JSON text in one pass (rule 4) ------------------------------------------------------------

_odd_fields = st.one_of(
    st.builds(Text, wide_json, extras=st.dictionaries(st.text(max_size=4), st.floats())),
    st.builds(
        ToolResult, wide_texts, st.lists(wide_json, max_size=2).map(tuple), is_error=wide_json
    ),
    st.builds(Image, wide_texts, detail=wide_json, extras=st.just({})),
    st.builds(Message, st.just("user"), st.just(()), name=wide_json, extras=st.just(EMPTY)),
)
"""Field values of the wrong type (nothing checks them at run time), NaN, empty extras."""


def reference_json(item: Message | Part) -> str:
    data = dump_message(item) if isinstance(item, Message) else dump_part(item)
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=plain
    )


@given(wide_messages | wide_parts | _odd_fields)
def test_json_text_is_json_dumps_of_the_dumped_form(item: Message | Part) -> None:
    assert dump_json(item) == reference_json(item)


def test_json_options_are_the_canonical_ones() -> None:
    canonical = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False}
    assert {**canonical, "default": plain} == JSON_OPTIONS


@pytest.mark.parametrize(
    "item",
    [
        Text("x", extras={"when": object()}),
        Text("x", extras={"set": {1, 2}}),
        Opaque({"bytes": b"raw"}),
        ToolResult("c", (Text("x"), object())),  # type: ignore[arg-type]
    ],
)
def test_json_text_refuses_what_json_dumps_refuses(item: Message | Part) -> None:
    with pytest.raises(TypeError) as fast:
        dump_json(item)
    with pytest.raises(TypeError) as slow:
        reference_json(item)
    assert str(fast.value) == str(slow.value)


def test_a_cycle_in_extras_is_a_value_error_as_in_json_dumps() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        dump_json(Text("x", extras={"loop": loop}))
