"""Artifact recognition and the small queries of the neutral model."""

from __future__ import annotations

from contextfold import Card, Marker, Message, Summary, Text, ToolCall, ToolResult
from contextfold._messages import artifact_from_text, message_text, refs_in, tool_calls


def test_marker_text_is_recognised_whole() -> None:
    part = artifact_from_text("[cf:r0123456789 tool result masked, 812 tokens]")
    assert part == Marker("r0123456789", "[cf:r0123456789 tool result masked, 812 tokens]")


def test_marker_inside_text_stays_text_but_its_ref_is_found() -> None:
    text = "head\n[cf:r0123456789 4,000 chars cut]\ntail"
    assert artifact_from_text(text) == Text(text)
    assert refs_in(text) == ["r0123456789"]


def test_summary_and_card_headers() -> None:
    assert isinstance(artifact_from_text("[cf:summary] earlier: ..."), Summary)
    assert isinstance(artifact_from_text("[cf:rules]\n- never push to main"), Card)
    assert artifact_from_text("[cf:nothing]") == Text("[cf:nothing]")


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
