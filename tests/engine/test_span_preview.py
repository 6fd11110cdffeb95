"""The folded span's preview of a message reads only as much text as it shows."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextfold import Message, Text, ToolResult
from contextfold._engine._summary import _PREVIEW, _preview
from contextfold._messages import message_text

from ..strategies import messages

_spaced = st.text(alphabet=st.sampled_from(list("ab \n\t")), max_size=3000)


def _whole(message: Message) -> str:
    """The definition: every text joined, spaces collapsed, cut to the preview's length."""
    return " ".join(message_text(message).split())[:_PREVIEW]


@given(messages)
def test_the_preview_is_the_start_of_the_whole_text(message: Message) -> None:
    assert _preview(message) == _whole(message)


@given(st.lists(_spaced, min_size=1, max_size=4))
def test_long_and_mostly_blank_texts_preview_alike(texts: list[str]) -> None:
    message = Message("tool", (ToolResult("c1", tuple(Text(t) for t in texts)),))
    assert _preview(message) == _whole(message)
    prose = Message("assistant", tuple(Text(t) for t in texts))
    assert _preview(prose) == _whole(prose)
