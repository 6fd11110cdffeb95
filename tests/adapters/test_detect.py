"""Format detection on hand-written payloads of all three wire formats."""

from __future__ import annotations

import pytest

import contextfold
from contextfold import AmbiguousFormat, InvalidConversation

CHAT_TOOLS = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "list files"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
]
CHAT_IMAGE = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is this?"},
            {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}},
        ],
    }
]
CHAT_FILE = [{"role": "user", "content": [{"type": "file", "file": {"file_id": "file-1"}}]}]
CHAT_LEGACY = [
    {"role": "assistant", "content": None, "function_call": {"name": "w", "arguments": "{}"}},
    {"role": "function", "name": "w", "content": "sunny"},
]
ANTHROPIC_TOOLS = [
    {"role": "user", "content": "list files"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Listing."},
            {"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}},
        ],
    },
    {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.py"}],
    },
]
ANTHROPIC_IMAGE = [
    {
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
            }
        ],
    }
]
ANTHROPIC_SERVER_TOOL = [
    {"role": "user", "content": "news?"},
    {
        "role": "assistant",
        "content": [
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "text", "text": "Nothing new."},
        ],
    },
]
RESPONSES_ITEMS = [
    {"role": "user", "content": [{"type": "input_text", "text": "weather in Paris?"}]},
    {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
]
RESPONSES_REFUSAL = [
    {"role": "user", "content": "help me"},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "refusal", "refusal": "I can't help with that."}],
    },
]
TEXT_ONLY = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (CHAT_TOOLS, "openai-chat"),
        (CHAT_IMAGE, "openai-chat"),
        (CHAT_FILE, "openai-chat"),
        (CHAT_LEGACY, "openai-chat"),
        ({"model": "gpt-4o", "messages": CHAT_TOOLS}, "openai-chat"),
        ({"model": "gpt-4o", "messages": TEXT_ONLY, "max_completion_tokens": 50}, "openai-chat"),
        (
            {
                "model": "gpt-4o",
                "messages": TEXT_ONLY,
                "tools": [{"type": "function", "function": {"name": "ls", "parameters": {}}}],
            },
            "openai-chat",
        ),
        (ANTHROPIC_TOOLS, "anthropic"),
        (ANTHROPIC_IMAGE, "anthropic"),
        (ANTHROPIC_SERVER_TOOL, "anthropic"),
        ({"model": "claude", "system": "Be terse.", "messages": TEXT_ONLY}, "anthropic"),
        (
            {
                "model": "claude",
                "max_tokens": 1024,
                "messages": TEXT_ONLY,
                "tools": [{"name": "ls", "input_schema": {"type": "object"}}],
            },
            "anthropic",
        ),
        (RESPONSES_ITEMS, "openai-responses"),
        (RESPONSES_REFUSAL, "openai-responses"),
        ({"model": "gpt-5", "input": RESPONSES_ITEMS}, "openai-responses"),
        ({"model": "gpt-5", "input": "hello"}, "openai-responses"),
        ({"model": "gpt-5", "instructions": "Be terse.", "input": TEXT_ONLY}, "openai-responses"),
        (
            {
                "model": "gpt-5",
                "input": TEXT_ONLY,
                "tools": [{"type": "function", "name": "ls", "parameters": {}}],
            },
            "openai-responses",
        ),
        (TEXT_ONLY, "openai-chat"),
        ({"messages": TEXT_ONLY}, "openai-chat"),
        ([], "openai-chat"),
    ],
)
def test_detects_each_format(payload: object, expected: str) -> None:
    assert contextfold.detect(payload) == expected


@pytest.mark.parametrize(
    ("payload", "formats"),
    [
        (CHAT_TOOLS + ANTHROPIC_TOOLS, ("anthropic", "openai-chat")),
        (CHAT_TOOLS + RESPONSES_ITEMS, ("openai-chat", "openai-responses")),
        (ANTHROPIC_TOOLS + RESPONSES_ITEMS, ("anthropic", "openai-responses")),
        ({"system": "Be terse.", "messages": CHAT_TOOLS}, ("anthropic", "openai-chat")),
        ({"input": "hi", "messages": ANTHROPIC_TOOLS}, ("anthropic", "openai-responses")),
    ],
)
def test_mixed_payloads_name_both_formats(payload: object, formats: tuple[str, str]) -> None:
    with pytest.raises(AmbiguousFormat) as caught:
        contextfold.detect(payload)
    assert all(fmt in str(caught.value) for fmt in formats)


@pytest.mark.parametrize("payload", ["hello", 3, None])
def test_non_conversations_are_invalid(payload: object) -> None:
    with pytest.raises(InvalidConversation):
        contextfold.detect(payload)


def test_parse_reads_a_detected_chat_body() -> None:
    fmt, conv = contextfold.parse({"model": "gpt-4o", "messages": CHAT_TOOLS})
    assert (fmt, conv.shape, len(conv.messages)) == ("openai-chat", "body", 4)
    assert contextfold.render(conv, fmt) == {"model": "gpt-4o", "messages": CHAT_TOOLS}
