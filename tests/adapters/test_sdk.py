"""Official openai SDK objects in a history parse like the wire JSON the SDK sends for them."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionMessage

import contextfold
from contextfold import Text, ToolCall, ToolResult
from contextfold._adapters._sdk import to_plain

from ..summarizers.llm_server import LLMServer

CALL = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
API_REPLY: dict[str, Any] = {
    "role": "assistant",
    "content": None,
    "refusal": None,
    "annotations": [],
    "tool_calls": [CALL],
}
"""A tool-calling reply as the OpenAI API returns it."""
COMPAT_REPLY: dict[str, Any] = {
    "role": "assistant",
    "content": "hello",
    "refusal": None,
    "annotations": [],
    "audio": None,
    "function_call": None,
    "tool_calls": None,
}
"""A text reply as OpenAI-compatible servers (vLLM, litellm) return it: every field, nulls too."""


def completion(message: dict[str, Any]) -> ChatCompletion:
    """A ChatCompletion as the SDK builds it from an API response."""
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": 0, "finish_reason": "stop", "logprobs": None, "message": message}
            ],
        }
    )


def reply(message: dict[str, Any]) -> ChatCompletionMessage:
    return completion(message).choices[0].message


def history() -> list[object]:
    return [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
        reply(API_REPLY),
        {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
    ]


def sent_by_sdk(messages: list[object]) -> object:
    """The `messages` the openai SDK puts on the wire for `messages` (a real local request)."""
    with (
        LLMServer() as server,
        openai.OpenAI(api_key="k", base_url=server.openai_url, max_retries=0) as client,
    ):
        client.chat.completions.create(model="m", messages=messages)  # type: ignore[arg-type]
        return server.requests[0].body["messages"]


def test_sdk_message_with_tool_calls_parses() -> None:
    fmt, conv = contextfold.parse(history())
    assert fmt == "openai-chat"
    _, _, assistant, tool = conv.messages
    (call,) = assistant.parts
    assert isinstance(call, ToolCall)
    assert (call.id, call.name, call.arguments) == ("call_1", "ls", "{}")
    assert tool.parts == (ToolResult("call_1", (Text("a.py"),)),)


def test_to_plain_is_what_the_sdk_sends() -> None:
    sent = sent_by_sdk(history())
    assert to_plain(history()) == sent
    plain = to_plain(reply(API_REPLY))
    assert isinstance(sent, list)
    assert isinstance(plain, dict)
    assert list(sent[2]) == list(plain)


@pytest.mark.parametrize("message", [API_REPLY, COMPAT_REPLY], ids=["api", "compat"])
def test_render_gives_back_what_the_sdk_sends(message: dict[str, Any]) -> None:
    payload = [{"role": "user", "content": "hi"}, reply(message)]
    if message.get("tool_calls"):
        payload.append({"role": "tool", "tool_call_id": "call_1", "content": "a.py"})
    assert contextfold.detect(payload) == "openai-chat"
    fmt, conv = contextfold.parse(payload)
    rendered = contextfold.render(conv, fmt)
    assert rendered == sent_by_sdk(payload)
    assert isinstance(rendered, list)
    assert all(type(item) is dict for item in rendered)
    assert json.loads(json.dumps(rendered)) == rendered
    assert contextfold.validate(payload) == []


def test_null_fields_of_a_compat_reply_are_set_fields_not_content() -> None:
    plain = to_plain(reply(COMPAT_REPLY))
    assert plain == COMPAT_REPLY
    _, conv = contextfold.parse([{"role": "user", "content": "hi"}, reply(COMPAT_REPLY)])
    assistant = conv.messages[1]
    assert assistant.parts == (Text("hello"),)
    assert {key: assistant.extras[key] for key in ("tool_calls", "audio")} == {
        "tool_calls": None,
        "audio": None,
    }


def test_sdk_tool_call_objects_inside_a_plain_message() -> None:
    message = {"role": "assistant", "tool_calls": reply(API_REPLY).tool_calls}
    fmt, conv = contextfold.parse([message], format="openai-chat")
    assert contextfold.render(conv, fmt) == [{"role": "assistant", "tool_calls": [CALL]}]


def test_defaults_the_reply_never_set_stay_out() -> None:
    bare = reply({"role": "assistant", "content": "hello"})
    assert to_plain(bare) == {"role": "assistant", "content": "hello"}


def test_plain_data_is_returned_as_is() -> None:
    plain = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert to_plain(plain) is plain
    assert to_plain(("a", {"b": 1})) == ["a", {"b": 1}]
