"""The commonest chat layouts, read at once, read as the general path reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold._adapters import _openai_chat as chat

texts = st.text(max_size=20)


def _general(raw: dict[str, object]) -> object:
    role = raw["role"]
    if role == "tool":
        return chat._tool_message(raw, 0, "tool", None)
    if role == "assistant":
        return chat._assistant(raw, 0, None)[0]
    return chat._plain(raw, 0, chat._ROLES[str(role)])


@given(st.sampled_from(["system", "developer", "user", "assistant", "tool"]), texts, texts)
def test_common_layouts_read_as_the_general_path(role: str, content: str, call: str) -> None:
    raw: dict[str, object] = {"role": role, "content": content}
    if role == "tool":
        raw = {"role": role, "tool_call_id": call, "content": content}
    made = chat._common(raw)
    assert made is not None
    assert made == _general(raw)


@given(st.sampled_from(["user", "tool", "function"]), texts)
def test_other_layouts_take_the_general_path(role: str, content: str) -> None:
    layouts: list[dict[str, object]] = [
        {"content": content, "role": role},
        {"role": role, "content": [{"type": "text", "text": content}]},
        {"role": role, "content": content, "name": "n"},
        {"role": role, "content": None},
    ]
    for raw in layouts:
        assert chat._common(raw) is None
    if role == "function":
        assert chat._common({"role": role, "content": content}) is None
