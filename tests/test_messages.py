"""Artifact header shapes and the small queries of the neutral model."""

from __future__ import annotations

from contextfold import Message, Text, ToolCall, ToolResult
from contextfold._messages import artifact_kind, message_text, refs_in, tool_calls


def test_marker_refs_are_found_inside_text() -> None:
    text = "head\n[cf:r0123456789 4,000 chars cut]\ntail"
    assert refs_in(text) == ["r0123456789"]


def test_summary_and_card_headers_are_shapes_only() -> None:
    assert artifact_kind("[cf:summary] earlier: ...") == "summary"
    assert artifact_kind("[cf:rules]\n- never push to main") == "card"
    assert artifact_kind("[cf:nothing]") is None
    assert artifact_kind("[cf:r0123456789 tool result masked]") is None


def test_message_text_descends_into_tool_results() -> None:
    msg = Message("assistant", (Text("look"), ToolCall("c1", "ls", "{}")))
    assert message_text(msg) == "look\nls({})"
    assert tool_calls(msg) == [ToolCall("c1", "ls", "{}")]
    result = Message("tool", (ToolResult("c1", (Text("a.py"),)),))
    assert message_text(result) == "a.py"


def test_empty_extras_answer_lookups_like_an_empty_dict() -> None:
    from contextfold._messages import EMPTY

    assert "type" not in EMPTY
    assert EMPTY.get("type") is None
    assert EMPTY.get("type", "x") == "x"
    assert EMPTY == {}
