"""The neutral model's JSON form round-trips and rejects bad input with typed errors."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from json.encoder import encode_basestring
from types import MappingProxyType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import (
    Card,
    Conversation,
    Image,
    InvalidConversation,
    Message,
    Opaque,
    Part,
    Summary,
    Text,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from contextfold._messages import EMPTY
from contextfold._serialize import (
    dump_conversation,
    dump_message,
    dump_part,
    load_conversation,
    load_message,
    plain,
)
from contextfold._serialize_json import JSON_OPTIONS, dump_json, quote

from .strategies import (
    messages,
    parts,
    wide_extras,
    wide_json,
    wide_messages,
    wide_parts,
    wide_texts,
)


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


_kinds = st.sampled_from(["text", "summary", "card", "tool_call", "tool_result"]) | wide_json
_any_extras = wide_extras | wide_extras.map(MappingProxyType) | wide_json
_odd_texts = wide_texts | wide_json
_SHAPES = (
    messages | parts,
    *(
        st.builds(cls, _odd_texts, extras=_any_extras, kind=st.just(tag) | _kinds)
        for cls, tag in ((Text, "text"), (Summary, "summary"), (Card, "card"))
    ),
    st.builds(
        ToolCall,
        _odd_texts,
        _odd_texts,
        _odd_texts,
        extras=_any_extras,
        kind=st.just("tool_call") | _kinds,
    ),
    st.builds(
        ToolResult,
        _odd_texts,
        st.lists(wide_parts | wide_json, max_size=3).map(tuple) | st.lists(wide_parts, max_size=2),
        is_error=st.booleans() | wide_json,
        extras=_any_extras,
        kind=st.just("tool_result") | _kinds,
    ),
    st.builds(
        Message,
        st.sampled_from(["user", "tool"]) | wide_json,
        st.lists(wide_parts, max_size=3).map(tuple) | st.lists(wide_parts, max_size=2),
        name=st.none() | _odd_texts,
        extras=_any_extras,
    ),
)
"""The shapes with their own writer (rule 5), with every field now and then of a kind that
writer does not take (a wrong kind, a non-string, a list of parts, odd extras)."""


def _outcome(write: Callable[[Message | Part], str], item: Message | Part) -> str:
    try:
        return write(item)
    except (TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("shape", _SHAPES)
@settings(max_examples=200)
@given(data=st.data())
def test_each_shape_writer_writes_what_json_dumps_writes(
    shape: st.SearchStrategy[Message | Part], data: st.DataObject
) -> None:
    item = data.draw(shape)
    assert _outcome(dump_json, item) == _outcome(reference_json, item)


@given(wide_texts | st.text(st.characters(max_codepoint=0x7F)))
def test_long_strings_are_quoted_as_json_quotes_them(text: str) -> None:
    assert quote(text) == encode_basestring(text)


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
