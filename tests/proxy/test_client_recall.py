"""A client that declares the recall tool itself (an agent compacting with contextfold on
its own side, behind the proxy) answers its own recall calls: the proxy answers only the
calls its archive holds and hides nothing from such a client (`_recall` rule 4)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import contextfold as cf

from .conftest import ProxyFactory
from .histories import long_session
from .upstream import Upstream

PATHS = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
}
MODELS = {"openai-chat": "gpt-4o", "openai-responses": "gpt-4o", "anthropic": "claude-sonnet-4-6"}


def _history(format: cf.Format) -> Any:
    """A chat agent's session, as a request body in `format` (too long for the window)."""
    body = long_session(MODELS[format])
    return body if format == "openai-chat" else cf.convert(body, format)


def _client_request(format: cf.Format, budget: int) -> tuple[dict[str, Any], list[str]]:
    """The client's own compacted request, offering its recall tool, and its references."""
    result = cf.compact(_history(format), budget=budget, model=MODELS[format], format=format)
    assert result.report.refs
    body = dict(result.payload)
    body["tools"] = [*body.get("tools", []), cf.recall_tool(format)]
    return body, list(result.report.refs)


def _post(url: str, format: cf.Format, body: dict[str, Any]) -> str:
    """The client's answer as text (a stream read to its end)."""
    with httpx.stream("POST", url + PATHS[format], json=body, timeout=30) as answer:
        assert answer.status_code == 200, answer.read()
        return answer.read().decode()


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("format", ["openai-chat", "openai-responses", "anthropic"])
def test_a_recall_call_for_the_clients_own_reference_reaches_the_client(
    format: cf.Format, stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    body, refs = _client_request(format, 16_000)
    upstream.recall_every, upstream.recall_ref = 1, refs[0]
    text = _post(running.url, format, {**body, "stream": stream})
    assert running.proxy.metrics.compactions._value.get() == 1  # the proxy folded too
    assert len(upstream.seen) == 1  # no round: the proxy's archive has no such reference
    assert upstream.recall_answers == []
    assert cf.RECALL_TOOL_NAME in text
    assert refs[0] in text


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("format", ["openai-chat", "openai-responses", "anthropic"])
def test_a_recall_call_for_the_proxys_reference_is_still_answered_by_the_proxy(
    format: cf.Format, stream: bool, upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    body = {**_history(format), "tools": [cf.recall_tool(format)], "stream": stream}
    upstream.recall_every, upstream.answered = 2, 1  # recall first, then read a file
    text = _post(running.url, format, body)
    assert len(upstream.seen) == 2  # one round, answered by the proxy from its archive
    ((answer, error),) = upstream.recall_answers
    assert not error
    assert not answer.startswith(cf.RECALL_TOOL_NAME)
    assert "read_file" in text
    assert cf.RECALL_TOOL_NAME not in text


def test_a_recall_call_after_streamed_text_is_not_hidden_from_a_client_that_declared_it(
    upstream: Upstream, make_proxy: ProxyFactory
) -> None:
    running = make_proxy()
    body, refs = _client_request("openai-chat", 16_000)
    upstream.recall_every, upstream.recall_ref = 1, refs[0]
    upstream.text_before_recall = "Let me look at that again."
    text = _post(running.url, "openai-chat", {**body, "stream": True})
    assert len(upstream.seen) == 1
    assert "Let me look at that again." in text
    assert cf.RECALL_TOOL_NAME in text
    assert refs[0] in text
