"""`reparse`: a rendered list read back, the unchanged messages taken as parsed (rule 6)."""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st

from contextfold import Conversation, InvalidConversation, Message, Text, ToolResult
from contextfold._adapters import parse_plain, parse_rendered
from contextfold._adapters._openai_chat import from_conversation, reparse, to_conversation
from contextfold._messages import Marker

from .chat_strategies import near_messages, payloads

MADE = (
    Message("user", (Text("made by the engine"),)),
    Message("assistant", (Marker("r0123456789", "[cf:r0123456789 masked, 12 tokens]"),)),
    Message("tool", (ToolResult("call_a", (Text("a"), Text("b"))),)),
)
"""Messages no parser made (flagged as changed): they read back as something else."""


def parsed_or_none(payload: object) -> Conversation | None:
    try:
        return to_conversation(payload)
    except InvalidConversation:
        return None


@st.composite
def outputs(draw: st.DrawFn) -> tuple[Conversation, list[bool]]:
    """A compaction-like output of a parsed payload: some of its messages, anywhere and in
    any order, flagged unchanged (or not), among messages from another payload and made
    ones, flagged changed."""
    first = parsed_or_none(draw(payloads | near_messages))
    other = parsed_or_none(draw(payloads))
    assume(first is not None)
    assume(other is not None)
    assert first is not None
    assert other is not None
    kept = [(m, draw(st.booleans())) for m in first.messages]
    changed = [(m, False) for m in (*other.messages, *MADE)]
    picks = draw(st.lists(st.sampled_from([*kept, *changed]), max_size=12))
    messages = tuple(m for m, _ in picks)
    out = Conversation(messages, shape=first.shape, tools=first.tools, extras=first.extras)
    return out, [same for _, same in picks]


@given(outputs())
def test_reparse_reads_what_parsing_the_whole_payload_reads(
    case: tuple[Conversation, list[bool]],
) -> None:
    conversation, same = case
    rendered = from_conversation(conversation)
    assert reparse(rendered, conversation.messages, same) == to_conversation(rendered)
    whole = parse_plain(rendered, "openai-chat")[1]
    assert parse_rendered(rendered, "openai-chat", conversation.messages, same) == whole


def test_a_legacy_call_is_read_with_the_whole_list() -> None:
    payload: list[Any] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
        {"role": "function", "name": "f", "content": "ok"},
    ]
    parsed = to_conversation(payload).messages
    moved = (parsed[1], parsed[2])  # its ids name its old position: it reads differently now
    rendered = from_conversation(Conversation(moved))
    again = reparse(rendered, moved, [True, True])
    assert again == to_conversation(rendered)
    assert again.messages != moved


def test_a_mismatched_flag_list_reads_the_whole_list() -> None:
    messages = to_conversation([{"role": "user", "content": "hi"}]).messages
    rendered = from_conversation(Conversation(messages))
    assert reparse(rendered, messages, []) == to_conversation(rendered)
