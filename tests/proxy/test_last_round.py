"""The last recall round (`_recall` rule 3): a client whose `tool_choice` forces a call of
its own tools gets one (the round keeps its choice and offers its tools only); a client
that lets the model answer in text gets the last round with `tool_choice` none."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import contextfold as cf
from contextfold._proxy._recall import forces_call, last_round

from . import agents
from .conftest import ProxyFactory
from .histories import long_session
from .upstream import Upstream

PATHS = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
}
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-6"}
TOOLS: dict[str, list[dict[str, Any]]] = {
    "openai-chat": agents.TOOLS_CHAT,
    "openai-responses": agents.TOOLS_RESPONSES,
    "anthropic": agents.TOOLS_ANTHROPIC,
}
FORCED: dict[str, list[object]] = {
    "openai-chat": [
        "required",
        {"type": "function", "function": {"name": "read_file"}},
        {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "required",
                "tools": [{"type": "function", "function": {"name": "read_file"}}],
            },
        },
    ],
    "openai-responses": [
        "required",
        {"type": "function", "name": "read_file"},
        {
            "type": "allowed_tools",
            "mode": "required",
            "tools": [{"type": "function", "name": "read_file"}],
        },
    ],
    "anthropic": [{"type": "any"}, {"type": "tool", "name": "read_file"}],
}
FREE: dict[str, list[object]] = {
    "openai-chat": [
        None,
        "auto",
        "none",
        {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}},
    ],
    "openai-responses": [None, "auto", {"type": "allowed_tools", "mode": "auto", "tools": []}],
    "anthropic": [None, {"type": "auto"}, {"type": "auto", "disable_parallel_tool_use": True}],
}


def _body(format: cf.Format, choice: object, stream: bool) -> dict[str, Any]:
    """A session too long for the window (the proxy folds it), offering `read_file`."""
    body = long_session(MODELS[format])
    wire: Any = body if format == "openai-chat" else cf.convert(body, format)
    body = {**wire, "tools": TOOLS[format], "stream": stream}
    return body if choice is None else {**body, "tool_choice": choice}


def _post(url: str, format: cf.Format, body: dict[str, Any]) -> str:
    with httpx.stream("POST", url + PATHS[format], json=body, timeout=60) as answer:
        assert answer.status_code == 200, answer.read()
        return answer.read().decode()


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    ("format", "choice"), [(f, c) for f, choices in FORCED.items() for c in choices]
)
def test_a_forced_tool_choice_still_gets_a_call_of_the_clients_tools(
    format: cf.Format, choice: object, stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    """Before, the last round asked with `tool_choice` none: the client that required a
    tool call got a text-only answer."""
    running = make_proxy()
    upstream.recall_every = 1  # the model recalls whenever it may
    text = _post(running.url, format, _body(format, choice, stream))
    assert len(upstream.seen) == 4  # three rounds, then the last
    last = upstream.seen[-1].body
    assert last["tool_choice"] == choice
    assert last["tools"] == TOOLS[format]
    assert all(cf.RECALL_TOOL_NAME in str(s.body["tools"]) for s in upstream.seen[:-1])
    assert "read_file" in text
    assert cf.RECALL_TOOL_NAME not in text


@pytest.mark.parametrize("format", ["openai-chat", "anthropic"])
def test_a_free_tool_choice_gets_the_last_round_without_tools(
    format: cf.Format, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    upstream.recall_every = 1
    _post(running.url, format, _body(format, None, False))
    assert len(upstream.seen) == 4
    assert upstream.seen[-1].body["tool_choice"] in ("none", {"type": "none"})


@pytest.mark.parametrize(
    ("format", "choice", "forced"),
    [(f, c, True) for f, cs in FORCED.items() for c in cs]
    + [(f, c, False) for f, cs in FREE.items() for c in cs],
)
def test_forces_call(format: cf.Format, choice: object, forced: bool) -> None:
    assert forces_call(format, choice) is forced


def test_a_client_that_declares_the_recall_tool_keeps_its_tools() -> None:
    tools = [*agents.TOOLS_ANTHROPIC, cf.recall_tool("anthropic")]
    body = {"messages": [], "tools": tools, "tool_choice": {"type": "any"}}
    assert last_round("anthropic", body, shared=True) == body
    assert last_round("anthropic", body, shared=False)["tools"] == agents.TOOLS_ANTHROPIC


def test_a_forced_choice_with_no_tools_of_the_clients_own_gets_none() -> None:
    body = {"messages": [], "tools": [cf.recall_tool("openai-chat")], "tool_choice": "required"}
    assert last_round("openai-chat", body, shared=False)["tool_choice"] == "none"


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("format", ["openai-chat", "anthropic"])
def test_an_upstream_that_ignores_tool_choice_none_still_hides_the_recall_call(
    format: cf.Format, stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    """Ollama's OpenAI API ignores `tool_choice`: the last round's answer still recalls,
    and the client gets it without the call and with a plain stop, streamed or not
    (before, the answer that was not streamed kept `tool_calls` / `tool_use` as its stop:
    an agent loop then answered no calls)."""
    running = make_proxy()
    upstream.recall_every, upstream.ignores_tool_choice = 1, True
    text = _post(running.url, format, _body(format, None, stream))
    assert len(upstream.seen) == 4
    assert cf.RECALL_TOOL_NAME not in text
    stop = '"end_turn"' if format == "anthropic" else '"stop"'
    assert stop in text
    assert '"tool_use"' not in text
    assert '"tool_calls"' not in text.replace('"tool_calls": null', "")
