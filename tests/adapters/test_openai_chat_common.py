"""The commonest chat layouts, read at once, read as the general path reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._adapters import _openai_chat as chat
from contextfold._adapters import _openai_chat_common as common
from contextfold._messages import Message

texts = st.text(max_size=20)


def _general(raw: dict[str, object]) -> Message:
    role = raw["role"]
    if role == "tool":
        return chat._tool_message(raw, 0, "tool", None)
    if role == "assistant":
        return chat._assistant(raw, 0, None)[0]
    return chat._plain(raw, 0, chat._ROLES[str(role)])


def _same(made: Message | None, raw: dict[str, object]) -> None:
    general = _general(raw)
    assert made == general
    assert made is not None
    assert list(made.extras.items()) == list(general.extras.items())  # key order too
    for part, other in zip(made.parts, general.parts, strict=True):
        assert list(part.extras.items()) == list(other.extras.items())


@given(
    st.sampled_from(["system", "developer", "user", "assistant", "tool"]),
    texts,
    texts,
    st.booleans(),
    st.booleans(),
)
def test_common_layouts_read_as_the_general_path(
    role: str, content: str, call: str, named: bool, backwards: bool
) -> None:
    raw: dict[str, object] = {"role": role, "content": content}
    if role == "tool":
        raw = {"role": role, "tool_call_id": call, "content": content}
        if named:
            raw = {"role": role, "tool_call_id": call, "name": "n", "content": content}
    if backwards:  # any key order: the general path keeps it in extras
        raw = dict(reversed(raw.items()))
    _same(common.read_common(raw), raw)


@given(st.sampled_from(["user", "tool", "function"]), texts)
def test_other_layouts_take_the_general_path(role: str, content: str) -> None:
    layouts: list[dict[str, object]] = [
        {"role": role, "content": [{"type": "text", "text": content}]},
        {"role": role, "content": None},
        {"role": role, "content": content, "extra": 1},
    ]
    if role != "tool":
        layouts.append({"role": role, "content": content, "name": "n"})
    else:
        layouts.append({"role": role, "tool_call_id": "c", "name": None, "content": content})
    for raw in layouts:
        assert common.read_common(raw) is None
    if role == "function":
        assert common.read_common({"role": role, "content": content}) is None


def _call(call_id: str, *, index: bool = False, backwards: bool = False) -> dict[str, object]:
    inner: dict[str, object] = {"name": "f", "arguments": "{}"}
    call: dict[str, object] = {"id": call_id, "type": "function", "function": inner}
    if index:
        call = {"index": 0, **call}
    if backwards:
        call = dict(reversed(call.items()))
        call["function"] = dict(reversed(inner.items()))
    return call


@given(
    st.one_of(st.none(), texts),
    st.lists(st.tuples(texts, st.booleans(), st.booleans()), min_size=1, max_size=3),
    st.booleans(),
)
def test_calls_read_as_the_general_path(
    content: str | None, calls: list[tuple[str, bool, bool]], backwards: bool
) -> None:
    made = [_call(c, index=i, backwards=b) for c, i, b in calls]
    raw: dict[str, object] = {"role": "assistant", "content": content, "tool_calls": made}
    if backwards:
        raw = dict(reversed(raw.items()))
    _same(common.read_common_calls(raw), raw)


def test_other_calls_take_the_general_path() -> None:
    custom = {"id": "c", "type": "custom", "custom": {"name": "f", "input": "x"}}
    layouts: list[dict[str, object]] = [
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "content": None, "tool_calls": [custom]},
        {"role": "assistant", "content": [], "tool_calls": [_call("c")]},
        {"role": "assistant", "tool_calls": [_call("c")], "name": "n"},
        {"role": "assistant", "content": "x", "tool_calls": [{"id": 1, "type": "function"}]},
        {"role": "user", "content": None, "tool_calls": [_call("c")]},
    ]
    for raw in layouts:
        assert common.read_common_calls(raw) is None


_parts = st.lists(
    st.tuples(texts, st.sampled_from(["plain", "backwards", "extra", "other type"])),
    min_size=1,
    max_size=3,
)


def _text_part(text: str, layout: str) -> dict[str, object]:
    part: dict[str, object] = {"type": "text", "text": text}
    if layout == "backwards":
        return {"text": text, "type": "text"}
    if layout == "extra":
        part["cache_control"] = {"type": "ephemeral"}
    if layout == "other type":
        part["type"] = "refusal"
    return part


@given(
    _parts,
    st.sampled_from(["none", "named", "null name", "odd name"]),
    st.booleans(),
    st.booleans(),
)
def test_listed_tool_results_read_as_the_general_path(
    parts: list[tuple[str, str]], name: str, extra: bool, backwards: bool
) -> None:
    content = [_text_part(text, layout) for text, layout in parts]
    raw: dict[str, object] = {"role": "tool", "tool_call_id": "c", "content": content}
    names: dict[str, object] = {"named": "n", "null name": None, "odd name": 3}
    if name in names:
        raw["name"] = names[name]
    if extra:
        raw["cache_control"] = {"type": "ephemeral"}
    if backwards:
        raw = dict(reversed(raw.items()))
    made = common.read_common(raw)
    if made is None:  # a layout the fast path leaves to the general one
        assert name == "odd name" or any(layout != "plain" for _, layout in parts)
        return
    _same(made, raw)
