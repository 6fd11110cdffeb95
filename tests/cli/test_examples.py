"""The bundled example: valid, realistic in size, and exactly what its script writes."""

from __future__ import annotations

import json
import runpy
import sys
from collections.abc import Callable
from typing import Any

import pytest

import contextfold as cf

from .conftest import ANTHROPIC_EXAMPLE, CHAT_EXAMPLE, EXAMPLES

STEPS_EXAMPLE = EXAMPLES / "coding-session.steps.jsonl"


@pytest.fixture(scope="module")
def script() -> dict[str, Any]:
    """The generator's namespace (it imports its sibling `session_repo`)."""
    sys.path.insert(0, str(EXAMPLES))
    try:
        return runpy.run_path(str(EXAMPLES / "make_session.py"))
    finally:
        sys.path.remove(str(EXAMPLES))


def test_committed_files_are_what_the_script_writes(script: dict[str, Any]) -> None:
    session = script["session"]()
    chat: Callable[[object], object] = script["openai_chat"]
    anthropic: Callable[[object], object] = script["anthropic"]
    steps: Callable[[object], str] = script["steps"]
    assert json.loads(CHAT_EXAMPLE.read_text()) == chat(session)
    assert json.loads(ANTHROPIC_EXAMPLE.read_text()) == anthropic(session)
    assert STEPS_EXAMPLE.read_text() == steps(chat(session))


def test_the_chat_example_is_a_realistic_valid_session() -> None:
    body = json.loads(CHAT_EXAMPLE.read_text())
    assert cf.detect(body) == "openai-chat"
    assert cf.validate(body) == []
    messages = body["messages"]
    assert 30 <= len(messages) <= 60
    tool_outputs = [m["content"] for m in messages if m["role"] == "tool"]
    assert len(tool_outputs) >= 15
    assert max(len(text) for text in tool_outputs) > 5000  # a big diff, big file views
    assert sum("cat -n" in text for text in tool_outputs) >= 5
    assert messages[-1]["role"] == "user"


def test_both_formats_hold_the_same_session() -> None:
    chat = json.loads(CHAT_EXAMPLE.read_text())
    anthropic = json.loads(ANTHROPIC_EXAMPLE.read_text())
    assert cf.detect(anthropic) == "anthropic"
    assert cf.validate(anthropic) == []
    chat_outputs = [m["content"] for m in chat["messages"] if m["role"] == "tool"]
    anthropic_outputs = [
        block["content"]
        for m in anthropic["messages"]
        if isinstance(m["content"], list)
        for block in m["content"]
        if block["type"] == "tool_result"
    ]
    assert chat_outputs == anthropic_outputs
    assert anthropic["system"] == chat["messages"][0]["content"]


def test_the_steps_are_valid_growing_prefixes() -> None:
    messages = json.loads(CHAT_EXAMPLE.read_text())["messages"]
    records = [json.loads(line) for line in STEPS_EXAMPLE.read_text().splitlines()]
    assert len(records) >= 4
    for record in records:
        assert record["messages"] == messages[: len(record["messages"])]
        assert cf.validate(record["messages"]) == []
