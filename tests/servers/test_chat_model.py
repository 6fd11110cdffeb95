"""The strict local model server refuses what the provider refuses, and a plain
`ContextManager` loop through the official `openai` SDK stays inside it for 150 turns."""

from __future__ import annotations

import json
from typing import Any

import pytest

import contextfold as cf

from .chat_model import (
    FINAL,
    READ_FILE,
    AgentScript,
    ChatModelServer,
    Reply,
    rules_everywhere,
    source_file,
)

openai = pytest.importorskip("openai")
pytest.importorskip("tiktoken", reason="the tiktoken extra is not installed")

SYSTEM = "You are a careful coding agent. Use the tools to read files."
RULES = "Never push to main. The deadline is 2027-03-14."


def client(server: ChatModelServer) -> Any:
    return openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0)


def test_over_the_window_is_refused_as_the_provider_does() -> None:
    with ChatModelServer(lambda body: Reply(text="hi"), window=200) as server:
        big = [{"role": "user", "content": source_file("big.py", 40)}]
        with pytest.raises(openai.BadRequestError) as caught:
            client(server).chat.completions.create(model="gpt-4o", messages=big)
    assert caught.value.code == "context_length_exceeded"
    assert server.log.accepted == []
    assert len(server.log.refusals) == 1


def test_a_call_without_its_result_is_refused() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "and?"},
    ]
    server = ChatModelServer(lambda body: Reply(text="hi"), window=8_000)
    with server, pytest.raises(openai.BadRequestError):
        client(server).chat.completions.create(model="gpt-4o", messages=messages)
    assert server.log.refusals[0].code == "invalid_request_error"


def test_streamed_tool_calls_arrive_whole() -> None:
    script = AgentScript(turns=1)
    with ChatModelServer(script, window=8_000) as server:
        stream = client(server).chat.completions.create(
            model="gpt-4o",
            messages=[{"role": "user", "content": "go"}],
            tools=[READ_FILE],
            stream=True,
        )
        deltas = [chunk.choices[0].delta for chunk in stream if chunk.choices]
    calls = [c for d in deltas for c in d.tool_calls or []]
    assert [c.function.name for c in calls] == ["read_file"]
    assert json.loads(calls[0].function.arguments or "") == {"path": "src/module_001.py"}


def run_loop(server: ChatModelServer, manager: cf.ContextManager, script: AgentScript) -> str:
    """The agent loop a builder writes around the manager: send the view, run the tools."""
    api = client(server)
    tools = [READ_FILE, cf.recall_tool("openai-chat")]
    for _ in range(script.turns + 10):
        response = api.chat.completions.create(model="gpt-4o", messages=manager.view(), tools=tools)
        manager.observe_usage(response.usage.prompt_tokens)
        message = response.choices[0].message
        manager.add(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments)
            if call.function.name == cf.RECALL_TOOL_NAME:
                content, _ = cf.answer_recall(manager.archive, arguments)
            else:
                content = source_file(arguments["path"])
            manager.add({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError("the agent did not finish")


def test_a_150_turn_loop_through_the_manager_is_never_refused() -> None:
    script = AgentScript(turns=150)
    with ChatModelServer(script, window=8_192) as server:
        tools = [READ_FILE, cf.recall_tool("openai-chat")]
        manager = cf.ContextManager(8_192, "gpt-4o", system=SYSTEM, tools=tools)
        manager.add({"role": "user", "content": f"Review every module. {RULES}"})
        manager.pin_last()
        assert run_loop(server, manager, script) == FINAL
    log = server.log
    assert log.refusals == []
    assert len(log.accepted) == 152  # 150 reads, one recall, the final answer
    assert max(log.tokens) <= 8_192
    system = {"role": "system", "content": SYSTEM}
    assert all(body["messages"][0] == system for body in log.accepted)
    assert rules_everywhere(log, "Never push to main", "2027-03-14")
    (ref,) = script.recalled
    recalled = [
        m["content"]
        for body in log.accepted
        for m in body["messages"]
        if m.get("role") == "tool" and m["content"].startswith(f"[cf:{ref} recalled")
    ]
    assert recalled, "the recalled page never reached the model"
