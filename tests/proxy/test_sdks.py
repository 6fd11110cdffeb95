"""Every SDK surface through the proxy (sync, async, streaming; chat, Responses, Messages):
short loops that compact and recall, with the same checks as the 300-turn loops."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import anthropic
import openai
import pytest

from . import agents
from .checks import assert_healthy_loop
from .conftest import ProxyFactory, Running
from .upstream import Upstream

TURNS = 12


def _openai(running: Running) -> openai.OpenAI:
    return openai.OpenAI(base_url=running.url + "/v1", api_key="sk-test", max_retries=0)


def _aopenai(running: Running) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=running.url + "/v1", api_key="sk-test", max_retries=0)


def _anthropic(running: Running) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=running.url, api_key="sk-ant-test", max_retries=0)


def _aanthropic(running: Running) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(base_url=running.url, api_key="sk-ant-test", max_retries=0)


def _run(client: Any, loop: Callable[..., agents.Run], **options: bool) -> agents.Run:
    """Run a loop to its end and close its client (no socket left to the collector)."""
    with client:
        return loop(client, TURNS, **options)


def _arun(client: Any, loop: Callable[..., Awaitable[agents.Run]], **options: bool) -> agents.Run:
    """Run an async loop to its end and close its client (no transport left unclosed)."""

    async def run() -> agents.Run:
        async with client:
            return await loop(client, TURNS, **options)

    return asyncio.run(run())


LOOPS: dict[str, Callable[[Running], agents.Run]] = {
    "chat": lambda r: _run(_openai(r), agents.chat),
    "chat-stream": lambda r: _run(_openai(r), agents.chat, stream=True),
    "chat-async": lambda r: _arun(_aopenai(r), agents.achat, stream=False),
    "chat-async-stream": lambda r: _arun(_aopenai(r), agents.achat, stream=True),
    "responses": lambda r: _run(_openai(r), agents.responses),
    "responses-stream": lambda r: _run(_openai(r), agents.responses, stream=True),
    "responses-async": lambda r: _arun(_aopenai(r), agents.aresponses),
    "messages": lambda r: _run(_anthropic(r), agents.claude),
    "messages-stream": lambda r: _run(_anthropic(r), agents.claude, stream=True),
    "messages-async": lambda r: _arun(_aanthropic(r), agents.aclaude, stream=False),
    "messages-async-stream": lambda r: _arun(_aanthropic(r), agents.aclaude, stream=True),
}


@pytest.mark.parametrize("surface", sorted(LOOPS))
def test_sdk_loop_compacts_and_hides_recall(
    surface: str, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    upstream.recall_every = 4
    running = make_proxy()
    run = LOOPS[surface](running)
    assert run.calls == ["read_file"] * TURNS
    metrics = running.proxy.metrics
    compactions = metrics.compactions._value.get()
    assert compactions > 0
    assert metrics.recall_rounds._value.get() > 0
    assert_healthy_loop(upstream, compactions, TURNS)


def test_a_streamed_answer_that_says_something_then_recalls_reaches_the_client_as_text(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    client = _openai(running)
    run = agents.chat(client, TURNS)  # compacts: the requests now carry the recall tool
    assert running.proxy.metrics.compactions._value.get() > 0
    upstream.recall_every, upstream.text_before_recall = 1, "Let me check that first."
    chunks = client.chat.completions.create(**agents.chat_args(run), stream=True)
    text: list[str] = []
    calls: list[object] = []
    finish: list[str | None] = []
    for chunk in chunks:
        for choice in chunk.choices:
            text.append(choice.delta.content or "")
            calls += choice.delta.tool_calls or []
            finish.append(choice.finish_reason)
    client.close()
    assert upstream.recall_ids, "the upstream did not call recall"
    assert "".join(text) == "Let me check that first."
    assert calls == []
    assert finish[-1] == "stop"


def test_a_cache_breakpoint_that_moves_every_turn_keeps_one_session(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    upstream.recall_every = 4
    running = make_proxy()
    run = _run(_anthropic(running), agents.claude, marked=True)
    assert run.calls == ["read_file"] * TURNS
    assert len(running.proxy.sessions) <= 2  # the first request (one item) has its own root
    assert_healthy_loop(upstream, running.proxy.metrics.compactions._value.get(), TURNS)
    last = upstream.seen[-1].body["messages"][-1]["content"][-1]
    assert last["cache_control"] == {"type": "ephemeral"}  # the client's newest breakpoint
